// precompiled_charsmap walker (see ugm_charsmap.h for the layout and its source).
#include "vocab/normalizer/ugm_charsmap.h"

#include <cstring>

namespace gguf::vocab_detail {

namespace {

uint32_t load_le32(const unsigned char* p) noexcept {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
         (static_cast<uint32_t>(p[2]) << 16) | (static_cast<uint32_t>(p[3]) << 24);
}

// Field accessors of one packed XCDA node.
uint32_t xcda_base(uint32_t n) noexcept { return (n >> 10) << ((n & (1u << 9)) >> 6); }
uint32_t xcda_lcheck(uint32_t n) noexcept { return n & ((1u << 31) | 0xffu); }
bool xcda_leaf(uint32_t n) noexcept { return ((n >> 8) & 1u) != 0; }
uint32_t xcda_value(uint32_t n) noexcept { return n & ((1u << 31) - 1); }

}  // namespace

ugm_charsmap::ugm_charsmap(std::span<const std::byte> blob, bool tables) {
  if (blob.empty()) return;
  const auto* p = reinterpret_cast<const unsigned char*>(blob.data());
  if (blob.size() < 4) {
    malformed_ = true;
    return;
  }
  const uint64_t xcda_size = load_le32(p);
  if (xcda_size > blob.size() - 4) {
    malformed_ = true;
    return;
  }
  xcda_ = p + 4;
  n_nodes_ = static_cast<size_t>(xcda_size / 4);
  repl_ = reinterpret_cast<const char*>(p + 4 + xcda_size);
  repl_size_ = blob.size() - 4 - static_cast<size_t>(xcda_size);
  if (tables) build_tables();
}

void ugm_charsmap::build_tables() {
  if (n_nodes_ == 0) return;
  // Which two-byte starts go deeper than one byte (walk of every pair: 64 Ki short walks).
  char two[2];
  for (uint32_t c0 = 1; c0 < 256; ++c0) {
    two[0] = char(c0);
    single_[c0] = walk(std::string_view(two, 1), 0);
    uint32_t n = 0;
    if (!node(0, n)) break;
    size_t index = xcda_base(n) ^ c0;
    if (!node(index, n) || xcda_lcheck(n) != c0) continue;  // no path starts with c0
    const size_t base1 = index ^ xcda_base(n);
    for (uint32_t c1 = 1; c1 < 256; ++c1) {
      uint32_t m = 0;
      if (!node(base1 ^ c1, m) || xcda_lcheck(m) != c1) continue;
      pairs_[(c0 << 2) | (c1 >> 6)] |= uint64_t{1} << (c1 & 63);
      // The third bytes that continue the path (pairs come in order of c0 << 8 | c1, the
      // order of their rank). Examined: after a 2-byte UTF-8 lead every byte (the next code
      // point's first), after a longer lead the continuation bytes; other bytes, and every
      // byte after a pair that maps or after an ASCII or invalid lead, may map.
      std::array<uint64_t, 4> next{~uint64_t{0}, ~uint64_t{0}, ~uint64_t{0}, ~uint64_t{0}};
      if (!xcda_leaf(m) && c0 >= 0xC2 && c0 <= 0xF4) {
        const size_t base2 = (base1 ^ c1) ^ xcda_base(m);
        const uint32_t first = c0 < 0xE0 ? 1 : 0x80, last = c0 < 0xE0 ? 0xFF : 0xBF;
        next[0] &= ~uint64_t{1};  // c2 = 0: the walk stops (a NUL byte, or the text's end)
        for (uint32_t c2 = first; c2 <= last; ++c2) next[c2 >> 6] &= ~(uint64_t{1} << (c2 & 63));
        for (uint32_t c2 = first; c2 <= last; ++c2) {
          uint32_t k = 0;
          if (node(base2 ^ c2, k) && xcda_lcheck(k) == c2) next[c2 >> 6] |= uint64_t{1} << (c2 & 63);
        }
      }
      next_.push_back(next);
    }
  }
  for (uint32_t w = 0, rank = 0; w < 1024; ++w) {
    pair_rank_[w] = static_cast<uint16_t>(rank);
    rank += popcount64(pairs_[w]);
  }
}

bool ugm_charsmap::node(size_t i, uint32_t& out) const noexcept {
  if (i >= n_nodes_) return false;
  out = load_le32(xcda_ + 4 * i);
  return true;
}

void ugm_charsmap::inner_labels(uint64_t out[4]) const noexcept {
  out[0] = out[1] = out[2] = out[3] = 0;
  uint32_t root = 0;
  if (!node(0, root)) return;
  // A node labelled c that is not the root's c child lies deeper (or is an unused cell
  // that looks like one: then the answer is a safe "may").
  // Without a branch per node (the scan is a good part of ugm-sp-test's load): a node
  // with bit 31 clear has LCHECK c = its low byte; a byte seen at a cell other than the
  // root's c child is inner.
  const size_t root_base = xcda_base(root);
  std::array<uint8_t, 256> seen{};
  for (size_t i = 0; i < n_nodes_; ++i) {
    const uint32_t n = load_le32(xcda_ + 4 * i);
    const uint32_t c = n & 0xffu;
    seen[c] |= uint8_t((n >> 31) == 0 && i != (root_base ^ c));
  }
  for (uint32_t c = 0; c < 256; ++c) out[c >> 6] |= uint64_t{seen[c]} << (c & 63);
}

ugm_charsmap::match ugm_charsmap::longest_prefix(std::string_view text, size_t pos) const noexcept {
  if (pos + 1 < text.size() && n_nodes_ != 0) {
    const auto c0 = static_cast<unsigned char>(text[pos]), c1 = static_cast<unsigned char>(text[pos + 1]);
    if (c0 == 0) return {};
    if (c1 == 0 || !((pairs_[(uint32_t(c0) << 2) | (c1 >> 6)] >> (c1 & 63)) & 1)) return single_[c0];
  }
  return walk(text, pos);
}

ugm_charsmap::match ugm_charsmap::walk(std::string_view text, size_t pos) const noexcept {
  match best;
  if (n_nodes_ == 0) return best;
  uint32_t n = 0;
  if (!node(0, n)) return best;
  size_t index = xcda_base(n);
  size_t best_len = 0;
  uint32_t best_value = 0;
  for (size_t i = pos; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == 0) break;
    index ^= c;
    if (!node(index, n) || xcda_lcheck(n) != c) break;
    const bool leaf = xcda_leaf(n);
    index ^= xcda_base(n);
    if (leaf) {
      uint32_t v = 0;
      if (!node(index, v)) break;
      best_len = i - pos + 1;
      best_value = xcda_value(v);
    }
  }
  if (best_len == 0) return best;
  if (best_value >= repl_size_) return best;
  const char* s = repl_ + best_value;
  const size_t max_len = repl_size_ - best_value;
  const void* nul = std::memchr(s, '\0', max_len);
  if (nul == nullptr) return best;  // unterminated replacement
  best.consumed = best_len;
  best.replacement = std::string_view(s, static_cast<size_t>(static_cast<const char*>(nul) - s));
  return best;
}

}  // namespace gguf::vocab_detail
