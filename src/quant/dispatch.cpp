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

constexpr std::array<kernel_row, ggml_type_count> make_table() {
  using T = ggml_type;
  std::array<kernel_row, ggml_type_count> t{};
  //                 scalar reference   AVX2 variant
  t[id(T::f32)]     = {dequant_f32,     nullptr};
  t[id(T::f16)]     = {dequant_f16,     GGUF_AVX2(dequant_f16)};
  t[id(T::bf16)]    = {dequant_bf16,    GGUF_AVX2(dequant_bf16)};
  t[id(T::f64)]     = {dequant_f64,     nullptr};
  t[id(T::i8)]      = {dequant_i8,      nullptr};
  t[id(T::i16)]     = {dequant_i16,     nullptr};
  t[id(T::i32)]     = {dequant_i32,     nullptr};
  t[id(T::i64)]     = {dequant_i64,     nullptr};
  t[id(T::q4_0)]    = {dequant_q4_0,    GGUF_AVX2(dequant_q4_0)};
  t[id(T::q4_1)]    = {dequant_q4_1,    GGUF_AVX2(dequant_q4_1)};
  t[id(T::q5_0)]    = {dequant_q5_0,    GGUF_AVX2(dequant_q5_0)};
  t[id(T::q5_1)]    = {dequant_q5_1,    GGUF_AVX2(dequant_q5_1)};
  t[id(T::q8_0)]    = {dequant_q8_0,    GGUF_AVX2(dequant_q8_0)};
  t[id(T::q1_0)]    = {dequant_q1_0,    GGUF_AVX2(dequant_q1_0)};
  t[id(T::q2_0)]    = {dequant_q2_0,    GGUF_AVX2(dequant_q2_0)};
  t[id(T::iq4_nl)]  = {dequant_iq4_nl,  GGUF_AVX2(dequant_iq4_nl)};
  t[id(T::mxfp4)]   = {dequant_mxfp4,   GGUF_AVX2(dequant_mxfp4)};
  t[id(T::nvfp4)]   = {dequant_nvfp4,   GGUF_AVX2(dequant_nvfp4)};
  t[id(T::q2_K)]    = {dequant_q2_K,    nullptr};
  t[id(T::q3_K)]    = {dequant_q3_K,    nullptr};
  t[id(T::q4_K)]    = {dequant_q4_K,    GGUF_AVX2(dequant_q4_K)};
  t[id(T::q5_K)]    = {dequant_q5_K,    GGUF_AVX2(dequant_q5_K)};
  t[id(T::q6_K)]    = {dequant_q6_K,    GGUF_AVX2(dequant_q6_K)};
  t[id(T::tq1_0)]   = {dequant_tq1_0,   nullptr};
  t[id(T::tq2_0)]   = {dequant_tq2_0,   GGUF_AVX2(dequant_tq2_0)};
  t[id(T::iq4_xs)]  = {dequant_iq4_xs,  GGUF_AVX2(dequant_iq4_xs)};
  t[id(T::iq2_xxs)] = {dequant_iq2_xxs, GGUF_AVX2(dequant_iq2_xxs)};
  t[id(T::iq2_xs)]  = {dequant_iq2_xs,  GGUF_AVX2(dequant_iq2_xs)};
  t[id(T::iq2_s)]   = {dequant_iq2_s,   GGUF_AVX2(dequant_iq2_s)};
  t[id(T::iq3_xxs)] = {dequant_iq3_xxs, GGUF_AVX2(dequant_iq3_xxs)};
  t[id(T::iq3_s)]   = {dequant_iq3_s,   GGUF_AVX2(dequant_iq3_s)};
  t[id(T::iq1_s)]   = {dequant_iq1_s,   GGUF_AVX2(dequant_iq1_s)};
  t[id(T::iq1_m)]   = {dequant_iq1_m,   GGUF_AVX2(dequant_iq1_m)};
  // AVX-512 variants where they beat AVX2 (a third column would be mostly empty).
  t[id(T::f16)].avx512 = GGUF_AVX512(dequant_f16);
  t[id(T::bf16)].avx512 = GGUF_AVX512(dequant_bf16);
  t[id(T::q8_0)].avx512 = GGUF_AVX512(dequant_q8_0);
  t[id(T::q4_K)].avx512 = GGUF_AVX512(dequant_q4_K);
  t[id(T::q5_K)].avx512 = GGUF_AVX512(dequant_q5_K);
  // q8_1 and q8_K: intermediate types of ggml's dot products; ggml has no to_float for them.
  return t;
}

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
