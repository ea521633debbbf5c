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
#include <atomic>
#include <climits>
#include <new>
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

/// The byte each byte-alphabet code point below 0x144 stands for (-1: none), the inverse
/// of byte_alphabet_cpt.
inline constexpr std::array<int16_t, 0x144> byte_of_alphabet_cpt = [] {
  std::array<int16_t, 0x144> t{};
  t.fill(-1);
  for (int b = 0; b < 256; ++b) t[byte_alphabet_cpt(uint8_t(b))] = int16_t(b);
  return t;
}();

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
    table_vector<uint32_t> after_high = prefaulted_table(v.tokens.size(), uint32_t{0});
    table_vector<uint32_t> before_lead = prefaulted_table(v.tokens.size(), uint32_t{0});
    table_vector<uint32_t> byte_sides = prefaulted_table(size_t(2 * 64 * 64), uint32_t{0});
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
      int left_last, right_first;  // the bytes a's last and b's first character stand for (side_byte)
      bool left_single, right_single;  // a, b are one character
    };
    std::array<pending, batch> todo;
    std::string joined;
    size_t n_todo = 0;
    int64_t offset = 0;  // id - rank of the last result looked up
    bool guess_early = true;  // the last batch's results were all where the offset said
    bool ok = true;
    std::array<entry, batch> found;  // the batch's rules by ids, their slots prefetched
    std::array<const pending*, batch> found_rules;
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
        found_rules[n_found] = &p;
        found[n_found++] = {uint32_t(ia), uint32_t(ib), uint32_t(p.rank), im};
        __builtin_prefetch(&slots[slot_of(uint32_t(ia), uint32_t(ib))], 1);
      }
      for (size_t j = 0; j < n_found && ok; ++j) {
        insert(slots.data(), found[j]);
        const uint32_t rank_plus_1 = found[j].rank_plus_1 + 1;  // rules come in rank order: the first is the lowest
        const pending& p = *found_rules[j];
        const auto lowest = [&](uint32_t& x) {
          if (x == 0) x = rank_plus_1;
        };
        if (p.left_last >= 0x80) lowest(after_high[found[j].right]);
        if (p.right_first >= 0xC0) lowest(before_lead[found[j].left]);
        const bool cont_lead = p.left_last >= 0x80 && p.left_last < 0xC0 && p.right_first >= 0xC0;
        if (cont_lead && p.right_single) lowest(byte_sides[size_t(p.right_first - 0xC0) << 6 | size_t(p.left_last - 0x80)]);
        if (cont_lead && p.left_single) lowest(byte_sides[4096 + (size_t(p.left_last - 0x80) << 6 | size_t(p.right_first - 0xC0))]);
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
        p.left_last = side_byte(a, false);
        p.right_first = side_byte(b, true);
        p.left_single = a.size() == 1 || (a.size() == 2 && (uint8_t(a[0]) & 0xE0) == 0xC0);
        p.right_single = b.size() == 1 || (b.size() == 2 && (uint8_t(b[0]) & 0xE0) == 0xC0);
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
    after_high_.adopt(std::move(after_high));
    before_lead_.adopt(std::move(before_lead));
    byte_sides_.adopt(std::move(byte_sides));
    return true;
  }
  void save(table_writer& w) const {
    w.put(std::span<const int32_t>(alphabet_));
    w.put(slots_.span());
    w.put(dense_.span());
    w.put(bits_.span());
    w.put(after_high_.span());
    w.put(before_lead_.span());
    w.put(byte_sides_.span());
  }
  bool load(table_reader& r, size_t n_tokens) {
    std::span<const int32_t> alphabet;
    std::span<const entry> slots;
    std::span<const hit> dense;
    std::span<const uint64_t> bits;
    std::span<const uint32_t> after_high, before_lead, byte_sides;
    if (!r.get(alphabet) || !r.get(slots) || !r.get(dense) || !r.get(bits) || !r.get(after_high) || !r.get(before_lead) ||
        !r.get(byte_sides) || alphabet.size() != alphabet_end)
      return false;
    if (after_high.size() != n_tokens || before_lead.size() != n_tokens || byte_sides.size() != 2 * 64 * 64) return false;
    if (bits.size() != bitmap_words) return false;
    if (slots.size() < 16 || (slots.size() & (slots.size() - 1)) != 0) return false;
    std::copy(alphabet.begin(), alphabet.end(), alphabet_.begin());
    set_bytes_base();
    if (dense.size() != (bytes_base_ >= 0 ? size_t(256 * 256) : 0)) return false;
    dense_.view(dense);
    bits_.view(bits);
    after_high_.view(after_high);
    before_lead_.view(before_lead);
    byte_sides_.view(byte_sides);
    mask_ = slots.size() - 1;
    shift_ = 64 - unsigned(__builtin_ctzll(slots.size()));
    slots_.view(slots);
    return true;
  }
  /// The token of byte `b` (-1: none).
  int32_t byte_id(uint8_t b) const noexcept { return alphabet_[byte_alphabet_cpt(b)]; }
  /// The lowest rank + 1 of a rule whose right side is token t and whose left side ends in
  /// a byte >= 0x80 (a UTF-8 continuation byte, in text from valid UTF-8); 0: none.
  uint32_t lowest_after_high(int32_t t) const noexcept { return after_high_[size_t(t)]; }
  /// The lowest rank + 1 of a rule whose left side is token t and whose right side starts
  /// with a byte >= 0xC0 (a UTF-8 lead byte); 0: none.
  uint32_t lowest_before_lead(int32_t t) const noexcept { return before_lead_[size_t(t)]; }
  /// The lowest rank + 1 of a rule whose right side is the token of lead byte `lead` (>=
  /// 0xC0) and whose left side ends in continuation byte `cont` (0x80-0xBF); 0: none.
  uint32_t lowest_lead_after(uint8_t lead, uint8_t cont) const noexcept {
    return byte_sides_[size_t(lead - 0xC0) << 6 | size_t(cont - 0x80)];
  }
  /// The lowest rank + 1 of a rule whose left side is the token of continuation byte
  /// `cont` and whose right side starts with lead byte `lead`; 0: none.
  uint32_t lowest_cont_before(uint8_t cont, uint8_t lead) const noexcept {
    return byte_sides_[4096 + (size_t(cont - 0x80) << 6 | size_t(lead - 0xC0))];
  }
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
  // The byte that the first (`first`) or last character of a rule side stands for; a
  // character outside the alphabet counts as 0xFF (in both classes: the boundary tables
  // then only err towards "a rule may apply").
  static int side_byte(std::string_view s, bool first) noexcept {
    const auto* u = reinterpret_cast<const uint8_t*>(s.data());
    const size_t n = s.size();
    uint32_t cpt;
    if (first) {
      if (u[0] < 0x80) return u[0];
      if (n < 2 || (u[0] & 0xE0) != 0xC0) return 0xFF;
      cpt = uint32_t(u[0] & 0x1F) << 6 | (u[1] & 0x3F);
    } else {
      if (u[n - 1] < 0x80) return u[n - 1];
      if (n < 2 || (u[n - 2] & 0xE0) != 0xC0) return 0xFF;
      cpt = uint32_t(u[n - 2] & 0x1F) << 6 | (u[n - 1] & 0x3F);
    }
    return cpt < alphabet_end && byte_of_alphabet_cpt[cpt] >= 0 ? byte_of_alphabet_cpt[cpt] : 0xFF;
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
  pod_table<hit> dense_;  // [left - bytes_base_][right - bytes_base_], or empty
  pod_table<uint64_t> bits_;  // bit_of(l, r) set for every rule (l, r)
  pod_table<uint32_t> after_high_, before_lead_;  // [token]: lowest_after_high, lowest_before_lead
  pod_table<uint32_t> byte_sides_;  // [lead][cont]: lowest_lead_after, then [cont][lead]: lowest_cont_before
  int32_t bytes_base_ = -1;
  size_t mask_ = 0;
  unsigned shift_ = 0;
};

