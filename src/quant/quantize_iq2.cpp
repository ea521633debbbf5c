// Quantizers of iq2_xxs, iq2_xs and iq2_s: groups of 8 magnitudes on a grid of 256 / 512 /
// 1024 points (levels 1, 3, 5), sign bits per group (iq2_xxs, iq2_xs: 7 with even parity),
// 4-bit sub-block scales. After ggml-quants.c v0.5.0's quantize_row_iq2_xxs_impl,
// quantize_row_iq2_xs_impl (both need importance weights: ggml_quantize_requires_imatrix)
// and quantize_row_iq2_s_impl.
#include <algorithm>

#include "quant/blocks.h"
#include "quant/iq_common.h"

namespace gguf::detail {
namespace {

constexpr int kMaxQ = 3;
// The sub-block searches of iq2_xs (7 sign bits + parity) and iq2_s (all 8 signs stored).
constexpr sub_block_search kSearchXs = {16, 2, kMaxQ, 9, 0.1f, true, false, group_max_eps, true};
constexpr sub_block_search kSearchS = {16, 2, kMaxQ, 9, 0.1f, true, false, group_max_eps_iq2_s, false};

// Weights of a sub-block: qw * sqrt(sigma2 + x^2), and their square roots (the neighbour
// search's weights).
void iq_weights(const float* xb, const float* qw, float sigma2, int n, float* weight, float* waux) {
  for (int i = 0; i < n; ++i) weight[i] = qw[i] * std::sqrt(sigma2 + xb[i] * xb[i]);
  for (int i = 0; i < n; ++i) waux[i] = std::sqrt(weight[i]);
}

float mean_sq(const float* x, int n) {
  float s = 0;
  for (int i = 0; i < n; ++i) s += x[i] * x[i];
  return s / n;
}

}  // namespace

void quantize_iq2_xxs(const float* x, uint8_t* y, int64_t n, const float* quant_weights) {
  const iq_grid& g = iq_grid_for(ggml_type::iq2_xxs);
  float scales[QK_K / 32], weight[32], xval[32], waux[32];
  int8_t L[32], Laux[32];
  uint8_t block_signs[4];
  uint32_t q2[2 * (QK_K / 32)];
  for (int64_t ibl = 0; ibl < n / QK_K; ++ibl, y += sizeof(block_iq2_xxs)) {
    put_fp16(y, 0.f);
    std::memset(q2, 0, sizeof q2);
    float max_scale = 0;
    const float* xbl = x + QK_K * ibl;
    const float sigma2 = mean_sq(xbl, QK_K);
    for (int ib = 0; ib < QK_K / 32; ++ib) {
      const float* xb = xbl + 32 * ib;
      iq_weights(xb, quant_weights + QK_K * ibl + 32 * ib, sigma2, 32, weight, waux);
      for (int k = 0; k < 4; ++k) block_signs[k] = even_signs(xb + 8 * k, weight + 8 * k, xval + 8 * k);
      const float max = max_of(xval, 32);
      if (max < group_max_eps) {
        scales[ib] = 0;
        continue;
      }
      float scale = make_qp_quants(32, kMaxQ + 1, xval, reinterpret_cast<uint8_t*>(L), weight);
      const float eff_max = scale * kMaxQ;
      if (eff_max <= 0) {
        scales[ib] = 0;
        continue;
      }
      float best = 0;
      for (int is = -6; is <= 6; ++is) {
        const float id = (2 * kMaxQ - 1 + is * 0.1f) / eff_max;
        const float this_scale = 1 / id;
        for (int k = 0; k < 4; ++k) {
          const uint32_t u = pack_levels(xval + 8 * k, id, 8, kMaxQ, 2, Laux + 8 * k);
          if (g.map[u] < 0) find_best_neighbour(g, g.neighbours_of(u), xval + 8 * k, waux + 8 * k, this_scale, Laux + 8 * k);
        }
        float sumqx, sumq2;
        odd_level_sums(weight, xval, Laux, 32, sumqx, sumq2);
        if (sumq2 > 0 && sumqx * sumqx > best * sumq2) {
          scale = sumqx / sumq2;
          best = scale * sumqx;
          std::memcpy(L, Laux, 32);
        }
      }
      if (scale > 0) {
        const float id = 1 / scale;
        for (int k = 0; k < 4; ++k) {
          const uint32_t u = pack_levels(xval + 8 * k, id, 8, kMaxQ, 2, L + 8 * k);
          int grid_index = g.map[u];
          if (grid_index < 0) grid_index = find_best_neighbour(g, g.neighbours_of(u), xval + 8 * k, waux + 8 * k, scale, L + 8 * k);
          const int8_t* pg = g.point(grid_index);
          for (int i = 0; i < 8; ++i) L[8 * k + i] = static_cast<int8_t>((pg[i] - 1) / 2);
        }
        float sumqx, sumq2;
        odd_level_sums(weight, xval, L, 32, sumqx, sumq2);
        if (sumq2 > 0) scale = sumqx / sumq2;
      }
      if (scale < 0) {  // ggml: "should never happen"; the scale is stored unsigned
        scale = -scale;
        for (int k = 0; k < 4; ++k) block_signs[k] = static_cast<uint8_t>(~block_signs[k] & 127);
      }
      for (int k = 0; k < 4; ++k) {
        const int grid_index = g.index_of(packed(L + 8 * k, 8, 2));  // on the grid by construction
        q2[2 * ib] |= static_cast<uint32_t>(grid_index) << (8 * k);
        q2[2 * ib + 1] |= static_cast<uint32_t>(block_signs[k]) << (7 * k);
      }
      scales[ib] = scale;
      max_scale = std::max(max_scale, scale);
    }
    uint8_t* qs = y + 2;
    if (!max_scale) {
      std::memset(qs, 0, QK_K / 4);
      continue;
    }
    const float d = max_scale / 31;
    put_fp16(y, d);
    const float id = 1 / d;
    for (int ib = 0; ib < QK_K / 32; ++ib) {
      const int l = std::max(0, std::min(15, nearest_int(0.5f * (id * scales[ib] - 1))));
      q2[2 * ib + 1] |= static_cast<uint32_t>(l) << 28;
    }
    for (int i = 0; i < 2 * (QK_K / 32); ++i) put_le32(qs + 4 * i, q2[i]);
  }
}

void quantize_iq2_xs(const float* x, uint8_t* y, int64_t n, const float* quant_weights) {
  const iq_grid& g = iq_grid_for(ggml_type::iq2_xs);
  float scales[QK_K / 16], weight[16], xval[16], waux[16];
  int8_t L[16];
  uint8_t block_signs[2];
  uint16_t index[2], q2[2 * (QK_K / 16)];
  for (int64_t ibl = 0; ibl < n / QK_K; ++ibl, y += sizeof(block_iq2_xs)) {
    auto* b = reinterpret_cast<block_iq2_xs*>(y);
    put_fp16(b->d.b, 0.f);
    std::memset(q2, 0, sizeof q2);
    std::memset(b->scales, 0, QK_K / 32);
    float max_scale = 0;
    const float* xbl = x + QK_K * ibl;
    const float sigma2 = mean_sq(xbl, QK_K);
    for (int ib = 0; ib < QK_K / 16; ++ib) {
      const float* xb = xbl + 16 * ib;
      iq_weights(xb, quant_weights + QK_K * ibl + 16 * ib, sigma2, 16, weight, waux);
      const auto found = signed_grid_search(g, kSearchXs, xb, weight, waux, xval, L, block_signs, index);
      scales[ib] = found.value_or(0.f);
      if (!found) continue;
      for (int k = 0; k < 2; ++k) q2[2 * ib + k] = static_cast<uint16_t>(index[k] | (block_signs[k] << 9));
      max_scale = std::max(max_scale, *found);
    }
    if (!max_scale) {
      std::memset(b->qs, 0, QK_K / 4);
      continue;
    }
    const float d = max_scale / 31;
    put_fp16(b->d.b, d);
    pack_scale_nibbles(scales, QK_K / 16, 1 / d, b->scales);
    for (int i = 0; i < 2 * (QK_K / 16); ++i) put_le16(b->qs + 2 * i, q2[i]);
  }
}

void quantize_iq2_s(const float* x, uint8_t* y, int64_t n, const float* quant_weights) {
  const iq_grid& g = iq_grid_for(ggml_type::iq2_s);
  float scales[QK_K / 16], weight[16], xval[16], waux[16];
  int8_t L[16];
  uint8_t block_signs[2];
  uint16_t index[2];
  for (int64_t ibl = 0; ibl < n / QK_K; ++ibl, y += sizeof(block_iq2_s)) {
    auto* b = reinterpret_cast<block_iq2_s*>(y);
    std::memset(y, 0, sizeof(block_iq2_s));
    float max_scale = 0;
    const float* xbl = x + QK_K * ibl;
    const float sigma2 = 2 * mean_sq(xbl, QK_K);
    for (int ib = 0; ib < QK_K / 16; ++ib) {
      const float* xb = xbl + 16 * ib;
      if (quant_weights) {
        iq_weights(xb, quant_weights + QK_K * ibl + 16 * ib, sigma2, 16, weight, waux);
      } else {
        for (int i = 0; i < 16; ++i) weight[i] = 0.25f * sigma2 + xb[i] * xb[i];
        for (int i = 0; i < 16; ++i) waux[i] = std::sqrt(weight[i]);
      }
      const auto found = signed_grid_search(g, kSearchS, xb, weight, waux, xval, L, block_signs, index);
      scales[ib] = found.value_or(0.f);
      if (!found) continue;
      for (int k = 0; k < 2; ++k) {
        const int i8 = 2 * ib + k;
        b->qs[i8] = static_cast<uint8_t>(index[k] & 255);
        b->qh[i8 / 4] |= static_cast<uint8_t>((index[k] >> 8) << 2 * (i8 % 4));
        b->qs[QK_K / 8 + i8] = block_signs[k];
      }
      max_scale = std::max(max_scale, *found);
    }
    if (!max_scale) continue;
    const float d = max_scale / 31;
    put_fp16(b->d.b, d * 0.9875f);
    pack_scale_nibbles(scales, QK_K / 16, 1 / d, b->scales);
  }
}

}  // namespace gguf::detail
