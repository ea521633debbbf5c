// Quantizers of iq3_xxs and iq3_s: groups of 4 magnitudes on a grid of 256 / 512 points
// (levels 1, 3, ..., 15), signs per value (iq3_xxs: 7 bits per 8 with even parity), 4-bit
// sub-block scales. After ggml-quants.c v0.5.0's quantize_row_iq3_xxs_impl (grid 256) and
// quantize_row_iq3_s_impl (block size 32); without importance weights they weight by x^2.
#include <algorithm>
#include <limits>

#include "quant/blocks.h"
#include "quant/iq_common.h"

namespace gguf::detail {
namespace {

constexpr int kMaxQ = 8;
// The sub-block searches of iq3_xxs (7 sign bits + parity) and iq3_s (all 8 signs stored;
// ggml skips only an all-zero sub-block: below the least positive float).
constexpr sub_block_search kSearchXxs = {32, 8, kMaxQ, 15, 0.2f, true, false, group_max_eps_iq3_xxs, true};
constexpr sub_block_search kSearchS = {32, 8, kMaxQ, 9, 0.2f, false, true, std::numeric_limits<float>::denorm_min(), false};

// Weights of a sub-block of `n`: qw * sqrt(sigma2 + x^2), or x^2 without qw; and their
// square roots.
void iq3_weights(const float* xb, const float* qw, float sigma2, int n, float* weight, float* waux) {
  iq_weights_or_squares(xb, qw, sigma2, n, weight);
  for (int i = 0; i < n; ++i) waux[i] = std::sqrt(weight[i]);
}

}  // namespace

void quantize_iq3_xxs(const float* x, uint8_t* y, int64_t n, const float* quant_weights) {
  const iq_grid& g = iq_grid_for(ggml_type::iq3_xxs);
  float scales[QK_K / 32], weight[32], xval[32], waux[32];
  int8_t L[32];
  uint8_t block_signs[4];
  uint16_t index[8];
  uint8_t grid_idx[QK_K / 4];
  uint32_t scales_and_signs[QK_K / 32];
  for (int64_t ibl = 0; ibl < n / QK_K; ++ibl, y += sizeof(block_iq3_xxs)) {
    put_fp16(y, 0.f);
    std::memset(grid_idx, 0, sizeof grid_idx);
    std::memset(scales_and_signs, 0, sizeof scales_and_signs);
    float max_scale = 0;
    const float* xbl = x + QK_K * ibl;
    const float sigma2 = twice_mean_sq(xbl);
    for (int ib = 0; ib < QK_K / 32; ++ib) {
      const float* xb = xbl + 32 * ib;
      iq3_weights(xb, quant_weights ? quant_weights + QK_K * ibl + 32 * ib : nullptr, sigma2, 32, weight, waux);
      const auto found = signed_grid_search(g, kSearchXxs, xb, weight, waux, xval, L, block_signs, index);
      scales[ib] = found.value_or(0.f);
      if (!found) continue;
      for (int k = 0; k < 8; ++k) grid_idx[8 * ib + k] = static_cast<uint8_t>(index[k]);
      scales_and_signs[ib] = static_cast<uint32_t>(block_signs[0] | (block_signs[1] << 7) | (block_signs[2] << 14) |
                                                   (block_signs[3] << 21));
      max_scale = std::max(max_scale, *found);
    }
    uint8_t* qs = y + 2;
    if (!max_scale) {
      std::memset(qs, 0, sizeof(block_iq3_xxs) - 2);
      continue;
    }
    const float d = max_scale / 31;
    put_fp16(y, d * 1.0125f);
    const float id = 1 / d;
    for (int ib = 0; ib < QK_K / 32; ++ib) {
      const int l = std::max(0, std::min(15, nearest_int(0.5f * (id * scales[ib] - 1))));
      scales_and_signs[ib] |= static_cast<uint32_t>(l) << 28;
    }
    std::memcpy(qs, grid_idx, QK_K / 4);
    for (int ib = 0; ib < QK_K / 32; ++ib) put_le32(qs + QK_K / 4 + 4 * ib, scales_and_signs[ib]);
  }
}

void quantize_iq3_s(const float* x, uint8_t* y, int64_t n, const float* quant_weights) {
  constexpr int bs = 32, bs4 = bs / 4, bs8 = bs / 8;
  const iq_grid& g = iq_grid_for(ggml_type::iq3_s);
  float scales[QK_K / bs], weight[bs], xval[bs], waux[bs];
  int8_t L[bs];
  uint8_t block_signs[bs8];
  uint16_t index[bs4];
  for (int64_t ibl = 0; ibl < n / QK_K; ++ibl, y += sizeof(block_iq3_s)) {
    auto* b = reinterpret_cast<block_iq3_s*>(y);
    std::memset(y, 0, sizeof(block_iq3_s));
    put_fp16(b->d.b, 0.f);
    // ggml advances these only past sub-blocks that are not all zero (a zero sub-block
    // leaves its bytes to the next one): kept so, for the same bytes.
    uint8_t* qs = b->qs;
    uint8_t* signs = b->signs;
    float max_scale = 0;
    const float* xbl = x + QK_K * ibl;
    const float sigma2 = twice_mean_sq(xbl);
    for (int ib = 0; ib < QK_K / bs; ++ib) {
      const float* xb = xbl + bs * ib;
      iq3_weights(xb, quant_weights ? quant_weights + QK_K * ibl + bs * ib : nullptr, sigma2, bs, weight, waux);
      const auto found = signed_grid_search(g, kSearchS, xb, weight, waux, xval, L, block_signs, index);
      scales[ib] = found.value_or(0.f);
      if (!found) continue;
      for (int k = 0; k < bs4; ++k) {
        qs[k] = static_cast<uint8_t>(index[k] & 255);
        b->qh[(ib * bs4 + k) / 8] |= static_cast<uint8_t>((index[k] >> 8) << ((ib * bs4 + k) % 8));
      }
      qs += bs4;
      for (int k = 0; k < bs8; ++k) signs[k] = block_signs[k];
      signs += bs8;
      max_scale = std::max(max_scale, *found);
    }
    if (!max_scale) continue;
    const float d = max_scale / 31;
    put_fp16(b->d.b, d * 1.033f);
    const float id = 1 / d;
    for (int ib = 0; ib < QK_K / bs; ib += 2) {
      const int l1 = std::max(0, std::min(15, nearest_int(0.5f * (id * scales[ib] - 1))));
      const int l2 = std::max(0, std::min(15, nearest_int(0.5f * (id * scales[ib + 1] - 1))));
      b->scales[ib / 2] = static_cast<uint8_t>(l1 | (l2 << 4));
    }
  }
}

}  // namespace gguf::detail
