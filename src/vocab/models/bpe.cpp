// BPE model: llama.cpp's llm_tokenizer_bpe. The pre-tokenizer splits the text into
// pieces; each piece (mapped through the GPT-2 byte alphabet unless the preset works on
// raw UTF-8) starts as one symbol per byte (per character without the byte alphabet) and
// adjacent symbols merge by lowest merge rank. A symbol that is not a token is emitted
// byte by byte (tokens of single bytes, or <0xXX> without the byte alphabet).
//
// Merge ranks are keyed by the texts of the two sides, as llama.cpp's bpe_ranks: a table
// from a 64-bit key (mixed from text_hash of each side) to the rank, built at load
// straight from the "left right" strings of the mapped file with no token lookups. A
// hit is confirmed by comparing both texts with the merge rule, so a key collision can
// never change a decision; the first rule of a duplicated pair keeps its rank, as
// std::unordered_map::emplace does. The merged symbol's token is looked up by text when
// the word is emitted (llama.cpp's text_to_token). Each word is cut further where no rule
// can join the characters on either side (word_split.h), and each distinct part of a
// call is merged once (word_cache.h). make_bpe(v, false) keeps the plain per-word queue.
// With the byte alphabet, a vocabulary whose every rule result is a token merges by
// token-id pairs instead (bpe_pairs.h): one probe per candidate pair, no text compared,
// each final symbol already its token; and a character of two or three bytes that provably
// ends as one token before any rule could join it to a neighbour starts as that token
// (whole_char_table: on CJK text, about half the symbols and merges of a word). That
// table costs about twice the text table to build (three token lookups a rule instead of
// one hash; llama-bpe: ~15 ms of a 35 ms cold load), and it pays only where many words are merged (text in non-Latin scripts; on
// English prose and code the word cache leaves about 1% of the bytes to merge): the
// loader's model (lazy) builds it only once enough text has been merged through the text
// table (ids_budget), unless the compiled cache, which saves it, is in use.
#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <new>
#include <span>
#include <string>

#include "vocab/models/bpe_pairs.h"
#include "vocab/models/byte_fallback.h"
#include "vocab/models/merge_queue.h"
#include "vocab/models/tokenizer_model.h"
#include "vocab/normalizer/normalizer.h"
#include "vocab/pre_tokenizer/pre_tokenizer.h"
#include "vocab/unicode/unicode.h"
#include "vocab/runtime/thread_scratch.h"
#include "vocab/runtime/word_cache.h"
#include "vocab/models/word_split.h"