/// The characters of two or three UTF-8 bytes that a word may take as one symbol from the
/// start (merge_word_ids): those whose bytes, merged alone, end as one token T after
/// rules of ranks up to R, where no rule of rank up to R joins any symbol the character
/// passes through (its bytes, its partial merges, T) with the neighbour on the side the
/// rule would join. The neighbours are known by one byte each: the left one ends in the
/// byte before the character, a continuation byte (0x80-0xBF: the previous character has
/// several bytes); the right one starts with the byte after it, a lead byte (>= 0xC0).
/// The character's own first and last bytes are checked against those two bytes
/// (pair_rank_table::lowest_lead_after, lowest_cont_before) at each place; its longer
/// symbols against any such neighbour (lowest_after_high, lowest_before_lead), once.
/// A character at the start or end of the word has no neighbour on that side.
///
/// Why the ids stay llama.cpp's: each merge takes the lowest-ranked pair of the word. Until
/// such a character is whole, one of its own pairs of rank <= R waits, so no pair of rank >
/// R is taken, and every pair joining it to a neighbour ranks above R: it merges as if
/// alone. Every other merge taken meanwhile ranks below its waiting pair, so below any
/// pair that T could form, which as one symbol from the start it offers early. The
/// merges outside it are therefore the same, in the same order, and it ends as T either
/// way.
///
/// Filled per code point on first use (U+0080 to U+FFFF, 512 KiB of mostly untouched
/// zero pages); the same value from every thread, so relaxed atomic stores suffice.
class whole_char_table {
 public:
  /// A character taken whole: its token and the highest rank + 1 of its merges.
  struct whole {
    int32_t token;  // -1: its bytes start as their own symbols
    uint32_t worst;
  };
  /// Allocates the table (empty); without the memory, leaves it unready (every character
  /// then starts as its bytes: the same ids).
  void reset() noexcept {
    try {
      cells_ = prefaulted_table(size_t(0x10000), uint64_t{0});
    } catch (const std::bad_alloc&) {
      cells_ = {};
    }
  }
  bool ready() const noexcept { return !cells_.empty(); }
  /// The characters found so far to be taken whole (for tests).
  size_t count() const noexcept {
    size_t n = 0;
    for (uint64_t& c : cells_) n += std::atomic_ref<uint64_t>(c).load(std::memory_order_relaxed) > 1;
    return n;
  }
  /// Code point `cpt`, of raw UTF-8 bytes b[0..n) (n = 2 or 3), as one symbol, where the
  /// byte before it is `before` (0x80-0xBF, or -1: none) and the byte after it `after`
  /// (>= 0xC0, or -1: none).
  int32_t find(const pair_rank_table& pairs, uint32_t cpt, const uint8_t* b, int n, int before, int after) const noexcept {
    std::atomic_ref<uint64_t> cell(cells_[cpt]);
    uint64_t c = cell.load(std::memory_order_relaxed);
    if (c == 0) {
      c = classify(pairs, b, n);
      cell.store(c, std::memory_order_relaxed);
    }
    const auto token = int32_t(uint32_t(c)) - 2;
    const auto worst = uint32_t(c >> 32);
    if (token < 0) return -1;
    if (before >= 0) {
      const uint32_t l = pairs.lowest_lead_after(b[0], uint8_t(before));
      if (l != 0 && l <= worst) return -1;
    }
    if (after >= 0) {
      const uint32_t r = pairs.lowest_cont_before(b[n - 1], uint8_t(after));
      if (r != 0 && r <= worst) return -1;
    }
    return token;
  }

