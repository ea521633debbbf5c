// Quantization kernels (float rows to ggml blocks) and the helpers they share.
//
// A quantizer writes one row of `n` floats (a multiple of the type's block size) as
// n / blck_size blocks at `dst`; `qw` is nullptr or n importance weights. It follows ggml's
// quantize_<type> (ggml-quants.c, v0.5.0) for one row: the reference path without weights,
// the weighted search with them, with the same float operations in the same order (this
// library is compiled with -ffp-contract=off, as ggml's reference is without FMA), so the
// bytes are identical. Kernels trust their arguments; quantize.cpp checks them.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "gguf/format.h"

namespace gguf::detail {

using quantize_kernel = void (*)(const float* src, uint8_t* dst, int64_t n, const float* qw);

/// The quantizer of a type; nullptr when ggml cannot quantize to it.
quantize_kernel quantizer_for(ggml_type type) noexcept;

// --- number formats -------------------------------------------------------------------

/// binary32 to binary16, round to nearest even; ggml's portable ggml_compute_fp32_to_fp16
/// (an exact bit method: the same half as F16C's vcvtps2ph with rounding mode 0).
inline uint16_t fp32_to_fp16(float f) noexcept {
  float base = (std::fabs(f) * 0x1.0p+112f) * 0x1.0p-110f;
  const uint32_t w = std::bit_cast<uint32_t>(f);
  const uint32_t shl1_w = w + w;
  const uint32_t sign = w & 0x80000000u;
  uint32_t bias = shl1_w & 0xFF000000u;
  if (bias < 0x71000000u) bias = 0x71000000u;
  base = std::bit_cast<float>((bias >> 1) + 0x07800000u) + base;
  const uint32_t bits = std::bit_cast<uint32_t>(base);
  const uint32_t exp_bits = (bits >> 13) & 0x00007C00u;
  const uint32_t mantissa_bits = bits & 0x00000FFFu;
  const uint32_t nonsign = exp_bits + mantissa_bits;
  return static_cast<uint16_t>((sign >> 16) | (shl1_w > 0xFF000000u ? 0x7E00u : nonsign));
}

/// binary32 to bfloat16, round to nearest even; a NaN stays a (quiet) NaN
/// (ggml_compute_fp32_to_bf16).
inline uint16_t fp32_to_bf16(float f) noexcept {
  const uint32_t u = std::bit_cast<uint32_t>(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 64);
  return static_cast<uint16_t>((u + (0x7fffu + ((u >> 16) & 1))) >> 16);
}

inline void put_le16(uint8_t* p, uint16_t v) noexcept {
  p[0] = static_cast<uint8_t>(v);
  p[1] = static_cast<uint8_t>(v >> 8);
}
inline void put_le32(uint8_t* p, uint32_t v) noexcept {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
/// Stores f as a little-endian binary16 and returns the half's bits.
inline uint16_t put_fp16(uint8_t* p, float f) noexcept {
  const uint16_t h = fp32_to_fp16(f);
  put_le16(p, h);
  return h;
}

/// Round to nearest, ties to even, for |f| <= 4194303 (ggml's nearest_int: the magic
/// number 1.5 * 2^23 pushes the integer into the low mantissa bits).
inline int nearest_int(float f) noexcept {
  const float v = f + 12582912.f;
  const int32_t i = std::bit_cast<int32_t>(v);
  return (i & 0x007fffff) - 0x00400000;
}

/// C's conversion of a float to int8_t: truncation to int, then to 8 bits (what
/// `(int8_t)(x)` compiles to on x86: cvttss2si, then the low byte).
inline int8_t trunc_to_i8(float f) noexcept { return static_cast<int8_t>(static_cast<int32_t>(f)); }

/// The largest |x[i]| of n values, and into `max` the value that has it (the first one on
/// ties), as ggml's quantizers find them.
inline float abs_max_signed(const float* x, int n, float& max) noexcept {
  float amax = 0;
  max = 0;
  for (int i = 0; i < n; ++i) {
    const float ax = std::fabs(x[i]);
    if (ax > amax) {
      amax = ax;
      max = x[i];
    }
  }
  return amax;
}

// --- scale searches shared by several types (quantize_search.cpp) -------------------

inline constexpr float group_max_eps = 1e-15f;

/// ggml's make_qx_quants: symmetric levels L[i] in 0..2*nmax-1 and the scale; rmse_type
/// selects the weighting when qw is nullptr (1: x^2, 2: 1, 3: |x|, else sqrt|x|); a
/// negative rmse_type returns after the first pass.
float make_qx_quants(int n, int nmax, const float* x, int8_t* L, int rmse_type, const float* qw);
/// ggml's make_q3_quants (q3_K without weights).
float make_q3_quants(int n, int nmax, const float* x, int8_t* L, bool do_rmse);
/// ggml's make_qkx2_quants: affine levels 0..nmax with a min; *the_min receives -min.
float make_qkx2_quants(int n, int nmax, const float* x, const float* weights, uint8_t* L, float* the_min,
                       uint8_t* Laux, float rmin, float rdelta, int nstep, bool use_mad);
/// ggml's make_qkx3_quants (weights nullptr: x^2).
float make_qkx3_quants(int n, int nmax, const float* x, const float* weights, uint8_t* L, float* the_min,
                       uint8_t* Laux, float rmin, float rdelta, int nstep, bool use_mad);
/// ggml's make_qp_quants (positive values, the super-block scales of q2_K with weights).
float make_qp_quants(int n, int nmax, const float* x, uint8_t* L, const float* quant_weights);

// --- per-type quantizers ----------------------------------------------------------------

void quantize_f32(const float*, uint8_t*, int64_t, const float*);
void quantize_f16(const float*, uint8_t*, int64_t, const float*);
void quantize_bf16(const float*, uint8_t*, int64_t, const float*);
void quantize_q1_0(const float*, uint8_t*, int64_t, const float*);
void quantize_q2_0(const float*, uint8_t*, int64_t, const float*);
void quantize_q4_0(const float*, uint8_t*, int64_t, const float*);
void quantize_q4_1(const float*, uint8_t*, int64_t, const float*);
void quantize_q5_0(const float*, uint8_t*, int64_t, const float*);
void quantize_q5_1(const float*, uint8_t*, int64_t, const float*);
void quantize_q8_0(const float*, uint8_t*, int64_t, const float*);
void quantize_mxfp4(const float*, uint8_t*, int64_t, const float*);
void quantize_nvfp4(const float*, uint8_t*, int64_t, const float*);
void quantize_tq1_0(const float*, uint8_t*, int64_t, const float*);
void quantize_tq2_0(const float*, uint8_t*, int64_t, const float*);
void quantize_q2_K(const float*, uint8_t*, int64_t, const float*);
void quantize_q3_K(const float*, uint8_t*, int64_t, const float*);
void quantize_q4_K(const float*, uint8_t*, int64_t, const float*);
void quantize_q5_K(const float*, uint8_t*, int64_t, const float*);
void quantize_q6_K(const float*, uint8_t*, int64_t, const float*);
void quantize_iq4_nl(const float*, uint8_t*, int64_t, const float*);
void quantize_iq4_xs(const float*, uint8_t*, int64_t, const float*);
void quantize_iq2_xxs(const float*, uint8_t*, int64_t, const float*);
void quantize_iq2_xs(const float*, uint8_t*, int64_t, const float*);
void quantize_iq2_s(const float*, uint8_t*, int64_t, const float*);
void quantize_iq3_xxs(const float*, uint8_t*, int64_t, const float*);
void quantize_iq3_s(const float*, uint8_t*, int64_t, const float*);
void quantize_iq1_s(const float*, uint8_t*, int64_t, const float*);
void quantize_iq1_m(const float*, uint8_t*, int64_t, const float*);

/// Builds the grid search tables of an iq type (iq_grids.cpp); thread safe, once.
void iq_grids_init(ggml_type type);

}  // namespace gguf::detail
