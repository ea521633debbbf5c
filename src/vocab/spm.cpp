// SPM model: llama.cpp's llm_tokenizer_spm. The text (spaces already escaped to U+2581
// by the session) is split into UTF-8 characters; adjacent symbols whose concatenation
// is a token merge, highest token score first; a final symbol that is not a token is
// emitted as byte tokens (<0xXX>, or the single-byte token).
//
// llama.cpp runs the whole fragment through one priority queue. Two facts let us cut
// the fragment into words and merge each word on its own, with identical ids:
//  1. Every merge produces a token, and a token made of symbols that straddle the
//     boundary between characters A and B contains the character pair "AB" (the token's
//     own UTF-8 chunking matches the text's, both starting at a symbol boundary). So
//     where no token text contains the pair AB, no merge ever crosses, and the merges
//     on either side never compete for a symbol: the global queue's order between
//     the two sides changes nothing.
//  2. The ids of a word depend only on its bytes, so equal words are merged once per
//     call and their ids copied (a per-call cache).
// The pair test is a bitmap indexed by a hash of (A, B) built from every token at load:
// a collision only keeps two words together, which is always correct.
#include <array>
#include <cstring>
#include <string>

#include "vocab/merge_queue.h"
#include "vocab/model.h"
#include "vocab/unicode.h"

namespace gguf::vocab_detail {
namespace {

// Up to four bytes of one UTF-8 chunk, zero padded (distinct chunks may collide; see above).
inline uint32_t chunk_bits(const char* p, size_t n) noexcept {
  uint32_t w = 0;
  std::memcpy(&w, p, n);
  return w;
}

class pair_filter {
 public:
  static constexpr unsigned bits = 21;
  pair_filter() : words_(size_t(1) << (bits - 6), 0) {}
  void add(uint32_t a, uint32_t b) noexcept {
    const uint64_t h = index(a, b);
    words_[h >> 6] |= uint64_t(1) << (h & 63);
  }
  /// False only if no token contains the chunk pair (a, b).
  bool may_join(uint32_t a, uint32_t b) const noexcept {
    const uint64_t h = index(a, b);
    return (words_[h >> 6] >> (h & 63)) & 1;
  }

 private:
  static uint64_t index(uint32_t a, uint32_t b) noexcept {
    const uint64_t k = (uint64_t(a) << 32) | b;
    return (k * 0x9E3779B97F4A7C15ull) >> (64 - bits);
  }
  std::vector<uint64_t> words_;
};

// Per-call cache: word bytes -> the ids it produced.
class word_cache {
 public:
  static constexpr uint32_t max_slots = 1u << 17;
  static constexpr size_t max_word = 64;  // longer words are rare; merge them each time

  /// Appends the cached ids of `w` and returns true, or returns false.
  bool find(std::string_view w, uint64_t h, std::vector<int32_t>& out) const {
    if (slots_.empty()) return false;
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      const slot& s = slots_[i];
      if (s.len == 0) return false;
      if (s.hash == h && s.len == w.size() && std::memcmp(base_ + s.off, w.data(), w.size()) == 0) {
        out.insert(out.end(), ids_.begin() + s.ids_off, ids_.begin() + s.ids_off + s.ids_n);
        return true;
      }
    }
  }
  void insert(std::string_view w, uint64_t h, const int32_t* ids, size_t n) {
    if ((used_ + 1) * 2 > slots_.size()) {
      if (slots_.size() >= max_slots) return;
      grow();
    }
    size_t i = h & mask_;
    while (slots_[i].len) i = (i + 1) & mask_;
    slots_[i] = {h, uint32_t(w.data() - base_), uint32_t(w.size()), uint32_t(ids_.size()), uint32_t(n)};
    ids_.insert(ids_.end(), ids, ids + n);
    ++used_;
  }
  void reset(const char* base) { base_ = base; }

 private:
  struct slot {
    uint64_t hash = 0;
    uint32_t off = 0, len = 0;  // len 0 = empty (words are never empty)
    uint32_t ids_off = 0, ids_n = 0;
  };
  void grow() {
    std::vector<slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 256 : old.size() * 2, slot{});
    mask_ = slots_.size() - 1;
    for (const slot& s : old) {
      if (!s.len) continue;
      size_t i = s.hash & mask_;
      while (slots_[i].len) i = (i + 1) & mask_;
      slots_[i] = s;
    }
  }
  const char* base_ = nullptr;
  std::vector<slot> slots_;
  std::vector<int32_t> ids_;
  size_t mask_ = 0, used_ = 0;
};

