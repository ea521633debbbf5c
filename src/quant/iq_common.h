// Pieces the grid-based iq quantizers share (quantize_iq2.cpp, quantize_iq3.cpp,
// quantize_iq1.cpp), after ggml-quants.c v0.5.0.
#pragma once

#include <cfloat>

#include "quant/iq_grids.h"
#include "quant/quantize.h"

namespace gguf::detail {

inline constexpr float group_max_eps_iq3_xxs = 1e-8f;
inline constexpr float group_max_eps_iq2_s = 1e-8f;
inline constexpr float group_max_eps_iq1_m = 1e-7f;
inline constexpr float group_max_eps_iq1_s = 1e-12f;

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

}  // namespace gguf::detail
