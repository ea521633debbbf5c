// Merge ranks keyed by token ids (internal), for the byte-level BPE fast path (bpe.cpp).
//
// llama.cpp keys its merges by the texts of the two sides (bpe_ranks) and looks the
// merged symbol's token up by text. When every byte-alphabet character is a token and the
// result of every rule is a token, every symbol a word can ever hold is a token, and a
// symbol's text and its id determine each other (token_map maps each text to one id).
// Then "the rule whose sides are the texts of l and r" is "the rule whose sides are the
// ids of l and r", and the result's id is known when the rule is: one probe of a flat
// open-addressing table on the (left, right) id pair gives the rank and the merged id,
// with no text hashing or comparison per candidate pair and no lookup per output token.
// A rule whose side is not a token can never match a symbol and is left out; of a
// duplicated pair the first rule keeps its rank (as std::unordered_map::emplace does).
// When the vocabulary does not qualify, build() says so and bpe.cpp keeps its text table.
//
// Where the 256 byte-alphabet tokens hold the ids base..base+255 (GPT-2-style vocabularies:
// llama-bpe, qwen2, gpt-2 ...), the rules joining two of them are also kept in a dense
// 256 x 256 table (512 KiB). Every word starts as such pairs, and on text in non-Latin
// scripts (three bytes per CJK character) they are most of the probes: a row of the
// dense table holds a lead byte's pairs in a few cache lines, where the hashed table
// spreads them over one line each of 16 MiB (llama-bpe CJK: the hashed probes' misses
// were half of the process).
//
// Most other probes on such text ask for a pair that is no rule (a character's token
// next to the next character's first byte, two characters that form no token): a bitmap
// of 2^22 bits (512 KiB) hashed on the id pair answers most of those "no" without
// touching the table (about 1 in 15 false positives with llama-bpe's 280k rules).
#pragma once

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "gguf/file.h"
#include "vocab/runtime/prefault.h"
#include "vocab/runtime/table_cache.h"
#include "vocab/models/tokenizer_model.h"
#include "vocab/unicode/unicode.h"
#include "vocab/models/word_split.h"

namespace gguf::vocab_detail {

class pair_rank_table {
 public:
  /// Byte-alphabet code points are below this (U+0100 + 68 remapped bytes).
  static constexpr uint32_t alphabet_end = 0x144;

  /// The rank and merged id of a rule (rank_plus_1 = 0: no rule).
  struct entry {
    uint32_t left, right;
    uint32_t rank_plus_1;
    int32_t merged;
  };
  /// A rule found: its rank + 1 (0: no rule) and merged id.
  struct hit {
    uint32_t rank_plus_1;
    int32_t merged;
  };

