// Tokenize / detokenize sessions: llama.cpp's llama_vocab::impl::tokenize (special-token
// partition, per-model text preparation, BOS/EOS/SEP), token_to_piece and detokenize
// (byte tokens, U+2581 and byte-alphabet decoding, leading-space removal,
// clean_up_tokenization_spaces), and the public accessors.
#include <algorithm>
#include <cstring>

#include "vocab/rwkv_unescape.h"
#include "vocab/unicode.h"
#include "vocab/vocab_impl.h"

namespace gguf {
namespace {

using vocab_detail::append_utf8;
using vocab_detail::rwkv_unescape;
using vocab_detail::utf8_cpt_to_byte;
using vocab_detail::utf8_to_cpts;
using vocab_detail::attr_byte;
using vocab_detail::attr_control;
using vocab_detail::attr_lstrip;
using vocab_detail::attr_normal;
using vocab_detail::attr_rstrip;
using vocab_detail::attr_unknown;
using vocab_detail::attr_user_defined;

struct fragment {
  int32_t token;  // >= 0: a token; -1: text [off, off + len)
  size_t off, len;
};

bool ascii_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

// Which special-cache entries occur anywhere in `text` (a token absent from the whole
// text cannot occur in any fragment, so the exact partition below only runs for these).
std::vector<uint32_t> occurring_specials(const vocab::impl& v, std::string_view text) {
  std::vector<uint8_t> seen(v.special_cache.size(), 0);
  const auto& toks = v.d.tokens;
  for (size_t i = 0; i < text.size(); ++i) {
    const uint8_t c0 = uint8_t(text[i]);
    for (uint32_t s : v.single_byte[c0]) seen[s] = 1;
    if (i + 1 >= text.size()) break;
    const uint32_t key = (uint32_t(c0) << 8) | uint8_t(text[i + 1]);
    for (uint32_t j = v.bucket_start[key]; j < v.bucket_start[key + 1]; ++j) {
      const uint32_t s = v.bucket_items[j];
      if (seen[s]) continue;
      const std::string_view t = toks[v.special_cache[s]].text;
      if (text.compare(i, t.size(), t) == 0) seen[s] = 1;
    }
  }
  std::vector<uint32_t> out;
  for (uint32_t s = 0; s < seen.size(); ++s)
    if (seen[s]) out.push_back(s);
  return out;
}

// llama.cpp's tokenizer_st_partition.
void partition(const vocab::impl& v, std::string_view text, bool parse_special, std::vector<fragment>& frags) {
  frags.clear();
  if (text.empty()) return;
  frags.push_back({-1, 0, text.size()});
  if (v.special_cache.empty()) return;
  std::vector<fragment> next;
  for (uint32_t s : occurring_specials(v, text)) {
    const int32_t id = v.special_cache[s];
    const auto& td = v.d.tokens[id];
    if (!parse_special && (td.attr & (attr_control | attr_unknown))) continue;
    const std::string_view tok = td.text;
    next.clear();
    for (const fragment& f : frags) {
      if (f.token >= 0) {
        next.push_back(f);
        continue;
      }
      size_t off = f.off, len = f.len;
      for (;;) {
        const size_t match = text.substr(0, off + len).find(tok, off);
        if (match == std::string_view::npos) {
          next.push_back({-1, off, len});
          break;
        }
        if (match > off) {
          size_t left = match - off;
          if (td.attr & attr_lstrip)
            while (left > 0 && ascii_space(text[off + left - 1])) --left;
          if (left > 0) next.push_back({-1, off, left});
        }
        next.push_back({id, 0, 0});
        if (match + tok.size() < off + len) {
          size_t roff = match + tok.size();
          size_t rlen = len - ((match - off) + tok.size());
          if (td.attr & attr_rstrip)
            while (rlen > 0 && ascii_space(text[roff])) ++roff, --rlen;
          if (rlen == 0) break;
          off = roff, len = rlen;
        } else {
          break;
        }
      }
    }
    frags.swap(next);
  }
}

void escape_whitespace(std::string& s) {
  std::string out;
  out.reserve(s.size() + s.size() / 4);
  for (char c : s) {
    if (c == ' ') out += "\xE2\x96\x81";
    else out += c;
  }
  s.swap(out);
}

void unescape_whitespace(std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s.compare(i, 3, "\xE2\x96\x81") == 0) {
      out += ' ';
      i += 2;
    } else {
      out += s[i];
    }
  }
  s.swap(out);
}

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

}  // namespace

std::string_view vocab_type_name(vocab_type t) noexcept {
  switch (t) {
    case vocab_type::none: return "none";
    case vocab_type::spm: return "spm";
    case vocab_type::bpe: return "bpe";
    case vocab_type::wpm: return "wpm";
    case vocab_type::ugm: return "ugm";
    case vocab_type::rwkv: return "rwkv";
  }
  return "none";
}

