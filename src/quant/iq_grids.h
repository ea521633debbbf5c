// The search structures of the iq quantizers, built once per process from the index grids
// (grid_tables.h), as ggml's iq2xs_init_impl / iq3xs_init_impl build them:
//   grid        each grid point's values 2l + 1 (8 per point for iq2/iq1, 4 for iq3);
//   map         for every packed level vector u (2 bits per value for iq2/iq1, 3 for iq3):
//               the grid index when u is a grid point, else -(offset + 1) into `neighbours`;
//   neighbours  at each offset: the count n, then n grid indices, the points nearest to u
//               (squared distance) over the first `nwant` distinct distances, by (distance, index).
#pragma once

#include <cstdint>
#include <vector>

#include "gguf/format.h"

namespace gguf::detail {

struct iq_grid {
  int values_per_point = 0;  ///< 8 (iq2, iq1) or 4 (iq3)
  int bits = 0;              ///< bits per level in a packed vector: 2 or 3
  std::vector<int8_t> grid;  ///< points * values_per_point
  std::vector<int32_t> map;
  std::vector<uint16_t> neighbours;

  const int8_t* point(int index) const noexcept { return grid.data() + index * values_per_point; }
  /// The grid index of a packed vector on the grid (0 for one that is not: ggml aborts
  /// there, which the searches never reach).
  int index_of(uint32_t u) const noexcept { return u < map.size() && map[u] >= 0 ? map[u] : 0; }
  /// The neighbour list of a packed vector that is not on the grid: count, then indices.
  const uint16_t* neighbours_of(uint32_t u) const noexcept { return neighbours.data() - map[u] - 1; }
};

/// The grid of iq2_xxs, iq2_xs, iq2_s, iq1_s/iq1_m, iq3_xxs or iq3_s; built on first use
/// (thread safe).
const iq_grid& iq_grid_for(ggml_type type);

}  // namespace gguf::detail
