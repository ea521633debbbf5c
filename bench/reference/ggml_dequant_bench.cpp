// The reference side of bench/dequant_vs_ggml.py: ggml's own dequantization speed, built
// against the reference libggml-base (ggml_get_type_traits(t)->to_float) and, for f16 and
// bf16, the CPU backend library this machine would load (ggml_cpu_fp16_to_fp32 /
// ggml_cpu_bf16_to_fp32, found with dlopen; the best-scoring libggml-cpu-*.so variant).
// usage: ggml_dequant_bench FIXTURE OUT_MIB REPS [CPU_LIB]
//   FIXTURE: quant/quant-fixture.gguf (q.<type> tensors quantized by ggml), tiled to
//   OUT_MIB MiB of float32 output. prints "TYPE to_float GB/s [cpu GB/s]" (median of REPS).
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "ggml.h"
#include "gguf.h"
#include "../median_gbps.h"

using conv_fn = void (*)(const void*, float*, int64_t);


int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s FIXTURE OUT_MIB REPS [CPU_LIB]\n", argv[0]);
    return 2;
  }
  const size_t n = size_t(atof(argv[2]) * 1024 * 1024 / 4);
  const int reps = atoi(argv[3]);
  conv_fn cpu_f16 = nullptr, cpu_bf16 = nullptr;
  if (argc > 4) {
    void* h = dlopen(argv[4], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      fprintf(stderr, "%s\n", dlerror());
      return 1;
    }
    cpu_f16 = conv_fn(dlsym(h, "ggml_cpu_fp16_to_fp32"));
    cpu_bf16 = conv_fn(dlsym(h, "ggml_cpu_bf16_to_fp32"));
  }
  gguf_init_params gp = {true, nullptr};
  gguf_context* g = gguf_init_from_file(argv[1], gp);
  if (!g) return 1;
  FILE* f = fopen(argv[1], "rb");
  std::vector<float> dst(n);
  for (int64_t t = 0; t < gguf_get_n_tensors(g); ++t) {
    const std::string name = gguf_get_tensor_name(g, t);
    if (name.rfind("q.", 0) != 0) continue;
    const ggml_type type = gguf_get_tensor_type(g, t);
    const size_t bytes = gguf_get_tensor_size(g, t);
    std::vector<char> blocks(bytes);
    fseek(f, long(gguf_get_data_offset(g) + gguf_get_tensor_offset(g, t)), SEEK_SET);
    if (fread(blocks.data(), 1, bytes, f) != bytes) return 1;
    const size_t in_bytes = n / ggml_blck_size(type) * ggml_type_size(type);
    std::vector<char> src(in_bytes);
    for (size_t off = 0; off < in_bytes; off += bytes) memcpy(src.data() + off, blocks.data(), std::min(bytes, in_bytes - off));
    const auto* tr = ggml_get_type_traits(type);
    if (!tr->to_float) continue;
    printf("%s %.3f", name.c_str() + 2, median_gbps([&] { tr->to_float(src.data(), dst.data(), int64_t(n)); }, n * 4, reps));
    conv_fn c = type == GGML_TYPE_F16 ? cpu_f16 : type == GGML_TYPE_BF16 ? cpu_bf16 : nullptr;
    if (c) printf(" %.3f", median_gbps([&] { c(src.data(), dst.data(), int64_t(n)); }, n * 4, reps));
    printf("\n");
  }
  fclose(f);
  gguf_free(g);
  return 0;
}
