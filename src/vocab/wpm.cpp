// WPM (WordPiece, bert) tokenizer model: BERT-style pre-tokenization, then greedy
// longest-match word pieces.
//
// Follows llama.cpp's llm_tokenizer_wpm_session (src/llama-vocab.cpp):
//  - the normalizer (BERT's clean-up, as Hugging Face's BertNormalizer; word boundaries
//    become single spaces), per code point (invalid UTF-8 bytes decode to U+FFFD): with strip_accents, replace
//    it by llama.cpp's "NFD" (first code point of its decomposition, unicode_norm.h);
//    White_Space ends the current word; NUL, U+FFFD and \p{C} are dropped; with
//    strip_accents \p{M} is dropped; \p{P}, ASCII \p{S} and CJK ideographs become
//    one-character words; everything else is appended to the word, lowercased (simple
//    mapping) when `lowercase` is set.
//  - each word, prefixed with U+2581 (llama.cpp's GGUF bert vocabularies store
//    word-initial pieces with it and continuation pieces without "##"), is cut greedily
//    into the longest tokens from the left; if some position matches no token, the whole
//    word becomes the unknown token.
#include <array>

#include "vocab/tokenizer_model.h"
#include "vocab/ugm_trie.h"
#include "vocab/unicode_norm.h"

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

  // Normalizer: the words of the fragment, normalized, each followed by one ' ' (no
  // normalized code point is a space, so ' ' marks exactly the word ends).
  std::string_view normalize(std::string_view text, bool, std::string& buf) const override {
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
        mapped = static_cast<uint8_t>(ascii_out_[b]);
        ++pos;
      } else {
        uint32_t cpt = 0xFFFD;
        const size_t n = unicode::decode_utf8(text, pos, cpt);
        pos += n == 0 ? 1 : n;
        if (n == 0) cpt = 0xFFFD;
        k = classify(cpt, mapped);
      }
      switch (k) {
        case cpt_class::append:
          unicode::append_utf8(word, mapped);
          break;
        case cpt_class::drop:
          break;
        case cpt_class::space:
          flush();
          break;
        case cpt_class::single:
          flush();
          unicode::append_utf8(word, mapped);
          flush();
          break;
      }
    }
    flush();
    return buf;
  }

  // Model: every space-terminated word of the normalized text, cut into word pieces.
  void tokenize(std::string_view normalized, std::vector<int32_t>& out) const override {
    std::string word(word_prefix);
    const size_t prefix = word.size();
    for (size_t pos = 0; pos < normalized.size();) {
      size_t end = normalized.find(' ', pos);
      if (end == std::string_view::npos) end = normalized.size();
      if (end > pos) {
        word.resize(prefix);
        word.append(normalized.substr(pos, end - pos));
        emit_word(word, out);
      }
      pos = end + 1;
    }
  }

 private:
  // What the preprocessor does with one input code point; `out` receives the code
  // point to emit (after NFD and lowercasing).
  cpt_class classify(uint32_t cpt, uint32_t& out) const noexcept {
    if (strip_accents_) cpt = unicode::nfd_first(cpt);
    const uint16_t f = unicode::flags(cpt);
    if (f & unicode::whitespace) return cpt_class::space;
    if (cpt == 0 || cpt == 0xFFFD || (f & unicode::control)) return cpt_class::drop;
    if (strip_accents_ && (f & unicode::accent_mark)) return cpt_class::drop;
    // Beyond U+10FFFF llama.cpp fails to encode the code point (and throws); we drop it.
    if (cpt > 0x10FFFF) return cpt_class::drop;
    out = lowercase_ ? unicode::to_lower(cpt) : cpt;
    if ((f & unicode::punctuation) || (cpt < 0x7F && (f & unicode::symbol)) || is_chinese_char(cpt))
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
