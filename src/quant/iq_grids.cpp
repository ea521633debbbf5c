// Builds the iq quantizers' grids, maps and neighbour lists (quant/iq_grids.h): the
// structures ggml's iq2xs_init_impl and iq3xs_init_impl build, the same content.
#include "quant/iq_grids.h"

#include <algorithm>
#include <mutex>
#include <utility>

#include "quant/grid_tables.h"
#include "quant/quantize.h"

namespace gguf::detail {
namespace {

iq_grid build(const uint16_t* kgrid, int grid_size, int values_per_point, int bits, int kmap_size, int nwant) {
  iq_grid g;
  g.values_per_point = values_per_point;
  g.bits = bits;
  const int mask = (1 << bits) - 1;
  g.grid.resize(static_cast<size_t>(grid_size) * values_per_point);
  for (int k = 0; k < grid_size; ++k) {
    for (int i = 0; i < values_per_point; ++i) {
      g.grid[k * values_per_point + i] = static_cast<int8_t>(2 * ((kgrid[k] >> (bits * i)) & mask) + 1);
    }
  }
  g.map.assign(kmap_size, -1);
  for (int k = 0; k < grid_size; ++k) {
    uint32_t index = 0;
    for (int i = 0; i < values_per_point; ++i) index |= static_cast<uint32_t>((g.point(k)[i] - 1) / 2) << (bits * i);
    g.map[index] = k;
  }
  std::vector<std::pair<int, int>> dist2(grid_size);  // (squared distance, grid index)
  std::vector<std::pair<int, int>> kept;
  int8_t pos[8];
  for (int u = 0; u < kmap_size; ++u) {
    if (g.map[u] >= 0) continue;
    for (int i = 0; i < values_per_point; ++i) pos[i] = static_cast<int8_t>(2 * ((u >> (bits * i)) & mask) + 1);
    for (int j = 0; j < grid_size; ++j) {
      const int8_t* pg = g.point(j);
      int d2 = 0;
      for (int i = 0; i < values_per_point; ++i) d2 += (pg[i] - pos[i]) * (pg[i] - pos[i]);
      dist2[j] = {d2, j};
    }
    // The first nwant distinct distances (ggml sorts all points by (distance, index) and
    // keeps those; only the kept ones need sorting).
    int nearest[3];
    int nd = 0;
    for (const auto& [d2, j] : dist2) {
      int at = nd;
      while (at > 0 && nearest[at - 1] > d2) --at;
      if (at > 0 && nearest[at - 1] == d2) continue;
      if (at >= nwant) continue;
      for (int m = std::min(nd, nwant - 1); m > at; --m) nearest[m] = nearest[m - 1];
      nearest[at] = d2;
      nd = std::min(nd + 1, nwant);
    }
    const int limit = nearest[nd - 1];
    kept.clear();
    for (const auto& e : dist2) {
      if (e.first <= limit) kept.push_back(e);
    }
    std::sort(kept.begin(), kept.end());
    g.map[u] = -static_cast<int32_t>(g.neighbours.size() + 1);
    g.neighbours.push_back(static_cast<uint16_t>(kept.size()));
    for (const auto& e : kept) g.neighbours.push_back(static_cast<uint16_t>(e.second));
  }
  return g;
}

// One row per index grid: its points, their layout, and ggml's kmap_size (packed vectors of
// levels 0..2 for iq2/iq1, 0..7 for iq3) and nwant (iq2xs_init_impl / iq3xs_init_impl).
struct grid_spec {
  const uint16_t* kgrid;
  int grid_size, values_per_point, bits, kmap_size, nwant;
};
namespace qt = quant_tables;
constexpr int kmap2 = 43692, kmap3 = 4096;
constexpr grid_spec kspecs[] = {
    {qt::kgrid_iq2xxs, 256, 8, 2, kmap2, 2}, {qt::kgrid_iq2xs, 512, 8, 2, kmap2, 2},
    {qt::kgrid_iq2s, 1024, 8, 2, kmap2, 1},  {qt::kgrid_iq3xxs, 256, 4, 3, kmap3, 2},
    {qt::kgrid_iq3s, 512, 4, 3, kmap3, 3},   {qt::kgrid_iq1s, 2048, 8, 2, kmap2, 3},
};

/// The row of kspecs for an iq type, -1 for a type without a grid.
int spec_of(ggml_type type) noexcept {
  switch (type) {
    case ggml_type::iq2_xxs: return 0;
    case ggml_type::iq2_xs: return 1;
    case ggml_type::iq2_s: return 2;
    case ggml_type::iq3_xxs: return 3;
    case ggml_type::iq3_s: return 4;
    case ggml_type::iq1_s:
    case ggml_type::iq1_m: return 5;
    default: return -1;
  }
}

}  // namespace

const iq_grid& iq_grid_for(ggml_type type) {
  constexpr int n = static_cast<int>(std::size(kspecs));
  static iq_grid grids[n];
  static std::once_flag built[n];
  const int k = spec_of(type) >= 0 ? spec_of(type) : n - 1;  // callers ask only for iq types
  std::call_once(built[k], [k] {
    const grid_spec& s = kspecs[k];
    grids[k] = build(s.kgrid, s.grid_size, s.values_per_point, s.bits, s.kmap_size, s.nwant);
  });
  return grids[k];
}

void iq_grids_init(ggml_type type) {
  if (spec_of(type) >= 0) (void)iq_grid_for(type);
}

}  // namespace gguf::detail