namespace gguf::vocab_detail {
namespace {

class merge_table {
 public:
  /// Indexes the rules of `rules` (an array of "left right" strings, rank = index) in
  /// place: the strings are views into `file`, which must outlive the table. Adds each
  /// rule's join pair to `filter` if given. A rule without a space after its first byte
  /// never matches two symbols (llama.cpp splits at the first space from index 1).
  void build(const array_ref& rules, std::span<const std::byte> file, pair_filter* filter) {
    base_ = reinterpret_cast<const char*>(file.data());
    const size_t n = rules.empty() ? 0 : size_t(rules.size());
    refs_.adopt(prefaulted_table(n, rule_ref{}));  // insert() compares through refs_
    rule_ref* const refs = refs_.writable();
    size_t cap = 16;
    while (cap * 2 < n * 3) cap <<= 1;  // load factor <= 2/3
    table_vector<entry> slots = prefaulted_table(cap, entry{});
    mask_ = cap - 1;
    shift_ = 64 - unsigned(__builtin_ctzll(cap));
    // Batches: hash a batch of rules and prefetch their slots, then insert them, so that
    // the cache misses of one batch overlap.
    constexpr size_t batch = 64;
    struct pending {
      std::string_view a, b;
      uint64_t key;
      int32_t rank;
    };
    pending todo[batch];
    size_t n_todo = 0;
    const char* const end = base_ + file.size();
    const auto flush = [&] {
      for (size_t j = 0; j < n_todo; ++j) {
        const pending& p = todo[j];
        insert(slots.data(), p.key, p.a, p.b, p.rank);
        if (filter)  // the 8 bytes before a's end: a's own and its length's
          filter->add(p.a.data() + p.a.size() - base_ >= 8 ? last_chunk_padded(p.a) : last_chunk(p.a), first_chunk(p.b));
      }
      n_todo = 0;
    };
    if (n)
      (void)rules.for_each_string([&](uint64_t i, std::string_view w) {
        const size_t pos = rule_split(w, end);
        if (pos + 1 >= w.size()) return;  // no space, or nothing after it: no rule (lengths stay 0)
        const std::string_view a = w.substr(0, pos), b = w.substr(pos + 1);
        refs[i] = {uint64_t(a.data() - base_), uint32_t(a.size()), uint32_t(b.size())};
        pending& p = todo[n_todo++];
        p.a = a;
        p.b = b;
        // 8 bytes read from each side where the file goes on that far
        const uint64_t ha = a.data() + 8 <= end ? text_hash_padded(a.data(), a.size()) : text_hash(a);
        const uint64_t hb = b.data() + 8 <= end ? text_hash_padded(b.data(), b.size()) : text_hash(b);
        p.key = key(ha, hb);
        p.rank = int32_t(i);
        __builtin_prefetch(&slots[p.key >> shift_], 1);
        if (n_todo == batch) flush();
      });
    flush();
    slots_.adopt(std::move(slots));
  }
  /// The tables for the compiled cache (table_cache.h): the slots and each rule's place
  /// in the file, so that a load from the cache need not read the merges at all.
  void save(table_writer& w) const {
    w.put(refs_.span());
    w.put(slots_.span());
  }
  bool load(table_reader& r, std::span<const std::byte> file) {
    std::span<const rule_ref> refs;
    std::span<const entry> slots;
    if (!r.get(refs) || !r.get(slots)) return false;
    if (slots.size() < 16 || (slots.size() & (slots.size() - 1)) != 0 || slots.size() * 2 < refs.size() * 3) return false;
    base_ = reinterpret_cast<const char*>(file.data());
    refs_.view(refs);
    mask_ = slots.size() - 1;
    shift_ = 64 - unsigned(__builtin_ctzll(slots.size()));
    slots_.view(slots);
    return true;
  }
  /// The rank of the rule "a b", or -1. `ha`, `hb` = text_hash(a), text_hash(b).
  int32_t find(std::string_view a, std::string_view b, uint64_t ha, uint64_t hb) const {
    const uint64_t k = key(ha, hb);
    const uint32_t tag = uint32_t(k);
    for (size_t i = k >> shift_;; i = (i + 1) & mask_) {
      const entry& e = slots_[i];
      if (e.rank_plus_1 == 0) return -1;
      if (e.tag == tag && same(rank_of(e), a, b)) return rank_of(e);
    }
  }

