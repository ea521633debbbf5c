// gguf dequantize FILE TENSOR [-o OUT] [--json]: a tensor as raw little-endian float32.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <vector>

#include "commands.h"
#include "gguf/quant.h"

namespace gguf::cli {
namespace {

// Writes all of `bytes` to fd; false on error (errno set).
bool write_all(int fd, const void* data, size_t n) {
  const auto* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

// Streams the tensor to fd in chunks of whole blocks (bounded memory for any size).
result<void> write_tensor(const gguf::file& f, const tensor_info& t, int fd) {
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
    if (!write_all(fd, out.data(), out.size_bytes())) {
      return make_error(errc::io_error, no_offset, std::string("write failed: ") + std::strerror(errno));
    }
    done += n;
  }
  return {};
}

int run(int argc, char** argv) {
  CLI::App app{"Write a tensor dequantized to raw little-endian float32 (row-major, ne[0] fastest).",
               "dequantize"};
  std::string path, tensor, out_path;
  bool json = false, force = false;
  app.add_option("FILE", path, "GGUF file ('-' for standard input)")->required();
  app.add_option("TENSOR", tensor, "tensor name, e.g. token_embd.weight")->required();
  app.add_option("-o,--output", out_path, "output file (written to a temporary name, then renamed); default stdout");
  app.add_flag("--json", json, "with -o: print a JSON summary (tensor, type, ne, elements, bytes, output)");
  app.add_flag("--force", force, "with -o: replace OUT when it exists");
  add_remote_options(app);
  if (auto rc = parse(app, argc, argv)) return *rc;
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
    auto r = write_tensor(*f, **t, STDOUT_FILENO);
    if (!r) return report(input_name(path), r.error());
    return exit_ok;
  }

  std::string tmp = out_path + ".tmp-XXXXXX";
  int fd = ::mkstemp(tmp.data());
  if (fd < 0) {
    return report(out_path, make_error(errc::io_error, no_offset, std::string("cannot create ") + tmp + ": " +
                                                                       std::strerror(errno)));
  }
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);  // mkstemp makes 0600; give the usual permissions
  auto r = write_tensor(*f, **t, fd);
  const bool closed = ::close(fd) == 0;
  if (!r || !closed) {
    ::unlink(tmp.c_str());
    if (!r) return report(r.error().code == errc::io_error ? out_path : input_name(path), r.error());
    return report(out_path, make_error(errc::io_error, no_offset, std::string("close failed: ") + std::strerror(errno)));
  }
  if (std::rename(tmp.c_str(), out_path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(tmp.c_str());
    return report(out_path, make_error(errc::io_error, no_offset, "cannot rename " + tmp + ": " + why));
  }
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
}  // namespace gguf::cli
