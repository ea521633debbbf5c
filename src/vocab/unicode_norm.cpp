// Unicode lookups for the normalizers: two-stage tables built once from the range data.
#include "vocab/unicode_norm.h"

#include <algorithm>
#include <unordered_map>
#include <vector>

#include "vocab/unicode_norm_data.h"

namespace gguf::vocab_detail::unicode {

namespace {

constexpr uint32_t max_cpt = 0x110000;
constexpr uint32_t block_bits = 8;
constexpr uint32_t block_size = 1u << block_bits;

// A per-code-point table stored as deduplicated 256-entry blocks.
template <class T>
class two_stage {
 public:
  template <class Fn>  // fn(cpt) -> T for every cpt < max_cpt
  explicit two_stage(Fn&& fn) {
    index_.resize(max_cpt >> block_bits);
    std::vector<T> block(block_size);
    std::unordered_multimap<uint64_t, uint32_t> seen;  // block hash -> block id
    for (uint32_t b = 0; b < index_.size(); ++b) {
      uint64_t h = 1469598103934665603ull;  // FNV-1a over the block's values
      for (uint32_t i = 0; i < block_size; ++i) {
        block[i] = fn((b << block_bits) | i);
        h = (h ^ static_cast<uint64_t>(block[i])) * 1099511628211ull;
      }
      uint32_t id = UINT32_MAX;
      for (auto [it, end] = seen.equal_range(h); it != end; ++it)
        if (std::equal(block.begin(), block.end(), values_.begin() + static_cast<std::ptrdiff_t>(it->second) * block_size)) {
          id = it->second;
          break;
        }
      if (id == UINT32_MAX) {
        id = static_cast<uint32_t>(values_.size() / block_size);
        values_.insert(values_.end(), block.begin(), block.end());
        seen.emplace(h, id);
      }
      index_[b] = id;
    }
  }
  T operator()(uint32_t cpt) const noexcept {
    return values_[(static_cast<size_t>(index_[cpt >> block_bits]) << block_bits) | (cpt & (block_size - 1))];
  }

 private:
  std::vector<uint32_t> index_;
  std::vector<T> values_;
};

const two_stage<uint16_t>& flag_table() {
  static const two_stage<uint16_t> table = [] {
    std::vector<uint16_t> all(max_cpt, cpt_flag::undefined);
    for (size_t i = 0; i + 1 < data::flag_ranges_size; ++i)
      for (uint32_t c = data::flag_ranges[i].first; c < data::flag_ranges[i + 1].first && c < max_cpt; ++c)
        all[c] = data::flag_ranges[i].flags;
    for (size_t i = 0; i < data::whitespace_size; ++i) all[data::whitespace[i]] |= cpt_flag::whitespace;
    return two_stage<uint16_t>([&](uint32_t c) { return all[c]; });
  }();
  return table;
}

// Mappings are stored as deltas (target - cpt), so that unmapped blocks are all zero
// and share one block.
const two_stage<int32_t>& lower_table() {
  static const two_stage<int32_t> table = [] {
    std::vector<int32_t> delta(max_cpt, 0);
    for (size_t i = 0; i < data::lowercase_size; ++i)
      delta[data::lowercase[i].from] = static_cast<int32_t>(data::lowercase[i].to - data::lowercase[i].from);
    return two_stage<int32_t>([&](uint32_t c) { return delta[c]; });
  }();
  return table;
}

const two_stage<int32_t>& nfd_table() {
  static const two_stage<int32_t> table = [] {
    std::vector<int32_t> delta(max_cpt, 0);
    for (size_t i = 0; i < data::nfd_ranges_size; ++i)
      for (uint32_t c = data::nfd_ranges[i].first; c <= data::nfd_ranges[i].last; ++c)
        delta[c] = static_cast<int32_t>(data::nfd_ranges[i].nfd - c);
    return two_stage<int32_t>([&](uint32_t c) { return delta[c]; });
  }();
  return table;
}

}  // namespace

uint16_t flags(uint32_t cpt) noexcept { return cpt < max_cpt ? flag_table()(cpt) : uint16_t{cpt_flag::undefined}; }
uint32_t to_lower(uint32_t cpt) noexcept {
  return cpt < max_cpt ? static_cast<uint32_t>(static_cast<int64_t>(cpt) + lower_table()(cpt)) : cpt;
}
uint32_t nfd_first(uint32_t cpt) noexcept {
  return cpt < max_cpt ? static_cast<uint32_t>(static_cast<int64_t>(cpt) + nfd_table()(cpt)) : cpt;
}

}  // namespace gguf::vocab_detail::unicode
