// gguf quantize [options] IN [OUT] TYPE [NTHREADS]: llama-quantize (v0.5.0) with the same
// positional order, type names and numbers, and options; the output is byte-identical
// (gguf/quantize.h, docs/quantize.md). Written atomically; OUT is never IN, and an
// existing OUT is replaced only with --force.
#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <regex>
#include <iostream>

#include "commands.h"
#include "gguf/quantize.h"
#include "progress.h"

namespace gguf::cli::cmd_quantize {
namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = char(std::tolower(uint8_t(c)));
  return s;
}

std::string type_list() {
  std::string s = "TYPE is one of (name or number):";
  for (const auto& f : quantize_ftypes()) {
    s += "\n  " + std::string(f.name) + (f.name == "COPY" ? "" : " (" + std::to_string(f.ftype) + ")") + " :" +
         std::string(f.description);
  }
  return s;
}

int usage_error(const std::string& what) {
  std::fprintf(stderr, "gguf quantize: %s\n", what.c_str());
  return exit_usage;
}

// --tensor-type NAME=TYPE as llama-quantize's parse_tensor_type (name lower-cased).
std::optional<std::string> add_tensor_type(const std::string& arg, quantize_options& o) {
  const auto eq = arg.find('=');
  if (eq == std::string::npos) return "malformed tensor type '" + arg + "'";
  if (eq == 0) return std::string("missing tensor name in '") + arg + "'";
  if (eq + 1 == arg.size()) return "missing quantization type in '" + arg + "'";
  auto t = ggml_type_from_name(arg.substr(eq + 1));
  if (!t) return "invalid quantization type '" + arg.substr(eq + 1) + "'";
  std::string pattern = lower(arg.substr(0, eq));
  try {
    std::regex re(pattern);
  } catch (const std::regex_error& e) {
    return "tensor type pattern '" + pattern + "' is not a regex: " + e.what();
  }
  o.tensor_types.emplace_back(std::move(pattern), *t);
  return std::nullopt;
}

void print_plan(const quantize_plan& p, bool json) {
  auto bpw = [](uint64_t bytes, uint64_t n) { return n ? 8.0 * double(bytes) / double(n) : 0.0; };
  if (json) {
    nlohmann::ordered_json j;
    j["file_type"] = p.ftype;
    auto& ts = j["tensors"] = nlohmann::ordered_json::array();
    for (const auto& t : p.tensors) {
      const uint64_t n = t.ne[0] * t.ne[1] * t.ne[2] * t.ne[3];
      ts.push_back({{"name", t.name},
                    {"ne", std::vector<uint64_t>(t.ne.begin(), t.ne.begin() + t.n_dims)},
                    {"type_in", ggml_type_name(t.type_in)},
                    {"type", ggml_type_name(t.type_out)},
                    {"size_in", t.size_in},
                    {"size", t.size_out},
                    {"bpw", bpw(t.size_out, n)},
                    {"fallback", t.fallback},
                    {"requires_imatrix", t.requires_imatrix}});
    }
    j["size_in"] = p.size_in;
    j["size"] = p.size_out;
    j["bpw"] = bpw(p.size_out, p.n_elements);
    j["file_sizes"] = p.file_sizes;
    j["n_fallback"] = p.n_fallback;
    j["needs_imatrix"] = p.needs_imatrix;
    print_json(j, 2);
    return;
  }
  std::printf("%-40s %-8s %-8s %14s %14s %7s\n", "tensor", "from", "to", "bytes in", "bytes out", "bpw");
  for (const auto& t : p.tensors) {
    const uint64_t n = t.ne[0] * t.ne[1] * t.ne[2] * t.ne[3];
    std::printf("%-40s %-8s %-8s %14" PRIu64 " %14" PRIu64 " %7.3f%s\n", printable_name(t.name).c_str(),
                std::string(ggml_type_name(t.type_in)).c_str(), std::string(ggml_type_name(t.type_out)).c_str(),
                t.size_in, t.size_out, bpw(t.size_out, n), t.fallback ? "  (fallback)" : "");
  }
  uint64_t file_total = 0;
  for (auto s : p.file_sizes) file_total += s;
  std::printf("total: %zu tensors, %" PRIu64 " -> %" PRIu64 " bytes of tensors (%.2f -> %.2f bpw), file size %" PRIu64
              " bytes\n",
              p.tensors.size(), p.size_in, p.size_out, bpw(p.size_in, p.n_elements), bpw(p.size_out, p.n_elements),
              file_total);
  if (p.n_fallback) std::printf("%u of %u tensor(s) required fallback quantization\n", p.n_fallback, p.n_input_tensors);
  if (p.needs_imatrix) std::printf("note: writing this quantization requires an importance matrix (--imatrix)\n");
}

