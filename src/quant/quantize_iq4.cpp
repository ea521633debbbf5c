// Quantizers of the non-linear 4-bit types iq4_nl (blocks of 32, one fp16 scale) and
// iq4_xs (super-blocks of 256: 8 six-bit sub-block scales), after ggml-quants.c v0.5.0's
// quantize_row_iq4_nl_impl as quantize_iq4_nl and quantize_iq4_xs call it: with or
// without weights (x^2 then), a search of 15 scales around -max/values[0].
#include <algorithm>

#include "quant/blocks.h"
#include "quant/quantize.h"
#include "quant/quantize_simd.h"
#include "quant/tables.h"

namespace gguf::detail {
namespace {

constexpr int ntry = 7;

// Index of the code book value nearest to x (ties to the upper one only when strictly
// nearer; ggml's best_index_int8: a bisection over the sorted values).
int best_index_int8(int n, const int8_t* val, float x) {
  if (x <= val[0]) return 0;
  if (x >= val[n - 1]) return n - 1;
  int ml = 0, mu = n - 1;
  while (mu - ml > 1) {
    const int mav = (ml + mu) / 2;
    if (x < val[mav]) {
      mu = mav;
    } else {
      ml = mav;
    }
  }
  return x - val[mu - 1] < val[mu] - x ? mu - 1 : mu;
}

// One super-block of `sbs` elements in sub-blocks of 32: levels into L, the fp16 scale
// into dh; with more than one sub-block, their 6-bit scales into scales_h/scales_l.
void iq4_impl(int sbs, const float* x, uint8_t* dh, uint8_t* q4, uint8_t* scales_h, uint8_t* scales_l,
              const float* quant_weights) {
  constexpr int bs = 32;
  const int8_t* values = quant_tables::kvalues_iq4nl;
  float weight[bs], scales[QK_K / bs];
  uint8_t L[QK_K];
  float sigma2 = 0;
  for (int j = 0; j < sbs; ++j) sigma2 += x[j] * x[j];
  sigma2 *= 2.f / sbs;
  std::memset(q4, 0, sbs / 2);
  put_fp16(dh, 0.f);
  float max_scale = 0, amax_scale = 0;
  for (int ib = 0; ib < sbs / bs; ++ib) {
    const float* xb = x + ib * bs;
    uint8_t* Lb = L + ib * bs;
    if (quant_weights) {
      const float* qw = quant_weights + ib * bs;
      for (int j = 0; j < bs; ++j) weight[j] = qw[j] * std::sqrt(sigma2 + xb[j] * xb[j]);
    } else {
      for (int j = 0; j < bs; ++j) weight[j] = xb[j] * xb[j];
    }
    float max = 0;
    const float amax = abs_max_signed(xb, bs, max);
    if (amax < group_max_eps) {
      scales[ib] = 0;
      continue;
    }
    float d = -max / values[0];
    float id = 1 / d;
    float sumqx = 0, sumq2 = 0;
    for (int j = 0; j < bs; ++j) {
      const int l = best_index_int8(16, values, id * xb[j]);
      Lb[j] = static_cast<uint8_t>(l);
      const float q = values[l];
      const float w = weight[j];
      sumqx += w * q * xb[j];
      sumq2 += w * q * q;
    }
    d = sumq2 > 0 ? sumqx / sumq2 : 0.f;
    float best = d * sumqx;
#if GGUF_QUANT_X86
    if (use_simd_quantizers()) {  // the 15 trials on 8 lanes each; the winner picked in order
      float tx[2 * ntry + 1], tq[2 * ntry + 1];
      iq4_trials_avx2(xb, weight, max, ntry, tx, tq);
      for (int t = 0; t < 2 * ntry + 1; ++t) {
        if (tq[t] > 0 && tx[t] * tx[t] > best * tq[t]) {
          d = tx[t] / tq[t];
          best = d * tx[t];
        }
      }
      scales[ib] = d;
      if (std::fabs(d) > amax_scale) {
        amax_scale = std::fabs(d);
        max_scale = d;
      }
      continue;
    }
#endif
    for (int itry = -ntry; itry <= ntry; ++itry) {
      id = (itry + values[0]) / max;
      sumqx = sumq2 = 0;
      for (int j = 0; j < bs; ++j) {
        const float q = values[best_index_int8(16, values, id * xb[j])];
        const float w = weight[j];
        sumqx += w * q * xb[j];
        sumq2 += w * q * q;
      }
      if (sumq2 > 0 && sumqx * sumqx > best * sumq2) {
        d = sumqx / sumq2;
        best = d * sumqx;
      }
    }
    scales[ib] = d;
    if (std::fabs(d) > amax_scale) {
      amax_scale = std::fabs(d);
      max_scale = d;
    }
  }
  if (sbs / bs > 1) {
    uint16_t sh = 0;
    const float d = -max_scale / 32;
    put_fp16(dh, d);
    const float id = d ? 1 / d : 0.f;
    for (int ib = 0; ib < sbs / bs; ++ib) {
      int l = std::max(-32, std::min(31, nearest_int(id * scales[ib])));
      const float dl = d * l;
      const float idl = dl ? 1 / dl : 0.f;
      for (int j = 0; j < bs; ++j) L[ib * bs + j] = static_cast<uint8_t>(best_index_int8(16, values, idl * x[ib * bs + j]));
      l += 32;
      const uint8_t l_l = l & 0xf, l_h = static_cast<uint8_t>(l >> 4);
      if (ib % 2 == 0) {
        scales_l[ib / 2] = l_l;
      } else {
        scales_l[ib / 2] |= static_cast<uint8_t>(l_l << 4);
      }
      sh = static_cast<uint16_t>(sh | (l_h << 2 * (ib % 8)));
    }
    put_le16(scales_h, sh);
  } else {
    put_fp16(dh, scales[0]);
    const float id = scales[0] ? 1 / scales[0] : 0;
    for (int j = 0; j < sbs; ++j) L[j] = static_cast<uint8_t>(best_index_int8(16, values, id * x[j]));
  }
  for (int i = 0; i < sbs / 32; ++i) {
    for (int j = 0; j < 16; ++j) q4[16 * i + j] = static_cast<uint8_t>(L[32 * i + j] | (L[32 * i + 16 + j] << 4));
  }
}

}  // namespace

void quantize_iq4_nl(const float* x, uint8_t* y, int64_t n, const float* qw) {
  for (int64_t ib = 0; ib < n / 32; ++ib, y += sizeof(block_iq4_nl)) {
    iq4_impl(32, x + 32 * ib, y, y + 2, nullptr, nullptr, qw ? qw + 32 * ib : nullptr);
  }
}

void quantize_iq4_xs(const float* x, uint8_t* y, int64_t n, const float* qw) {
  for (int64_t ib = 0; ib < n / QK_K; ++ib, y += sizeof(block_iq4_xs)) {
    auto* b = reinterpret_cast<block_iq4_xs*>(y);
    iq4_impl(QK_K, x + QK_K * ib, b->d.b, b->qs, b->scales_h, b->scales_l, qw ? qw + QK_K * ib : nullptr);
  }
}

}  // namespace gguf::detail
