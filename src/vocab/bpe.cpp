// BPE model: llama.cpp's llm_tokenizer_bpe. The pre-tokenizer splits the text into
// pieces; each piece (mapped through the GPT-2 byte alphabet unless the preset works on
// raw UTF-8) starts as one symbol per byte (per character without the byte alphabet) and
// adjacent symbols merge by lowest merge rank. A symbol that is not a token is emitted
// byte by byte (tokens of single bytes, or <0xXX> without the byte alphabet).
//
// Merges are looked up by piece ids instead of strings: every token text, and every
// other string a merge rule mentions, gets an id, and (left, right) id pairs map to
// (rank, merged id) in an open-addressing table. Equal strings have equal ids, so this
// decides exactly as llama.cpp's string-keyed bpe_ranks.
#include <array>
#include <limits>
#include <string>
#include <deque>

#include "vocab/merge_queue.h"
#include "vocab/model.h"
#include "vocab/pre_tokenizer.h"
#include "vocab/unicode.h"

namespace gguf::vocab_detail {
namespace {

class pair_table {
 public:
  void reserve(size_t n) {
    size_t cap = 16;
    while (cap * 2 < n * 3) cap <<= 1;  // load factor <= 2/3
    slots_.assign(cap, entry{});
    mask_ = cap - 1;
  }
  /// Inserts unless present (the first, lowest rank wins, as std::unordered_map::emplace).
  void insert(int32_t l, int32_t r, int32_t rank, int32_t merged) {
    const uint64_t k = key(l, r);
    for (size_t i = hash(k);; i = (i + 1) & mask_) {
      if (slots_[i].k == empty) {
        slots_[i] = {k, rank, merged};
        return;
      }
      if (slots_[i].k == k) return;
    }
  }
  const auto* find(int32_t l, int32_t r) const {
    const uint64_t k = key(l, r);
    for (size_t i = hash(k);; i = (i + 1) & mask_) {
      if (slots_[i].k == k) return &slots_[i];
      if (slots_[i].k == empty) return static_cast<const entry*>(nullptr);
    }
  }

 private:
  static constexpr uint64_t empty = ~uint64_t{0};
  struct entry {
    uint64_t k = empty;
    int32_t rank = 0, merged = 0;
  };
  static uint64_t key(int32_t l, int32_t r) { return (uint64_t(uint32_t(l)) << 32) | uint32_t(r); }
  size_t hash(uint64_t k) const { return size_t((k * 0x9E3779B97F4A7C15ull) >> 29) & mask_; }
  std::vector<entry> slots_;
  size_t mask_ = 0;
};

class bpe_model final : public tokenizer_model {
 public:
  explicit bpe_model(const vocab_data& v)
      : v_(v), pre_(v.preset ? *v.preset : default_preset()), n_tokens_(int32_t(v.tokens.size())) {
    byte_encode_ = pre_.preset().byte_encode;
    gemma4_newlines_ = pre_.preset().id == "gemma4";
    pairs_.reserve(v.merges.size());
    std::string buf;
    for (size_t i = 0; i < v.merges.size(); ++i) {
      const auto& [a, b] = v.merges[i];
      buf.assign(a);
      buf.append(b);
      pairs_.insert(piece_id(a), piece_id(b), int32_t(i), piece_id(buf));
    }
    static constexpr char hex[] = "0123456789ABCDEF";
    for (int c = 0; c < 256; ++c) {
      byte_piece_[c] = lookup(byte_to_utf8(uint8_t(c)));
      if (byte_encode_) {
        const char ch = char(c);
        byte_fallback_[c] = v.find(std::string_view(&ch, 1));
      } else {
        const char h[6] = {'<', '0', 'x', hex[c >> 4], hex[c & 15], '>'};
        byte_fallback_[c] = v.find(std::string_view(h, 6));
      }
    }
  }

