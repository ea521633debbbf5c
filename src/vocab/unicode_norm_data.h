// Raw Unicode tables behind unicode_norm.h (see there for their source and meaning).
#pragma once

#include <cstddef>
#include <cstdint>

namespace gguf::vocab_detail::unicode::data {

struct flag_range {
  uint32_t first;
  uint16_t flags;
};
struct cpt_pair {
  uint32_t from, to;
};
struct nfd_range {
  uint32_t first, last, nfd;
};

extern const flag_range flag_ranges[];  ///< ascending; the last entry starts at 0x110000
extern const size_t flag_ranges_size;
extern const uint32_t whitespace[];
extern const size_t whitespace_size;
extern const cpt_pair lowercase[];  ///< ascending by `from`
extern const size_t lowercase_size;
extern const nfd_range nfd_ranges[];  ///< ascending, disjoint
extern const size_t nfd_ranges_size;

}  // namespace gguf::vocab_detail::unicode::data
