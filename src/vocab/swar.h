// Byte tests on a 64-bit word at a time (internal), for the scans of token texts, merge
// rules and the RWKV build.
#pragma once

#include <cstdint>

namespace gguf::vocab_detail {

/// Nonzero exactly when one of the 8 bytes of `x` is zero; its lowest set bit is the high
/// bit of the lowest zero byte (bits above it may also be set for a 0x01 byte after a
/// zero one: only "any" and "lowest" are exact).
constexpr uint64_t zero_byte_bits(uint64_t x) noexcept {
  return (x - 0x0101010101010101ull) & ~x & 0x8080808080808080ull;
}

}  // namespace gguf::vocab_detail
