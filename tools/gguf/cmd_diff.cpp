// gguf diff A B [--values] [--json]: metadata keys and tensors that differ between two
// files (paths, URLs or shard sets); exit 0 same, 1 different, 2 trouble, as diff(1).
#include <cinttypes>
#include <cstdio>
#include <iostream>
#include <thread>

#include "commands.h"
#include "diff_json.h"
#include "gguf/diff.h"

namespace gguf::cli::cmd_diff {
namespace {

const char* const help_footer = R"(Output (text): one line per difference,
  - KEY = VALUE                     key only in A (removed)
  + KEY = VALUE                     key only in B (added)
  ~ KEY: VALUE_A -> VALUE_B         changed (arrays: length, and the first differing index)
  - tensor NAME  TYPE [NE...]       tensor only in A;  + tensor ... only in B
  ~ tensor NAME  TYPE [NE] -> TYPE [NE]  (data differs | type | shape) [nmse X max_abs Y]
and a summary line. Tensors are matched by name and compared by type, shape and data
bytes; their offsets and order are not a difference. split.no, split.count and
split.tensors.count are not compared (a split model equals its merged file).

--values: for a changed tensor of the same shape on both sides, both sides are
dequantized to float32 (as ggml's to_float) in chunks of rows on --threads threads, and
  nmse    = sum (b - a)^2 / sum a^2   (A is the reference; 0 when both sums are 0)
  max_abs = max |b - a|
are printed. Memory: two chunks of --chunk floats per thread.

JSON (--json): {"a": FILE, "b": FILE, "same": bool,
  "kv": [{"key", "status": "added"|"removed"|"changed", "a", "b",
          ["index": first differing array index], ["a_type", "b_type" when the types differ]}],
  "tensors": [{"name", "status", "a": {"type", "ne", "offset", "nbytes"} | null, "b": ...,
               ["type_changed", "shape_changed", "bytes_equal"], "nmse", "max_abs"}]}
Scalar and string values are JSON values; an array is {"type": "array", "element_type",
"length", ["at_index": element at "index"]}. nmse / max_abs are null without --values,
for another shape, a type that cannot be dequantized, or an infinite NMSE.

Exit status: 0 the files are the same, 1 they differ, 2 usage error or unreadable file.
See docs/diff.md.)";

int run(int argc, char** argv) {
  CLI::App app{"Compare two GGUF files: metadata keys and tensors added, removed or changed; with --values, "
               "the NMSE and largest absolute difference of changed tensors after dequantization.",
               "diff"};
  app.footer(help_footer);
  std::string path_a, path_b;
  bool values = false;
  read_flags rf;
  unsigned threads = 0;
  uint64_t chunk = 1 << 20;
  app.add_option("A", path_a, "first file: path, http(s):// URL, or any shard of a split model")->required();
  app.add_option("B", path_b, "second file (the same forms)")->required();
  app.add_flag("--values", values, "compare the values of changed tensors (NMSE, max |b - a|)");
  app.add_option("--threads", threads, "worker threads for --values (0 = every core, the default)")->check(CLI::Range(0u, 4096u));
  app.add_option("--chunk", chunk, "floats per side dequantized at once per thread (default 1048576)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 30));
  add_read_options(app, rf, "one JSON document (schema below)");
  const bool& json = rf.json;
  if (auto rc = parse(app, argc, argv)) return *rc;

  // a file that cannot be read or parsed is trouble (2), never "different" (1), as diff(1)
  auto a = open_model(path_a);
  if (!a) return (report(path_a, a.error()), exit_usage);
  auto b = open_model(path_b);
  if (!b) return (report(path_b, b.error()), exit_usage);
  diff_options o;
  o.values = values;
  o.threads = threads;
  o.chunk_elements = chunk;
  auto d = gguf::diff(*a, *b, o);
  if (!d) return (report(path_a + " vs " + path_b, d.error()), exit_usage);

  if (json) {
    auto j = diff_json(*d);
    nlohmann::ordered_json out = {{"a", path_a}, {"b", path_b}};
    for (auto& [k, v] : j.items()) out[k] = v;
    print_json(out);
    return d->same() ? exit_ok : exit_invalid;
  }
  std::printf("--- %s\n+++ %s\n", path_a.c_str(), path_b.c_str());
  for (const auto& k : d->kv) {
    switch (k.status) {
      case diff_status::removed: std::printf("- %s = %s\n", k.key.c_str(), value_line(*k.a).c_str()); break;
      case diff_status::added: std::printf("+ %s = %s\n", k.key.c_str(), value_line(*k.b).c_str()); break;
      case diff_status::changed: {
        std::string line = value_line(*k.a) + " -> " + value_line(*k.b);
        if (k.a->type() != k.b->type())
          line += " (type " + std::string(value_type_name(k.a->type())) + " -> " +
                  std::string(value_type_name(k.b->type())) + ")";
        if (k.first_diff_index) {
          line += ", first difference at [" + std::to_string(*k.first_diff_index) + "]";
          auto x = k.a->array()->at(*k.first_diff_index);
          auto y = k.b->array()->at(*k.first_diff_index);
          line += ": " + (x ? value_line(*x, 40) : std::string("(none)")) + " -> " +
                  (y ? value_line(*y, 40) : std::string("(none)"));
        }
        std::printf("~ %s: %s\n", k.key.c_str(), line.c_str());
        break;
      }
    }
  }
  for (const auto& t : d->tensors) {
    switch (t.status) {
      case diff_status::removed: std::printf("- tensor %s  %s\n", printable_name(t.name).c_str(), tensor_line(*t.a).c_str()); break;
      case diff_status::added: std::printf("+ tensor %s  %s\n", printable_name(t.name).c_str(), tensor_line(*t.b).c_str()); break;
      case diff_status::changed: {
        std::string what = t.type_changed && t.shape_changed ? "type and shape"
                           : t.type_changed                  ? "type"
                           : t.shape_changed                 ? "shape"
                                                             : "data differs";
        std::printf("~ tensor %s  %s -> %s  (%s)", printable_name(t.name).c_str(), tensor_line(*t.a).c_str(),
                    tensor_line(*t.b).c_str(), what.c_str());
        if (t.nmse) std::printf("  nmse %.6g  max_abs %.6g", *t.nmse, t.max_abs.value_or(0));
        std::printf("\n");
        break;
      }
    }
  }
  if (d->same())
    std::printf("same: %zu keys, %zu tensors\n", a->kv_count(), a->tensor_count());
  else
    std::printf("%zu of %zu keys and %zu of %zu tensors differ\n", d->kv.size(),
                std::max(a->kv_count(), b->kv_count()), d->tensors.size(),
                std::max(a->tensor_count(), b->tensor_count()));
  return d->same() ? exit_ok : exit_invalid;
}

const registrar reg{"diff", "compare two files: keys and tensors added, removed, changed (--values: NMSE)", run};

}  // namespace
}  // namespace gguf::cli::cmd_diff