  void tokenize(std::string_view text, std::vector<int32_t>& out) const override {
    std::vector<uint32_t> cpts;
    utf8_to_cpts(text, cpts);
    std::vector<size_t> lengths;
    pre_.split(cpts, lengths);
    std::string word;
    std::vector<symbol> syms;
    size_t start = 0;
    for (size_t len : lengths) {
      encode_word(std::span(cpts).subspan(start, len), word, syms);
      start += len;
      if (word.empty()) continue;
      if (v_.ignore_merges || (gemma4_newlines_ && word.find_first_not_of('\n') == std::string::npos)) {
        const int32_t id = v_.find(word);
        if (id >= 0) {
          out.push_back(id);
          continue;
        }
      }
      merge_symbols<int32_t>(syms, [&](const symbol& l, const symbol& r, pair_candidate<int32_t>& pc) {
        if (l.piece < 0 || r.piece < 0) return false;
        const auto* e = pairs_.find(l.piece, r.piece);
        if (!e) return false;
        pc.key = e->rank;
        pc.merged = e->merged;
        return true;
      });
      for (int32_t i = 0; i >= 0; i = syms[i].next) {
        const symbol& s = syms[i];
        if (s.piece >= 0 && s.piece < n_tokens_) {
          out.push_back(s.piece);
          continue;
        }
        for (uint32_t j = 0; j < s.len; ++j) {
          const int32_t id = byte_fallback_[uint8_t(word[s.start + j])];
          if (id >= 0) out.push_back(id);
        }
      }
    }
  }

 private:
  // The piece's text (UTF-8 re-encoded, byte-alphabet mapped if the preset says so) and
  // its initial symbols.
  void encode_word(std::span<const uint32_t> cpts, std::string& word, std::vector<symbol>& syms) const {
    word.clear();
    syms.clear();
    char u[8];
    for (uint32_t c : cpts) {
      std::string tmp;
      size_t n;
      if (c < 0x80) {
        u[0] = char(c);
        n = 1;
      } else {
        append_utf8(tmp, c);
        n = tmp.size();
        std::copy(tmp.begin(), tmp.end(), u);
      }
      if (byte_encode_) {
        for (size_t k = 0; k < n; ++k) {
          const uint8_t b = uint8_t(u[k]);
          const std::string_view e = byte_to_utf8(b);
          add_symbol(syms, word.size(), e.size(), byte_piece_[b]);
          word.append(e);
        }
      } else {
        const std::string_view ch(u, n);
        add_symbol(syms, word.size(), n, lookup(ch));
        word.append(ch);
      }
    }
    if (!syms.empty()) syms.back().next = -1;
  }

  static void add_symbol(std::vector<symbol>& syms, size_t start, size_t len, int32_t piece) {
    symbol s;
    s.start = uint32_t(start);
    s.len = uint32_t(len);
    s.piece = piece;
    s.prev = int32_t(syms.size()) - 1;
    s.next = int32_t(syms.size()) + 1;
    syms.push_back(s);
  }

  int32_t lookup(std::string_view s) const {
    const int32_t id = v_.find(s);
    return id >= 0 ? id : extra_.find_id(s);
  }
  int32_t piece_id(std::string_view s) {
    const int32_t id = lookup(s);
    if (id >= 0) return id;
    const int32_t nid = n_tokens_ + int32_t(extra_.size());
    extra_text_.emplace_back(s);
    extra_.emplace(extra_text_.back(), nid);
    return nid;
  }

  const vocab_data& v_;
  pre_tokenizer pre_;
  int32_t n_tokens_;
  bool byte_encode_ = true, gemma4_newlines_ = false;
  pair_table pairs_;
  std::deque<std::string> extra_text_;  // strings of merge rules that are not tokens (stable storage)
  token_map extra_;                      // ... and their piece ids
  std::array<int32_t, 256> byte_piece_{};
  std::array<int32_t, 256> byte_fallback_{};
};

}  // namespace

std::unique_ptr<tokenizer_model> make_bpe(const vocab_data& v) { return std::make_unique<bpe_model>(v); }

}  // namespace gguf::vocab_detail