class spm_model final : public tokenizer_model {
 public:
  spm_model(const vocab_data& v, bool split_words) : v_(v), split_words_(split_words) {
    static constexpr char hex[] = "0123456789ABCDEF";
    for (int b = 0; b < 256; ++b) {
      const char buf[6] = {'<', '0', 'x', hex[b >> 4], hex[b & 15], '>'};
      int32_t id = v.find(std::string_view(buf, 6));
      if (id < 0) {
        const char c = char(b);
        id = v.find(std::string_view(&c, 1));
      }
      byte_token_[b] = id < 0 ? v.unk : id;  // llama.cpp would throw here; unk keeps the input visible
    }
    if (split_words_) {
      for (const token_data& t : v.tokens) {
        const std::string_view s = t.text;
        size_t off = 0, prev = 0, prev_len = 0;
        while (off < s.size()) {
          const size_t len = std::min(utf8_len(s[off]), s.size() - off);
          if (off > 0) filter_.add(chunk_bits(s.data() + prev, prev_len), chunk_bits(s.data() + off, len));
          prev = off, prev_len = len;
          off += len;
        }
      }
    }
  }

  void tokenize(std::string_view text, std::vector<int32_t>& out) const override {
    scratch sc;
    if (!split_words_) {
      merge_word(text, 0, text.size(), sc, out);
      return;
    }
    sc.cache.reset(text.data());
    size_t word = 0, prev = 0, prev_len = 0;
    for (size_t off = 0; off < text.size();) {
      const size_t len = std::min(utf8_len(text[off]), text.size() - off);
      if (off > 0 && !filter_.may_join(chunk_bits(text.data() + prev, prev_len), chunk_bits(text.data() + off, len))) {
        cached_word(text, word, off, sc, out);
        word = off;
      }
      prev = off, prev_len = len;
      off += len;
    }
    if (word < text.size()) cached_word(text, word, text.size(), sc, out);
  }

 private:
  struct scratch {
    std::vector<symbol> syms;
    merge_scratch<float> merge;
    word_cache cache;
  };

  void cached_word(std::string_view text, size_t begin, size_t end, scratch& sc, std::vector<int32_t>& out) const {
    const std::string_view w = text.substr(begin, end - begin);
    if (w.size() > word_cache::max_word) return merge_word(text, begin, end, sc, out);
    const uint64_t h = text_hash(w);
    if (sc.cache.find(w, h, out)) return;
    const size_t first = out.size();
    merge_word(text, begin, end, sc, out);
    sc.cache.insert(w, h, out.data() + first, out.size() - first);
  }

  // llama.cpp's tokenize + resegment over text[begin, end).
  void merge_word(std::string_view text, size_t begin, size_t end, scratch& sc, std::vector<int32_t>& out) const {
    auto& syms = sc.syms;
    syms.clear();
    for (size_t off = begin; off < end;) {
      const size_t len = std::min(utf8_len(text[off]), end - off);
      symbol s;
      s.start = uint32_t(off);
      s.len = uint32_t(len);
      s.prev = int32_t(syms.size()) - 1;
      s.next = off + len == end ? -1 : int32_t(syms.size()) + 1;
      syms.push_back(s);
      off += len;
    }
    const uint32_t n_tokens = uint32_t(v_.tokens.size());
    merge_symbols<float>(
        syms,
        [&](const symbol& l, const symbol& r, pair_candidate<float>& pc) {
          const int32_t id = v_.find(text.substr(l.start, l.len + r.len));
          if (id < 0 || uint32_t(id) >= n_tokens) return false;
          pc.key = -v_.tokens[id].score;
          pc.merged = id;
          return true;
        },
        sc.merge);
    for (int32_t i = syms.empty() ? -1 : 0; i >= 0; i = syms[i].next) {
      const symbol& s = syms[i];
      // a merged symbol is the token found for its text; a single character may be one
      const int32_t id = s.piece >= 0 ? s.piece : v_.find(text.substr(s.start, s.len));
      if (id >= 0) {
        out.push_back(id);
        continue;
      }
      for (uint32_t j = 0; j < s.len; ++j) {
        const int32_t b = byte_token_[uint8_t(text[s.start + j])];
        if (b >= 0) out.push_back(b);
      }
    }
  }

  const vocab_data& v_;
  bool split_words_;
  pair_filter filter_;
  std::array<int32_t, 256> byte_token_{};
};

}  // namespace

std::unique_ptr<tokenizer_model> make_spm(const vocab_data& v, bool split_words) {
  return std::make_unique<spm_model>(v, split_words);
}

}  // namespace gguf::vocab_detail
