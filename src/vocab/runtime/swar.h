// Byte tests on a 64-bit word at a time (internal), for the scans of token texts, merge
// rules and the RWKV build; an inline popcount.
#pragma once

#include <cstdint>

namespace gguf::vocab_detail {

/// Nonzero exactly when one of the 8 bytes of `x` is zero; its lowest set bit is the high
/// bit of the lowest zero byte (bits above it may also be set for a 0x01 byte after a
/// zero one: only "any" and "lowest" are exact).
constexpr uint64_t zero_byte_bits(uint64_t x) noexcept {
  return (x - 0x0101010101010101ull) & ~x & 0x8080808080808080ull;
}

/// The number of set bits of x, inline: the baseline x86-64 target has no POPCNT, where
/// std::popcount is a libgcc call.
constexpr uint32_t popcount64(uint64_t x) noexcept {
  x = x - ((x >> 1) & 0x5555555555555555ull);
  x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
  x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
  return uint32_t((x * 0x0101010101010101ull) >> 56);
}

}  // namespace gguf::vocab_detail
