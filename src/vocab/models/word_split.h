// Where a merge can never cross (internal), for the SPM and BPE models.
//
// Both models start from one symbol per UTF-8 chunk (utf8_len of the first byte) and only
// ever merge two adjacent symbols into one. The first merge that joins the chunks A and B
// on either side of a boundary merges a symbol ending in A with one starting in B. If
// the model says no such merge exists (SPM: no token text holds the chunk pair AB; BPE:
// no rule "a b" has a ending in A and b starting with B), nothing ever crosses the
// boundary: the symbols on each side evolve as if the other side were absent, and a
// merge queue over the whole text pops the same merges, interleaved. So the text can be
// cut there and each part merged on its own, with identical results.
//
// pair_filter holds the pairs that may join: exact bits for common characters, a hashed
// bitmap for the rest, where a collision only keeps two parts together (always correct).
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "vocab/runtime/swar.h"
#include "vocab/runtime/table_cache.h"
#include "vocab/unicode/unicode.h"

namespace gguf::vocab_detail {

/// The bytes of one UTF-8 chunk (1 to 4), zero padded, the first byte lowest. (A memcpy
/// of a run-time length is a library call; this is a few loads.)
inline uint32_t chunk_bits(const char* p, size_t n) noexcept {
  const auto* u = reinterpret_cast<const uint8_t*>(p);
  switch (n) {
    case 1: return u[0];
    case 2: return u[0] | (uint32_t(u[1]) << 8);
    case 3: return u[0] | (uint32_t(u[1]) << 8) | (uint32_t(u[2]) << 16);
    default: return u[0] | (uint32_t(u[1]) << 8) | (uint32_t(u[2]) << 16) | (uint32_t(u[3]) << 24);
  }
}

/// Length of the chunk at s[off] (utf8_len, cut at the end of s).
inline size_t chunk_len(std::string_view s, size_t off) noexcept { return std::min(utf8_len(s[off]), s.size() - off); }

/// First and last chunk of a non-empty string.
inline uint32_t first_chunk(std::string_view s) noexcept { return chunk_bits(s.data(), chunk_len(s, 0)); }
/// The chunks are cut from the start, so the last one is found from the last position that
/// is certainly a chunk start: one that no lead byte among the three before it covers (a
/// chunk covering it would start there). Only the chunks from there on are walked.
inline uint32_t last_chunk(std::string_view s) noexcept {
  const auto* u = reinterpret_cast<const uint8_t*>(s.data());
  size_t j = s.size() - 1;
  while (j > 0 && !(u[j - 1] < 0xC0 && (j < 2 || u[j - 2] < 0xE0) && (j < 3 || u[j - 3] < 0xF0))) --j;
  size_t off = j, len = 0;
  for (size_t i = j; i < s.size(); i += len) off = i, len = chunk_len(s, i);
  return chunk_bits(s.data() + off, len);
}

/// last_chunk(s) (s not empty) where the 8 bytes that end where s ends may be read (the
/// bytes before s do not count). The two common cases are told from one load, without a
/// walk: the last byte is surely a chunk start (no lead byte among the three before can
/// cover it), or the last two bytes are a two-byte chunk that surely starts (a lead byte
/// C0..DF, none before covering it); anything else is walked by last_chunk.
inline uint32_t last_chunk_padded(std::string_view s) noexcept {
  if constexpr (std::endian::native != std::endian::little) return last_chunk(s);
  const size_t n = s.size();
  uint64_t w;
  std::memcpy(&w, s.data() + n - 8, 8);       // byte 7 is s[n - 1]
  if (n < 8) w &= ~uint64_t(0) << (8 * (8 - n));  // bytes before s: zero, never a lead byte
  // A byte b "covers" d bytes ahead when b & m == m for m = C0, E0, F0 (d = 1, 2, 3): x has
  // a zero byte exactly where one of the three bytes before the position covers it.
  const auto clear = [](uint64_t x) { return zero_byte_bits(x) == 0; };
  constexpr uint64_t m1 = 0x00C0E0F000000000ull;  // bytes 4, 5, 6 before byte 7
  if (clear(((w & m1) ^ m1) | 0xFF000000FFFFFFFFull)) return uint32_t(w >> 56);
  constexpr uint64_t m2 = 0x0000C0E0F0000000ull;  // bytes 3, 4, 5 before byte 6
  const uint32_t b6 = uint32_t(w >> 48) & 0xFF;
  if ((b6 & 0xE0) == 0xC0 && clear(((w & m2) ^ m2) | 0xFFFF000000FFFFFFull)) return uint32_t(w >> 48);
  return last_chunk(s);
}

/// Where a merge rule "a b" splits: the index of the first space of `w` from index 1, or
/// w.size() (llama.cpp splits there; a rule without one never matches). Rules are short:
/// when the 8 bytes from w.data() may be read (up to `end`, the end of the mapped file),
/// they are searched at once.
inline size_t rule_split(std::string_view w, const char* end) noexcept {
  if constexpr (std::endian::native == std::endian::little) {
    if (end - w.data() >= 8) {
      uint64_t x;
      std::memcpy(&x, w.data(), 8);
      // a space -> a zero byte; byte 0 made nonzero (the search starts at index 1, and no
      // borrow then runs up from it): the lowest flagged byte is the first space
      x = (x ^ 0x2020202020202020ull) | 0xFF;
      const uint64_t zero = zero_byte_bits(x);
      if (zero) return std::min(w.size(), size_t(__builtin_ctzll(zero)) >> 3);
      if (w.size() <= 8) return w.size();
    }
  }
  size_t pos = 1;
  while (pos < w.size() && w[pos] != ' ') ++pos;
  return pos;
}

class pair_filter {
 public:
  static constexpr unsigned bits = 21;  // hashed part: 256 KiB
  pair_filter() { dense_.assign(dense_words, 0); }
  /// No tables yet (32 KiB not zeroed for nothing when they come from the compiled
  /// cache): load() them, or assign a pair_filter{} before add(); unusable until then.
  struct deferred_t {};
  static constexpr deferred_t deferred{};
  explicit pair_filter(deferred_t) noexcept {}
  void add(uint32_t a, uint32_t b) {
    const int da = dense_index(a), db = dense_index(b);
    if (da >= 0 && db >= 0) {
      const size_t i = size_t(da) * dense_n + size_t(db);
      dense_.writable()[i >> 6] |= uint64_t(1) << (i & 63);
      return;
    }
    if (words_.empty()) words_.assign(size_t(1) << (bits - 6), 0);
    const uint64_t h = index(a, b);
    words_.writable()[h >> 6] |= uint64_t(1) << (h & 63);
  }
  /// The tables for the compiled cache (table_cache.h).
  void save(table_writer& w) const {
    w.put(dense_.span());
    w.put(words_.span());
  }
  bool load(table_reader& r) {
    std::span<const uint64_t> d, h;
    if (!r.get(d) || !r.get(h) || d.size() != dense_words || (!h.empty() && h.size() != (size_t(1) << (bits - 6))))
      return false;
    dense_.view(d);
    words_.view(h);
    return true;
  }
  /// False only if the pair (a, b) was never added.
  bool may_join(uint32_t a, uint32_t b) const noexcept {
    const int da = dense_index(a), db = dense_index(b);
    if (da >= 0 && db >= 0) {
      const size_t i = size_t(da) * dense_n + size_t(db);
      return (dense_[i >> 6] >> (i & 63)) & 1;
    }
    if (words_.empty()) return false;
    const uint64_t h = index(a, b);
    return (words_[h >> 6] >> (h & 63)) & 1;
  }
  /// Calls part(begin, end) for each part of `text` between cuts (none for empty text).
  template <class Fn>
  void split(std::string_view text, Fn part) const {
    size_t begin = 0, prev = 0, prev_len = 0;
    for (size_t off = 0; off < text.size();) {
      const size_t len = chunk_len(text, off);
      if (off > 0 && !may_join(chunk_bits(text.data() + prev, prev_len), chunk_bits(text.data() + off, len))) {
        part(begin, off);
        begin = off;
      }
      prev = off, prev_len = len;
      off += len;
    }
    if (begin < text.size()) part(begin, text.size());
  }

 private:
  static uint64_t index(uint32_t a, uint32_t b) noexcept {
    const uint64_t k = (uint64_t(a) << 32) | b;
    return (k * 0x9E3779B97F4A7C15ull) >> (64 - bits);
  }
  // Exact bits for the common chunks (kept in L1/L2): code points below U+0200 (ASCII and
  // the whole GPT-2 byte alphabet) and U+2581; every other pair goes to the hashed bitmap.
  static constexpr size_t dense_n = 513;
  static int dense_index(uint32_t c) noexcept {
    if (c < 0x80) return int(c);
    if ((c & 0xFFFFC0E0u) == 0x80C0u) {  // two-byte chunk C0..DF, 80..BF
      const uint32_t cp = ((c & 0x1Fu) << 6) | ((c >> 8) & 0x3Fu);
      return cp < 0x200 ? int(cp) : -1;
    }
    return c == 0x8196E2u ? 512 : -1;  // E2 96 81 = U+2581
  }
  static constexpr size_t dense_words = (dense_n * dense_n + 63) / 64;
  pod_table<uint64_t> dense_;
  pod_table<uint64_t> words_;
};

}  // namespace gguf::vocab_detail
