// Pieces the grid-based iq quantizers share (quantize_iq2.cpp, quantize_iq3.cpp,
// quantize_iq1.cpp), after ggml-quants.c v0.5.0.
#pragma once

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <optional>

#include "quant/iq_grids.h"
#include "quant/quantize.h"

namespace gguf::detail {

inline constexpr float group_max_eps_iq3_xxs = 1e-8f;
inline constexpr float group_max_eps_iq2_s = 1e-8f;
inline constexpr float group_max_eps_iq1_m = 1e-7f;
inline constexpr float group_max_eps_iq1_s = 1e-12f;

/// 2 * the mean of x^2 over a super-block of QK_K: the sigma2 of the iq1 and iq3 weights.
inline float twice_mean_sq(const float* x) {
  float s = 0;
  for (int i = 0; i < QK_K; ++i) s += x[i] * x[i];
  return 2 * s / QK_K;
}

/// Weights of a sub-block of n (iq1, iq3): qw * sqrt(sigma2 + x^2), or x^2 without qw.
inline void iq_weights_or_squares(const float* xb, const float* qw, float sigma2, int n, float* weight) {
  if (qw) {
    for (int i = 0; i < n; ++i) weight[i] = qw[i] * std::sqrt(sigma2 + xb[i] * xb[i]);
  } else {
    for (int i = 0; i < n; ++i) weight[i] = xb[i] * xb[i];
  }
}

/// The grid point of `list` (count, indices) nearest to xval in the weighted squared
/// distance to scale * point (the first on ties); its levels (point - 1) / 2 into L.
/// ggml's iq2_find_best_neighbour / iq3_find_best_neighbour.
inline int find_best_neighbour(const iq_grid& g, const uint16_t* list, const float* xval, const float* weight,
                               float scale, int8_t* L) {
  const int n = list[0];
  const int vp = g.values_per_point;
  float best_d2 = FLT_MAX;
  int grid_index = -1;
  for (int j = 1; j <= n; ++j) {
    const int8_t* pg = g.point(list[j]);
    float d2 = 0;
    for (int i = 0; i < vp; ++i) {
      const float q = pg[i];
      const float diff = scale * q - xval[i];
      d2 += weight[i] * diff * diff;
    }
    if (d2 < best_d2) {
      best_d2 = d2;
      grid_index = list[j];
    }
  }
  const int8_t* pg = g.point(grid_index);
  for (int i = 0; i < vp; ++i) L[i] = static_cast<int8_t>((pg[i] - 1) / 2);
  return grid_index;
}

/// |x| of 8 values into xval and their sign bits; an odd number of negatives is made even
/// by flipping the value of least weight * x^2 (iq2/iq3 store 7 sign bits, the 8th is parity).
inline uint8_t even_signs(const float* xb, const float* weight, float* xval) {
  int nflip = 0;
  uint8_t s = 0;
  for (int i = 0; i < 8; ++i) {
    if (xb[i] >= 0) {
      xval[i] = xb[i];
    } else {
      xval[i] = -xb[i];
      ++nflip;
      s = static_cast<uint8_t>(s | (1 << i));
    }
  }
  if (nflip % 2) {
    int imin = 0;
    float min = weight[imin] * xb[imin] * xb[imin];
    for (int i = 1; i < 8; ++i) {
      const float ax = weight[i] * xb[i] * xb[i];
      if (ax < min) {
        min = ax;
        imin = i;
      }
    }
    xval[imin] = -xval[imin];
    s = static_cast<uint8_t>(s ^ (1 << imin));
  }
  return static_cast<uint8_t>(s & 127);
}

/// Levels 0..kmax-1 of `count` values at inverse scale id: nearest_int((id * x - 1) / 2),
/// clamped, packed `bits` per level (bit offset bits * i).
inline uint32_t pack_levels(const float* xval, float id, int count, int kmax, int bits, int8_t* L) {
  uint32_t u = 0;
  for (int i = 0; i < count; ++i) {
    const int l = std::max(0, std::min(kmax - 1, nearest_int(0.5f * (id * xval[i] - 1))));
    L[i] = static_cast<int8_t>(l);
    u |= static_cast<uint32_t>(l) << (bits * i);
  }
  return u;
}

/// The packed levels of L (`count` values, `bits` each).
inline uint32_t packed(const int8_t* L, int count, int bits) {
  uint32_t u = 0;
  for (int i = 0; i < count; ++i) u |= static_cast<uint32_t>(L[i]) << (bits * i);
  return u;
}

/// Sums of w * x * q and w * q^2 with q = 2L + 1 (the least-squares scale's numerator and
/// denominator).
inline void odd_level_sums(const float* weight, const float* xval, const int8_t* L, int n, float& sumqx,
                           float& sumq2) {
  sumqx = sumq2 = 0;
  for (int i = 0; i < n; ++i) {
    const float w = weight[i];
    const float q = 2 * L[i] + 1;
    sumqx += w * xval[i] * q;
    sumq2 += w * q * q;
  }
}

/// The scale search of the grid types on one sub-block (ggml's loop in the iq2_xs, iq2_s,
/// iq3_xxs and iq3_s quantizers): `ngroups` groups of g.values_per_point magnitudes xval,
/// trial inverse scales (2 kmax - 1 + is * step) / max for |is| <= is_steps, each group
/// snapped to the grid (the weighted-nearest neighbour when off it), the best trial by
/// weighted least squares. Then, if some group of the best trial was off the grid and the
/// scale is positive, the groups (all of them with `redo_all`, else those off the grid)
/// are requantized at that scale. `on_grid_init`: what "on the grid" starts as (iq3_s
/// starts from false, so a sub-block no trial improves is requantized). Levels into L.
inline float grid_search(const iq_grid& g, int ngroups, int kmax, int is_steps, float step, bool on_grid_init,
                         bool redo_all, const float* xval, const float* weight, const float* waux, float max,
                         int8_t* L) {
  const int vp = g.values_per_point, n = ngroups * vp;
  int8_t Laux[32];
  bool is_on_grid[8], is_on_grid_aux[8];
  float best = 0;
  float scale = max / (2 * kmax - 1);
  std::fill(is_on_grid, is_on_grid + ngroups, on_grid_init);
  for (int is = -is_steps; is <= is_steps; ++is) {
    const float id = (2 * kmax - 1 + is * step) / max;
    const float this_scale = 1 / id;
    for (int k = 0; k < ngroups; ++k) {
      const uint32_t u = pack_levels(xval + vp * k, id, vp, kmax, g.bits, Laux + vp * k);
      is_on_grid_aux[k] = g.map[u] >= 0;
      if (!is_on_grid_aux[k]) find_best_neighbour(g, g.neighbours_of(u), xval + vp * k, waux + vp * k, this_scale, Laux + vp * k);
    }
    float sumqx, sumq2;
    odd_level_sums(weight, xval, Laux, n, sumqx, sumq2);
    if (sumq2 > 0 && sumqx * sumqx > best * sumq2) {
      scale = sumqx / sumq2;
      best = scale * sumqx;
      std::memcpy(L, Laux, n);
      std::copy(is_on_grid_aux, is_on_grid_aux + ngroups, is_on_grid);
    }
  }
  if (std::find(is_on_grid, is_on_grid + ngroups, false) != is_on_grid + ngroups && scale > 0) {
    const float id = 1 / scale;
    for (int k = 0; k < ngroups; ++k) {
      if (!redo_all && is_on_grid[k]) continue;
      const uint32_t u = pack_levels(xval + vp * k, id, vp, kmax, g.bits, L + vp * k);
      if (g.map[u] < 0) find_best_neighbour(g, g.neighbours_of(u), xval + vp * k, waux + vp * k, scale, L + vp * k);
    }
    float sumqx, sumq2;
    odd_level_sums(weight, xval, L, n, sumqx, sumq2);
    if (sumq2 > 0) scale = sumqx / sumq2;
  }
  return scale;
}

/// The largest of n values.
inline float max_of(const float* v, int n) {
  float m = v[0];
  for (int i = 1; i < n; ++i) m = std::max(m, v[i]);
  return m;
}

/// |x| of 8 values into xval and all 8 sign bits (iq2_s and iq3_s store every sign).
inline uint8_t all_signs(const float* xb, float* xval) {
  uint8_t s = 0;
  for (int i = 0; i < 8; ++i) {
    const float v = xb[i];
    xval[i] = v >= 0 ? v : -v;
    if (!(v >= 0)) s = static_cast<uint8_t>(s | (1 << i));
  }
  return s;
}

/// How one of the iq2_xs, iq2_s, iq3_xxs, iq3_s quantizers searches a sub-block: the
/// grid_search parameters, the least largest |x| that is searched (below it the scale is
/// 0), and whether signs are 7 bits with even parity (even_signs) or all 8 (all_signs).
struct sub_block_search {
  int n;  ///< values in the sub-block: ngroups * the grid's values per point
  int ngroups, kmax, is_steps;
  float step;
  bool on_grid_init, redo_all;
  float eps;
  bool even_parity;
};

/// One sub-block of those quantizers (ggml's loop body up to the stores): |x| into xval
/// and the signs of each 8 into signs, L zeroed, then grid_search, and the grid index of
/// each group's levels into index. Empty when the largest |x| is below p.eps. A negative
/// scale (ggml: "should never happen"; stored unsigned) is returned positive with the
/// signs flipped.
inline std::optional<float> signed_grid_search(const iq_grid& g, const sub_block_search& p, const float* xb,
                                               const float* weight, const float* waux, float* xval, int8_t* L,
                                               uint8_t* signs, uint16_t* index) {
  const int n = p.n;
  for (int k = 0; k < n / 8; ++k) {
    signs[k] = p.even_parity ? even_signs(xb + 8 * k, weight + 8 * k, xval + 8 * k) : all_signs(xb + 8 * k, xval + 8 * k);
  }
  const float max = max_of(xval, n);
  std::memset(L, 0, n);
  if (max < p.eps) return std::nullopt;
  float scale = grid_search(g, p.ngroups, p.kmax, p.is_steps, p.step, p.on_grid_init, p.redo_all, xval, weight, waux,
                            max, L);
  if (scale < 0) {
    scale = -scale;
    for (int k = 0; k < n / 8; ++k) signs[k] = static_cast<uint8_t>(~signs[k] & (p.even_parity ? 127 : 255));
  }
  const int vp = g.values_per_point;
  for (int k = 0; k < p.ngroups; ++k) index[k] = static_cast<uint16_t>(g.index_of(packed(L + vp * k, vp, g.bits)));
  return scale;
}

/// 4-bit sub-block scales of the iq2/iq3 types: nearest_int((scale / d - 1) / 2) in 0..15,
/// two per byte (even sub-block in the low nibble).
inline void pack_scale_nibbles(const float* scales, int n, float id, uint8_t* out) {
  for (int ib = 0; ib < n; ++ib) {
    const int l = std::max(0, std::min(15, nearest_int(0.5f * (id * scales[ib] - 1))));
    if (ib % 2 == 0) {
      out[ib / 2] = static_cast<uint8_t>(l);
    } else {
      out[ib / 2] |= static_cast<uint8_t>(l << 4);
    }
  }
}

}  // namespace gguf::detail
