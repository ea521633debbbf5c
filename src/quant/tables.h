// Lookup tables of the iq and fp4 types, as in ggml's ggml-common.h (the GGML_TABLE_BEGIN
// arrays of the same names). The grids are derived at compile time from the index grids
// (grid_tables.h) in tables.cpp. Internal to the quant layer.
#pragma once

#include <array>
#include <bit>
#include <cstdint>

namespace gguf::detail::quant_tables {

/// 1 << j: the sign bit of element j of 8.
inline constexpr std::array<uint8_t, 8> kmask_iq2xs = {1, 2, 4, 8, 16, 32, 64, 128};

/// 7 sign bits + an 8th that makes the parity even (ggml's ksigns_iq2xs).
inline constexpr std::array<uint8_t, 128> ksigns_iq2xs = [] {
  std::array<uint8_t, 128> t{};
  for (int i = 0; i < 128; ++i) t[i] = static_cast<uint8_t>(i | ((std::popcount(static_cast<unsigned>(i)) & 1) << 7));
  return t;
}();

extern const std::array<uint64_t, 256> iq2xxs_grid;   ///< 8 magnitudes (bytes) per entry
extern const std::array<uint64_t, 512> iq2xs_grid;
extern const std::array<uint64_t, 1024> iq2s_grid;
extern const std::array<uint32_t, 256> iq3xxs_grid;   ///< 4 magnitudes (bytes) per entry
extern const std::array<uint32_t, 512> iq3s_grid;
extern const std::array<uint64_t, 2048> iq1s_grid;    ///< 8 int8 values in {-1, 0, 1} per entry
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
