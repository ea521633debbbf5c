// RWKV tokenizer model: greedy longest match over a byte trie of the unescaped token texts.
//
// Follows llama.cpp's llm_tokenizer_rwkv / llm_tokenizer_rwkv_session (src/llama-vocab.cpp):
// the GGUF stores each RWKV "world" token as an escaped string (\t \n \r \xHH and \c for
// a literal c); the model matches raw bytes against the unescaped texts of every token,
// always taking the longest token that starts at the current byte. A byte that starts no
// token becomes the unknown token. Chunks whose matches read no byte past the space that
// ends them are cached per thread (tokenize).
#include <algorithm>

#include "vocab/rwkv_unescape.h"
#include "vocab/thread_scratch.h"
#include "vocab/tokenizer_model.h"
#include "vocab/ugm_trie.h"
#include "vocab/word_cache.h"

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
  rwkv_model(const vocab_data& v, bool cache_chunks) : cache_chunks_(cache_chunks), unk_(v.unk) {
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

  // The text is taken in chunks: from a position to the next ' ' after a word (chunk_end).
  // The greedy match over a chunk usually reads no byte past the ' ' that ends it, and
  // then its ids depend on the chunk and that ' ' only: they are cached under those
  // bytes. A match reading further (a token holding a space) goes on from where it
  // ended, uncached.
  void tokenize(std::string_view text, std::vector<int32_t>& out) const override {
    if (!cache_chunks_) {
      greedy(text, 0, text.size(), out);
      return;
    }
    scratch& sc = thread_scratch<scratch>(instance_);
    const size_t n = text.size();
    for (size_t pos = 0; pos < n;) {
      const size_t space = chunk_end(text, pos);
      if (space == n) {
        greedy(text, pos, n, out);
        return;
      }
      const std::string_view key = text.substr(pos, space + 1 - pos);  // the chunk and its ' '
      const bool cacheable = key.size() <= word_cache::max_word;
      const uint64_t h = cacheable ? text_hash(key) : 0;
      if (cacheable && sc.cache.find(key, h, out)) {
        pos = space;
        continue;
      }
      const size_t first = out.size();
      const greedy_end r = greedy(text, pos, space, out);
      if (cacheable && r.last_read <= space && sc.seen_before(h))
        sc.cache.insert(key, h, out.data() + first, out.size() - first);
      pos = r.end;
    }
  }

 private:
  // The first ' ' after `pos` that follows a byte other than ' ', '\t', '\n', '\r' (a
  // run of whitespace is usually one token), or text.size().
  static size_t chunk_end(std::string_view text, size_t pos) {
    for (size_t q = pos + 1;; ++q) {
      q = text.find(' ', q);
      if (q == std::string_view::npos) return text.size();
      const char prev = text[q - 1];
      if (prev != ' ' && prev != '\t' && prev != '\n' && prev != '\r') return q;
    }
  }

  struct greedy_end {
    size_t end;        // where the last token ended (>= until)
    size_t last_read;  // the index of the last byte any match read (text.size(): its end)
  };
  // llama.cpp's greedy longest match from `pos` until a token ends at or past `until`.
  greedy_end greedy(std::string_view text, size_t pos, size_t until, std::vector<int32_t>& out) const {
    size_t last = pos;
    while (pos < until) {
      const auto m = trie_.longest_match_walked(text, pos);
      last = std::max(last, m.last);
      if (m.len == 0) {
        // No token starts with this byte. (llama.cpp also lands here in a vocabulary
        // where a byte starts tokens but none of them matches; it would loop forever.)
        out.push_back(unk_);
        pos += 1;
        continue;
      }
      out.push_back(m.id);
      pos += m.len;
    }
    return {pos, last};
  }

  const uint64_t instance_ = next_model_instance();  // tags this thread's scratch (thread_scratch.h)
  struct scratch {
    word_cache cache;
    // Chunks met before (a bit per hash, kept between calls): a chunk enters the cache the
    // second time it is matched, so that chunks met once (most of a text's distinct
    // ones) cost no insertion.
    std::vector<uint64_t> seen = std::vector<uint64_t>(size_t(1) << 14);  // 2^20 bits
    bool seen_before(uint64_t h) {
      uint64_t& word = seen[(h >> 38) & ((size_t(1) << 14) - 1)];
      const uint64_t bit = uint64_t{1} << ((h >> 32) & 63);
      const bool was = (word & bit) != 0;
      word |= bit;
      return was;
    }
  };
  bool cache_chunks_;
  int32_t unk_;
  byte_trie trie_;
};

}  // namespace

std::unique_ptr<tokenizer_model> make_rwkv(const vocab_data& v, bool cache_chunks) {
  return std::make_unique<rwkv_model>(v, cache_chunks);
}

}  // namespace gguf::vocab_detail