  /// Indexes the rules of `rules` ("left right" strings in `file`, rank = index) by the
  /// ids of their sides in `v.token_to_id`. Returns false (the table is then unusable) when
  /// a byte-alphabet character or the result of a rule whose sides are tokens is not a
  /// token. Calls `each_rule(a, b)` for every rule with a space (the pair filter's input).
  template <class EachRule>
  bool build(const vocab_data& v, const array_ref& rules, std::span<const std::byte> file, EachRule&& each_rule) {
    if (!fill_alphabet(v)) return false;
    table_vector<uint64_t> bits = prefaulted_table(size_t(bitmap_words), uint64_t{0});
    table_vector<hit> dense = bytes_base_ >= 0 ? prefaulted_table(size_t(256 * 256), hit{}) : table_vector<hit>{};
    const size_t n = rules.empty() ? 0 : size_t(rules.size());
    size_t cap = 16;
    while (cap < n * 2) cap <<= 1;  // load factor <= 1/2
    table_vector<entry> slots = prefaulted_table(cap, entry{});
    mask_ = cap - 1;
    shift_ = 64 - unsigned(__builtin_ctzll(cap));
    const char* const base = reinterpret_cast<const char*>(file.data());
    const char* const end = base + file.size();
    // Batches: hash the three texts of a batch of rules and prefetch their token slots,
    // then look them up, so that the cache misses of one batch overlap.
    constexpr size_t batch = 64;
    struct pending {
      std::string_view a, b;
      uint64_t ha, hb, hm;
      uint32_t joined_at;  // offset of a + b in `joined`
      int32_t rank;
      int32_t merged;  // the result's id when the guess below found it, else -1
      bool guessed;    // that guess was made (with `tried`, the offset then)
      int64_t tried;
    };
    std::array<pending, batch> todo;
    std::string joined;
    size_t n_todo = 0;
    int64_t offset = 0;  // id - rank of the last result looked up
    bool guess_early = true;  // the last batch's results were all where the offset said
    bool ok = true;
    std::array<entry, batch> found;  // the batch's rules by ids, their slots prefetched
    const auto flush = [&] {
      size_t n_found = 0;
      guess_early = true;
      for (size_t j = 0; j < n_todo; ++j) {
        const pending& p = todo[j];
        const int32_t ia = v.token_to_id.find_id(p.a, p.ha);
        const int32_t ib = ia < 0 ? -1 : v.token_to_id.find_id(p.b, p.hb);
        if (ib < 0) continue;  // a side that is no token: no symbol ever matches it
        int32_t im = p.merged;
        if (im < 0 && !(p.guessed && p.tried == offset)) im = guess_merged(v, p.rank, offset, p.a, p.b);
        if (im < 0) {
          im = v.token_to_id.find_id(std::string_view(joined).substr(p.joined_at, p.a.size() + p.b.size()), p.hm);
          offset = int64_t(im) - p.rank;
          guess_early = false;
        }
        if (im < 0) {
          ok = false;  // a symbol that is no token: the text table handles that
          break;
        }
        found[n_found++] = {uint32_t(ia), uint32_t(ib), uint32_t(p.rank), im};
        __builtin_prefetch(&slots[slot_of(uint32_t(ia), uint32_t(ib))], 1);
      }
      for (size_t j = 0; j < n_found && ok; ++j) {
        insert(slots.data(), found[j]);
        const uint32_t b = bit_of(found[j].left, found[j].right);
        bits[b >> 6] |= uint64_t(1) << (b & 63);
        const uint32_t dl = found[j].left - uint32_t(bytes_base_), dr = found[j].right - uint32_t(bytes_base_);
        if (!dense.empty() && (dl | dr) < 256) {
          hit& d = dense[dl << 8 | dr];
          if (d.rank_plus_1 == 0) d = {found[j].rank_plus_1 + 1, found[j].merged};  // the first rule keeps its rank
        }
      }
      n_todo = 0;
      joined.clear();
    };
    if (n)
      (void)rules.for_each_string([&](uint64_t i, std::string_view w) {
        if (!ok) return;
        const size_t pos = rule_split(w, end);
        if (pos + 1 >= w.size()) return;  // no space, or nothing after it: no rule
        const std::string_view a = w.substr(0, pos), b = w.substr(pos + 1);
        each_rule(a, b);
        pending& p = todo[n_todo++];
        p.a = a;
        p.b = b;
        p.ha = a.data() + 8 <= end ? text_hash_padded(a.data(), a.size()) : text_hash(a);
        p.hb = b.data() + 8 <= end ? text_hash_padded(b.data(), b.size()) : text_hash(b);
        p.rank = int32_t(i);
        v.token_to_id.prefetch(p.ha);
        v.token_to_id.prefetch(p.hb);
        // The result at the id the last batch's offset guesses needs no text joined, hashed
        // or looked up; else the batch's flush guesses again (its offset may have moved
        // within the batch), then looks the text up. Guessed here only after a batch
        // without a miss: where the offset keeps moving (llama-bpe: half the rules), a
        // guess that misses costs a random read of the token array.
        p.guessed = guess_early;
        p.tried = offset;
        p.merged = guess_early ? guess_merged(v, p.rank, offset, a, b) : -1;
        if (p.merged < 0) {
          p.joined_at = uint32_t(joined.size());
          joined.append(a).append(b);
          p.hm = text_hash(std::string_view(joined).substr(p.joined_at));
          v.token_to_id.prefetch(p.hm);
        }
        if (n_todo == batch) flush();
      });
    flush();
    if (!ok) return false;
    slots_.adopt(std::move(slots));
    dense_.adopt(std::move(dense));
    bits_.adopt(std::move(bits));
    return true;
  }
  void save(table_writer& w) const {
    w.put(std::span<const int32_t>(alphabet_));
    w.put(slots_.span());
    w.put(dense_.span());
    w.put(bits_.span());
  }
  bool load(table_reader& r) {
    std::span<const int32_t> alphabet;
    std::span<const entry> slots;
    std::span<const hit> dense;
    std::span<const uint64_t> bits;
    if (!r.get(alphabet) || !r.get(slots) || !r.get(dense) || !r.get(bits) || alphabet.size() != alphabet_end) return false;
    if (bits.size() != bitmap_words) return false;
    if (slots.size() < 16 || (slots.size() & (slots.size() - 1)) != 0) return false;
    std::copy(alphabet.begin(), alphabet.end(), alphabet_.begin());
    set_bytes_base();
    if (dense.size() != (bytes_base_ >= 0 ? size_t(256 * 256) : 0)) return false;
    dense_.view(dense);
    bits_.view(bits);
    mask_ = slots.size() - 1;
    shift_ = 64 - unsigned(__builtin_ctzll(slots.size()));
    slots_.view(slots);
    return true;
  }
  /// The token of byte-alphabet code point `cpt` (< alphabet_end), or -1 outside the alphabet.
  int32_t char_id(uint32_t cpt) const noexcept { return cpt < alphabet_end ? alphabet_[cpt] : -1; }
  /// Starts loading what find(l, r) reads (a lookup a merge ahead).
  [[gnu::always_inline]] void prefetch(uint32_t l, uint32_t r) const noexcept {
    if (((l - uint32_t(bytes_base_)) | (r - uint32_t(bytes_base_))) < 256 && !dense_.empty()) return;
    const uint32_t b = bit_of(l, r);
    __builtin_prefetch(&bits_[b >> 6]);
    __builtin_prefetch(&slots_[slot_of(l, r)]);
  }
  /// The rule joining tokens l and r (rank_plus_1 = 0: none).
  hit find(uint32_t l, uint32_t r) const noexcept {
    const uint32_t dl = l - uint32_t(bytes_base_), dr = r - uint32_t(bytes_base_);
    if ((dl | dr) < 256 && !dense_.empty()) return dense_[dl << 8 | dr];
    const uint32_t b = bit_of(l, r);
    if (!(bits_[b >> 6] >> (b & 63) & 1)) return {0, -1};
    for (size_t i = slot_of(l, r);; i = (i + 1) & mask_) {
      const entry& e = slots_[i];
      if (e.rank_plus_1 == 0) return {0, -1};
      if (e.left == l && e.right == r) return {e.rank_plus_1, e.merged};
    }
  }