 private:
  // The tables have no member initializers: sized over the kernel's zero pages, a table is
  // not written before it is filled (prefaulted_table), and all zero is its empty state.
  struct entry {
    uint32_t tag;          // low bits of the key (the slot index comes from the high bits)
    uint32_t rank_plus_1;  // 0 = empty slot
  };
  static int32_t rank_of(const entry& e) noexcept { return int32_t(e.rank_plus_1 - 1); }
  static uint64_t key(uint64_t ha, uint64_t hb) {
    const uint64_t r = (hb << 27) | (hb >> 37);
    return ha ^ (r * 0x9E3779B97F4A7C15ull);
  }
  void insert(entry* slots, uint64_t k, std::string_view a, std::string_view b, int32_t rank) {
    const uint32_t tag = uint32_t(k);
    for (size_t i = k >> shift_;; i = (i + 1) & mask_) {
      entry& e = slots[i];
      if (e.rank_plus_1 == 0) {
        e = {tag, uint32_t(rank) + 1};
        return;
      }
      if (e.tag == tag && same(rank_of(e), a, b)) return;
    }
  }
  struct rule_ref {  // the rule "a b" at base_ + off (a rule without a space: all zero)
    uint64_t off;
    uint32_t len_a, len_b;
  };
  bool same(int32_t rank, std::string_view a, std::string_view b) const noexcept {
    const rule_ref& r = refs_[size_t(rank)];
    return r.len_a == a.size() && r.len_b == b.size() && same_bytes(base_ + r.off, a.data(), a.size()) &&
           same_bytes(base_ + r.off + r.len_a + 1, b.data(), b.size());
  }
  const char* base_ = nullptr;
  pod_table<rule_ref> refs_;
  pod_table<entry> slots_;
  size_t mask_ = 0;
  unsigned shift_ = 0;
};

// byte_to_utf8 of every byte, compiled in (no initializer at program start)
constexpr std::array<byte_alphabet_utf8, 256> byte_alphabet_chars = [] {
  std::array<byte_alphabet_utf8, 256> t{};
  for (size_t b = 0; b < 256; ++b) t[b] = byte_alphabet_char(uint8_t(b));
  return t;
}();

class bpe_model final : public tokenizer_model {
 public:
  bpe_model(const vocab_data& v, bool split_words, bool lazy)
      : v_(v), pre_(v.preset ? *v.preset : default_preset()), split_words_(split_words) {
    // the merge table (and the pair filter) from the compiled cache, or built and saved
    if (split_words && pre_.preset().byte_encode && lazy && !v.cache) {
      build_text_table(true);
      ids_budget_.store(ids_budget(v.merges.empty() ? 0 : size_t(v.merges.size())), std::memory_order_relaxed);
      ids_state_.store(ids_pending, std::memory_order_relaxed);
    } else if (split_words && pre_.preset().byte_encode) {
      load_or_build_by_ids();
    } else {
      const std::string_view name = split_words ? "bpe.merges+filter" : "bpe.merges";
      const auto read = [&](table_reader& r) { return merges_.load(r, v.file_bytes) && (!split_words || filter_.load(r)); };
      load_or_build(
          v.cache, name, read,
          [&] { build_text_table(split_words); },
          [&](table_writer& w) {
            merges_.save(w);
            if (split_words) filter_.save(w);
          });
    }
    byte_encode_ = pre_.preset().byte_encode;
    gemma4_newlines_ = pre_.preset().newline_runs_whole;
    byte_fallback_.load_or_find(v, "bpe.bytes", byte_encode_ ? byte_fallback::pieces::raw : byte_fallback::pieces::hex, -1);
  }

  // Normalizer: spaces become U+2581 where the pre type escapes whitespace (gemma4).
  std::string_view normalize(std::string_view fragment, bool, std::string& buf) const override {
    if (!v_.escape_whitespaces) return fragment;
    escape_whitespace(fragment, false, buf);
    return buf;
  }

  bool merges_by_ids() const noexcept { return by_ids_.load(std::memory_order_acquire); }
  size_t whole_chars() const noexcept { return merges_by_ids() ? whole_.count() : 0; }

  void tokenize(std::string_view text, std::vector<int32_t>& out) const override {
    scratch& sc = thread_scratch<scratch>(instance_);
    utf8_to_cpts(text, sc.cpts);
    pre_.split(sc.cpts, sc.lengths);
    // The pieces go in batches: each batch's words are encoded and hashed first and their
    // slots in the token map (words looked up whole) and in the word cache prefetched, so
    // that the cache misses of a batch overlap instead of coming one word at a time.
    const bool whole_first = v_.ignore_merges || gemma4_newlines_;
    size_t start = 0;
    for (size_t b = 0; b < sc.lengths.size(); b += batch) {
      const size_t m = std::min(batch, sc.lengths.size() - b);
      size_t n_cpts = 0;
      for (size_t j = 0; j < m; ++j) n_cpts += sc.lengths[b + j];
      // room for the longest encoding (8 bytes a code point) and encode_word's 2-byte
      // stores; grown only, so that no call refills it
      if (sc.words.size() < n_cpts * 8 + 8) sc.words.resize(n_cpts * 8 + 8);
      size_t at = 0;
      for (size_t j = 0; j < m; ++j) {
        const size_t len = sc.lengths[b + j];
        at = encode_word(std::span(sc.cpts).subspan(start, len), sc.words.data() + at) - sc.words.data();
        start += len;
        sc.ends[j] = at;
        const std::string_view w = word_of(sc, j);
        sc.word_hashes[j] = text_hash(w);
        if (whole_first) v_.token_to_id.prefetch(sc.word_hashes[j]);
        if (split_words_) sc.cache.prefetch_slot(sc.word_hashes[j]);
      }
      for (size_t j = 0; j < m; ++j) emit_word(word_of(sc, j), sc.word_hashes[j], sc, out);
      if (sc.text_merged >= 4096) spend_ids_budget(sc);
    }
    if (sc.text_merged) spend_ids_budget(sc);
  }

