// WPM (WordPiece, bert) tokenizer model: BERT-style pre-tokenization, then greedy
// longest-match word pieces.
//
// Follows llama.cpp's llm_tokenizer_wpm_session (src/llama-vocab.cpp):
//  - the normalizer (BERT's clean-up, as Hugging Face's BertNormalizer; word boundaries
//    become single spaces), per code point (invalid UTF-8 bytes decode to U+FFFD): with strip_accents, replace
//    it by llama.cpp's "NFD" (first code point of its decomposition, unicode.h);
//    White_Space ends the current word; NUL, U+FFFD and \p{C} are dropped; with
//    strip_accents \p{M} is dropped; \p{P}, ASCII \p{S} and CJK ideographs become
//    one-character words; everything else is appended to the word, lowercased (simple
//    mapping) when `lowercase` is set.
//  - each word, prefixed with U+2581 (llama.cpp's GGUF bert vocabularies store
//    word-initial pieces with it and continuation pieces without "##"), is cut greedily
//    into the longest tokens from the left; if some position matches no token, the whole
//    word becomes the unknown token.
#include <array>
#include <atomic>
#include <mutex>

#include "vocab/models/tokenizer_model.h"
#include "vocab/models/ugm_trie.h"
#include "vocab/unicode/unicode.h"