bool vocab::tokenize_into(std::string_view text, std::vector<int32_t>& out, bool add_special, bool parse_special) const {
  const impl& v = *impl_;
  const auto& d = v.d;
  if (!v.model) return false;
  const size_t start = out.size();
  std::vector<fragment> frags;
  partition(v, text, parse_special, frags);
  std::string buf;
  const auto frag_text = [&](const fragment& f) { return text.substr(f.off, f.len); };
  switch (d.type) {
    case vocab_detail::vocab_type::spm: {
      bool prev_special = true;
      if (add_special && d.add_bos) out.push_back(d.bos);
      for (const auto& f : frags) {
        if (f.token >= 0) {
          out.push_back(f.token);
          prev_special = true;
          continue;
        }
        buf.clear();
        if (d.add_space_prefix && prev_special) buf = ' ';
        buf.append(frag_text(f));
        escape_whitespace(buf);
        v.model->tokenize(buf, out);
        prev_special = false;
      }
      if (add_special && d.add_eos) out.push_back(d.eos);
      break;
    }
    case vocab_detail::vocab_type::bpe: {
      if (add_special && d.add_bos) out.push_back(d.bos);
      for (const auto& f : frags) {
        if (f.token >= 0) {
          out.push_back(f.token);
          continue;
        }
        if (d.escape_whitespaces) {
          buf.assign(frag_text(f));
          escape_whitespace(buf);
          v.model->tokenize(buf, out);
        } else {
          v.model->tokenize(frag_text(f), out);
        }
      }
      if (add_special && d.add_eos) out.push_back(d.eos);
      break;
    }
    case vocab_detail::vocab_type::wpm:
    case vocab_detail::vocab_type::ugm:
    case vocab_detail::vocab_type::rwkv: {
      const bool wpm = d.type == vocab_detail::vocab_type::wpm;
      const bool ugm = d.type == vocab_detail::vocab_type::ugm;
      if (add_special && (wpm || (ugm && d.add_bos))) out.push_back(d.bos);
      for (const auto& f : frags) {
        if (f.token >= 0) out.push_back(f.token);
        else v.model->tokenize(frag_text(f), out);
      }
      if (add_special && wpm) out.push_back(d.sep);
      if (add_special && ugm && d.add_eos) out.push_back(d.eos);
      break;
    }
    case vocab_detail::vocab_type::none: return false;
  }
  // A model falls back to the unknown token, or to BOS/EOS/SEP ids the file declares; in a
  // vocabulary without them (no_token) that would hand out -1: refuse instead.
  const size_t n = d.tokens.size();
  for (size_t i = start; i < out.size(); ++i) {
    if (out[i] < 0 || static_cast<size_t>(out[i]) >= n) {
      out.resize(start);
      return false;
    }
  }
  return true;
}

namespace {
// The special token add_special would add that the vocabulary does not have (llama.cpp
// loads such a file and aborts in llama_tokenize), or nullptr.
const char* missing_special(const vocab_detail::vocab_data& d) {
  using vt = vocab_detail::vocab_type;
  const bool wpm = d.type == vt::wpm;
  if ((wpm || (d.add_bos && d.type != vt::rwkv)) && d.bos == vocab_detail::no_token) return "bos";
  if (d.add_eos && d.type != vt::wpm && d.type != vt::rwkv && d.eos == vocab_detail::no_token) return "eos";
  if (wpm && d.sep == vocab_detail::no_token) return "seperator";
  return nullptr;
}
}  // namespace

result<std::vector<int32_t>> vocab::tokenize(std::string_view text, bool add_special, bool parse_special) const {
  std::vector<int32_t> out;
  if (const char* which = add_special && impl_->model ? missing_special(impl_->d) : nullptr) {
    const std::string key = std::string("tokenizer.ggml.") + which + "_token_id";
    return make_error(errc::invalid_vocab, no_offset,
                      "adding special tokens needs the " + std::string(which) + " token, but " + key +
                          " is not set (tokenize without add_special)",
                      key);
  }
  if (!tokenize_into(text, out, add_special, parse_special)) {
    if (!impl_->model || impl_->d.type == vocab_detail::vocab_type::none) {
      return make_error(errc::unsupported, no_offset, "this file has no tokenizer (tokenizer.ggml.model is '" +
                                                          impl_->model_name + "')", "tokenizer.ggml.model");
    }
    return make_error(errc::invalid_vocab, no_offset,
                      "the text needs a token this vocabulary does not have, and it has no unknown token "
                      "(or a BOS/EOS/SEP id it adds is missing)",
                      "tokenizer.ggml.unknown_token_id");
  }
  return out;
}

