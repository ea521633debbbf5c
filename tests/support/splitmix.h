// splitmix64 (Steele, Lea, Flood 2014; the seeding generator of xoshiro): a small,
// well-mixed deterministic generator, the one the test inputs are made with
// (make_quant_fixture, quant_row_cases.h). Header-only and free of gguf includes.
#pragma once

#include <cstdint>

namespace gguf::test {

/// Advances the state `s` and returns the next 64 random bits.
inline uint64_t splitmix64_next(uint64_t& s) noexcept {
  uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace gguf::test