 private:
  static constexpr size_t batch = 16;
  struct scratch;
  // The bytes of words a lazy model merges through the text table before it builds the
  // id-pair table: a quarter of the rule count. Measured with llama-bpe on the 4 MB texts
  // of bench/cli_vs_llama.py: the build takes ~54 ns a rule, and merging through the text
  // table costs ~48 ns a merged byte more than through the ids (CJK), so the two break
  // even near one byte a rule; a quarter of that bounds what a text that needs the ids
  // pays before it has them (~4 ms with llama-bpe) while a process that merges less (a
  // prompt; 4 MB of English prose or code merges ~60 KB, the word cache holding the
  // rest) never builds it.
  static int64_t ids_budget(size_t n_rules) noexcept { return int64_t(std::max<size_t>(n_rules / 4, 1)); }
  enum : int { ids_pending = 0, ids_building = 1, ids_settled = 2 };
  // Counts this thread's bytes merged through the text table against the budget; the
  // thread that exhausts it builds the id-pair table (the others go on through the text
  // table meanwhile) and then switches every caller to it. A vocabulary that does not
  // qualify, or a build that runs out of memory, keeps the text table: the same ids.
  void spend_ids_budget(scratch& sc) const {
    const auto spent = int64_t(sc.text_merged);
    sc.text_merged = 0;
    if (ids_state_.load(std::memory_order_relaxed) != ids_pending) return;
    if (ids_budget_.fetch_sub(spent, std::memory_order_relaxed) > spent) return;
    int expected = ids_pending;
    if (!ids_state_.compare_exchange_strong(expected, ids_building, std::memory_order_acq_rel)) return;
    auto& self = *const_cast<bpe_model*>(this);  // pairs_ is read only once by_ids_ says so
    try {
      if (self.pairs_.build(v_, v_.merges, v_.file_bytes, [](std::string_view, std::string_view) {})) {
        self.whole_.reset();
        by_ids_.store(true, std::memory_order_release);
      }
    } catch (const std::bad_alloc&) {
    }
    ids_state_.store(ids_settled, std::memory_order_release);
  }
  // merge_symbols' linear scan up to this many symbols with the id-pair table (the best of
  // 8, 12, 16, 24 and 48 on CJK text, bench_tokenize_file, the others within noise)
  static constexpr int linear_max_by_ids = 8;
  static std::string_view word_of(const scratch& sc, size_t j) {
    const size_t begin = j == 0 ? 0 : sc.ends[j - 1];
    return std::string_view(sc.words).substr(begin, sc.ends[j] - begin);
  }

  // One piece's ids (`h` = text_hash(word)).
  void emit_word(std::string_view word, uint64_t h, scratch& sc, std::vector<int32_t>& out) const {
    if (word.empty()) return;
    if (v_.ignore_merges || (gemma4_newlines_ && word.find_first_not_of('\n') == std::string::npos)) {
      const int32_t id = v_.token_to_id.find_id(word, h);
      if (id >= 0) {
        out.push_back(id);
        return;
      }
    }
    if (!split_words_) {
      merge_word(word, sc, out);
      return;
    }
    filter_.split(word, [&](size_t begin, size_t end) {
      const std::string_view part = word.substr(begin, end - begin);
      const uint64_t ph = part.size() == word.size() ? h : text_hash(part);
      if (sc.cache.find(part, ph, out)) return;
      const size_t first = out.size();
      merge_word(part, sc, out);
      sc.cache.insert(part, ph, out.data() + first, out.size() - first);
    });
  }

