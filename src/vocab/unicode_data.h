// Raw Unicode tables (see unicode_data.cpp for their source). Use unicode.h instead.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gguf::vocab_detail::unicode_data {

/// Flags of the code points from `start` up to the next row's start.
struct range_flags {
  uint32_t start;
  uint16_t flags;
};
struct cpt_pair {
  uint32_t from, to;
};
/// Code points first..last decompose (NFD) to a sequence starting with `nfd`.
struct range_nfd {
  uint32_t first, last, nfd;
};

extern const range_flags ranges_flags[];
extern const std::size_t ranges_flags_count;
extern const uint32_t whitespace[];
extern const std::size_t whitespace_count;
extern const cpt_pair map_lowercase[];  ///< sorted by `from`
extern const std::size_t map_lowercase_count;
extern const cpt_pair map_uppercase[];  ///< sorted by `from`
extern const std::size_t map_uppercase_count;
extern const range_nfd ranges_nfd[];  ///< sorted by `first`
extern const std::size_t ranges_nfd_count;

}  // namespace gguf::vocab_detail::unicode_data
