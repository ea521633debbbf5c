// Dequantization throughput per ggml type, single-threaded, in bytes of float32 written
// per second, next to memcpy of the same output size (the yardstick: issue 4 asks for
// q4_0 q8_0 q4_K q6_K f16 within 3x of memcpy).
//
// Each benchmark converts a 4096 x 256 matrix (1 Mi floats = 4 MiB out). The quantized
// input is real: the fixture's ggml-quantized blocks (quant/quant-fixture.gguf, q.<type>)
// repeated to fill the matrix; f32/f64/i* inputs are generated. "dequant/<type>" runs
// the kernel dequantize_row picks on this CPU; "dequant_scalar/<type>" the reference
// kernel, for types that also have an AVX2 one.
//
//   build-*/bench/bench_dequant --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "../src/quant/kernels.h"  // kernel_isa, dequantize_row_isa: to time the scalar path too
#include "gguf/file.h"
#include "gguf/quant.h"
#include "bench_data.h"

namespace {

constexpr size_t n_rows = 4096, n_cols = 256, n_elems = n_rows * n_cols;

// n_elems elements of `type`: the fixture's blocks tiled, or generated plain values.
std::vector<std::byte> make_input(gguf::ggml_type type, const gguf::file* fixture) {
  const auto* tr = gguf::ggml_type_traits(type);
  std::vector<std::byte> out(n_elems / tr->blck_size * tr->type_size);
  const gguf::tensor_info* q = fixture ? fixture->find_tensor("q." + std::string(tr->name)) : nullptr;
  if (q) {
    for (size_t off = 0; off < out.size(); off += q->data.size()) {
      std::memcpy(out.data() + off, q->data.data(), std::min(q->data.size(), out.size() - off));
    }
    return out;
  }
  std::mt19937 rng(1);
  std::normal_distribution<double> normal(0.0, 1.0);
  for (size_t i = 0; i < n_elems; ++i) {
    const double v = normal(rng);
    std::byte* p = out.data() + i * tr->type_size;
    switch (type) {
      case gguf::ggml_type::f32: { float f = static_cast<float>(v); std::memcpy(p, &f, 4); break; }
      case gguf::ggml_type::f64: std::memcpy(p, &v, 8); break;
      case gguf::ggml_type::i8: { int8_t x = static_cast<int8_t>(v * 40); std::memcpy(p, &x, 1); break; }
      case gguf::ggml_type::i16: { int16_t x = static_cast<int16_t>(v * 1e4); std::memcpy(p, &x, 2); break; }
      case gguf::ggml_type::i32: { int32_t x = static_cast<int32_t>(v * 1e8); std::memcpy(p, &x, 4); break; }
      case gguf::ggml_type::i64: { int64_t x = static_cast<int64_t>(v * 1e15); std::memcpy(p, &x, 8); break; }
      default: break;
    }
  }
  return out;
}

void dequant(benchmark::State& state, gguf::ggml_type type, gguf::detail::kernel_isa isa, const gguf::file* fixture) {
  const auto src = make_input(type, fixture);
  std::vector<float> dst(n_elems);
  for (auto _ : state) {
    auto r = gguf::detail::dequantize_row_isa(type, src, dst, gguf::byte_order::little, isa);
    if (!r) {
      state.SkipWithError(r.error().message().c_str());
      return;
    }
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(n_elems * sizeof(float)));
}

void copy(benchmark::State& state) {
  std::vector<float> src(n_elems, 1.0f), dst(n_elems);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), n_elems * sizeof(float));
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(n_elems * sizeof(float)));
}

}  // namespace

int main(int argc, char** argv) {
  static std::optional<gguf::file> fixture;
  if (auto f = gguf::file::open(data("quant/quant-fixture.gguf"))) fixture = std::move(f).value();
  const gguf::file* fx = fixture ? &*fixture : nullptr;

  benchmark::RegisterBenchmark("memcpy", copy);
  for (uint32_t id = 0; id < gguf::ggml_type_count; ++id) {
    const auto type = static_cast<gguf::ggml_type>(id);
    if (!gguf::can_dequantize(type)) continue;
    const std::string name(gguf::ggml_type_name(type));
    benchmark::RegisterBenchmark(("dequant/" + name).c_str(), dequant, type, gguf::detail::best_isa(), fx);
    const auto* row = gguf::detail::kernels_for(type);
    if (row->avx512 && gguf::detail::best_isa() == gguf::detail::kernel_isa::avx512) {
      benchmark::RegisterBenchmark(("dequant_avx2/" + name).c_str(), dequant, type, gguf::detail::kernel_isa::avx2, fx);
    }
    if (row->avx2 && gguf::detail::best_isa() != gguf::detail::kernel_isa::scalar) {
      benchmark::RegisterBenchmark(("dequant_scalar/" + name).c_str(), dequant, type, gguf::detail::kernel_isa::scalar,
                                   fx);
    }
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
