// gguf convert-endian FILE --to big|little|native [-o OUT] [--dry-run]: the file in the
// other byte order, every ggml type (gguf/byte_swap.h), layout kept. Without -o the file
// is replaced (atomically: a temporary file renamed over it).
#include <bit>
#include <iostream>
#include <map>

#include "commands.h"
#include "gguf/byte_swap.h"
#include "progress.h"

namespace gguf::cli::cmd_convert_endian {
namespace {

int run(int argc, char** argv) {
  CLI::App app{"Convert a GGUF file to big- or little-endian (every ggml type; layout kept).", "convert-endian"};
  std::string path, to, out_path;
  write_flags w;
  app.add_option("FILE", path, "GGUF file ('-' for standard input, with -o)")->required();
  app.add_option("--to", to, "byte order to write: big, little or native")
      ->required()
      ->check(CLI::IsMember({"big", "little", "native"}));
  app.add_option("-o,--output", out_path, "output file (default: replace FILE)");
  add_write_options(app, w, "print what would be converted; write nothing", "replace an OUT that exists (other than FILE)");
  const auto& [dry_run, force, break_links] = w;
  if (auto rc = parse(app, argc, argv)) return *rc;
  if (auto rc = refuse_urls("convert-endian", {path, out_path})) return *rc;
  if (auto rc = refuse_stdout_output("convert-endian", out_path)) return *rc;
  // Issue 29, item 11: '-' is standard input; the result then needs a file to go to.
  if (path == "-" && out_path.empty()) {
    std::cerr << "gguf convert-endian: standard input ('-') needs -o OUT (there is no file to replace)\n";
    return exit_usage;
  }
  if (!out_path.empty() && !dry_run) {
    if (auto rc = check_output_path(out_path, std::vector<std::filesystem::path>{path}, force, true)) return *rc;
  }

  auto f = open_input(path);
  const std::string name = input_name(path);
  if (!f) return report(name, f.error());
  const byte_order want = to == "big"      ? byte_order::big
                          : to == "little" ? byte_order::little
                                           : (std::endian::native == std::endian::big ? byte_order::big
                                                                                      : byte_order::little);
  const std::string target = out_path.empty() ? path : out_path;
  if (dry_run) {
    std::map<std::string_view, size_t> types;
    for (const auto& t : f->tensors()) ++types[ggml_type_name(t.type)];
    std::cout << name << ": " << byte_order_name(f->byte_order()) << "-endian";
    if (f->byte_order() == want) {
      std::cout << ", already " << byte_order_name(want) << "-endian: nothing to convert\n";
      return exit_ok;
    }
    std::cout << " -> " << byte_order_name(want) << "-endian, " << f->kv_count() << " keys, " << f->tensor_count()
              << " tensors";
    for (const auto& [tname, n] : types) std::cout << " " << tname << ":" << n;
    std::cout << " -> " << target << " (dry run: nothing written)\n";
    return exit_ok;
  }
  if (f->byte_order() == want && out_path.empty()) {
    std::cerr << "gguf convert-endian: " << path << " is already " << byte_order_name(want) << "-endian\n";
    return exit_ok;
  }
  output_options o;
  o.break_links = break_links;
  o.expected_size = f->size();
  o.progress = progress_line("convert-endian " + target);
  auto out = safe_output::create(target, o);
  if (!out) return report(target, out.error());
  say_removed_temp_files(target, out->stale_temp_files());
  auto r = f->byte_order() == want ? out->write(f->bytes()) : write_byte_swapped(*f, *out);
  if (!r) return report(r.error().code == errc::io_error ? target : name, r.error());
  if (auto c = out->commit(); !c) return report(target, c.error());
  return exit_ok;
}

const registrar reg{"convert-endian", "write a GGUF file in the other byte order (every ggml type)", run};

}  // namespace
}  // namespace gguf::cli::cmd_convert_endian