std::string vocab::token_to_piece(int32_t id, bool special) const {
  const impl& v = *impl_;
  const auto& d = v.d;
  if (id < 0 || size_t(id) >= d.tokens.size() || d.type == vocab_detail::vocab_type::none) return {};
  const auto& t = d.tokens[id];
  const uint32_t attr = t.attr;
  if (!special && (attr & (attr_unknown | attr_control))) return {};
  const uint32_t verbatim = attr_unknown | attr_control | attr_user_defined;
  switch (d.type) {
    case vocab_detail::vocab_type::spm:
    case vocab_detail::vocab_type::wpm:
    case vocab_detail::vocab_type::ugm:
    case vocab_detail::vocab_type::bpe: {
      if (attr & verbatim) return std::string(t.text);
      if (attr & attr_normal) {
        if (d.type != vocab_detail::vocab_type::bpe || d.escape_whitespaces) {
          std::string s(t.text);
          unescape_whitespace(s);
          return s;
        }
        return decode_byte_alphabet(t.text);
      }
      if (attr & attr_byte) return std::string(1, char(hex_byte(t.text)));
      return {};
    }
    case vocab_detail::vocab_type::rwkv: return rwkv_unescape(t.text);
    case vocab_detail::vocab_type::none: return {};
  }
  return {};
}

std::string vocab::detokenize(std::span<const int32_t> ids, bool remove_special, bool unparse_special) const {
  const impl& v = *impl_;
  const auto& d = v.d;
  if (d.type == vocab_detail::vocab_type::none) return {};
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

vocab_type vocab::type() const noexcept { return static_cast<vocab_type>(impl_->d.type); }
std::string_view vocab::model_name() const noexcept { return impl_->model_name; }
std::string_view vocab::pre() const noexcept { return impl_->pre; }
std::string_view vocab::pre_type() const noexcept { return impl_->pre_type; }
uint32_t vocab::n_tokens() const noexcept { return uint32_t(impl_->d.tokens.size()); }
std::string_view vocab::token_text(int32_t id) const { return impl_->d.tokens.at(size_t(id)).text; }
float vocab::token_score(int32_t id) const { return impl_->d.tokens.at(size_t(id)).score; }
gguf::token_type vocab::token_type(int32_t id) const {
  return static_cast<gguf::token_type>(impl_->d.tokens.at(size_t(id)).type);
}
uint32_t vocab::token_attr(int32_t id) const { return impl_->d.tokens.at(size_t(id)).attr; }
int32_t vocab::find(std::string_view text) const { return impl_->d.find(text); }
int32_t vocab::bos() const noexcept { return impl_->d.bos; }
int32_t vocab::eos() const noexcept { return impl_->d.eos; }
int32_t vocab::eot() const noexcept { return impl_->d.eot; }
int32_t vocab::eom() const noexcept { return impl_->d.eom; }
int32_t vocab::unk() const noexcept { return impl_->d.unk; }
int32_t vocab::sep() const noexcept { return impl_->d.sep; }
int32_t vocab::pad() const noexcept { return impl_->d.pad; }
int32_t vocab::mask() const noexcept { return impl_->d.mask; }
int32_t vocab::cls() const noexcept { return impl_->d.bos; }
int32_t vocab::nl() const noexcept { return impl_->d.nl; }
int32_t vocab::fim_pre() const noexcept { return impl_->fim_pre; }
int32_t vocab::fim_suf() const noexcept { return impl_->fim_suf; }
int32_t vocab::fim_mid() const noexcept { return impl_->fim_mid; }
int32_t vocab::fim_pad() const noexcept { return impl_->fim_pad; }
int32_t vocab::fim_rep() const noexcept { return impl_->fim_rep; }
int32_t vocab::fim_sep() const noexcept { return impl_->fim_sep; }
bool vocab::is_eog(int32_t id) const { return std::binary_search(impl_->eog.begin(), impl_->eog.end(), id); }
bool vocab::add_bos() const noexcept { return impl_->d.add_bos; }
bool vocab::add_eos() const noexcept { return impl_->d.add_eos; }
bool vocab::add_sep() const noexcept { return impl_->d.add_sep; }
bool vocab::add_space_prefix() const noexcept { return impl_->d.add_space_prefix; }
bool vocab::remove_extra_whitespaces() const noexcept { return impl_->d.remove_extra_whitespaces; }
bool vocab::clean_spaces() const noexcept { return impl_->d.clean_spaces; }
std::span<const std::string> vocab::warnings() const noexcept { return impl_->warnings; }

}  // namespace gguf