  const uint64_t instance_ = next_model_instance();  // tags this thread's scratch (thread_scratch.h)
  struct scratch {
    std::vector<uint32_t> cpts;
    std::vector<size_t> lengths;
    std::string words;                    // the words of one batch, back to back (and room after)
    std::array<size_t, batch> ends{};     // where each word of the batch ends in `words`
    std::array<uint64_t, batch> word_hashes{};
    std::vector<symbol> syms;
    std::vector<uint64_t> hashes;  // text_hash of each live symbol's text
    merge_scratch<int32_t> merge;
    ranked_merge_scratch ranked;
    word_cache cache;
    size_t text_merged = 0;  // bytes merged through the text table since the last spend_ids_budget
    // (thread_scratch, for another vocabulary: the other buffers hold nothing between
    // words)
    void clear() noexcept {
      cache.clear();
      text_merged = 0;
    }
  };

  // The text-keyed merge table, and with `with_filter` the pair filter beside it (built
  // afresh: a filter half-filled by a failed id-pair build is dropped).
  void build_text_table(bool with_filter) {
    filter_ = pair_filter{};
    merges_.build(v_.merges, v_.file_bytes, with_filter ? &filter_ : nullptr);
  }

  // The merge tables of the byte-level fast path: ranks by id pairs when the vocabulary
  // qualifies (bpe_pairs.h), else the text table; the pair filter either way.
  void load_or_build_by_ids() {
    const auto read = [&](table_reader& r) {
      uint8_t by_ids = 0;
      if (!r.get_value(by_ids)) return false;
      by_ids_ = by_ids != 0;
      return (by_ids_ ? pairs_.load(r, v_.tokens.size()) : merges_.load(r, v_.file_bytes)) && filter_.load(r);
    };
    const auto build = [&] {
      filter_ = pair_filter{};
      const char* const base = reinterpret_cast<const char*>(v_.file_bytes.data());
      by_ids_ = pairs_.build(v_, v_.merges, v_.file_bytes, [&](std::string_view a, std::string_view b) {
        // the 8 bytes before a's end: a's own and its length's
        filter_.add(a.data() + a.size() - base >= 8 ? last_chunk_padded(a) : last_chunk(a), first_chunk(b));
      });
      if (by_ids_) return;
      build_text_table(true);
    };
    const auto write = [&](table_writer& w) {
      w.put_value(uint8_t(by_ids_));
      if (by_ids_) pairs_.save(w);
      else merges_.save(w);
      filter_.save(w);
    };
    load_or_build(v_.cache, "bpe.pairs+filter", read, build, write);
    if (by_ids_) whole_.reset();
  }

