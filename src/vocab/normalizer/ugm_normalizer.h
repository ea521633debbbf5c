// The UGM model's normalizer (internal): SentencePiece's normalization as llama.cpp's
// llm_tokenizer_ugm_session::normalize does it (see ugm.cpp for the rules), with the byte
// tables that let the model skip it where it changes nothing (the raw words of
// tokenize_raw). Owns the precompiled charsmap and the trie of user-defined tokens.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "vocab/models/tokenizer_model.h"
#include "vocab/models/ugm_trie.h"
#include "vocab/normalizer/normalizer.h"
#include "vocab/normalizer/ugm_charsmap.h"
#include "vocab/unicode/unicode.h"

namespace gguf::vocab_detail {

/// The ASCII bytes a mapped input (ugm_charsmap::inner_labels) or a user-defined token
/// holds past its first byte: bit c of bits[c >> 6] (saved with the tries).
struct ugm_ascii_inner {
  uint64_t bits[2] = {0, 0};
  void set(uint8_t c) noexcept {
    if (c < 0x80) bits[c >> 6] |= uint64_t{1} << (c & 63);
  }
  bool has(uint8_t c) const noexcept { return c < 0x80 && ((bits[c >> 6] >> (c & 63)) & 1); }
};

class ugm_normalizer {
 public:
  /// Without `tables`, only normalize_plain may be used until build_tables() and prepare().
  explicit ugm_normalizer(const vocab_data& v, bool tables = true)
      : charsmap_(v.precompiled_charsmap, tables),
        escape_whitespaces_(v.escape_whitespaces),
        treat_whitespace_as_suffix_(v.treat_whitespace_as_suffix),
        add_space_prefix_(v.add_space_prefix),
        remove_extra_whitespaces_(v.remove_extra_whitespaces) {}

  /// The trie of user-defined tokens (built or loaded by the model, then prepare()).
  byte_trie& user_defined() noexcept { return user_defined_; }
  const ugm_charsmap& charsmap() const noexcept { return charsmap_; }
  bool escape_whitespaces() const noexcept { return escape_whitespaces_; }
  bool treat_whitespace_as_suffix() const noexcept { return treat_whitespace_as_suffix_; }
  bool remove_extra_whitespaces() const noexcept { return remove_extra_whitespaces_; }
  /// No user-defined token starts with ' ' (a space then normalizes on its own).
  bool space_unchanged() const noexcept { return space_unchanged_; }
  /// An ASCII byte normalize_prefix copies as it is when an ASCII byte follows.
  bool ascii_plain(uint8_t c) const noexcept { return ascii_plain_[c]; }
  /// No byte above ' ' ends a raw word (tokenize_raw's word scan).
  bool low_word_ends() const noexcept { return low_word_ends_; }

  /// The charsmap's tables, after a construction without them (normalize_plain may run
  /// meanwhile: it reads none of them).
  void build_tables() { charsmap_.build_tables(); }

  /// The byte tables, once the user-defined trie is in place.
  void prepare() {
    // Bytes that may start a code point normalize_prefix returns as it is: not ' ', not
    // the first byte of a user-defined token, ASCII or a UTF-8 lead byte (the charsmap and
    // the sequence's validity are checked per code point).
    for (uint32_t b = 0; b < 0xF5; ++b)
      passes_[b] = b != ' ' && (b < 0x80 || b >= 0xC2) && user_defined_.child(0, uint8_t(b)) == byte_trie::npos;
    space_unchanged_ = user_defined_.child(0, uint8_t(' ')) == byte_trie::npos;
    for (uint32_t c1 = 0; c1 < 256; ++c1) space_unmapped_before_[c1] = charsmap_.surely_unmapped(' ', uint8_t(c1));
    space_alone_ = std::all_of(space_unmapped_before_.begin(), space_unmapped_before_.end(), [](bool b) { return b; });
    for (uint32_t b = 0; b < 0x80; ++b) ascii_plain_[b] = passes_[b] && charsmap_.unmapped_before_ascii(uint8_t(b));
  }

  /// For raw words: the bytes other than ' ' that end a word as a pure space does: an
  /// ASCII byte the charsmap maps alone to spaces whatever follows, that no mapped input
  /// holds past its first byte, that no user-defined token starts with or holds (then no
  /// normalization step reads across it, and it normalizes to a word's end: '\n', '\t'
  /// and '\r' in NMT-style charsmaps).
  void set_word_ends(const ugm_ascii_inner& inner) {
    for (uint32_t c = 1; c < 0x80; ++c)
      word_end_[c] = c != ' ' && charsmap_.maps_alone_to_spaces(uint8_t(c)) && !inner.has(uint8_t(c)) &&
                     user_defined_.child(0, uint8_t(c)) == byte_trie::npos;
    low_word_ends_ = std::find(word_end_.begin() + ' ' + 1, word_end_.end(), true) == word_end_.end();
  }

