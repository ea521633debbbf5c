// Quantizers of the float types and the 32-element block types: f32 f16 bf16, q1_0 q2_0
// q4_0 q4_1 q5_0 q5_1 q8_0, mxfp4 nvfp4, tq1_0 tq2_0. Each follows ggml-quants.c's
// quantize_row_<type>_ref (no weights) and quantize_row_<type>_impl (weights), v0.5.0.
#include <algorithm>
#include <cfloat>
#include <cstddef>

#include "quant/blocks.h"
#include "quant/quantize.h"
#include "quant/quantize_simd.h"
#include "quant/tables.h"

namespace gguf::detail {
namespace {

constexpr int qk32 = 32;

// Mean of x^2 over the row: the sigma2 that ggml's weighted legacy quantizers add to x^2.
float row_sigma2(const float* x, int64_t n) {
  float sum_x2 = 0;
  for (int64_t j = 0; j < n; ++j) sum_x2 += x[j] * x[j];
  return sum_x2 / n;
}

// weight[j] = qw[j] * sqrt(sigma2 + x[j]^2), the weights of the legacy types' searches.
void legacy_weights(const float* xb, const float* qw, float sigma2, float* weight) {
  for (int j = 0; j < qk32; ++j) weight[j] = qw[j] * std::sqrt(sigma2 + xb[j] * xb[j]);
}

// The smallest and largest of 32 values (into min and max as given: FLT_MAX, -FLT_MAX).
void min_max(const float* x, float& min, float& max) {
  for (int j = 0; j < qk32; ++j) {
    if (x[j] < min) min = x[j];
    if (x[j] > max) max = x[j];
  }
}

// q4_1 / q5_1 with weights: make_qkx3_quants per block (levels 0..nmax into L), d and
// -min stored as fp16 at y.
void affine_weighted(const float* xb, const float* qw, float sigma2, int nmax, uint8_t* L, uint8_t* y) {
  float weight[qk32];
  uint8_t Laux[qk32];
  legacy_weights(xb, qw, sigma2, weight);
  float min = 0;
  const float d = make_qkx3_quants(qk32, nmax, xb, weight, L, &min, Laux, -0.9f, 0.05f, 36, false);
  put_fp16(y, d);
  put_fp16(y + 2, -min);
}

// q4_1 / q5_1 without weights (ggml's _ref): d = (max - min) / nmax and min stored as fp16
// at y; returns 1 / d (0 when d is 0), min into `min`.
float affine_scale(const float* x, int nmax, uint8_t* y, float& min) {
  float max = -FLT_MAX;
  min = FLT_MAX;
  min_max(x, min, max);
  const float d = (max - min) / nmax;
  put_fp16(y, d);
  put_fp16(y + 2, min);
  return d ? 1.0f / d : 0.0f;
}

// The 5th bits of 32 levels (0..31), element j at bit j (q5_0, q5_1: qh).
void pack_q5(const uint8_t* L, uint8_t* qs, uint8_t* qh) {
  uint32_t h = 0;
  for (int j = 0; j < 16; ++j) {
    const uint8_t a = L[j], b = L[j + 16];
    qs[j] = static_cast<uint8_t>((a & 0x0F) | ((b & 0x0F) << 4));
    h |= ((a & 0x10u) >> 4) << j;
    h |= ((b & 0x10u) >> 4) << (j + 16);
  }
  put_le32(qh, h);
}

// q4_0 / q5_0 with weights (ggml's _impl): per block, make_qx_quants (levels 0 .. 2 nmax - 1)
// on qw * sqrt(sigma2 + x^2), d stored as fp16 at the block's start, then pack(L, block)
// stores the 32 levels.
template <int nmax, class Pack>
void symmetric_weighted(const float* x, uint8_t* y, int64_t n, const float* qw, size_t block_bytes, Pack pack) {
  const float sigma2 = row_sigma2(x, n);
  float weight[qk32];
  int8_t Ls[qk32];
  uint8_t L[qk32];
  for (int64_t ib = 0; ib < n / qk32; ++ib, y += block_bytes) {
    const float* xb = x + qk32 * ib;
    legacy_weights(xb, qw + qk32 * ib, sigma2, weight);
    put_fp16(y, make_qx_quants(qk32, nmax, xb, Ls, 1, weight));
    for (int j = 0; j < qk32; ++j) L[j] = static_cast<uint8_t>(Ls[j]);
    pack(L, y);
  }
}

// Index of the fp4 (doubled e2m1) value times e closest to x; the first on ties.
int best_index_fp4(float x, float e) {
  const int8_t* kv = quant_tables::kvalues_fp4;
  int best = 0;
  float best_err = std::fabs(kv[0] * e - x);
  for (int i = 1; i < 16; ++i) {
    const float err = std::fabs(kv[i] * e - x);
    if (err < best_err) {
      best = i;
      best_err = err;
    }
  }
  return best;
}

// ggml_fp32_to_ue4m3: an nvfp4 sub-block scale, rounded half up on the mantissa.
uint8_t fp32_to_ue4m3(float x) {
  if (!(x > 0.0f)) return 0;
  if (x > 448.0f) x = 448.0f;
  const uint32_t bits = std::bit_cast<uint32_t>(x);
  const int fp32_exp = static_cast<int>((bits >> 23) & 0xFF) - 127;
  const int fp32_man = (bits >> 20) & 0x7;
  int e = fp32_exp + 7;
  if (e <= 0) {  // subnormal: man * 2^-9
    int man = static_cast<int>(x * 512.0f + 0.5f);
    if (man > 7) man = 7;
    return man < 1 ? 0 : static_cast<uint8_t>(man);
  }
  if (e >= 15) return 0x7E;
  int man = fp32_man + static_cast<int>((bits >> 19) & 1);
  if (man > 7) {
    man = 0;
    if (++e >= 15) return 0x7E;
  }
  return static_cast<uint8_t>((e << 3) | man);
}

}  // namespace

void quantize_f32(const float* x, uint8_t* y, int64_t n, const float*) { std::memcpy(y, x, n * sizeof(float)); }

void quantize_f16(const float* x, uint8_t* y, int64_t n, const float*) {
  for (int64_t i = 0; i < n; ++i) put_le16(y + 2 * i, fp32_to_fp16(x[i]));
}

void quantize_bf16(const float* x, uint8_t* y, int64_t n, const float*) {
  for (int64_t i = 0; i < n; ++i) put_le16(y + 2 * i, fp32_to_bf16(x[i]));
}

void quantize_q8_0(const float* x, uint8_t* y, int64_t n, const float*) {
#if GGUF_QUANT_X86
  if (use_simd_quantizers()) return quantize_q8_0_avx2(x, y, n);
#endif
  for (int64_t i = 0; i < n / qk32; ++i, x += qk32, y += sizeof(block_q8_0)) {
    float amax = 0.0f;
    for (int j = 0; j < qk32; ++j) amax = std::max(amax, std::fabs(x[j]));
    const float d = amax / ((1 << 7) - 1);
    const float id = d ? 1.0f / d : 0.0f;
    put_fp16(y, d);
    for (int j = 0; j < qk32; ++j) y[2 + j] = static_cast<uint8_t>(static_cast<int8_t>(std::round(x[j] * id)));
  }
}

void quantize_q4_0(const float* x, uint8_t* y, int64_t n, const float* qw) {
  if (qw) {
    return symmetric_weighted<8>(x, y, n, qw, sizeof(block_q4_0), [](const uint8_t* L, uint8_t* b) {
      for (int j = 0; j < 16; ++j) b[2 + j] = static_cast<uint8_t>(L[j] | (L[j + 16] << 4));
    });
  }
  for (int64_t i = 0; i < n / qk32; ++i, x += qk32, y += sizeof(block_q4_0)) {
    float max = 0.0f;
    abs_max_signed(x, qk32, max);
    const float d = max / -8;
    const float id = d ? 1.0f / d : 0.0f;
    put_fp16(y, d);
    for (int j = 0; j < 16; ++j) {
      const uint8_t a = static_cast<uint8_t>(std::min<int>(15, trunc_to_i8(x[j] * id + 8.5f)));
      const uint8_t b = static_cast<uint8_t>(std::min<int>(15, trunc_to_i8(x[j + 16] * id + 8.5f)));
      y[2 + j] = static_cast<uint8_t>(a | (b << 4));
    }
  }
}

void quantize_q4_1(const float* x, uint8_t* y, int64_t n, const float* qw) {
  const int64_t nb = n / qk32;
  if (!qw) {
    for (int64_t i = 0; i < nb; ++i, x += qk32, y += sizeof(block_q4_1)) {
      float min = 0;
      const float id = affine_scale(x, 15, y, min);
      for (int j = 0; j < 16; ++j) {
        const uint8_t a = static_cast<uint8_t>(std::min<int>(15, trunc_to_i8((x[j] - min) * id + 0.5f)));
        const uint8_t b = static_cast<uint8_t>(std::min<int>(15, trunc_to_i8((x[j + 16] - min) * id + 0.5f)));
        y[4 + j] = static_cast<uint8_t>(a | (b << 4));
      }
    }
    return;
  }
  const float sigma2 = row_sigma2(x, n);
  uint8_t L[qk32];
  for (int64_t ib = 0; ib < nb; ++ib, y += sizeof(block_q4_1)) {
    affine_weighted(x + qk32 * ib, qw + qk32 * ib, sigma2, 15, L, y);
    for (int j = 0; j < 16; ++j) y[4 + j] = static_cast<uint8_t>(L[j] | (L[j + 16] << 4));
  }
}

void quantize_q5_0(const float* x, uint8_t* y, int64_t n, const float* qw) {
  if (qw) {
    return symmetric_weighted<16>(x, y, n, qw, sizeof(block_q5_0), [](const uint8_t* L, uint8_t* b) { pack_q5(L, b + 6, b + 2); });
  }
  uint8_t L[qk32];
  for (int64_t i = 0; i < n / qk32; ++i, x += qk32, y += sizeof(block_q5_0)) {
    float max = 0.0f;
    abs_max_signed(x, qk32, max);
    const float d = max / -16;
    const float id = d ? 1.0f / d : 0.0f;
    put_fp16(y, d);
    for (int j = 0; j < qk32; ++j) L[j] = static_cast<uint8_t>(std::min<int>(31, trunc_to_i8(x[j] * id + 16.5f)));
    pack_q5(L, y + 6, y + 2);
  }
}

void quantize_q5_1(const float* x, uint8_t* y, int64_t n, const float* qw) {
  const int64_t nb = n / qk32;
  uint8_t L[qk32];
  if (!qw) {
    for (int64_t i = 0; i < nb; ++i, x += qk32, y += sizeof(block_q5_1)) {
      float min = 0;
      const float id = affine_scale(x, 31, y, min);
      for (int j = 0; j < qk32; ++j) L[j] = static_cast<uint8_t>(static_cast<int32_t>((x[j] - min) * id + 0.5f));
      pack_q5(L, y + 8, y + 4);
    }
    return;
  }
  const float sigma2 = row_sigma2(x, n);
  for (int64_t ib = 0; ib < nb; ++ib, y += sizeof(block_q5_1)) {
    affine_weighted(x + qk32 * ib, qw + qk32 * ib, sigma2, 31, L, y);
    pack_q5(L, y + 8, y + 4);
  }
}

void quantize_q1_0(const float* x, uint8_t* y, int64_t n, const float*) {
  constexpr int qk = 128;
  for (int64_t i = 0; i < n / qk; ++i, x += qk, y += sizeof(block_q1_0)) {
    float sum_abs = 0.0f;
    for (int j = 0; j < qk; ++j) sum_abs += std::fabs(x[j]);
    put_fp16(y, sum_abs / qk);
    uint8_t* qs = y + 2;
    std::memset(qs, 0, qk / 8);
    for (int j = 0; j < qk; ++j) {
      if (x[j] >= 0.0f) qs[j / 8] |= static_cast<uint8_t>(1 << (j % 8));
    }
  }
}

void quantize_q2_0(const float* x, uint8_t* y, int64_t n, const float*) {
  constexpr int qk = 64;
  for (int64_t i = 0; i < n / qk; ++i, x += qk, y += sizeof(block_q2_0)) {
    float amax = 0.0f;
    for (int j = 0; j < qk; ++j) {
      const float a = std::fabs(x[j]);
      if (a > amax) amax = a;
    }
    const float d = amax;
    const float id = d > 0.0f ? 1.0f / d : 0.0f;
    put_fp16(y, d);
    uint8_t* qs = y + 2;
    std::memset(qs, 0, qk / 4);
    for (int j = 0; j < qk; ++j) {
      const int q = std::clamp(static_cast<int>(std::round(x[j] * id)) + 1, 0, 3);
      qs[j / 4] |= static_cast<uint8_t>(q << ((j % 4) * 2));
    }
  }
}

void quantize_mxfp4(const float* x, uint8_t* y, int64_t n, const float*) {
  for (int64_t i = 0; i < n / qk32; ++i, x += qk32, y += sizeof(block_mxfp4)) {
    float amax = 0.0f;
    for (int j = 0; j < qk32; ++j) {
      if (amax < std::fabs(x[j])) amax = std::fabs(x[j]);
    }
    const uint8_t e =
        amax > 0.0f ? static_cast<uint8_t>(static_cast<int32_t>(std::floor(std::log2(amax)) - 2 + 127)) : 0;
    const float d = e8m0_to_fp32_half(e);
    y[0] = e;
    for (int j = 0; j < 16; ++j) {
      y[1 + j] = static_cast<uint8_t>(best_index_fp4(x[j], d) | (best_index_fp4(x[j + 16], d) << 4));
    }
  }
}

void quantize_nvfp4(const float* x, uint8_t* y, int64_t n, const float*) {
  constexpr int qk = 64, qk_sub = 16;
  for (int64_t i = 0; i < n / qk; ++i, y += sizeof(block_nvfp4)) {
    for (int s = 0; s < qk / qk_sub; ++s) {
      const float* xb = x + i * qk + s * qk_sub;
      float amax = 0.0f;
      for (int j = 0; j < qk_sub; ++j) {
        if (amax < std::fabs(xb[j])) amax = std::fabs(xb[j]);
      }
      const uint8_t ue = fp32_to_ue4m3(amax / 6.0f);
      y[s] = ue;
      const float d = ue4m3_to_fp32_half(ue);
      for (int j = 0; j < qk_sub / 2; ++j) {
        y[4 + s * (qk_sub / 2) + j] =
            static_cast<uint8_t>(best_index_fp4(xb[j], d) | (best_index_fp4(xb[qk_sub / 2 + j], d) << 4));
      }
    }
  }
}

namespace {

// Ternary level of x * id: -1, 0, 1 -> 0, 1, 2 (lroundf: halves away from zero).
int trit(float x, float id) { return static_cast<int>(std::lround(x * id)) + 1; }

// Five trits (most significant first) in one byte, as ggml's tq1_0: ceil(q * 256 / 243).
uint8_t pack_trits(int q) { return static_cast<uint8_t>((static_cast<uint16_t>(q) * 256 + (243 - 1)) / 243); }

float ternary_scale(const float* x, uint8_t* d_at) {
  float amax = 0.0f;
  for (int j = 0; j < QK_K; ++j) amax = std::max(amax, std::fabs(x[j]));
  put_fp16(d_at, amax);
  return amax ? 1.0f / amax : 0.0f;
}

}  // namespace

void quantize_tq1_0(const float* x, uint8_t* y, int64_t n, const float*) {
  constexpr int nqs = sizeof(block_tq1_0::qs), nqh = sizeof(block_tq1_0::qh);
  for (int64_t i = 0; i < n / QK_K; ++i, y += sizeof(block_tq1_0)) {
    const float id = ternary_scale(x, y + offsetof(block_tq1_0, d));
    // 5 elements per byte: 32 bytes at a time, then 16
    for (int j = 0; j < nqs - nqs % 32; j += 32, x += 5 * 32) {
      for (int m = 0; m < 32; ++m) {
        uint8_t q = 0;
        for (int k = 0; k < 5; ++k) q = static_cast<uint8_t>(q * 3 + trit(x[m + k * 32], id));
        y[j + m] = pack_trits(q);
      }
    }
    for (int j = nqs - nqs % 32; j < nqs; j += 16, x += 5 * 16) {
      for (int m = 0; m < 16; ++m) {
        uint8_t q = 0;
        for (int k = 0; k < 5; ++k) q = static_cast<uint8_t>(q * 3 + trit(x[m + k * 16], id));
        y[j + m] = pack_trits(q);
      }
    }
    // 4 elements per byte, the first in the most significant trit
    for (int j = 0; j < nqh; ++j) {
      uint8_t q = 0;
      for (int m = 0; m < 4; ++m) q = static_cast<uint8_t>(q * 3 + trit(x[j + m * nqh], id));
      y[nqs + j] = pack_trits(static_cast<uint8_t>(q * 3));
    }
    x += 4 * nqh;
  }
}

void quantize_tq2_0(const float* x, uint8_t* y, int64_t n, const float*) {
  for (int64_t i = 0; i < n / QK_K; ++i, y += sizeof(block_tq2_0)) {
    const float id = ternary_scale(x, y + offsetof(block_tq2_0, d));
    for (int j = 0; j < QK_K / 4; j += 32, x += 4 * 32) {
      for (int m = 0; m < 32; ++m) {
        uint8_t q = 0;
        for (int k = 0; k < 4; ++k) q = static_cast<uint8_t>(q + ((trit(x[m + k * 32], id) & 3) << (2 * k)));
        y[j + m] = q;
      }
    }
  }
}

}  // namespace gguf::detail
