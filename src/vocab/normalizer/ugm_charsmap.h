// SentencePiece's precompiled_charsmap normalizer, read from untrusted bytes.
//
// Blob layout (sentencepiece normalizer.cc, as read by llama.cpp's llm_tokenizer_ugm):
//   u32 LE  xcda_size          bytes of the trie that follow
//   u32 LE  xcda[xcda_size/4]  XOR-compressed compact double array (Kanda 2018): per node,
//                              BASE in bits 10..30 (shifted left by 8 when bit 9 is set),
//                              LEAF in bit 8, LCHECK in bits 0..7 (bit 31 marks value nodes),
//                              a value node's bits 0..30 index the replacement strings
//   bytes   replacements       NUL-terminated UTF-8 strings
// The uint32 words are little-endian whatever the GGUF's byte order (a uint8 array is
// never swapped). Every index is bounds-checked: where llama.cpp throws (node index past
// the trie, replacement offset past the blob, unterminated replacement), this normalizer
// stops matching and the input passes through unchanged.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "vocab/runtime/swar.h"

namespace gguf::vocab_detail {

class ugm_charsmap {
 public:
  ugm_charsmap() = default;
  /// Views `blob` (which must outlive this object). An empty blob normalizes nothing.
  /// A blob too short for its header, or whose trie size runs past its end, is
  /// `malformed()` and normalizes nothing. With `tables` (the default) also builds the
  /// pair tables (build_tables); without, only walk() may be used until they are built.
  explicit ugm_charsmap(std::span<const std::byte> blob, bool tables = true);
  /// The tables longest_prefix and the surely_unmapped tests read (64 Ki short walks of
  /// the trie: a good part of a small UGM vocabulary's load). Once, after a construction
  /// without them. Writes nothing walk() reads, so walk() may run meanwhile.
  void build_tables();

  bool malformed() const noexcept { return malformed_; }
  bool empty() const noexcept { return n_nodes_ == 0; }

  struct match {
    size_t consumed = 0;           ///< input bytes matched; 0 = no match
    std::string_view replacement;  ///< what they normalize to (may be empty)
  };
  /// The longest input prefix of text[pos..] that the trie maps, stopping at a NUL byte.
  match longest_prefix(std::string_view text, size_t pos) const noexcept;
  /// The same by a walk of the trie alone (no table; what longest_prefix shortcuts).
  match walk(std::string_view text, size_t pos) const noexcept;
  /// A quick exact test: true when longest_prefix(text, pos) matches nothing, where c0 =
  /// text[pos] and c1 = text[pos + 1] (0 when pos is the last byte); false when it may.
  bool surely_unmapped(uint8_t c0, uint8_t c1) const noexcept {
    if (c0 == 0 || n_nodes_ == 0) return true;
    if ((pairs_[(uint32_t(c0) << 2) | (c1 >> 6)] >> (c1 & 63)) & 1) return false;  // never set for c1 = 0
    return single_[c0].consumed == 0;
  }
  /// surely_unmapped with the third byte: also true when c0 c1 start a path of the trie
  /// but no mapped input is c0, c1, or c0 c1 c2 and more (c2 = text[pos + 2], 0 past the
  /// end): most code points of a block that holds a mapped one. Exact where it says true.
  bool surely_unmapped(uint8_t c0, uint8_t c1, uint8_t c2) const noexcept {
    if (surely_unmapped(c0, c1)) return true;
    if (single_[c0].consumed != 0) return false;
    const uint32_t word = (uint32_t(c0) << 2) | (c1 >> 6);
    const uint64_t below = pairs_[word] & ((uint64_t{1} << (c1 & 63)) - 1);
    const uint64_t* next = next_[pair_rank_[word] + popcount64(below)].data();
    return !((next[c2 >> 6] >> (c2 & 63)) & 1);
  }
  /// False when no mapped input holds a ' ' past its first byte (no match starting before
  /// a ' ' reads past it); true when one may (a conservative scan of the trie's nodes).
  bool may_map_across_space() const noexcept { return may_map_across(' '); }
  /// may_map_across_space for byte `c`.
  bool may_map_across(uint8_t c) const noexcept {
    uint64_t inner[4];
    inner_labels(inner);
    return (inner[c >> 6] >> (c & 63)) & 1;
  }
  /// The bytes a mapped input may hold past its first byte: bit c of out[c >> 6] (one scan
  /// of the trie's nodes; conservative, as may_map_across_space).
  void inner_labels(uint64_t out[4]) const noexcept;
  /// True when byte `c` maps alone to one or more ' ' whatever follows it (no mapped input
  /// starts with c and goes on).
  bool maps_alone_to_spaces(uint8_t c) const noexcept {
    if (c == 0 || n_nodes_ == 0) return false;
    const uint64_t* row = pairs_ + (uint32_t(c) << 2);
    const match& m = single_[c];
    return (row[0] | row[1] | row[2] | row[3]) == 0 && m.consumed == 1 && !m.replacement.empty() &&
           m.replacement.find_first_not_of(' ') == std::string_view::npos;
  }
  /// surely_unmapped(c0, c1) for every ASCII c1 (and for c0 as the last byte).
  bool unmapped_before_ascii(uint8_t c0) const noexcept {
    if (c0 == 0 || n_nodes_ == 0) return true;
    const uint64_t* row = pairs_ + (uint32_t(c0) << 2);
    return (row[0] | row[1]) == 0 && single_[c0].consumed == 0;
  }

 private:
  bool node(size_t i, uint32_t& out) const noexcept;
  const unsigned char* xcda_ = nullptr;
  // Byte pairs (c0 << 8 | c1) that continue a path of the trie past its first byte; a text
  // whose first two bytes are not one can only match its first byte (most text).
  uint64_t pairs_[1024] = {};
  match single_[256];  // the match of a lone byte c0
  // Per pair of pairs_, in order (pair_rank_[word] pairs before those of pairs_[word]): the
  // third bytes c2 for which c0 c1 c2 may map: the bytes that continue its path, or every
  // byte when c0 c1 itself maps (and, conservatively, where the pair was not examined).
  uint16_t pair_rank_[1024] = {};
  std::vector<std::array<uint64_t, 4>> next_;
  size_t n_nodes_ = 0;
  const char* repl_ = nullptr;
  size_t repl_size_ = 0;
  bool malformed_ = false;
};

}  // namespace gguf::vocab_detail