  // merge_word through the id-pair table: one symbol per byte-alphabet character, its
  // token as its piece, or one per whole character (whole_char_table) where the bytes
  // around it allow; each final symbol is its token.
  void merge_word_ids(std::string_view word, scratch& sc, std::vector<int32_t>& out) const {
    auto& syms = sc.syms;
    syms.clear();
    const auto* const u = reinterpret_cast<const uint8_t*>(word.data());
    const size_t size = word.size();
    // the byte that the character at `off` stands for (-1: outside the alphabet), its length
    const auto byte_at = [&](size_t off, size_t& len) -> int {
      if (u[off] < 0x80) {
        len = 1;
        return byte_of_alphabet_cpt[u[off]];
      }
      len = chunk_len(word, off);
      if (len != 2) return -1;
      const uint32_t cpt = (uint32_t(u[off] & 0x1F) << 6) | (u[off + 1] & 0x3F);
      return cpt < pair_rank_table::alphabet_end ? byte_of_alphabet_cpt[cpt] : -1;
    };
    const bool whole = whole_.ready();
    int before = -1;  // the byte before `off` (-1: none)
    for (size_t off = 0; off < size;) {
      size_t len;
      const int b0 = byte_at(off, len);
      // a character of 2 or 3 bytes (4 or 6 here) that may start as its token (whole_char_table)
      if (whole && b0 >= 0xC0 && b0 < 0xF0 && (before < 0 || (before >= 0x80 && before < 0xC0))) {
        const int n = b0 >= 0xE0 ? 3 : 2;
        uint8_t raw[3] = {uint8_t(b0)};
        bool ok = off + 2 * size_t(n) <= size;
        size_t l2;
        for (int k = 1; k < n && ok; ++k) {
          const int bk = byte_at(off + 2 * size_t(k), l2);
          raw[k] = uint8_t(bk);
          ok = (bk & 0xC0) == 0x80;
        }
        int after = -1;
        if (ok && off + 2 * size_t(n) < size) ok = (after = byte_at(off + 2 * size_t(n), l2)) >= 0xC0;
        if (ok) {
          const uint32_t cpt = n == 2 ? (uint32_t(raw[0] & 0x1F) << 6 | (raw[1] & 0x3F))
                                      : (uint32_t(raw[0] & 0x0F) << 12 | uint32_t(raw[1] & 0x3F) << 6 | (raw[2] & 0x3F));
          const int32_t id = whole_.find(pairs_, cpt, raw, n, before, after);
          if (id >= 0) {
            symbol s;
            s.start = uint32_t(off);
            s.len = uint32_t(2 * n);
            s.piece = id;
            s.prev = int32_t(syms.size()) - 1;
            s.next = int32_t(syms.size()) + 1;
            syms.push_back(s);
            off += 2 * size_t(n);
            before = raw[n - 1];
            continue;
          }
        }
      }
      symbol s;
      s.start = uint32_t(off);
      s.len = uint32_t(len);
      s.piece = b0 < 0 ? -1 : pairs_.byte_id(uint8_t(b0));  // -1 outside the alphabet (not made by encode_word)
      s.prev = int32_t(syms.size()) - 1;
      s.next = int32_t(syms.size()) + 1;
      syms.push_back(s);
      off += len;
      before = b0 < 0 ? 0 : b0;  // a character outside the alphabet: a neighbour that may join
    }
    if (!syms.empty()) syms.back().next = -1;
    const auto pair_rank = [&](const symbol& l, const symbol& r, uint32_t& rank, int32_t& merged) {
      if ((l.piece | r.piece) < 0) return false;
      const pair_rank_table::hit e = pairs_.find(uint32_t(l.piece), uint32_t(r.piece));
      rank = e.rank_plus_1;
      merged = e.merged;
      return rank != 0;
    };
    if (syms.size() > size_t(linear_max_by_ids)) {
      merge_symbols_ranked(
          syms, pair_rank,
          [&](int32_t l, int32_t r) {
            if ((l | r) >= 0) pairs_.prefetch(uint32_t(l), uint32_t(r));
          },
          sc.ranked);
    } else {
      merge_symbols<int32_t>(
          syms,
          [&](const symbol& l, const symbol& r, pair_candidate<int32_t>& pc) {
            uint32_t rank;
            if (!pair_rank(l, r, rank, pc.merged)) return false;
            pc.key = int32_t(rank);
            return true;
          },
          sc.merge, linear_max_by_ids);
    }
    for (int32_t i = 0; i >= 0; i = syms[i].next) {
      const symbol& s = syms[i];
      if (s.piece >= 0) {
        out.push_back(s.piece);
        continue;
      }
      byte_fallback_.append(word.substr(s.start, s.len), out);
    }
  }

