// Our side of bench/dequant_vs_ggml.py: gguf::dequantize_row on the same input as the
// reference driver (bench/reference/ggml_dequant_bench.cpp), and memcpy of the output size.
// usage: bench_dequant_vs FIXTURE OUT_MIB REPS
//   prints "TYPE GB/s" per q.<type> tensor of the fixture (tiled to OUT_MIB MiB of float32
//   output, median of REPS calls, single thread), then "memcpy GB/s".
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "gguf/file.h"
#include "gguf/quant.h"
#include "median_gbps.h"


int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s FIXTURE OUT_MIB REPS\n", argv[0]);
    return 2;
  }
  const size_t n = size_t(std::atof(argv[2]) * 1024 * 1024 / 4);
  const int reps = std::max(1, std::atoi(argv[3]));
  auto f = gguf::file::open(argv[1]);
  if (!f) {
    std::fprintf(stderr, "gguf: %s: %s\n", argv[1], f.error().message().c_str());
    return 1;
  }
  std::vector<float> dst(n);
  for (const auto& t : f->tensors()) {
    if (t.name.rfind("q.", 0) != 0) continue;
    const auto* tr = gguf::ggml_type_traits(t.type);
    const size_t in_bytes = n / tr->blck_size * tr->type_size;
    std::vector<std::byte> src(in_bytes);
    for (size_t off = 0; off < in_bytes; off += t.data.size())
      std::memcpy(src.data() + off, t.data.data(), std::min(t.data.size(), in_bytes - off));
    bool ok = true;
    const double r = median_gbps([&] { ok &= bool(gguf::dequantize_row(t.type, src, dst)); }, n * 4, reps);
    if (!ok) return 1;
    std::printf("%s %.3f\n", std::string(t.name.substr(2)).c_str(), r);
  }
  std::vector<float> src(n, 1.0f);
  std::printf("memcpy %.3f\n", median_gbps([&] { std::memcpy(dst.data(), src.data(), n * 4); }, n * 4, reps));
  return 0;
}
