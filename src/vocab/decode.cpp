// Decode: llama.cpp's token_to_piece (lstrip = 0) and detokenize. The per-type part of a
// piece is the model row's decoder (piece_* below); detokenize adds the leading-space
// removal and clean_up_tokenization_spaces.
#include "vocab/normalizer/normalizer.h"
#include "vocab/models/rwkv_unescape.h"
#include "vocab/unicode/unicode.h"
#include "vocab/vocab_impl.h"

namespace gguf {
namespace vocab_detail {
namespace {

uint8_t hex_byte(std::string_view t) {
  // token_to_byte: strtol of text[3..5) in base 16
  uint32_t v = 0;
  for (size_t i = 3; i < 5 && i < t.size(); ++i) {
    const char c = t[i];
    uint32_t d;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
    else break;
    v = v * 16 + d;
  }
  return uint8_t(v);
}

// llama_decode_text: byte-alphabet code points back to bytes.
std::string decode_byte_alphabet(std::string_view text) {
  std::string out;
  std::vector<uint32_t> cpts;
  utf8_to_cpts(text, cpts);
  for (uint32_t c : cpts) {
    uint8_t b;
    if (utf8_cpt_to_byte(c, b)) {
      out += char(b);
    } else {
      std::string u;
      append_utf8(u, c);
      out += "[UNK_BYTE_0x";
      static constexpr char hex[] = "0123456789abcdef";
      for (unsigned char x : u) {
        out += hex[x >> 4];
        out += hex[x & 15];
      }
      out.append(text);
      out += "]";
    }
  }
  return out;
}

constexpr uint32_t verbatim = attr_unknown | attr_control | attr_user_defined;

}  // namespace

std::string piece_sentencepiece(const vocab_data&, const token_data& t, uint32_t attr) {
  if (attr & verbatim) return std::string(t.text);
  if (attr & attr_normal) return unescape_whitespace(t.text);
  if (attr & attr_byte) return std::string(1, char(hex_byte(t.text)));
  return {};
}

std::string piece_bpe(const vocab_data& d, const token_data& t, uint32_t attr) {
  if (d.escape_whitespaces || !(attr & attr_normal) || (attr & verbatim)) return piece_sentencepiece(d, t, attr);
  return decode_byte_alphabet(t.text);
}

std::string piece_rwkv(const vocab_data&, const token_data& t, uint32_t) { return rwkv_unescape(t.text); }

}  // namespace vocab_detail

std::string vocab::impl::token_to_piece(int32_t id, bool special) const {
  using namespace vocab_detail;
  if (!row || id < 0 || size_t(id) >= d.tokens.size()) return {};
  const auto& t = d.tokens[id];
  const uint32_t attr = d.attrs[size_t(id)];
  if (!special && (attr & (attr_unknown | attr_control))) return {};
  return row->piece(d, t, attr);
}

std::string vocab::impl::detokenize(std::span<const int32_t> ids, bool remove_special, bool unparse_special) const {
  if (!row) return {};
  bool remove_space = d.add_space_prefix;
  if (remove_special && d.add_bos && !ids.empty() && ids.front() == d.bos) {
    remove_space = false;
    ids = ids.subspan(1);
  }
  if (remove_special && d.add_eos && !ids.empty() && ids.back() == d.eos) ids = ids.first(ids.size() - 1);
  std::string text;
  for (int32_t id : ids) {
    std::string piece = token_to_piece(id, unparse_special);
    size_t skip = 0;
    if (remove_space && !piece.empty() && piece[0] == ' ') skip = 1;
    text.append(piece, skip);
    remove_space = false;
  }
  if (!d.clean_spaces || text.empty()) return text;
  // clean_up_tokenization_spaces, llama.cpp's three passes
  std::string& t = text;
  size_t total = 1;
  for (size_t i = 1; i < t.size(); ++i) {
    const char x = t[i];
    if (t[i - 1] == ' ' && (x == '?' || x == '!' || x == '.' || x == ',')) --total;
    t[total++] = x;
  }
  t.resize(total);
  total = 1;
  for (size_t i = 1; i < t.size(); ++i) {
    const char x = t[i];
    if (x == '\'' && i + 1 < t.size() && t[i - 1] == ' ' && t[i + 1] == ' ') {
      --total;
      t[++i] = '\0';
    }
    t[total++] = x;
  }
  t.resize(total);
  total = 1;
  for (size_t i = 1; i < t.size(); ++i) {
    const char x = t[i];
    if (t[i - 1] == ' ' && x == '\'' && i + 1 < t.size()) {
      const char x1 = t[i + 1];
      if (x1 == 's' || x1 == 'm') {
        --total;
      } else if (x1 != 't' && x1 != 'd' && i + 2 < t.size()) {
        const char x2 = t[i + 2];
        if ((x1 == 'r' && x2 == 'e') || (x1 == 'v' && x2 == 'e')) --total;
      }
    }
    t[total++] = x;
  }
  t.resize(total);
  return text;
}

std::string vocab::token_to_piece(int32_t id, bool special) const { return impl_->token_to_piece(id, special); }

std::string vocab::detokenize(std::span<const int32_t> ids, bool remove_special, bool unparse_special) const {
  return impl_->detokenize(ids, remove_special, unparse_special);
}

}  // namespace gguf
