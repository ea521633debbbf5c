// The dequantization grids of the iq types, derived at compile time from the index grids
// (grid_tables.h) as ggml's ggml-common.h grids relate to ggml-quants.c's kgrid_* lists:
// entry k packs, for each of its 8 (iq2, iq1) or 4 (iq3) values, the level l read from
// kgrid[k] (2 or 3 bits per value) mapped to a byte. The two 16-entry code books are
// transcribed from ggml-common.h. tests/quant/test_generated_tables.cpp compares every
// table with ggml-common.h.
#include "quant/tables.h"

#include <cstddef>

#include "quant/grid_tables.h"

namespace gguf::detail::quant_tables {
namespace {

template <class Entry, size_t N, size_t Levels>
constexpr std::array<Entry, N> expand(const uint16_t (&kgrid)[N], int bits, const std::array<uint8_t, Levels>& byte_of) {
  std::array<Entry, N> out{};
  for (size_t k = 0; k < N; ++k) {
    Entry e = 0;
    for (size_t j = 0; j < sizeof(Entry); ++j) e |= static_cast<Entry>(byte_of[(kgrid[k] >> (bits * j)) & (Levels - 1)]) << (8 * j);
    out[k] = e;
  }
  return out;
}

// The byte of each level (ggml-common.h's grid values); iq2's level 3 never occurs.
constexpr std::array<uint8_t, 4> kiq2_bytes = {0x08, 0x19, 0x2b, 0x00};
constexpr std::array<uint8_t, 8> kiq3xxs_bytes = {0x04, 0x0c, 0x14, 0x1c, 0x24, 0x2c, 0x34, 0x3e};
constexpr std::array<uint8_t, 8> kiq3s_bytes = {0x01, 0x03, 0x05, 0x07, 0x09, 0x0b, 0x0d, 0x0f};
constexpr std::array<uint8_t, 4> kiq1s_bytes = {0xff, 0x00, 0x01, 0x00};  // -1, 0, 1 as int8

}  // namespace

constinit const std::array<uint64_t, 256> iq2xxs_grid = expand<uint64_t>(kgrid_iq2xxs, 2, kiq2_bytes);
constinit const std::array<uint64_t, 512> iq2xs_grid = expand<uint64_t>(kgrid_iq2xs, 2, kiq2_bytes);
constinit const std::array<uint64_t, 1024> iq2s_grid = expand<uint64_t>(kgrid_iq2s, 2, kiq2_bytes);
constinit const std::array<uint32_t, 256> iq3xxs_grid = expand<uint32_t>(kgrid_iq3xxs, 3, kiq3xxs_bytes);
constinit const std::array<uint32_t, 512> iq3s_grid = expand<uint32_t>(kgrid_iq3s, 3, kiq3s_bytes);
constinit const std::array<uint64_t, 2048> iq1s_grid = expand<uint64_t>(kgrid_iq1s, 2, kiq1s_bytes);

const int8_t kvalues_iq4nl[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};
const int8_t kvalues_fp4[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};

}  // namespace gguf::detail::quant_tables