 private:
  // 1: no; else the highest rank + 1 merged << 32 | (T + 2)
  static uint64_t classify(const pair_rank_table& pairs, const uint8_t* b, int n) noexcept {
    int32_t sym[3] = {-1, -1, -1};
    for (int k = 0; k < n; ++k)
      if ((sym[k] = pairs.byte_id(b[k])) < 0) return 1;
    const int32_t first_byte = sym[0], last_byte = sym[n - 1];
    int32_t firsts[3], lasts[3];  // the first and last symbol of each state
    int states = 0;
    uint32_t worst = 0;  // the highest rank + 1 merged
    for (int m = n;;) {
      firsts[states] = sym[0];
      lasts[states++] = sym[m - 1];
      if (m == 1) break;
      int best = -1;
      pair_rank_table::hit h{0, -1};
      for (int i = 0; i + 1 < m; ++i) {
        const pair_rank_table::hit e = pairs.find(uint32_t(sym[i]), uint32_t(sym[i + 1]));
        if (e.rank_plus_1 != 0 && (best < 0 || e.rank_plus_1 < h.rank_plus_1)) best = i, h = e;
      }
      if (best < 0) return 1;  // more than one token
      worst = std::max(worst, h.rank_plus_1);
      sym[best] = h.merged;
      for (int i = best + 1; i + 1 < m; ++i) sym[i] = sym[i + 1];
      --m;
    }
    // the character's own first and last bytes are checked where it stands (find)
    for (int s = 0; s < states; ++s) {
      const uint32_t l = firsts[s] == first_byte ? 0 : pairs.lowest_after_high(firsts[s]);
      const uint32_t r = lasts[s] == last_byte ? 0 : pairs.lowest_before_lead(lasts[s]);
      if ((l != 0 && l <= worst) || (r != 0 && r <= worst)) return 1;
    }
    return uint64_t(worst) << 32 | (uint32_t(sym[0]) + 2);
  }
  mutable table_vector<uint64_t> cells_;
};

}  // namespace gguf::vocab_detail