  struct piece {
    std::string_view bytes;
    size_t consumed;
  };

  piece normalize_prefix(std::string_view in, size_t pos) const {
    if (const size_t n = user_defined_.walk_depth(in, pos); n > 0) return {in.substr(pos, n), n};
    if (const auto m = charsmap_.longest_prefix(in, pos); m.consumed > 0) return {m.replacement, m.consumed};
    uint32_t cpt = 0;
    if (const size_t n = utf8_decode_strict(in, pos, cpt); n > 0) return {in.substr(pos, n), n};
    return {"\xEF\xBF\xBD", 1};  // U+FFFD for one invalid byte
  }

  // The length of the code point at `pos` (< in.size()) when normalize_prefix would return
  // it unchanged and it is not a space (the exact conditions of its first branches), else 0.
  size_t unchanged_at(std::string_view in, size_t pos) const noexcept {
    const size_t n = in.size();
    const auto c0 = static_cast<uint8_t>(in[pos]);
    if (ascii_plain_[c0] && (pos + 1 == n || static_cast<uint8_t>(in[pos + 1]) < 0x80)) return 1;
    if (!passes_[c0]) return 0;
    const auto c1 = pos + 1 < n ? static_cast<uint8_t>(in[pos + 1]) : uint8_t{0};
    const auto c2 = pos + 2 < n ? static_cast<uint8_t>(in[pos + 2]) : uint8_t{0};
    if (!charsmap_.surely_unmapped(c0, c1, c2)) return 0;
    if (c0 < 0x80) return 1;
    // utf8_decode_strict's length, inline (passes_ holds only lead bytes C2..F4 here; GCC
    // calls the decoder out of line, and its code point is not needed)
    const size_t len = c0 < 0xE0 ? 2 : c0 < 0xF0 ? 3 : 4;
    if (n - pos < len || (c1 & 0xC0) != 0x80) return 0;
    if (len >= 3 && (c2 & 0xC0) != 0x80) return 0;
    if (len == 4 && (static_cast<uint8_t>(in[pos + 3]) & 0xC0) != 0x80) return 0;
    return len;
  }

  // The end of the run of code points from `pos` on that normalize_prefix would return
  // unchanged and that hold no space.
  size_t unchanged_run(std::string_view in, size_t pos) const noexcept {
    const size_t n = in.size();
    while (pos < n) {
      const size_t len = unchanged_at(in, pos);
      if (len == 0) break;
      pos += len;
    }
    return pos;
  }

  // Returns true when the Viterbi's steps (one UTF-8 sequence each) surely end exactly at
  // the end of `out`: every piece appended does by itself (unchanged code points, spaces,
  // U+FFFD, replacements that end on a code point), so the steps start at each piece in
  // turn; false when one may not (then ends_on_code_point tells). `separators`, when
  // given, receives how many separators (U+2581 or ' ') it appended.
  // With `from` > 0 (remove_extra_whitespaces only), `out` already holds what this gives
  // for in[0, from) when unchanged_at covers all of it: the separator and those bytes
  // (the loop below appends just that for them, and is then inside a word); the rest is
  // appended.
  bool normalize_into(std::string_view in, std::string& out, size_t* separators = nullptr, size_t from = 0) const {
    return normalize_loop<true>(in, out, separators, from, {});
  }

  // normalize_into without any table (none of prepare()'s, the charsmap's or the
  // user-defined trie): llama.cpp's loop, one normalize_prefix per step, the charsmap
  // walked and the user-defined texts (`user_defined`, the trie's keys) compared one by
  // one. For the few bytes a lazy model tokenizes before it builds its tables.
  void normalize_plain(std::string_view in, std::string& out, std::span<const std::string_view> user_defined) const {
    normalize_loop<false>(in, out, nullptr, 0, user_defined);
  }

  // A ' ' that normalizes alone to nothing but the end of a word (merged spaces): nothing
  // maps it, alone or with the byte after it.
  // (Where nothing maps a space with any byte after it, the byte after is not read: the
  // raw-word scan of both UGM vocabularies of the test data, bench.txt's all-cached call
  // 138.3M -> 124.8M instructions.)
  bool pure_space(std::string_view text, size_t pos) const noexcept {
    return text[pos] == ' ' &&
           (space_alone_ || space_unmapped_before_[pos + 1 < text.size() ? static_cast<uint8_t>(text[pos + 1]) : 0]);
  }

  // A pure space or a byte of word_end_: a raw word ends before it.
  bool word_break(std::string_view text, size_t pos) const noexcept {
    return word_end_[static_cast<uint8_t>(text[pos])] || pure_space(text, pos);
  }

