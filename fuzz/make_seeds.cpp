// gguf_fuzz_seeds IN.gguf... OUTDIR — miniature copies of real GGUF files as fuzz seeds.
//
// A real file's metadata and tensor data are megabytes; a fuzzer executes such an input
// a few hundred times a second. The miniature keeps every key with its real type
// (arrays cut to their first 8 elements, strings to 64 bytes) and up to 8 tensors with
// their real type and n_dims but one block of data each, and is written as v3
// little-endian, v3 big-endian and v2, so the seeds cover every structure the reader
// parses at small size. Not part of the library; built with the fuzz targets.
//
// gguf_fuzz_seeds --blocks IN.gguf... OUTDIR — for fuzz_dequant: for each tensor, its
// type id, a byte-order byte and its first 4 blocks (input layout of fuzz_dequant.cpp).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gguf/file.h"
#include "gguf/writer.h"

namespace {

constexpr uint64_t keep_elems = 8;
constexpr size_t keep_chars = 64;
constexpr size_t keep_tensors = 8;

gguf::value shrink(const gguf::value_ref& v) {
  if (v.type() == gguf::value_type::string) {
    auto s = *v.get<std::string_view>();
    return gguf::value::string(s.substr(0, std::min(s.size(), keep_chars)));
  }
  if (v.type() != gguf::value_type::array) return gguf::value::copy_of(v);
  auto a = *v.array();
  uint64_t n = std::min(a.size(), keep_elems);
  if (a.element_type() == gguf::value_type::string) {
    std::vector<std::string> elems;
    a.for_each_string([&](uint64_t i, std::string_view s) {
       if (i < n) elems.emplace_back(s.substr(0, std::min(s.size(), keep_chars)));
     }).value();
    return gguf::value::string_array(elems);
  }
  if (a.element_type() == gguf::value_type::array) {
    std::vector<gguf::value> elems;
    for (uint64_t i = 0; i < n; ++i) elems.push_back(shrink(*a.at(i)));
    return gguf::value::array_of_arrays(elems).value();
  }
  // Fixed-size elements: the copy's payload is little-endian; keep its first n elements.
  auto full = gguf::value::copy_of(v);
  size_t each = gguf::value_type_size(a.element_type());
  return gguf::value::raw_array(a.element_type(), n, full.payload().substr(0, n * each));
}

bool write(const std::vector<std::byte>& bytes, const std::filesystem::path& p) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  return static_cast<bool>(out);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: gguf_fuzz_seeds IN.gguf... OUTDIR\n");
    return 2;
  }
  std::filesystem::path out_dir = argv[argc - 1];
  int made = 0;
  bool blocks = std::string_view(argv[1]) == "--blocks";
  for (int i = blocks ? 2 : 1; blocks && i < argc - 1; ++i) {
    auto f = gguf::file::open(argv[i]);
    if (!f) continue;
    std::string stem = std::filesystem::path(argv[i]).stem().string();
    for (const auto& t : f->tensors()) {
      const auto* tr = gguf::ggml_type_traits(t.type);
      size_t n = std::min<size_t>(t.data.size(), 4 * size_t{tr->type_size});
      std::vector<std::byte> seed{static_cast<std::byte>(t.type),
                                  std::byte{f->byte_order() == gguf::byte_order::big ? uint8_t{1} : uint8_t{0}}};
      seed.insert(seed.end(), t.data.begin(), t.data.begin() + n);
      made += write(seed, out_dir / (stem + "." + std::string(t.name) + ".blocks"));
    }
  }
  for (int i = 1; !blocks && i < argc - 1; ++i) {
    auto f = gguf::file::open(argv[i]);
    if (!f) continue;  // invalid files are seeded whole by the caller
    std::string stem = std::filesystem::path(argv[i]).stem().string();
    struct variant {
      const char* suffix;
      uint32_t version;
      gguf::byte_order order;
    };
    for (auto [suffix, version, order] : {variant{"v3le", 3, gguf::byte_order::little},
                                          variant{"v3be", 3, gguf::byte_order::big},
                                          variant{"v2le", 2, gguf::byte_order::little}}) {
      gguf::writer w({version, order});
      for (const auto& kv : f->kvs()) (void)w.set(kv.key, shrink(kv.value));
      size_t n = 0;
      for (const auto& t : f->tensors()) {
        if (n++ == keep_tensors) break;
        const auto* tr = gguf::ggml_type_traits(t.type);
        std::vector<uint64_t> ne(t.n_dims, 1);
        if (!ne.empty()) ne[0] = tr->blck_size;
        if (ne.empty() && tr->blck_size != 1) continue;
        std::vector<std::byte> data(t.data.begin(), t.data.begin() + tr->type_size);
        (void)w.add_tensor(t.name, t.type, ne, std::move(data));
      }
      made += write(w.to_bytes(), out_dir / (stem + "." + suffix + ".gguf"));
    }
  }
  std::printf("%d seeds\n", made);
  return made > 0 ? 0 : 1;
}
