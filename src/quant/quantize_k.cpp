// Quantizers of the k-quants q2_K q3_K q4_K q5_K q6_K: super-blocks of 256 with sub-block
// scales (and mins), each quantized once more against a super-block scale. They follow
// ggml-quants.c v0.5.0: quantize_row_<type>_ref without weights, quantize_row_<type>_impl
// with them (q4_K, q5_K, q6_K's impl is also what runs without weights in the impl
// family, but ggml_quantize_chunk calls the ref path then, and so do we).
#include <algorithm>

#include "quant/blocks.h"
#include "quant/quantize.h"

namespace gguf::detail {
namespace {

template <class Block>
Block* block_out(uint8_t* p) {
  return reinterpret_cast<Block*>(p);
}

float fp16_round(const f16_le& h) { return h.value(); }

// Sum of x^2 over a super-block.
float sum_sq(const float* x, int n) {
  float s = 0;
  for (int l = 0; l < n; ++l) s += x[l] * x[l];
  return s;
}

// The 2-bit levels of 256 elements, 4 per byte, as q2_K and q3_K store them.
void pack_2bit(const uint8_t* L, uint8_t* qs) {
  for (int j = 0; j < QK_K; j += 128) {
    for (int l = 0; l < 32; ++l) {
      qs[j / 4 + l] =
          static_cast<uint8_t>(L[j + l] | (L[j + l + 32] << 2) | (L[j + l + 64] << 4) | (L[j + l + 96] << 6));
    }
  }
}

// 8 six-bit scales and mins in 12 bytes (the inverse of scale_min_k4).
void pack_scales_k4(const uint8_t* ls, const uint8_t* lm, uint8_t* scales) {
  for (int j = 0; j < QK_K / 32; ++j) {
    if (j < 4) {
      scales[j] = ls[j];
      scales[j + 4] = lm[j];
    } else {
      scales[j + 4] = static_cast<uint8_t>((ls[j] & 0xF) | ((lm[j] & 0xF) << 4));
      scales[j - 4] |= static_cast<uint8_t>((ls[j] >> 4) << 6);
      scales[j] |= static_cast<uint8_t>((lm[j] >> 4) << 6);
    }
  }
}

// q4_K/q5_K: the levels (0..nmax) again against the stored scales and mins.
void requantize_affine(const float* x, const f16_le& d16, const f16_le& dmin16, const uint8_t* scales, uint8_t* L,
                       int nmax) {
  for (int j = 0; j < QK_K / 32; ++j) {
    uint8_t sc = 0, m = 0;
    scale_min_k4(j, scales, sc, m);
    const float d = fp16_round(d16) * sc;
    if (!d) continue;
    const float dm = fp16_round(dmin16) * m;
    for (int ii = 0; ii < 32; ++ii) {
      const int l = nearest_int((x[32 * j + ii] + dm) / d);
      L[32 * j + ii] = static_cast<uint8_t>(std::max(0, std::min(nmax, l)));
    }
  }
}

// q4_K and q5_K without weights: make_qkx2_quants per 32, scales and mins to 6 bits
// against the largest of each.
void ref_scales_k4(const float* x, int nmax, float rmin, int nstep, uint8_t* L, uint8_t* scales_out, f16_le& d,
                   f16_le& dmin) {
  uint8_t Laux[32];
  float weights[32], mins[QK_K / 32], scales[QK_K / 32];
  float max_scale = 0, max_min = 0;
  for (int j = 0; j < QK_K / 32; ++j) {
    const float av_x = std::sqrt(sum_sq(x + 32 * j, 32) / 32);
    for (int l = 0; l < 32; ++l) weights[l] = av_x + std::fabs(x[32 * j + l]);
    scales[j] = make_qkx2_quants(32, nmax, x + 32 * j, weights, L + 32 * j, &mins[j], Laux, rmin, 0.1f, nstep, false);
    if (scales[j] > max_scale) max_scale = scales[j];
    if (mins[j] > max_min) max_min = mins[j];
  }
  const float inv_scale = max_scale > 0 ? 63.f / max_scale : 0.f;
  const float inv_min = max_min > 0 ? 63.f / max_min : 0.f;
  uint8_t ls[QK_K / 32], lm[QK_K / 32];
  for (int j = 0; j < QK_K / 32; ++j) {
    ls[j] = std::min<uint8_t>(63, static_cast<uint8_t>(nearest_int(inv_scale * scales[j])));
    lm[j] = std::min<uint8_t>(63, static_cast<uint8_t>(nearest_int(inv_min * mins[j])));
  }
  pack_scales_k4(ls, lm, scales_out);
  put_fp16(d.b, max_scale / 63.f);
  put_fp16(dmin.b, max_min / 63.f);
}

// q4_K and q5_K with weights: make_qkx3_quants per 32, the scales and mins through
// make_qp_quants weighted by each sub-block's total weight.
void impl_scales_k4(const float* x, const float* qw, int nmax, uint8_t* L, uint8_t* scales_out, f16_le& d,
                    f16_le& dmin) {
  uint8_t Laux[32], Ls[QK_K / 32], Lm[QK_K / 32];
  float weights[32], sw[QK_K / 32], mins[QK_K / 32], scales[QK_K / 32];
  const float sigma2 = 2 * sum_sq(x, QK_K) / QK_K;
  const float av_x = std::sqrt(sigma2);
  for (int j = 0; j < QK_K / 32; ++j) {
    if (qw) {
      for (int l = 0; l < 32; ++l) weights[l] = qw[32 * j + l] * std::sqrt(sigma2 + x[32 * j + l] * x[32 * j + l]);
    } else {
      for (int l = 0; l < 32; ++l) weights[l] = av_x + std::fabs(x[32 * j + l]);
    }
    float sumw = 0;
    for (int l = 0; l < 32; ++l) sumw += weights[l];
    sw[j] = sumw;
    scales[j] = make_qkx3_quants(32, nmax, x + 32 * j, weights, L + 32 * j, &mins[j], Laux, -0.9f, 0.05f, 36, false);
  }
  const float d_block = make_qp_quants(QK_K / 32, 63, scales, Ls, sw);
  const float m_block = make_qp_quants(QK_K / 32, 63, mins, Lm, sw);
  for (int j = 0; j < QK_K / 32; ++j) {
    Ls[j] = std::min<uint8_t>(63, Ls[j]);
    Lm[j] = std::min<uint8_t>(63, Lm[j]);
  }
  pack_scales_k4(Ls, Lm, scales_out);
  put_fp16(d.b, d_block);
  put_fp16(dmin.b, m_block);
}

// q3_K: 16 six-bit signed scales (stored + 32): low nibbles in bytes 0..7, high 2 bits in 8..11.
void pack_scales_q3(const int* l6, uint8_t* scales) {
  std::memset(scales, 0, 12);
  for (int j = 0; j < QK_K / 16; ++j) {
    int l = l6[j];
    if (j < 8) {
      scales[j] = static_cast<uint8_t>(l & 0xF);
    } else {
      scales[j - 8] |= static_cast<uint8_t>((l & 0xF) << 4);
    }
    l >>= 4;
    scales[j % 4 + 8] |= static_cast<uint8_t>(l << (2 * (j / 4)));
  }
}

// q3_K's common tail: requantize against the stored scales, then the high bits and 2-bit levels.
void finish_q3(const float* x, block_q3_K* b, int8_t* L) {
  const float d_all = fp16_round(b->d);
  for (int j = 0; j < QK_K / 16; ++j) {
    int8_t sc = static_cast<int8_t>(j < 8 ? b->scales[j] & 0xF : b->scales[j - 8] >> 4);
    sc = static_cast<int8_t>((sc | (((b->scales[8 + j % 4] >> (2 * (j / 4))) & 3) << 4)) - 32);
    const float d = d_all * sc;
    if (!d) continue;
    for (int ii = 0; ii < 16; ++ii) {
      const int l = nearest_int(x[16 * j + ii] / d);
      L[16 * j + ii] = static_cast<int8_t>(std::max(-4, std::min(3, l)) + 4);
    }
  }
  std::memset(b->hmask, 0, QK_K / 8);
  int m = 0;
  uint8_t hm = 1;
  uint8_t Lu[QK_K];
  for (int j = 0; j < QK_K; ++j) {
    if (L[j] > 3) {
      b->hmask[m] |= hm;
      L[j] = static_cast<int8_t>(L[j] - 4);
    }
    Lu[j] = static_cast<uint8_t>(L[j]);
    if (++m == QK_K / 8) {
      m = 0;
      hm = static_cast<uint8_t>(hm << 1);
    }
  }
  pack_2bit(Lu, b->qs);
}

// q2_K's common tail: levels 0..3 against the stored scales and mins, then packing.
void finish_q2(const float* x, block_q2_K* b, uint8_t* L) {
  const float dm_all = fp16_round(b->d), mm_all = fp16_round(b->dmin);
  for (int j = 0; j < QK_K / 16; ++j) {
    const float d = dm_all * (b->scales[j] & 0xF);
    if (!d) continue;
    const float m = mm_all * (b->scales[j] >> 4);
    for (int ii = 0; ii < 16; ++ii) {
      const int l = nearest_int((x[16 * j + ii] + m) / d);
      L[16 * j + ii] = static_cast<uint8_t>(std::max(0, std::min(3, l)));
    }
  }
  pack_2bit(L, b->qs);
}

}  // namespace

void quantize_q2_K(const float* x, uint8_t* y, int64_t n, const float* qw) {
  uint8_t L[QK_K], Laux[16];
  float weight[16], mins[QK_K / 16], scales[QK_K / 16];
  for (int64_t i = 0; i < n / QK_K; ++i, x += QK_K, y += sizeof(block_q2_K)) {
    auto* b = block_out<block_q2_K>(y);
    if (!qw) {
      float max_scale = 0, max_min = 0;
      for (int j = 0; j < QK_K / 16; ++j) {
        for (int l = 0; l < 16; ++l) weight[l] = std::fabs(x[16 * j + l]);
        scales[j] = make_qkx2_quants(16, 3, x + 16 * j, weight, L + 16 * j, &mins[j], Laux, -0.5f, 0.1f, 15, true);
        if (scales[j] > max_scale) max_scale = scales[j];
        if (mins[j] > max_min) max_min = mins[j];
      }
      if (max_scale > 0) {
        const float iscale = 15.f / max_scale;
        for (int j = 0; j < QK_K / 16; ++j) b->scales[j] = static_cast<uint8_t>(nearest_int(iscale * scales[j]));
        put_fp16(b->d.b, max_scale / 15.f);
      } else {
        std::memset(b->scales, 0, QK_K / 16);
        put_fp16(b->d.b, 0.f);
      }
      if (max_min > 0) {
        const float iscale = 15.f / max_min;
        for (int j = 0; j < QK_K / 16; ++j) b->scales[j] |= static_cast<uint8_t>(nearest_int(iscale * mins[j]) << 4);
        put_fp16(b->dmin.b, max_min / 15.f);
      } else {
        put_fp16(b->dmin.b, 0.f);
      }
    } else {
      const float* w = qw + QK_K * i;
      float sw[QK_K / 16] = {};
      uint8_t Ls[QK_K / 16], Lm[QK_K / 16];
      const float sigma2 = sum_sq(x, QK_K) / QK_K;
      for (int j = 0; j < QK_K / 16; ++j) {
        for (int l = 0; l < 16; ++l) weight[l] = w[16 * j + l] * std::sqrt(sigma2 + x[16 * j + l] * x[16 * j + l]);
        for (int l = 0; l < 16; ++l) sw[j] += weight[l];
        scales[j] = make_qkx3_quants(16, 3, x + 16 * j, weight, L + 16 * j, &mins[j], Laux, -0.9f, 0.05f, 36, false);
      }
      put_fp16(b->d.b, make_qp_quants(QK_K / 16, 15, scales, Ls, sw));
      put_fp16(b->dmin.b, make_qp_quants(QK_K / 16, 15, mins, Lm, sw));
      for (int j = 0; j < QK_K / 16; ++j) b->scales[j] = static_cast<uint8_t>(Ls[j] | (Lm[j] << 4));
    }
    finish_q2(x, b, L);
  }
}

void quantize_q3_K(const float* x, uint8_t* y, int64_t n, const float* qw) {
  int8_t L[QK_K];
  float scales[QK_K / 16];
  int l6[QK_K / 16];
  for (int64_t i = 0; i < n / QK_K; ++i, x += QK_K, y += sizeof(block_q3_K)) {
    auto* b = block_out<block_q3_K>(y);
    if (!qw) {
      float max_scale = 0, amax = 0;
      for (int j = 0; j < QK_K / 16; ++j) {
        scales[j] = make_q3_quants(16, 4, x + 16 * j, L + 16 * j, true);
        const float scale = std::fabs(scales[j]);
        if (scale > amax) {
          amax = scale;
          max_scale = scales[j];
        }
      }
      if (max_scale) {
        const float iscale = -32.f / max_scale;
        for (int j = 0; j < QK_K / 16; ++j) {
          const int8_t l = static_cast<int8_t>(nearest_int(iscale * scales[j]));
          l6[j] = std::max<int>(-32, std::min<int>(31, l)) + 32;
        }
        pack_scales_q3(l6, b->scales);
        put_fp16(b->d.b, 1 / iscale);
      } else {
        std::memset(b->scales, 0, 12);
        put_fp16(b->d.b, 0.f);
      }
    } else {
      const float* w = qw + QK_K * i;
      float weight[16], sw[QK_K / 16];
      int8_t Ls[QK_K / 16];
      const float sigma2 = 2 * sum_sq(x, QK_K) / QK_K;
      for (int j = 0; j < QK_K / 16; ++j) {
        for (int l = 0; l < 16; ++l) weight[l] = w[16 * j + l] * std::sqrt(sigma2 + x[16 * j + l] * x[16 * j + l]);
        float sumw = 0;
        for (int l = 0; l < 16; ++l) sumw += weight[l];
        sw[j] = sumw;
        scales[j] = make_qx_quants(16, 4, x + 16 * j, L + 16 * j, 1, weight);
      }
      const float d_block = make_qx_quants(QK_K / 16, 32, scales, Ls, 1, sw);
      for (int j = 0; j < QK_K / 16; ++j) l6[j] = Ls[j];
      pack_scales_q3(l6, b->scales);
      put_fp16(b->d.b, d_block);
    }
    finish_q3(x, b, L);
  }
}

namespace {
// q4_K / q5_K (levels 0..nmax): the 8 sub-blocks' 6-bit scales and mins and the fp16 d and
// dmin into b (ggml's _ref search with rmin / nstep, or _impl with the weights qw), then
// the row's levels at those stored scales into L.
template <class Block>
void levels_k4(const float* x, const float* qw, int nmax, float rmin, int nstep, uint8_t* L, Block* b) {
  if (!qw) {
    ref_scales_k4(x, nmax, rmin, nstep, L, b->scales, b->d, b->dmin);
  } else {
    impl_scales_k4(x, qw, nmax, L, b->scales, b->d, b->dmin);
  }
  requantize_affine(x, b->d, b->dmin, b->scales, L, nmax);
}
}  // namespace

void quantize_q4_K(const float* x, uint8_t* y, int64_t n, const float* qw) {
  uint8_t L[QK_K];
  for (int64_t i = 0; i < n / QK_K; ++i, x += QK_K, y += sizeof(block_q4_K)) {
    auto* b = block_out<block_q4_K>(y);
    levels_k4(x, qw ? qw + QK_K * i : nullptr, 15, -1.f, 20, L, b);
    for (int j = 0; j < QK_K; j += 64) {
      for (int l = 0; l < 32; ++l) b->qs[j / 2 + l] = static_cast<uint8_t>(L[j + l] | (L[j + l + 32] << 4));
    }
  }
}

void quantize_q5_K(const float* x, uint8_t* y, int64_t n, const float* qw) {
  uint8_t L[QK_K];
  for (int64_t i = 0; i < n / QK_K; ++i, x += QK_K, y += sizeof(block_q5_K)) {
    auto* b = block_out<block_q5_K>(y);
    levels_k4(x, qw ? qw + QK_K * i : nullptr, 31, -0.5f, 15, L, b);
    std::memset(b->qh, 0, QK_K / 8);
    uint8_t m1 = 1, m2 = 2;
    for (int n0 = 0; n0 < QK_K; n0 += 64) {
      for (int j = 0; j < 32; ++j) {
        int l1 = L[n0 + j], l2 = L[n0 + j + 32];
        if (l1 > 15) {
          l1 -= 16;
          b->qh[j] |= m1;
        }
        if (l2 > 15) {
          l2 -= 16;
          b->qh[j] |= m2;
        }
        b->qs[n0 / 2 + j] = static_cast<uint8_t>(l1 | (l2 << 4));
      }
      m1 = static_cast<uint8_t>(m1 << 2);
      m2 = static_cast<uint8_t>(m2 << 2);
    }
  }
}

void quantize_q6_K(const float* x, uint8_t* y, int64_t n, const float* qw) {
  int8_t L[QK_K];
  float scales[QK_K / 16];
  for (int64_t i = 0; i < n / QK_K; ++i, x += QK_K, y += sizeof(block_q6_K)) {
    auto* b = block_out<block_q6_K>(y);
    float max_scale = 0, max_abs_scale = 0;
    for (int ib = 0; ib < QK_K / 16; ++ib) {
      const float scale = make_qx_quants(16, 32, x + 16 * ib, L + 16 * ib, 1, qw ? qw + QK_K * i + 16 * ib : nullptr);
      scales[ib] = scale;
      if (std::fabs(scale) > max_abs_scale) {
        max_abs_scale = std::fabs(scale);
        max_scale = scale;
      }
    }
    if (max_abs_scale < group_max_eps) {
      std::memset(y, 0, sizeof(block_q6_K));
      continue;
    }
    const float iscale = -128.f / max_scale;
    put_fp16(b->d.b, 1 / iscale);
    for (int ib = 0; ib < QK_K / 16; ++ib) {
      b->scales[ib] = static_cast<int8_t>(std::min(127, nearest_int(iscale * scales[ib])));
    }
    const float d_all = fp16_round(b->d);
    for (int j = 0; j < QK_K / 16; ++j) {
      const float d = d_all * b->scales[j];
      if (!d) continue;
      for (int ii = 0; ii < 16; ++ii) {
        const int l = nearest_int(x[16 * j + ii] / d);
        L[16 * j + ii] = static_cast<int8_t>(std::max(-32, std::min(31, l)) + 32);
      }
    }
    for (int j = 0; j < QK_K; j += 128) {
      uint8_t* ql = b->ql + j / 2;
      uint8_t* qh = b->qh + j / 4;
      for (int l = 0; l < 32; ++l) {
        const int q1 = L[j + l] & 0xF, q2 = L[j + l + 32] & 0xF, q3 = L[j + l + 64] & 0xF, q4 = L[j + l + 96] & 0xF;
        ql[l] = static_cast<uint8_t>(q1 | (q3 << 4));
        ql[l + 32] = static_cast<uint8_t>(q2 | (q4 << 4));
        qh[l] = static_cast<uint8_t>((L[j + l] >> 4) | ((L[j + l + 32] >> 4) << 2) | ((L[j + l + 64] >> 4) << 4) |
                                     ((L[j + l + 96] >> 4) << 6));
      }
    }
  }
}

}  // namespace gguf::detail
