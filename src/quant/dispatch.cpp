// The kernel table: one row per ggml type id (the only place that maps a type to its
// dequantization code), and the run-time CPU check. Big-endian blocks are swapped to
// this layout first, by the swap layouts of gguf/byte_swap.h (ggml_swap_layout).
#include <array>

#include "quant/cpu_features.h"
#include "quant/kernels.h"

#if GGUF_QUANT_X86
#include <cpuid.h>
#endif

namespace gguf::detail {
namespace {

constexpr size_t id(ggml_type t) { return static_cast<size_t>(t); }

#if GGUF_QUANT_X86
#define GGUF_AVX2(fn) fn##_avx2
#define GGUF_AVX512(fn) fn##_avx512
#else
#define GGUF_AVX2(fn) nullptr
#define GGUF_AVX512(fn) nullptr
#endif

// The kernels of type T are named after it: dequant_T, and where a SIMD variant exists
// dequant_T_avx2 / dequant_T_avx512. Each list names the types of one column set.
#define GGUF_SCALAR_ONLY(T) t[id(ggml_type::T)] = {dequant_##T, nullptr, nullptr};
#define GGUF_WITH_AVX2(T) t[id(ggml_type::T)] = {dequant_##T, GGUF_AVX2(dequant_##T), nullptr};
// AVX-512 variants where they beat AVX2 (most types have none).
#define GGUF_WITH_AVX512(T) t[id(ggml_type::T)] = {dequant_##T, GGUF_AVX2(dequant_##T), GGUF_AVX512(dequant_##T)};

constexpr std::array<kernel_row, ggml_type_count> make_table() {
  std::array<kernel_row, ggml_type_count> t{};
  GGUF_SCALAR_ONLY(f32) GGUF_SCALAR_ONLY(f64) GGUF_SCALAR_ONLY(i8) GGUF_SCALAR_ONLY(i16) GGUF_SCALAR_ONLY(i32)
  GGUF_SCALAR_ONLY(i64) GGUF_SCALAR_ONLY(q2_K) GGUF_SCALAR_ONLY(q3_K) GGUF_SCALAR_ONLY(tq1_0)
  GGUF_WITH_AVX2(q4_0) GGUF_WITH_AVX2(q4_1) GGUF_WITH_AVX2(q5_0) GGUF_WITH_AVX2(q5_1) GGUF_WITH_AVX2(q1_0)
  GGUF_WITH_AVX2(q2_0) GGUF_WITH_AVX2(iq4_nl) GGUF_WITH_AVX2(mxfp4) GGUF_WITH_AVX2(nvfp4) GGUF_WITH_AVX2(q6_K)
  GGUF_WITH_AVX2(tq2_0) GGUF_WITH_AVX2(iq4_xs) GGUF_WITH_AVX2(iq2_xxs) GGUF_WITH_AVX2(iq2_xs) GGUF_WITH_AVX2(iq2_s)
  GGUF_WITH_AVX2(iq3_xxs) GGUF_WITH_AVX2(iq3_s) GGUF_WITH_AVX2(iq1_s) GGUF_WITH_AVX2(iq1_m)
  GGUF_WITH_AVX512(f16) GGUF_WITH_AVX512(bf16) GGUF_WITH_AVX512(q8_0) GGUF_WITH_AVX512(q4_K) GGUF_WITH_AVX512(q5_K)
  // q8_1 and q8_K: intermediate types of ggml's dot products; ggml has no to_float for them.
  return t;
}

#undef GGUF_WITH_AVX512
#undef GGUF_WITH_AVX2
#undef GGUF_SCALAR_ONLY

constexpr std::array<kernel_row, ggml_type_count> table = make_table();

}  // namespace

const kernel_row* kernels_for(ggml_type type) noexcept {
  const auto i = static_cast<size_t>(type);
  return i < table.size() ? &table[i] : nullptr;
}

bool cpu_has_avx2() noexcept {
#if GGUF_QUANT_X86
  return cpu().avx2 && cpu().f16c;
#else
  return false;
#endif
}

bool cpu_has_avx512() noexcept {
#if GGUF_QUANT_X86
  return cpu_has_avx2() && cpu().avx512f && cpu().avx512bw && cpu().avx512vl;
#else
  return false;
#endif
}

kernel_isa best_isa() noexcept {
  return cpu_has_avx512() ? kernel_isa::avx512 : cpu_has_avx2() ? kernel_isa::avx2 : kernel_isa::scalar;
}

row_kernel select_kernel(const kernel_row& row, kernel_isa isa) noexcept {
  if (isa == kernel_isa::avx512 && row.avx512 && cpu_has_avx512()) return row.avx512;
  if ((isa == kernel_isa::avx2 || isa == kernel_isa::avx512) && row.avx2 && cpu_has_avx2()) return row.avx2;
  return row.scalar;
}

}  // namespace gguf::detail
