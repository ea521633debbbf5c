// Quantizers of iq1_s (sub-blocks of 32, one shift per sub-block) and iq1_m (sub-blocks of
// 16, a shift per group of 8, the fp16 super-block scale spread over the scale bits):
// values in {-1, 0, 1} + shift on a grid of 2048 points. After ggml-quants.c v0.5.0's
// quantize_row_iq1_s_impl and quantize_row_iq1_m_impl: an exhaustive search of the two
// boundaries that split the sorted values into the three levels, then the grid.
#include <algorithm>
#include <cstdlib>

#include "quant/blocks.h"
#include "quant/iq_common.h"

namespace gguf::detail {
namespace {

constexpr float iq1_delta = 0.125f;  // IQ1S_DELTA, IQ1M_DELTA
constexpr float x_p[3] = {-1 + iq1_delta, iq1_delta, 1 + iq1_delta};
constexpr float x_m[3] = {-1 - iq1_delta, -iq1_delta, 1 - iq1_delta};

// A value and its position, sorted by value with the C library's qsort and a comparator
// of the value only, exactly as ggml sorts its (value, index) pairs: equal values keep the
// order this qsort gives them (the same library ggml runs with).
struct value_index {
  float x;
  int32_t i;
};
static_assert(sizeof(value_index) == 2 * sizeof(float));

int by_value(const void* a, const void* b) {
  const float l = static_cast<const value_index*>(a)->x, r = static_cast<const value_index*>(b)->x;
  return l < r ? -1 : l > r ? 1 : 0;
}

void sort_by_value(const float* xb, int n, value_index* pairs) {
  for (int j = 0; j < n; ++j) pairs[j] = {xb[j], j};
  std::qsort(pairs, n, sizeof(value_index), by_value);
}

// ggml's iq1_find_best_neighbour2: the neighbour of least weighted squared distance
// between scale * xg[level] and xval; its levels into L. (ggml's fallback over the whole
// grid, reached only when every distance is inf or NaN, is not reproduced.)
int find_best_neighbour_iq1(const iq_grid& g, const uint16_t* list, const float* xval, const float* weight,
                            float scale, const float* xg, int8_t* L) {
  const int n = list[0];
  float best_score = FLT_MAX;
  int grid_index = list[1];
  for (int j = 1; j <= n; ++j) {
    const int8_t* pg = g.point(list[j]);
    float d2 = 0;
    for (int i = 0; i < 8; ++i) {
      const float q = xg[(pg[i] - 1) / 2];
      const float w = weight[i];
      const float diff = scale * q - xval[i];
      d2 += w * diff * diff;
    }
    if (d2 < best_score) {
      best_score = d2;
      grid_index = list[j];
    }
  }
  const int8_t* pg = g.point(grid_index);
  for (int i = 0; i < 8; ++i) L[i] = static_cast<int8_t>((pg[i] - 1) / 2);
  return grid_index;
}

float abs_max(const float* xb, int n) {
  float max = std::fabs(xb[0]);
  for (int i = 1; i < n; ++i) max = std::max(max, std::fabs(xb[i]));
  return max;
}

// Levels 0, 1, 2 by the split points of the sorted order.
void split_levels(const value_index* pairs, int n, int i1, int i2, int8_t* L) {
  for (int j = 0; j < i1; ++j) L[pairs[j].i] = 0;
  for (int j = i1; j < i2; ++j) L[pairs[j].i] = 1;
  for (int j = i2; j < n; ++j) L[pairs[j].i] = 2;
}

// The grid index of each group of 8 levels of L into index: where a group is off the grid,
// its best neighbour at `scale` for the group's levels levels_of(k) (whose levels go to L).
// Returns the scale, refitted by weighted least squares on the snapped points when a group
// was off the grid (and the fit is positive).
template <class Levels>
float snap_to_grid(const iq_grid& g, int bs, const float* xb, const float* weight, float scale, Levels levels_of,
                   int8_t* L, uint16_t* index) {
  bool all_on_grid = true;
  for (int k = 0; k < bs / 8; ++k) {
    const uint32_t u = packed(L + 8 * k, 8, 2);
    int grid_index = g.map[u];
    if (grid_index < 0) {
      all_on_grid = false;
      grid_index = find_best_neighbour_iq1(g, g.neighbours_of(u), xb + 8 * k, weight + 8 * k, scale, levels_of(k), L + 8 * k);
    }
    index[k] = static_cast<uint16_t>(grid_index);
  }
  if (all_on_grid) return scale;
  float sumqx = 0, sumq2 = 0;
  for (int k = 0; k < bs / 8; ++k) {
    const float* xx = levels_of(k);
    const int8_t* pg = g.point(index[k]);
    for (int j = 0; j < 8; ++j) {
      const float w = weight[8 * k + j];
      const float q = xx[(pg[j] - 1) / 2];
      sumqx += w * q * xb[8 * k + j];
      sumq2 += w * q * q;
    }
  }
  return sumqx > 0 && sumq2 > 0 ? sumqx / sumq2 : scale;
}

}  // namespace

void quantize_iq1_s(const float* x, uint8_t* y, int64_t n, const float* quant_weights) {
  constexpr int bs = 32;
  const iq_grid& g = iq_grid_for(ggml_type::iq1_s);
  float scales[QK_K / bs], weight[bs], sumx[bs + 1], sumw[bs + 1];
  int8_t L[bs], shifts[QK_K / bs];
  uint16_t index[bs / 8];
  value_index pairs[bs];
  for (int64_t ibl = 0; ibl < n / QK_K; ++ibl, y += sizeof(block_iq1_s)) {
    auto* b = reinterpret_cast<block_iq1_s*>(y);
    put_fp16(b->d.b, 0.f);
    std::memset(b->qs, 0, sizeof b->qs);
    uint16_t qh[QK_K / 32] = {};
    float max_scale = 0;
    const float* xbl = x + QK_K * ibl;
    const float sigma2 = twice_mean_sq(xbl);
    for (int ib = 0; ib < QK_K / bs; ++ib) {
      const float* xb = xbl + bs * ib;
      iq_weights_or_squares(xb, quant_weights + QK_K * ibl + bs * ib, sigma2, bs, weight);
      const float max = abs_max(xb, bs);
      if (max < group_max_eps_iq1_s) {
        scales[ib] = 0;
        shifts[ib] = 1;
        continue;
      }
      // Exact weighted least squares over the two boundaries of the sorted values.
      sort_by_value(xb, bs, pairs);
      sumx[0] = sumw[0] = 0;
      for (int j = 0; j < bs; ++j) {
        const int i = pairs[j].i;
        sumx[j + 1] = sumx[j] + weight[i] * xb[i];
        sumw[j + 1] = sumw[j] + weight[i];
      }
      float best_score = -FLT_MAX, scale = max;
      int besti1 = -1, besti2 = -1, best_shift = 0;
      // Values below i1 at level 0, below i2 at level 1, the rest at 2, with the levels xv
      // of shift +1 (x_p) or -1 (x_m): kept when the fit is the best so far.
      auto consider = [&](int i1, int i2, const float* xv, int shift) {
        const float sumqx = (sumx[i1] - sumx[0]) * xv[0] + (sumx[i2] - sumx[i1]) * xv[1] + (sumx[bs] - sumx[i2]) * xv[2];
        const float sumq2 = (sumw[i1] - sumw[0]) * xv[0] * xv[0] + (sumw[i2] - sumw[i1]) * xv[1] * xv[1] +
                            (sumw[bs] - sumw[i2]) * xv[2] * xv[2];
        if (sumq2 > 0 && sumqx * sumqx > best_score * sumq2) {
          scale = sumqx / sumq2;
          best_score = scale * sumqx;
          besti1 = i1;
          besti2 = i2;
          best_shift = shift;
        }
      };
      for (int i1 = 0; i1 <= bs; ++i1) {
        for (int i2 = i1; i2 <= bs; ++i2) {
          consider(i1, i2, x_p, 1);
          consider(i1, i2, x_m, -1);
        }
      }
      if (besti1 < 0 || besti2 < 0 || best_shift == 0) {
        scales[ib] = 0;
        shifts[ib] = 1;
        continue;
      }
      split_levels(pairs, bs, besti1, besti2, L);
      if (scale < 0) {
        for (int j = 0; j < bs; ++j) L[j] = static_cast<int8_t>(2 - L[j]);
        scale = -scale;
        best_shift = -best_shift;
      }
      const float* xx = best_shift == 1 ? x_p : x_m;
      scale = snap_to_grid(g, bs, xb, weight, scale, [xx](int) { return xx; }, L, index);
      uint16_t h = 0;
      for (int k = 0; k < bs / 8; ++k) {
        b->qs[(bs / 8) * ib + k] = static_cast<uint8_t>(index[k] & 255);
        h = static_cast<uint16_t>(h | ((index[k] >> 8) << 3 * k));
      }
      qh[ib] = h;
      scales[ib] = scale;
      shifts[ib] = static_cast<int8_t>(best_shift);
      max_scale = std::max(max_scale, scale);
    }
    if (max_scale) {
      const float d = max_scale / 15;
      put_fp16(b->d.b, d * 1.125f);
      const float id = 1 / d;
      for (int ib = 0; ib < QK_K / bs; ++ib) {
        int l = std::max(0, std::min(7, nearest_int(0.5f * (id * scales[ib] - 1))));
        if (shifts[ib] == -1) l |= 8;
        qh[ib] = static_cast<uint16_t>(qh[ib] | (l << 12));
      }
    }
    for (int ib = 0; ib < QK_K / 32; ++ib) put_le16(b->qh + 2 * ib, qh[ib]);
  }
}

void quantize_iq1_m(const float* x, uint8_t* y, int64_t n, const float* quant_weights) {
  constexpr int bs = 16;
  constexpr uint8_t masks[4] = {0x00, 0x80, 0x08, 0x88};
  const iq_grid& g = iq_grid_for(ggml_type::iq1_m);
  float scales[QK_K / bs], weight[bs];
  int8_t L[bs], shifts[QK_K / bs];
  uint16_t index[bs / 8];
  value_index pairs[bs];
  float sumqx[4], sumq2[4];
  // The grid's levels of a group of 8 for shift k (0: +,+  1: +,-  2: -,+  3: -,-).
  auto levels_of = [](int k, int shift) { return k == 0 ? (shift < 2 ? x_p : x_m) : (shift % 2 == 0 ? x_p : x_m); };
  for (int64_t ibl = 0; ibl < n / QK_K; ++ibl, y += sizeof(block_iq1_m)) {
    auto* b = reinterpret_cast<block_iq1_m*>(y);
    std::memset(b->qs, 0, sizeof b->qs);
    std::memset(b->qh, 0, sizeof b->qh);
    std::memset(b->scales, 0, sizeof b->scales);
    float max_scale = 0;
    const float* xbl = x + QK_K * ibl;
    const float sigma2 = twice_mean_sq(xbl);
    for (int ib = 0; ib < QK_K / bs; ++ib) {
      const float* xb = xbl + bs * ib;
      iq_weights_or_squares(xb, quant_weights ? quant_weights + QK_K * ibl + bs * ib : nullptr, sigma2, bs, weight);
      const float max = abs_max(xb, bs);
      if (max < group_max_eps_iq1_m) {
        scales[ib] = 0;
        shifts[ib] = 0;
        continue;
      }
      sort_by_value(xb, bs, pairs);
      float best_score = -FLT_MAX, scale = max;
      int besti1 = -1, besti2 = -1, best_k = -1;
      {
        // prefix sums per half of the sub-block (each half has its own shift)
        float px[2][bs + 1], pw[2][bs + 1];
        px[0][0] = px[1][0] = 0;
        pw[0][0] = pw[1][0] = 0;
        for (int j = 0; j < bs; ++j) {
          const int i = pairs[j].i;
          const int h = i < bs / 2 ? 0 : 1;
          px[h][j + 1] = px[h][j] + weight[i] * xb[i];
          px[1 - h][j + 1] = px[1 - h][j];
          pw[h][j + 1] = pw[h][j] + weight[i];
          pw[1 - h][j + 1] = pw[1 - h][j];
        }
        const float txs[2] = {px[0][bs], px[1][bs]};
        const float tws[2] = {pw[0][bs], pw[1][bs]};
        const float p2 = x_p[2], m2 = x_m[2];
        const float cp1 = x_p[0] * x_p[0] - x_p[1] * x_p[1];
        const float cp2 = x_p[1] * x_p[1] - x_p[2] * x_p[2];
        const float cm1 = x_m[0] * x_m[0] - x_m[1] * x_m[1];
        const float cm2 = x_m[1] * x_m[1] - x_m[2] * x_m[2];
        for (int i1 = 0; i1 <= bs; ++i1) {
          for (int i2 = i1; i2 <= bs; ++i2) {
            float qx_p[2], qx_m[2], q2_p[2], q2_m[2];
            for (int h = 0; h < 2; ++h) {
              const float sx = px[h][i1] + px[h][i2];
              qx_p[h] = txs[h] * p2 - sx;
              qx_m[h] = txs[h] * m2 - sx;
              q2_p[h] = tws[h] * p2 * p2 + pw[h][i1] * cp1 + pw[h][i2] * cp2;
              q2_m[h] = tws[h] * m2 * m2 + pw[h][i1] * cm1 + pw[h][i2] * cm2;
            }
            sumqx[0] = qx_p[0] + qx_p[1];
            sumqx[1] = qx_p[0] + qx_m[1];
            sumqx[2] = qx_m[0] + qx_p[1];
            sumqx[3] = qx_m[0] + qx_m[1];
            sumq2[0] = q2_p[0] + q2_p[1];
            sumq2[1] = q2_p[0] + q2_m[1];
            sumq2[2] = q2_m[0] + q2_p[1];
            sumq2[3] = q2_m[0] + q2_m[1];
            for (int k = 0; k < 4; ++k) {
              if (sumq2[k] > 0 && sumqx[k] * sumqx[k] > best_score * sumq2[k]) {
                scale = sumqx[k] / sumq2[k];
                best_score = scale * sumqx[k];
                besti1 = i1;
                besti2 = i2;
                best_k = k;
              }
            }
          }
        }
      }
      if (besti1 < 0 || besti2 < 0 || best_k < 0) {
        scales[ib] = 0;
        shifts[ib] = 0;
        continue;
      }
      split_levels(pairs, bs, besti1, besti2, L);
      if (scale < 0) {
        for (int j = 0; j < bs; ++j) L[j] = static_cast<int8_t>(2 - L[j]);
        scale = -scale;
        best_k = 3 - best_k;
      }
      scale = snap_to_grid(g, bs, xb, weight, scale, [&](int k) { return levels_of(k, best_k); }, L, index);
      b->qs[2 * ib] = static_cast<uint8_t>(index[0] & 255);
      b->qs[2 * ib + 1] = static_cast<uint8_t>(index[1] & 255);
      b->qh[ib] = static_cast<uint8_t>((index[0] >> 8) | ((index[1] >> 8) << 4));
      scales[ib] = scale;
      shifts[ib] = static_cast<int8_t>(best_k);
      max_scale = std::max(max_scale, scale);
    }
    if (!max_scale) continue;
    uint16_t sc[4] = {};
    float d = max_scale / 15;
    const float id = 1 / d;
    float sumqx_f = 0, sumq2_f = 0;
    for (int ib = 0; ib < QK_K / bs; ++ib) {
      const int l = std::max(0, std::min(7, nearest_int(0.5f * (id * scales[ib] - 1))));
      sc[ib / 4] = static_cast<uint16_t>(sc[ib / 4] | (l << 3 * (ib % 4)));
      b->qh[ib] |= masks[shifts[ib]];
      const float* xb = xbl + bs * ib;
      iq_weights_or_squares(xb, quant_weights ? quant_weights + QK_K * ibl + bs * ib : nullptr, sigma2, bs, weight);
      for (int k = 0; k < bs / 8; ++k) {
        const float* xx = levels_of(k, shifts[ib]);
        const int8_t* pg = g.point(b->qs[2 * ib + k] + ((b->qh[ib] << (8 - 4 * k)) & 0x700));
        for (int j = 0; j < 8; ++j) {
          const float w = weight[8 * k + j];
          const float q = xx[(pg[j] - 1) / 2] * (2 * l + 1);
          sumqx_f += w * q * xb[8 * k + j];
          sumq2_f += w * q * q;
        }
      }
    }
    if (sumq2_f > 0) d = sumqx_f / sumq2_f;
    const uint16_t s = fp32_to_fp16(d * 1.1125f);
    sc[0] = static_cast<uint16_t>(sc[0] | ((s & 0x000f) << 12));
    sc[1] = static_cast<uint16_t>(sc[1] | ((s & 0x00f0) << 8));
    sc[2] = static_cast<uint16_t>(sc[2] | ((s & 0x0f00) << 4));
    sc[3] = static_cast<uint16_t>(sc[3] | (s & 0xf000));
    for (int i = 0; i < 4; ++i) put_le16(b->scales + 2 * i, sc[i]);
  }
}

}  // namespace gguf::detail