namespace gguf::vocab_detail {

namespace {

constexpr std::string_view word_prefix = "\xE2\x96\x81";  // U+2581

// CJK ideograph blocks as llama.cpp's is_chinese_char (the 0x2B920 start, not 0x2B820,
// follows the HF tokenizers code it copies).
bool is_chinese_char(uint32_t c) noexcept {
  return (c >= 0x04E00 && c <= 0x09FFF) || (c >= 0x03400 && c <= 0x04DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
         (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
         (c >= 0x0F900 && c <= 0x0FAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

enum class cpt_class : uint8_t { append, drop, space, single };

class wpm_model final : public tokenizer_model {
 public:
  // lazy: the tables are built when a call first needs them instead (never with the
  // compiled cache, whose tables are mapped or saved now); `v` must then outlive the model,
  // as the loader's does. The ASCII code point tables come with the model, the two-byte
  // ones with the first text that has such a code point (lazy or not); the trie (~2 ms
  // for 30k tokens) only once more than `map_bytes` of text has been tokenized: until
  // then each piece is the longest of the text's prefixes that the token map knows (the
  // same greedy longest match, one hash lookup per candidate length), so a process that
  // tokenizes a few words does not build it.
  wpm_model(const vocab_data& v, bool lazy, size_t map_bytes)
      : unk_(v.unk), lowercase_(v.lowercase), strip_accents_(v.strip_accents) {
    build_ascii_tables();
    if (lazy && !v.cache) {
      data_ = &v;
      max_len_ = v.max_token_len;  // the loader's; else (a hand-made vocab_data) counted here
      if (max_len_ == 0)
        for (const auto& t : v.tokens) max_len_ = std::max<size_t>(max_len_, t.text.size());
      map_budget_.store(int64_t(std::min<size_t>(map_bytes, INT64_MAX / 2)), std::memory_order_relaxed);
      return;
    }
    build_trie(v.tokens, v.cache);
    std::call_once(trie_built_, [] {});
    trie_ready_.store(true, std::memory_order_release);
  }

  // Normalizer: the words of the fragment, normalized, each followed by one ' ' (no
  // normalized code point is a space, so ' ' marks exactly the word ends).
  std::string_view normalize(std::string_view text, bool, std::string& buf) const override {
    bool two_byte_ready = false;  // this call has made sure of the two-byte tables
    buf.clear();
    buf.reserve(text.size() + 8);
    std::string& word = buf;
    size_t word_start = 0;
    auto flush = [&] {
      if (word.size() > word_start) word.push_back(' ');
      word_start = word.size();
    };
    for (size_t pos = 0; pos < text.size();) {
      const auto b = static_cast<uint8_t>(text[pos]);
      cpt_class k;
      uint32_t mapped;
      if (b < 0x80) {
        k = ascii_class_[b];
        ++pos;
        if (k == cpt_class::append) {  // the common case, a letter or digit: one byte out
          word.push_back(ascii_out_[b]);
          continue;
        }
        mapped = static_cast<uint8_t>(ascii_out_[b]);
      } else {
        uint32_t cpt;
        pos += utf8_decode_lenient(text, pos, cpt);
        if (cpt >= 0x80 && cpt < 0x800) {  // two-byte code points: precomputed (an overlong
                                           // sequence can decode below 0x80: classify it)
          if (!two_byte_ready) {
            ensure_two_byte_tables();
            two_byte_ready = true;
          }
          k = two_byte_class_[cpt - 0x80];
          mapped = two_byte_out_[cpt - 0x80];
        } else if (cpt >= 0x4E00 && cpt <= 0x9FFF) {
          // CJK Unified Ideographs: no decomposition, no case, each a word of its own
          k = cpt_class::single;
          mapped = cpt;
        } else {
          k = classify(cpt, mapped);
        }
      }
      char u[4];
      switch (k) {
        case cpt_class::append:
          word.append(u, utf8_encode(mapped, u));
          break;
        case cpt_class::drop:
          break;
        case cpt_class::space:
          flush();
          break;
        case cpt_class::single:
          flush();
          word.append(u, utf8_encode(mapped, u));
          flush();
          break;
      }
    }
    flush();
    return buf;
  }

  // Model: every space-terminated word of the normalized text, cut into word pieces.
  void tokenize(std::string_view normalized, std::vector<int32_t>& out) const override {
    const bool by_map = !trie_ready_.load(std::memory_order_acquire) &&
                        map_budget_.fetch_sub(int64_t(normalized.size()), std::memory_order_relaxed) >=
                            int64_t(normalized.size());
    if (!by_map) ensure_trie();
    std::string joined;
    for (size_t pos = 0; pos < normalized.size();) {
      size_t end = normalized.find(' ', pos);
      if (end == std::string_view::npos) end = normalized.size();
      if (end > pos) {
        if (by_map) {
          joined.assign(word_prefix);
          joined.append(normalized.substr(pos, end - pos));
          emit_joined(joined, out, [this](std::string_view w, size_t at) { return map_longest_match(w, at); });
        } else {
          emit_word(normalized.substr(pos, end - pos), out);
        }
      }
      pos = end + 1;
    }
  }

 private:
  // The trie (from the compiled cache when it has it).
  void build_trie(const token_table& tokens, table_cache* cache) {
    // The text -> id map llama.cpp builds (a later id wins; a loaded vocabulary has no
    // duplicate texts).
    load_or_build(
        cache, "wpm.trie", [&](table_reader& r) { return trie_.load(r); },
        [&] {
          trie_ = byte_trie(tokens.size(), [&](size_t id) {
            return byte_trie::entry{tokens.text(id), static_cast<int32_t>(id)};
          });
        },
        [&](table_writer& w) { trie_.save(w); });
    // The walk of the U+2581 prefix every word starts with, done once.
    for (size_t k = 0; k < word_prefix.size() && prefix_node_ != byte_trie::npos; ++k) {
      prefix_node_ = trie_.child(prefix_node_, static_cast<uint8_t>(word_prefix[k]));
      if (prefix_node_ != byte_trie::npos && trie_.value(prefix_node_) >= 0)
        prefix_best_ = {k + 1, trie_.value(prefix_node_)};
    }
  }
  // What each code point below U+0080 becomes (built with the model: 128 code points,
  // without the whole flag table).
  void build_ascii_tables() {
    for (uint32_t c = 0; c < 128; ++c) {
      uint32_t out = c;
      ascii_class_[c] = classify(c, out);
      ascii_out_[c] = static_cast<char>(out);
    }
  }
  // What each code point U+0080..U+07FF becomes: built once, by the first normalize call
  // that meets one (thread-safe; a text of ASCII alone never pays for it, nor for the
  // flag table it needs).
  void ensure_two_byte_tables() const {
    std::call_once(codes_built_, [this] {
      auto& self = *const_cast<wpm_model*>(this);
      for (uint32_t c = 0x80; c < 0x800; ++c) {
        uint32_t out = c;
        self.two_byte_class_[c - 0x80] = classify(c, out);
        self.two_byte_out_[c - 0x80] = static_cast<uint16_t>(out);
      }
    });
  }
  void ensure_trie() const {
    std::call_once(trie_built_, [this] {
      const_cast<wpm_model*>(this)->build_trie(data_->tokens, nullptr);
      trie_ready_.store(true, std::memory_order_release);
    });
  }

  // The longest token that is a prefix of text[pos..], through the token map: {length, id},
  // or {0, -1} (byte_trie::longest_match's answer; the loaded vocabulary has no duplicate
  // or empty texts, so the map holds exactly the trie's keys).
  std::pair<size_t, int32_t> map_longest_match(std::string_view text, size_t pos) const {
    for (size_t len = std::min<size_t>(max_len_, text.size() - pos); len > 0; --len)
      if (const int32_t id = data_->find(text.substr(pos, len)); id >= 0) return {len, id};
    return {0, -1};
  }

  // What the preprocessor does with one input code point; `out` receives the code
  // point to emit (after NFD and lowercasing).
  cpt_class classify(uint32_t cpt, uint32_t& out) const noexcept {
    if (strip_accents_) cpt = to_nfd(cpt);
    const cpt_flags f = cpt < 0x80 ? cpt_flags{ascii_flags_table()[cpt]} : flags_of(cpt);
    if (f.is_whitespace()) return cpt_class::space;
    if (cpt == 0 || cpt == 0xFFFD || f.is_control()) return cpt_class::drop;
    if (strip_accents_ && f.is_accent_mark()) return cpt_class::drop;
    // Beyond U+10FFFF llama.cpp fails to encode the code point (and throws); we drop it.
    if (cpt > 0x10FFFF) return cpt_class::drop;
    out = lowercase_ ? to_lower(cpt) : cpt;
    if (f.is_punctuation() || (cpt < 0x7F && f.is_symbol()) || is_chinese_char(cpt))
      return cpt_class::single;
    return cpt_class::append;
  }

  // Greedy longest-match of one word, prefixed with U+2581. The first piece continues the
  // prefix's walk (prefix_node_) over the word itself, without building "\u2581word".
  void emit_word(std::string_view word, std::vector<int32_t>& out) const {
    const size_t plen = word_prefix.size();
    auto [len, id] = prefix_best_;
    if (prefix_node_ != byte_trie::npos) {
      uint32_t node = prefix_node_;
      for (size_t i = 0; i < word.size(); ++i) {
        node = trie_.child(node, static_cast<uint8_t>(word[i]));
        if (node == byte_trie::npos) break;
        if (trie_.value(node) >= 0) len = plen + i + 1, id = trie_.value(node);
      }
    }
    if (len == 0) {
      out.push_back(unk_);
      return;
    }
    if (len < plen) {  // a token that is part of the prefix's bytes: walk the joined text
      std::string joined(word_prefix);
      joined.append(word);
      emit_joined(joined, out);
      return;
    }
    const size_t first = out.size();
    out.push_back(id);
    for (size_t pos = len - plen; pos < word.size();) {
      const auto [n, piece] = trie_.longest_match(word, pos);
      if (n == 0) {
        out.resize(first);
        out.push_back(unk_);
        return;
      }
      out.push_back(piece);
      pos += n;
    }
  }

  // Greedy longest-match of a whole U+2581-prefixed word (emit_word's answer).
  void emit_joined(std::string_view word, std::vector<int32_t>& out) const {
    emit_joined(word, out, [this](std::string_view w, size_t at) { return trie_.longest_match(w, at); });
  }
  template <class LongestMatch>
  void emit_joined(std::string_view word, std::vector<int32_t>& out, LongestMatch&& longest_match) const {
    const size_t first = out.size();
    for (size_t pos = 0; pos < word.size();) {
      const auto [len, id] = longest_match(word, pos);
      if (len == 0) {
        out.resize(first);
        break;
      }
      out.push_back(id);
      pos += len;
    }
    if (out.size() == first) out.push_back(unk_);
  }

  const vocab_data* data_ = nullptr;  // a lazy model's vocabulary: texts and token map
  size_t max_len_ = 0;                // its longest token text in bytes
  mutable std::once_flag trie_built_, codes_built_;
  mutable std::atomic<bool> trie_ready_{false};
  mutable std::atomic<int64_t> map_budget_{0};  // bytes still tokenized through the map
  byte_trie trie_;
  uint32_t prefix_node_ = 0;                // node after U+2581, or npos
  std::pair<size_t, int32_t> prefix_best_{0, -1};  // longest token within U+2581's bytes: {length, id}
  int32_t unk_;
  bool lowercase_, strip_accents_;
  std::array<cpt_class, 128> ascii_class_{};
  std::array<char, 128> ascii_out_{};
  std::array<cpt_class, 0x780> two_byte_class_{};  // U+0080..U+07FF
  std::array<uint16_t, 0x780> two_byte_out_{};
};

}  // namespace

std::unique_ptr<tokenizer_model> make_wpm(const vocab_data& v, bool lazy, size_t map_bytes) {
  return std::make_unique<wpm_model>(v, lazy, map_bytes);
}

}  // namespace gguf::vocab_detail
