// The kernel table: one row per ggml type id (the only place that maps a type to code),
// the run-time CPU check, and the big-endian block swaps.
//
// Big-endian files: readable are the types whose byte order gguf-py's endian converter
// (llama.cpp gguf-py/gguf/scripts/gguf_convert_endian.py) defines — f32 f16 bf16
// element-wise, q4_0 and q8_0 (the f16 d of each block), q4_K (d and dmin), q6_K (d),
// mxfp4 (no multi-byte field) — plus the plain element types f64 i8 i16 i32 i64, whose
// swap is unambiguous. The other block types have no defined big-endian layout.
#include <array>

#include "quant/kernels.h"

#if GGUF_QUANT_X86
#include <cpuid.h>
#endif

namespace gguf::detail {
namespace {

template <size_t Width>
void swap_elements(uint8_t* p, size_t n) {
  for (size_t i = 0; i < n; ++i, p += Width) {
    for (size_t a = 0, b = Width - 1; a < b; ++a, --b) std::swap(p[a], p[b]);
  }
}
void swap_none(uint8_t*, size_t) {}

// Swaps the 16-bit fields at the given byte offsets of each block of `Size` bytes.
template <size_t Size, size_t... Offsets>
void swap_u16_fields(uint8_t* p, size_t nblocks) {
  for (size_t i = 0; i < nblocks; ++i, p += Size) ((std::swap(p[Offsets], p[Offsets + 1])), ...);
}

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
  //                 scalar reference   AVX2 variant                  big-endian swap
  t[id(T::f32)]     = {dequant_f32,     nullptr,                      swap_elements<4>};
  t[id(T::f16)]     = {dequant_f16,     GGUF_AVX2(dequant_f16),       swap_elements<2>};
  t[id(T::bf16)]    = {dequant_bf16,    GGUF_AVX2(dequant_bf16),      swap_elements<2>};
  t[id(T::f64)]     = {dequant_f64,     nullptr,                      swap_elements<8>};
  t[id(T::i8)]      = {dequant_i8,      nullptr,                      swap_none};
  t[id(T::i16)]     = {dequant_i16,     nullptr,                      swap_elements<2>};
  t[id(T::i32)]     = {dequant_i32,     nullptr,                      swap_elements<4>};
  t[id(T::i64)]     = {dequant_i64,     nullptr,                      swap_elements<8>};
  t[id(T::q4_0)]    = {dequant_q4_0,    GGUF_AVX2(dequant_q4_0),      swap_u16_fields<18, 0>};
  t[id(T::q4_1)]    = {dequant_q4_1,    GGUF_AVX2(dequant_q4_1),      nullptr};
  t[id(T::q5_0)]    = {dequant_q5_0,    GGUF_AVX2(dequant_q5_0),      nullptr};
  t[id(T::q5_1)]    = {dequant_q5_1,    GGUF_AVX2(dequant_q5_1),      nullptr};
  t[id(T::q8_0)]    = {dequant_q8_0,    GGUF_AVX2(dequant_q8_0),      swap_u16_fields<34, 0>};
  t[id(T::q1_0)]    = {dequant_q1_0,    GGUF_AVX2(dequant_q1_0),      nullptr};
  t[id(T::q2_0)]    = {dequant_q2_0,    GGUF_AVX2(dequant_q2_0),      nullptr};
  t[id(T::iq4_nl)]  = {dequant_iq4_nl,  GGUF_AVX2(dequant_iq4_nl),    nullptr};
  t[id(T::mxfp4)]   = {dequant_mxfp4,   GGUF_AVX2(dequant_mxfp4),     swap_none};
  t[id(T::nvfp4)]   = {dequant_nvfp4,   GGUF_AVX2(dequant_nvfp4),     nullptr};
  t[id(T::q2_K)]    = {dequant_q2_K,    nullptr,                      nullptr};
  t[id(T::q3_K)]    = {dequant_q3_K,    nullptr,                      nullptr};
  t[id(T::q4_K)]    = {dequant_q4_K,    GGUF_AVX2(dequant_q4_K),      swap_u16_fields<144, 0, 2>};
  t[id(T::q5_K)]    = {dequant_q5_K,    GGUF_AVX2(dequant_q5_K),      nullptr};
  t[id(T::q6_K)]    = {dequant_q6_K,    GGUF_AVX2(dequant_q6_K),      swap_u16_fields<210, 208>};
  t[id(T::tq1_0)]   = {dequant_tq1_0,   nullptr,                      nullptr};
  t[id(T::tq2_0)]   = {dequant_tq2_0,   GGUF_AVX2(dequant_tq2_0),     nullptr};
  t[id(T::iq4_xs)]  = {dequant_iq4_xs,  GGUF_AVX2(dequant_iq4_xs),    nullptr};
  t[id(T::iq2_xxs)] = {dequant_iq2_xxs, GGUF_AVX2(dequant_iq2_xxs),   nullptr};
  t[id(T::iq2_xs)]  = {dequant_iq2_xs,  GGUF_AVX2(dequant_iq2_xs),    nullptr};
  t[id(T::iq2_s)]   = {dequant_iq2_s,   GGUF_AVX2(dequant_iq2_s),     nullptr};
  t[id(T::iq3_xxs)] = {dequant_iq3_xxs, GGUF_AVX2(dequant_iq3_xxs),   nullptr};
  t[id(T::iq3_s)]   = {dequant_iq3_s,   GGUF_AVX2(dequant_iq3_s),     nullptr};
  t[id(T::iq1_s)]   = {dequant_iq1_s,   GGUF_AVX2(dequant_iq1_s),     nullptr};
  t[id(T::iq1_m)]   = {dequant_iq1_m,   GGUF_AVX2(dequant_iq1_m),     nullptr};
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
  // F16C through cpuid leaf 1 (ECX bit 29): clang 14's __builtin_cpu_supports has no "f16c".
  static const bool has = [] {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    bool f16c = __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_F16C) != 0;
    return __builtin_cpu_supports("avx2") && f16c;
  }();
  return has;
#else
  return false;
#endif
}

bool cpu_has_avx512() noexcept {
#if GGUF_QUANT_X86
  static const bool has = cpu_has_avx2() && __builtin_cpu_supports("avx512f") &&
                          __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
  return has;
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