  // The Viterbi's steps (one UTF-8 sequence each) end exactly at the end of s.
  static bool ends_on_code_point(std::string_view s) noexcept {
    size_t pos = 0;
    while (pos < s.size()) pos += utf8_len(s[pos]);
    return pos == s.size();
  }

 private:
  // normalize_into (Tables) or normalize_plain.
  template <bool Tables>
  bool normalize_loop(std::string_view in, std::string& out, size_t* separators, size_t from,
                      std::span<const std::string_view> user_defined) const {
    bool aligned = true;
    size_t n_separators = from > 0 ? 1 : 0;
    if (from == 0) out.clear();
    out.reserve(out.size() + (in.size() - from) * 3);
    const std::string_view space = escape_whitespaces_ ? escaped_space : std::string_view(" ");
    const bool prepend_space = !treat_whitespace_as_suffix_ && add_space_prefix_;
    const bool append_space = treat_whitespace_as_suffix_ && add_space_prefix_;
    const bool merge_spaces = remove_extra_whitespaces_;
    bool space_prepended = from > 0;
    bool in_word = from > 0;
    const auto start_word = [&] {
      in_word = true;
      if ((prepend_space && !space_prepended) || merge_spaces) {
        out.append(space);
        ++n_separators;
        space_prepended = true;
      }
    };
    const size_t n = in.size();
    for (size_t pos = from; pos < n;) {
      if constexpr (Tables) {
        if (const size_t end = unchanged_run(in, pos); end > pos) {  // code points passing as they are
          if (!in_word) start_word();
          out.append(in.data() + pos, end - pos);
          pos = end;
          continue;
        }
        if (space_unchanged_ && pure_space(in, pos)) {
          in_word = false;  // what the loop below does with a ' ' normalize_prefix returns as it is
          if (!merge_spaces) out.append(space), ++n_separators;
          ++pos;
          continue;
        }
      }
      const piece p = Tables ? normalize_prefix(in, pos) : plain_prefix(in, pos, user_defined);
      pos += p.consumed;
      if (p.bytes.empty()) continue;
      if (std::find(p.bytes.begin(), p.bytes.end(), ' ') == p.bytes.end()) {
        if (!in_word) start_word();
        out.append(p.bytes);
        if (aligned) aligned = ends_on_code_point(p.bytes);
        continue;
      }
      aligned = false;  // (the piece's spaces change what is appended)
      for (const char c : p.bytes) {
        if (c != ' ') {
          if (!in_word) start_word();
          out.push_back(c);
        } else {
          in_word = false;
          if (!merge_spaces) out.append(space), ++n_separators;
        }
      }
    }
    if (append_space) out.append(space), ++n_separators;
    if (separators) *separators = n_separators;
    return aligned;
  }

  // normalize_prefix without tables: the user-defined trie's walk_depth is the longest
  // common prefix of the text with one of its keys.
  piece plain_prefix(std::string_view in, size_t pos, std::span<const std::string_view> user_defined) const {
    const std::string_view rest = in.substr(pos);
    size_t depth = 0;
    for (const std::string_view t : user_defined) {
      const size_t m = std::min(t.size(), rest.size());
      size_t k = 0;
      while (k < m && t[k] == rest[k]) ++k;
      depth = std::max(depth, k);
    }
    if (depth > 0) return {rest.substr(0, depth), depth};
    if (const auto m = charsmap_.walk(in, pos); m.consumed > 0) return {m.replacement, m.consumed};
    uint32_t cpt = 0;
    if (const size_t len = utf8_decode_strict(in, pos, cpt); len > 0) return {rest.substr(0, len), len};
    return {"\xEF\xBF\xBD", 1};  // U+FFFD for one invalid byte
  }

  ugm_charsmap charsmap_;
  byte_trie user_defined_;
  bool escape_whitespaces_, treat_whitespace_as_suffix_, add_space_prefix_, remove_extra_whitespaces_;
  std::array<bool, 256> passes_{};  // bytes normalization copies as they are (prepare)
  std::array<bool, 256> ascii_plain_{};  // ASCII bytes it copies when an ASCII byte follows
  std::array<bool, 256> word_end_{};  // bytes besides pure spaces that end a raw word (set_word_ends)
  std::array<bool, 256> space_unmapped_before_{};  // charsmap_.surely_unmapped(' ', c1) by c1 (pure_space)
  bool low_word_ends_ = true;  // no byte above ' ' in word_end_ (tokenize_raw's word scan)
  bool space_alone_ = false;  // every entry of space_unmapped_before_ (pure_space)
  bool space_unchanged_ = false;  // no user-defined token starts with ' '
};

}  // namespace gguf::vocab_detail