  // llama.cpp's llm_tokenizer_bpe_session::tokenize for one word: one symbol per chunk
  // (a byte-alphabet character, or a code point), merged by lowest rank; each final
  // symbol is its token, or its bytes' tokens.
  void merge_word(std::string_view word, scratch& sc, std::vector<int32_t>& out) const {
    if (by_ids_.load(std::memory_order_acquire)) {
      merge_word_ids(word, sc, out);
      return;
    }
    sc.text_merged += word.size();
    auto& syms = sc.syms;
    auto& hashes = sc.hashes;
    syms.clear();
    hashes.clear();
    for (size_t off = 0; off < word.size();) {
      const size_t len = chunk_len(word, off);
      symbol s;
      s.start = uint32_t(off);
      s.len = uint32_t(len);
      s.prev = int32_t(syms.size()) - 1;
      s.next = off + len == word.size() ? -1 : int32_t(syms.size()) + 1;
      syms.push_back(s);
      hashes.push_back(text_hash(word.substr(off, len)));
      off += len;
    }
    // a merged symbol gets piece = stale; its hash is recomputed when next needed
    constexpr int32_t stale = -2;
    const auto hash_of = [&](size_t i) {
      if (syms[i].piece == stale) {
        hashes[i] = text_hash(word.substr(syms[i].start, syms[i].len));
        syms[i].piece = -1;
      }
      return hashes[i];
    };
    merge_symbols<int32_t>(
        syms,
        [&](const symbol& l, const symbol& r, pair_candidate<int32_t>& pc) {
          const size_t li = size_t(&l - syms.data()), ri = size_t(&r - syms.data());
          const int32_t rank = merges_.find(word.substr(l.start, l.len), word.substr(r.start, r.len), hash_of(li), hash_of(ri));
          if (rank < 0) return false;
          pc.key = rank;
          pc.merged = stale;
          return true;
        },
        sc.merge);
    for (int32_t i = 0; i >= 0; i = syms[i].next) {
      const symbol& s = syms[i];
      const int32_t id = v_.find(word.substr(s.start, s.len));
      if (id >= 0) {
        out.push_back(id);
        continue;
      }
      byte_fallback_.append(word.substr(s.start, s.len), out);
    }
  }

  // Writes the piece's text at `out` (room for 8 bytes a code point, and 1 more): UTF-8
  // re-encoded, byte-alphabet mapped if the preset says so. Returns its end.
  char* encode_word(std::span<const uint32_t> cpts, char* out) const {
    for (uint32_t c : cpts) {
      char u[4] = {};
      const size_t n = utf8_encode(c, u);
      if (!byte_encode_) {
        std::memcpy(out, u, 4);  // the bytes after the n written are overwritten next
        out += n;
        continue;
      }
      for (size_t k = 0; k < n; ++k) {
        const alphabet_char& a = alphabet_[uint8_t(u[k])];
        std::memcpy(out, a.bytes, 2);
        out += a.len;
      }
    }
    return out;
  }
  // byte_to_utf8 of each byte (1 or 2 bytes), for encode_word's fixed-size stores
  using alphabet_char = byte_alphabet_utf8;
  static constexpr const std::array<alphabet_char, 256>& alphabet_ = byte_alphabet_chars;

  const vocab_data& v_;
  pre_tokenizer pre_;
  bool split_words_;
  pair_filter filter_{pair_filter::deferred};  // (last chunk of the left side, first chunk of the right side) of every rule
  merge_table merges_;       // the text table (without by_ids_, and a lazy model's first)
  pair_rank_table pairs_;    // the id-pair table (with by_ids_)
  whole_char_table whole_;   // with by_ids_: the characters a word may take whole
  mutable std::atomic<bool> by_ids_{false};
  mutable std::atomic<int> ids_state_{ids_settled};  // a lazy model's id-pair table: pending, building, settled
  mutable std::atomic<int64_t> ids_budget_{0};      // bytes still merged through the text table before it
  bool byte_encode_ = true, gemma4_newlines_ = false;
  byte_fallback byte_fallback_;
};

}  // namespace

std::unique_ptr<tokenizer_model> make_bpe(const vocab_data& v, bool split_words, bool lazy) {
  return std::make_unique<bpe_model>(v, split_words, lazy);
}

bool bpe_merges_by_ids(const tokenizer_model& m) noexcept {
  const auto* b = dynamic_cast<const bpe_model*>(&m);
  return b && b->merges_by_ids();
}

size_t bpe_whole_chars(const tokenizer_model& m) noexcept {
  const auto* b = dynamic_cast<const bpe_model*>(&m);
  return b ? b->whole_chars() : 0;
}

}  // namespace gguf::vocab_detail
