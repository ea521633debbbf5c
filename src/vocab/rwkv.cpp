// RWKV tokenizer model: greedy longest match over a byte trie of the unescaped token texts.
//
// Follows llama.cpp's llm_tokenizer_rwkv / llm_tokenizer_rwkv_session (src/llama-vocab.cpp):
// the GGUF stores each RWKV "world" token as an escaped string (\t \n \r \xHH and \c for
// a literal c); the model matches raw bytes against the unescaped texts of every token,
// always taking the longest token that starts at the current byte. A byte that starts no
// token becomes the unknown token.
#include "vocab/rwkv_unescape.h"
#include "vocab/tokenizer_model.h"
#include "vocab/ugm_trie.h"

namespace gguf::vocab_detail {

std::string rwkv_unescape(std::string_view escaped) {
  std::string out;
  out.reserve(escaped.size());
  bool escaping = false;
  int hex_remaining = 0;
  uint8_t hex_acc = 0;
  for (const char ch : escaped) {
    const auto c = static_cast<uint8_t>(ch);
    if (hex_remaining != 0) {
      // llama_unescape_rwkv_token's digit rule: 'a'..'f' (and above) count from 10,
      // everything else from '0', in 8-bit arithmetic.
      const uint8_t digit = c >= 'a' ? static_cast<uint8_t>(c - 'a' + 10) : static_cast<uint8_t>(c - '0');
      hex_acc = static_cast<uint8_t>((hex_acc << 4) + digit);
      if (--hex_remaining == 0) {
        out.push_back(static_cast<char>(hex_acc));
        hex_acc = 0;
      }
      continue;
    }
    if (escaping) {
      escaping = false;
      switch (c) {
        case 't': out.push_back('\t'); break;
        case 'n': out.push_back('\n'); break;
        case 'r': out.push_back('\r'); break;
        case 'x': hex_remaining = 2; break;
        default: out.push_back(static_cast<char>(c)); break;
      }
      continue;
    }
    if (c == '\\') {
      escaping = true;
      continue;
    }
    out.push_back(static_cast<char>(c));
  }
  return out;
}

namespace {

class rwkv_model final : public tokenizer_model {
 public:
  explicit rwkv_model(const vocab_data& v) : unk_(v.unk) {
    if (v.cache && v.cache->load("rwkv.trie", [&](table_reader& r) { return trie_.load(r); })) return;
    std::vector<std::string> texts;  // unescaped token bytes, viewed while the trie is built
    texts.reserve(v.tokens.size());
    for (const auto& t : v.tokens) texts.push_back(rwkv_unescape(t.text));
    std::vector<byte_trie::entry> entries;
    entries.reserve(texts.size());
    for (size_t id = 0; id < texts.size(); ++id) entries.push_back({texts[id], static_cast<int32_t>(id)});
    trie_ = byte_trie(std::move(entries));
    if (v.cache) v.cache->save("rwkv.trie", [&](table_writer& w) { trie_.save(w); });
  }

  void tokenize(std::string_view text, std::vector<int32_t>& out) const override {
    size_t pos = 0;
    while (pos < text.size()) {
      const auto [len, id] = trie_.longest_match(text, pos);
      if (len == 0) {
        // No token starts with this byte. (llama.cpp also lands here in a vocabulary
        // where a byte starts tokens but none of them matches; it would loop forever.)
        out.push_back(unk_);
        pos += 1;
        continue;
      }
      out.push_back(id);
      pos += len;
    }
  }

 private:
  int32_t unk_;
  byte_trie trie_;
};

}  // namespace

std::unique_ptr<tokenizer_model> make_rwkv(const vocab_data& v) { return std::make_unique<rwkv_model>(v); }

}  // namespace gguf::vocab_detail