// The usage line as llama-quantize's (CLI11 would render the 2 to 4 positionals as
// "IN OUT TYPE NTHREADS(2x)").
class usage_formatter : public CLI::Formatter {
 public:
  std::string make_usage(const CLI::App*, std::string name) const override {
    return "Usage: " + name + " [OPTIONS] IN [OUT] TYPE [NTHREADS]\n";
  }
  std::string make_option_opts(const CLI::Option* opt) const override {
    return opt->get_positional() ? std::string(" REQUIRED") : CLI::Formatter::make_option_opts(opt);
  }
};

int run(int argc, char** argv) {
  CLI::App app{"Quantize a model as llama-quantize does (byte-identical output).", "quantize"};
  app.footer(type_list());
  std::vector<std::string> pos;
  quantize_options o;
  bool leave_output = false, dry_run = false, json = false;
  std::string imatrix_file, tensor_type_file, prune, out_type, embd_type;
  std::vector<std::string> include, exclude, tensor_types, overrides;
  int threads = 0, max_buffer_mib = 0;
  app.formatter(std::make_shared<usage_formatter>());
  app.add_option("IN [OUT] TYPE [NTHREADS]", pos, "input model (a file, a shard of a split model or a URL), output, "
                                               "file type, threads (OUT may be left out, as llama-quantize: "
                                               "ggml-model-TYPE.gguf beside IN)")
      ->expected(2, 4)
      ->required()
      ->type_name("");
  app.add_flag("--allow-requantize", o.allow_requantize, "allow requantizing tensors that are already quantized");
  app.add_flag("--leave-output-tensor", leave_output, "leave output.weight un(re)quantized");
  app.add_flag("--pure", o.pure, "no k-quant mixtures: every tensor the same type");
  app.add_option("--imatrix", imatrix_file, "importance matrix (GGUF imatrix or legacy .dat)");
  app.add_option("--include-weights", include, "use the imatrix only for tensors whose name contains this")
      ->allow_extra_args(false);
  app.add_option("--exclude-weights", exclude, "do not use the imatrix for tensors whose name contains this")
      ->allow_extra_args(false);
  app.add_option("--output-tensor-type", out_type, "ggml type of output.weight");
  app.add_option("--token-embedding-type", embd_type, "ggml type of the token embeddings");
  app.add_option("--tensor-type", tensor_types, "PATTERN=TYPE: tensors whose name matches the regex get TYPE (repeatable)")
      ->allow_extra_args(false);
  app.add_option("--tensor-type-file", tensor_type_file, "file of PATTERN=TYPE entries separated by spaces or newlines");
  app.add_option("--prune-layers", prune, "comma-separated layer numbers to remove");
  app.add_flag("--keep-split", o.keep_split, "write the output in the same shards as the input");
  app.add_option("--override-kv", overrides, "KEY=TYPE:VALUE (TYPE int, float, bool, str; repeatable)")
      ->allow_extra_args(false);
  app.add_flag("--dry-run", dry_run, "print the plan (each tensor's type, size, bits per weight; the total); write nothing");
  app.add_flag("--json", json, "with --dry-run: the plan as JSON")->needs("--dry-run");
  app.add_option("--max-buffer-size", max_buffer_mib, "MiB (accepted for llama-quantize compatibility; memory stays bounded)");
  app.add_option("--threads,-t", threads, "threads (as NTHREADS; default: every core)");
  app.add_flag("--force", o.force, "replace OUT when it exists");
  add_remote_options(app);
  if (auto rc = parse(app, argc, argv)) return *rc;

  if (!include.empty() && !exclude.empty()) return usage_error("--include-weights and --exclude-weights cannot be used together");
  o.quantize_output_tensor = !leave_output;
  if (!out_type.empty()) {
    o.output_tensor_type = ggml_type_from_name(out_type);
    if (!o.output_tensor_type) return usage_error("invalid ggml_type '" + out_type + "'");
  }
  if (!embd_type.empty()) {
    o.token_embedding_type = ggml_type_from_name(embd_type);
    if (!o.token_embedding_type) return usage_error("invalid ggml_type '" + embd_type + "'");
  }
  for (const auto& t : tensor_types) {
    if (auto e = add_tensor_type(t, o)) return usage_error(*e);
  }
  if (!tensor_type_file.empty()) {
    std::ifstream in(tensor_type_file);
    if (!in) return report(tensor_type_file, make_error(errc::io_error, no_offset, "cannot read the tensor type file"));
    for (std::string w; in >> w;) {
      if (auto e = add_tensor_type(w, o)) return usage_error(tensor_type_file + ": " + *e);
    }
  }
  if (!prune.empty()) {
    for (size_t a = 0; a <= prune.size();) {
      size_t b = prune.find(',', a);
      if (b == std::string::npos) b = prune.size();
      const std::string id = prune.substr(a, b - a);
      int v = -1;
      try {
        v = std::stoi(id);
      } catch (...) {
      }
      if (v < 0) return usage_error("invalid layer id '" + id + "'");
      o.prune_layers.push_back(v);
      a = b + 1;
    }
    std::sort(o.prune_layers.begin(), o.prune_layers.end());
    o.prune_layers.erase(std::unique(o.prune_layers.begin(), o.prune_layers.end()), o.prune_layers.end());
  }
  for (const auto& kv : overrides) {
    auto r = parse_kv_override(kv);
    if (!r) return usage_error(r.error().detail);
    o.kv_overrides.push_back(*r);
  }

  // Positionals as llama-quantize: IN TYPE [N] (OUT beside IN) or IN OUT TYPE [N].
  const std::string in_path = pos[0];
  std::string out_path;
  size_t k = 1;
  auto ft = parse_ftype(pos[k]);
  if (ft) {
    const auto slash = in_path.find_last_of('/');
    out_path = (slash == std::string::npos ? "" : in_path.substr(0, slash + 1)) + "ggml-model-" + std::string(ft->name);
    if (!o.keep_split) out_path += ".gguf";
    ++k;
  } else {
    out_path = pos[k++];
    if (o.keep_split && out_path.find(".gguf") != std::string::npos) out_path.resize(out_path.size() - 5);
    if (k >= pos.size()) return usage_error("missing TYPE\n" + type_list());
    ft = parse_ftype(pos[k]);
    if (!ft) return usage_error("invalid TYPE '" + pos[k] + "' (a file type of llama-quantize: gguf quantize --help)");
    ++k;
  }
  if (k < pos.size()) {
    try {
      o.nthread = std::stoi(pos[k++]);
    } catch (...) {
      return usage_error("invalid NTHREADS '" + pos[k - 1] + "'");
    }
  }
  if (k < pos.size()) return usage_error("unexpected argument '" + pos[k] + "'");
  if (threads > 0) o.nthread = threads;
  // the input may be a URL; OUT is written here (issue 29, item 7: also OUT beside a URL IN)
  if (auto rc = refuse_urls("quantize", {out_path})) return *rc;
  if (auto rc = refuse_stdout_output("quantize", out_path)) return *rc;
  o.ftype = ft->ftype;
  o.only_copy = ft->name == "COPY";

  importance_matrix im;
  if (!imatrix_file.empty()) {
    auto r = load_importance_matrix(imatrix_file, include, exclude);
    if (!r) return report(imatrix_file, r.error());
    im = std::move(*r);
    if (!im.entries.empty()) {
      o.imatrix = &im;
      o.imatrix_file = imatrix_file;
    }
  }

  // OUT first, as llama-quantize (a refusal is a usage error, said once; the library checks
  // the input's other shards and --keep-split's outputs again)
  if (!dry_run && !o.keep_split) {
    const std::filesystem::path inputs[] = {in_path};
    if (auto rc = check_output_path(out_path, inputs, o.force, false)) return *rc;
  }
  auto f = open_input(in_path);
  if (!f) return report(in_path, f.error());
  auto m = model_files::from_file(*f, [](const std::string& p) { return open_input(p); });
  if (!m) return report(in_path, m.error());

  if (dry_run) {
    auto p = plan_quantize(*m, {}, o);
    if (!p) return report(in_path, p.error());
    print_plan(*p, json);
    return exit_ok;
  }
  o.progress = progress_line("quantize " + out_path);
  auto p = quantize_model(*m, out_path, o);
  if (!p) return report(p.error().code == errc::io_error ? out_path : in_path, p.error());
  say_removed_temp_files(out_path, p->stale_temp_files);
  for (size_t i = 0; i < p->paths.size(); ++i) {
    std::fprintf(stderr, "%s: %zu tensors, %" PRIu64 " bytes (%s)\n", p->paths[i].c_str(), p->tensors.size(),
                 p->file_sizes[i], std::string(ft->name).c_str());
  }
  if (p->n_fallback) {
    std::fprintf(stderr, "%u of %u tensor(s) required fallback quantization\n", p->n_fallback, p->n_input_tensors);
  }
  return exit_ok;
}

const registrar reg{"quantize", "quantize a model as llama-quantize does (byte-identical)", run};

}  // namespace
}  // namespace gguf::cli::cmd_quantize
