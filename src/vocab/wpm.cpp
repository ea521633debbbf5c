// WPM (WordPiece, bert) tokenizer model: BERT-style pre-tokenization, then greedy
// longest-match word pieces.
//
// Follows llama.cpp's llm_tokenizer_wpm_session (src/llama-vocab.cpp):
//  - the normalizer (BERT's clean-up, as Hugging Face's BertNormalizer; its output is
//    the words, each as U+2581 + word + ' '), per code point (invalid UTF-8 bytes decode to U+FFFD): with strip_accents, replace
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
#include <cstring>

#include "vocab/tokenizer_model.h"
#include "vocab/ugm_trie.h"
#include "vocab/unicode.h"

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
  explicit wpm_model(const vocab_data& v) : unk_(v.unk), lowercase_(v.lowercase), strip_accents_(v.strip_accents) {
    std::vector<byte_trie::entry> entries;
    if (!v.token_to_id.empty()) {
      entries.reserve(v.token_to_id.size());
      for (const auto& [text, id] : v.token_to_id) entries.push_back({text, id});
    } else {  // no map given: the text -> id map llama.cpp builds (a later id wins)
      entries.reserve(v.tokens.size());
      for (size_t id = 0; id < v.tokens.size(); ++id) entries.push_back({v.tokens[id].text, static_cast<int32_t>(id)});
    }
    trie_ = byte_trie(std::move(entries));
    for (uint32_t c = 0; c < 128; ++c) {
      uint32_t out = c;
      ascii_class_[c] = classify(c, out);
      ascii_out_[c] = static_cast<char>(out);
    }
  }

  // Normalizer: the normalized words of the fragment, each as U+2581 + word + ' ' (no
  // normalized code point is a space, so ' ' marks exactly the word ends).
  std::string_view normalize(std::string_view text, bool, std::string& buf) const override {
    // Each input byte yields at most 5 output bytes (an ASCII one-character word:
    // U+2581, the byte, ' '; a 2-byte code point at most U+2581, 4 bytes, ' ').
    // buf keeps its size between calls (only the returned view is the output), so it is
    // zero-filled only when it grows.
    if (buf.size() < text.size() * 5 + 8) buf.resize(text.size() * 5 + 8);
    char* const base = buf.data();
    char* o = base;
    bool in_word = false;
    const auto start = [&] {
      if (!in_word) {
        std::memcpy(o, word_prefix.data(), word_prefix.size());
        o += word_prefix.size();
        in_word = true;
      }
    };
    const auto flush = [&] {
      if (in_word) *o++ = ' ';
      in_word = false;
    };
    const auto put = [&](uint32_t c) {
      if (c < 0x80) {
        *o++ = static_cast<char>(c);
      } else {
        char u[4];
        const size_t n = utf8_encode(c, u);
        std::memcpy(o, u, n);
        o += n;
      }
    };
    for (size_t pos = 0; pos < text.size();) {
      const auto b = static_cast<uint8_t>(text[pos]);
      cpt_class k;
      uint32_t mapped;
      if (b < 0x80) {
        k = ascii_class_[b];
        mapped = static_cast<uint8_t>(ascii_out_[b]);
        ++pos;
      } else {
        uint32_t cpt;
        pos += utf8_decode_lenient(text, pos, cpt);
        k = classify(cpt, mapped);
      }
      switch (k) {
        case cpt_class::append:
          start();
          put(mapped);
          break;
        case cpt_class::drop:
          break;
        case cpt_class::space:
          flush();
          break;
        case cpt_class::single:
          flush();
          start();
          put(mapped);
          flush();
          break;
      }
    }
    flush();
    return std::string_view(base, static_cast<size_t>(o - base));
  }

  // Model: every space-terminated word of the normalized text, cut into word pieces.
  void tokenize(std::string_view normalized, std::vector<int32_t>& out) const override {
    for (size_t pos = 0; pos < normalized.size();) {
      size_t end = normalized.find(' ', pos);
      if (end == std::string_view::npos) end = normalized.size();
      if (end > pos) emit_word(normalized.substr(pos, end - pos), out);
      pos = end + 1;
    }
  }

 private:
  // What the preprocessor does with one input code point; `out` receives the code
  // point to emit (after NFD and lowercasing).
  cpt_class classify(uint32_t cpt, uint32_t& out) const noexcept {
    if (strip_accents_) cpt = to_nfd(cpt);
    const cpt_flags f = flags_of(cpt);
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

  // Greedy longest-match of one U+2581-prefixed word.
  void emit_word(std::string_view word, std::vector<int32_t>& out) const {
    const size_t first = out.size();
    for (size_t pos = 0; pos < word.size();) {
      const auto [len, id] = trie_.longest_match(word, pos);
      if (len == 0) {
        out.resize(first);
        break;
      }
      out.push_back(id);
      pos += len;
    }
    if (out.size() == first) out.push_back(unk_);
  }

  byte_trie trie_;
  int32_t unk_;
  bool lowercase_, strip_accents_;
  std::array<cpt_class, 128> ascii_class_{};
  std::array<char, 128> ascii_out_{};
};

}  // namespace

std::unique_ptr<tokenizer_model> make_wpm(const vocab_data& v) { return std::make_unique<wpm_model>(v); }

}  // namespace gguf::vocab_detail