 private:
  // Vocabularies listed in merge order hold rule r's result at id r + a constant (`offset`,
  // id - rank of the last result looked up): the id whose text is a + b, or -1.
  [[gnu::always_inline]] static int32_t guess_merged(const vocab_data& v, int32_t rank, int64_t offset, std::string_view a,
                              std::string_view b) noexcept {
    const int64_t guess = int64_t(rank) + offset;
    if (guess < 0 || size_t(guess) >= v.tokens.size()) return -1;
    const std::string_view t = v.tokens.text(size_t(guess));
    return t.size() == a.size() + b.size() && same_bytes(t.data(), a.data(), a.size()) &&
                   same_bytes(t.data() + a.size(), b.data(), b.size())
               ? int32_t(guess)
               : -1;
  }
  static uint64_t hash(uint32_t l, uint32_t r) noexcept { return (uint64_t(l) << 32 | r) * 0x9E3779B97F4A7C15ull; }
  size_t slot_of(uint32_t l, uint32_t r) const noexcept { return size_t(hash(l, r) >> shift_); }
  static constexpr unsigned bitmap_log2 = 22;
  static constexpr size_t bitmap_words = (size_t(1) << bitmap_log2) / 64;
  // the bitmap's bit of a pair: a hash independent of slot_of's
  static uint32_t bit_of(uint32_t l, uint32_t r) noexcept {
    return uint32_t(((uint64_t(l) << 32 | r) * 0xC2B2AE3D27D4EB4Full) >> (64 - bitmap_log2));
  }
  bool fill_alphabet(const vocab_data& v) {
    alphabet_.fill(-1);
    for (int c = 0; c < 256; ++c) {
      const std::string_view ch = byte_to_utf8(uint8_t(c));
      const uint32_t cpt = utf8_decode_one(ch);
      const int32_t id = v.find(ch);
      if (id < 0 || cpt >= alphabet_end) return false;
      alphabet_[cpt] = id;
    }
    set_bytes_base();
    return true;
  }
  // bytes_base_ = the lowest byte-alphabet id if the 256 ids are base..base+255, else -1.
  void set_bytes_base() noexcept {
    int32_t lo = INT32_MAX, hi = -1, n = 0;
    for (int32_t id : alphabet_)
      if (id >= 0) lo = std::min(lo, id), hi = std::max(hi, id), ++n;
    bytes_base_ = n == 256 && hi - lo == 255 ? lo : -1;
  }
  static uint32_t utf8_decode_one(std::string_view s) noexcept {
    const auto* u = reinterpret_cast<const uint8_t*>(s.data());
    return s.size() == 1 ? u[0] : (uint32_t(u[0] & 0x1F) << 6) | (u[1] & 0x3F);
  }
  // x.rank_plus_1 holds the rank
  void insert(entry* slots, entry x) {
    for (size_t i = slot_of(x.left, x.right);; i = (i + 1) & mask_) {
      entry& e = slots[i];
      if (e.rank_plus_1 == 0) {
        e = {x.left, x.right, x.rank_plus_1 + 1, x.merged};
        return;
      }
      if (e.left == x.left && e.right == x.right) return;  // the first rule of a pair keeps its rank
    }
  }
  std::array<int32_t, alphabet_end> alphabet_{};
  pod_table<entry> slots_;
  pod_table<hit> dense_;
  pod_table<uint64_t> bits_;  // bit_of(l, r) set for every rule (l, r)   // [left - bytes_base_][right - bytes_base_], or empty
  int32_t bytes_base_ = -1;
  size_t mask_ = 0;
  unsigned shift_ = 0;
};

}  // namespace gguf::vocab_detail
