// Lookup tables of the iq and fp4 types (data in tables.cpp, transcribed from ggml's
// ggml-common.h). Internal to the quant layer.
#pragma once

#include <array>
#include <bit>
#include <cstdint>

namespace gguf::detail::quant_tables {

extern const uint8_t kmask_iq2xs[8];      ///< 1 << j: the sign bit of element j of 8
extern const uint8_t ksigns_iq2xs[128];   ///< 7 sign bits + an 8th that makes the parity even
extern const uint64_t iq2xxs_grid[256];   ///< 8 magnitudes (bytes) per entry
extern const uint64_t iq2xs_grid[512];
extern const uint64_t iq2s_grid[1024];
extern const uint32_t iq3xxs_grid[256];   ///< 4 magnitudes (bytes) per entry
extern const uint32_t iq3s_grid[512];
extern const uint64_t iq1s_grid[2048];    ///< 8 int8 values in {-1, 0, 1} per entry
extern const int8_t kvalues_iq4nl[16];    ///< the iq4_nl / iq4_xs non-linear code book
extern const int8_t kvalues_fp4[16];      ///< e2m1 values, doubled (mxfp4, nvfp4)

/// The bytes of a packed grid entry, byte j = bits 8j..8j+7 (a no-op on little-endian hosts).
template <class Byte, class Entry>
inline std::array<Byte, sizeof(Entry)> grid_bytes(Entry entry) noexcept {
  if constexpr (std::endian::native == std::endian::big) {
    if constexpr (sizeof(Entry) == 8) entry = __builtin_bswap64(entry);
    if constexpr (sizeof(Entry) == 4) entry = __builtin_bswap32(entry);
  }
  return std::bit_cast<std::array<Byte, sizeof(Entry)>>(entry);
}

/// Byte j (0..7) of a packed grid entry.
constexpr uint8_t grid_byte(uint64_t entry, int j) noexcept {
  return static_cast<uint8_t>(entry >> (8 * j));
}

}  // namespace gguf::detail::quant_tables
