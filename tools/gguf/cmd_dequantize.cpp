// gguf dequantize FILE TENSOR [-o OUT] [--json]: a tensor as raw little-endian float32.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iostream>
#include <vector>

#include "commands.h"
#include "gguf/io.h"
#include "gguf/quant.h"
#include "progress.h"

namespace gguf::cli::cmd_dequantize {
namespace {

using sink = std::function<result<void>(std::span<const std::byte>)>;

// Streams the tensor to `put` in chunks of whole blocks (bounded memory for any size).
result<void> write_tensor(const gguf::file& f, const tensor_info& t, const sink& put) {
  if (!can_dequantize(t.type) || (f.byte_order() == byte_order::big && !can_dequantize_big_endian(t.type))) {
    // Let dequantize_row produce the precise message.
    std::vector<float> probe(ggml_type_traits(t.type)->blck_size);
    if (auto fr = f.fetch(t.data.first(std::min<size_t>(t.data.size(), ggml_type_traits(t.type)->type_size))); !fr)
      return fr.error();
    auto r = dequantize_row(t.type, t.data.first(std::min<size_t>(t.data.size(), ggml_type_traits(t.type)->type_size)),
                            probe, f.byte_order());
    gguf::error e = r ? make_error(errc::unsupported, no_offset, "cannot dequantize") : r.error();
    e.subject = std::string(t.name);
    e.subject_is_tensor = true;
    return e;
  }
  const auto* tr = ggml_type_traits(t.type);
  const size_t total_blocks = t.nbytes / tr->type_size;
  const size_t chunk_blocks = std::max<size_t>(1, (size_t{1} << 18) / tr->blck_size);
  std::vector<float> buf(chunk_blocks * tr->blck_size);
  // A remote tensor is fetched in windows of 16 MiB, each dropped once written.
  const size_t window = std::max<size_t>(tr->type_size, (size_t{16} << 20) / tr->type_size * tr->type_size);
  size_t fetched_from = 0, fetched_to = 0;
  for (size_t done = 0; done < total_blocks;) {
    const size_t n = std::min(chunk_blocks, total_blocks - done);
    if ((done + n) * tr->type_size > fetched_to) {
      f.release(t.data.subspan(fetched_from, fetched_to - fetched_from));
      fetched_from = done * tr->type_size;
      fetched_to = std::min(t.nbytes, fetched_from + std::max(window, n * tr->type_size));
      if (auto fr = f.fetch(t.data.subspan(fetched_from, fetched_to - fetched_from)); !fr) {
        gguf::error e = fr.error();
        e.subject = std::string(t.name);
        e.subject_is_tensor = true;
        return e;
      }
    }
    std::span<float> out(buf.data(), n * tr->blck_size);
    auto r = dequantize_row(t.type, t.data.subspan(done * tr->type_size, n * tr->type_size), out, f.byte_order());
    if (!r) {
      gguf::error e = r.error();
      e.subject = std::string(t.name);
      e.subject_is_tensor = true;
      return e;
    }
    if constexpr (std::endian::native == std::endian::big) {
      for (float& v : out) v = std::bit_cast<float>(__builtin_bswap32(std::bit_cast<uint32_t>(v)));
    }
    if (auto w = put(std::as_bytes(out)); !w) return w;
    done += n;
  }
  return {};
}

int run(int argc, char** argv) {
  CLI::App app{"Write a tensor dequantized to raw little-endian float32 (row-major, ne[0] fastest).",
               "dequantize"};
  std::string path, tensor, out_path;
  bool force = false;
  read_flags rf;
  app.add_option("FILE", path, "GGUF file ('-' for standard input)")->required();
  app.add_option("TENSOR", tensor, "tensor name, e.g. token_embd.weight")->required();
  app.add_option("-o,--output", out_path, "output file (written to a temporary name, then renamed); default (or '-') stdout");
  app.add_flag("--force", force, "with -o: replace OUT when it exists");
  add_read_options(app, rf, "with -o: print a JSON summary (tensor, type, ne, elements, bytes, output)");
  const bool& json = rf.json;
  if (auto rc = parse(app, argc, argv)) return *rc;
  if (out_path == "-") out_path.clear();  // standard output, as '-' everywhere
  if (json && out_path.empty()) {
    std::cerr << "gguf dequantize: --json needs -o (the floats go to standard output otherwise)\n";
    return exit_usage;
  }
  if (!out_path.empty()) {
    if (auto rc = refuse_urls("dequantize", {out_path})) return *rc;
    // Issue 29, item 9: an existing OUT only with --force, never the input itself.
    if (auto rc = check_output_path(out_path, std::vector<std::filesystem::path>{path}, force, false)) return *rc;
  }
  auto f = open_model(path);
  if (!f) return report(input_name(path), f.error());
  auto t = f->get_tensor(tensor);
  if (!t) return report(input_name(path), t.error());

  if (out_path.empty()) {
    bool write_failed = false;  // the error is standard output's, not the file's
    auto r = write_tensor(*f, **t, [&](std::span<const std::byte> b) -> result<void> {
      if (!io::write_all(STDOUT_FILENO, b.data(), b.size())) {
        write_failed = true;
        return make_error(errc::io_error, no_offset,
                          std::string("cannot write: ") + std::strerror(errno) + "; the output is incomplete");
      }
      return {};
    });
    if (!r) return report(write_failed ? "standard output" : input_name(path), r.error());
    return exit_ok;
  }

  output_options o;
  o.expected_size = (*t)->nelements() * sizeof(float);
  auto out = safe_output::create(out_path, o);
  if (!out) return report(out_path, out.error());
  say_removed_temp_files(out_path, out->stale_temp_files());
  auto r = write_tensor(*f, **t, [&](std::span<const std::byte> b) { return out->write(b); });
  if (!r) return report(r.error().code == errc::io_error ? out_path : input_name(path), r.error());
  if (auto c = out->commit(); !c) return report(out_path, c.error());
  if (json) {
    nlohmann::ordered_json j;
    j["file"] = input_name(path);
    j["tensor"] = tensor;
    j["type"] = std::string(ggml_type_name((*t)->type));
    auto ne = nlohmann::ordered_json::array();
    for (uint32_t d = 0; d < (*t)->n_dims; ++d) ne.push_back((*t)->ne[d]);
    j["ne"] = ne;
    j["elements"] = (*t)->nelements();
    j["bytes"] = (*t)->nelements() * sizeof(float);
    j["output"] = out_path;
    print_json(j, -1);
  }
  return exit_ok;
}

const registrar reg{"dequantize", "write a tensor as raw little-endian float32", run};

}  // namespace
}  // namespace gguf::cli::cmd_dequantize
