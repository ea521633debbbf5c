// Tokenize: llama.cpp's llama_vocab::impl::tokenize. The special-token partition
// (tokenizer_st_partition), then one pipeline for every model type: each plain-text
// fragment through the model's normalizer and model (tokenizer_model.h), special tokens
// as they are, BOS / EOS / SEP from the row's special-token template.
#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <cstring>

#include "vocab/runtime/thread_scratch.h"
#include "vocab/vocab_impl.h"

namespace gguf {
namespace {

using vocab_detail::attr_control;
using vocab_detail::attr_lstrip;
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
  // Bytes that start a special token, for a long text (a per-byte table lookup then
  // skips the rest; worth the 256 checks only above a few hundred bytes).
  // When one byte starts them all, memchr finds its occurrences.
  std::array<bool, 256> starts;
  starts.fill(true);
  int n_starts = 256, only = -1;
  if (text.size() >= 1024) {
    n_starts = 0;
    for (uint32_t c = 0; c < 256; ++c) {
      starts[c] = !v.single_byte[c].empty() ||
                  (v.pair_bits[4 * c] | v.pair_bits[4 * c + 1] | v.pair_bits[4 * c + 2] | v.pair_bits[4 * c + 3]);
      if (starts[c]) ++n_starts, only = int(c);
    }
  }
  for (size_t i = 0; i < text.size(); ++i) {
    if (n_starts == 1) {
      const void* p = std::memchr(text.data() + i, only, text.size() - i);
      if (p == nullptr) break;
      i = size_t(static_cast<const char*>(p) - text.data());
    }
    const uint8_t c0 = uint8_t(text[i]);
    if (!starts[c0]) continue;
    for (uint32_t s : v.single_byte[c0]) seen[s] = 1;
    if (i + 1 >= text.size()) break;
    const uint32_t key = (uint32_t(c0) << 8) | uint8_t(text[i + 1]);
    if (!v.has_pair(key)) continue;
    const auto first = std::lower_bound(v.bucket_keys.begin(), v.bucket_keys.end(), uint16_t(key));
    for (size_t j = size_t(first - v.bucket_keys.begin()); j < v.bucket_keys.size() && v.bucket_keys[j] == key; ++j) {
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
  // Without parse_special only user-defined tokens (no control or unknown attribute) cut
  // the text: when the vocabulary has none, the text is one fragment without a scan.
  if (!parse_special && !v.plain_special) return;
  std::vector<fragment> next;
  for (uint32_t s : occurring_specials(v, text)) {
    const int32_t id = v.special_cache[s];
    const auto& td = v.d.tokens[id];
    const uint32_t attr = v.d.attrs[id];
    if (!parse_special && (attr & (attr_control | attr_unknown))) continue;
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
          if (attr & attr_lstrip)
            while (left > 0 && ascii_space(text[off + left - 1])) --left;
          if (left > 0) next.push_back({-1, off, left});
        }
        next.push_back({id, 0, 0});
        if (match + tok.size() < off + len) {
          size_t roff = match + tok.size();
          size_t rlen = len - ((match - off) + tok.size());
          if (attr & attr_rstrip)
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

// Scratch larger than this is released after the call rather than kept for the next.
constexpr size_t scratch_keep_bytes = size_t(64) << 20;

bool adds(add_when w, bool flag) { return w == add_when::always || (w == add_when::if_flag && flag); }

// A model falls back to the unknown token, or to BOS/EOS/SEP ids the file declares; in a
// vocabulary without them (no_token) that would hand out -1: refuse instead.
bool all_valid(const std::vector<int32_t>& out, size_t start, size_t n) {
  if (n == 0) return out.size() == start;
  const int32_t last = n > size_t(INT32_MAX) ? INT32_MAX : static_cast<int32_t>(n - 1);
  // Branch-free signed compares, so that it vectorizes with the baseline SSE2 (a megabyte
  // text has a million ids; an unsigned max would need SSE4.1).
  int32_t bad = 0;
  for (size_t i = start; i < out.size(); ++i) bad |= int32_t(out[i] < 0) | int32_t(out[i] > last);
  return bad == 0;
}

}  // namespace

result<void> vocab::impl::tokenize_into(std::string_view text, std::vector<int32_t>& out, bool add_special,
                                bool parse_special) const {
  if (!model) return tokenize_error(add_special);
  const size_t start = out.size();
  // Room for an id per byte at once (bench.txt: 0.25-0.45 ids a byte; CJK text with
  // gpt-2: 0.65), so that a long text's ids are not copied from buffer to growing buffer,
  // each one fresh memory: bench.txt's first call into an empty vector went bert-bge 55-59
  // -> 48-51 ms, rwkv-world 26-27 -> 19.5-21, ugm-sp-test 49 -> 42-44 (medians of 5,
  // alternating runs; the pages past the ids are reserved, never touched). Geometric, for
  // a caller that appends text after text to one vector.
  if (const size_t need = start + text.size() + 16; need > out.capacity())
    out.reserve(std::max(need, 2 * out.capacity()));
  // Per-thread scratch, kept between calls: a fresh buffer for a long text costs a page
  // fault per 4 KiB (the kernel zeroes each page) on every call. Nothing below re-enters.
  thread_local std::vector<fragment> frags;
  thread_local std::string buf;
  partition(*this, text, parse_special, frags);
  const special_template& tmpl = info->tmpl;
  // Whether the ids added here (BOS, EOS, SEP; the special tokens' are the vocabulary's)
  // are tokens, when the model's are surely (tokenizer_model::ids_in_range).
  const size_t n_tokens = d.tokens.size();
  bool added_valid = true;
  const auto add = [&](int32_t id) {
    added_valid = added_valid && id >= 0 && size_t(id) < n_tokens;
    out.push_back(id);
  };
  if (add_special && adds(tmpl.bos, d.add_bos)) add(d.bos);
  bool after_special = true;
  for (const auto& f : frags) {
    if (f.token >= 0) {
      out.push_back(f.token);
      after_special = true;
      continue;
    }
    model->tokenize(model->normalize(text.substr(f.off, f.len), after_special, buf), out);
    after_special = false;
  }
  if (add_special && adds(tmpl.eos, d.add_eos)) add(d.eos);
  if (add_special && adds(tmpl.sep, d.add_sep)) add(d.sep);
  if (buf.capacity() > scratch_keep_bytes) std::string().swap(buf);
  // (ugm-sp-test, bench.txt's first call: the pass over its 1.8M ids took about 1%)
  if (model->ids_in_range() ? !added_valid : !all_valid(out, start, n_tokens)) {
    out.resize(start);
    return tokenize_error(add_special);
  }
  return {};
}

int32_t vocab::impl::first_model_id(std::string_view text) const {
  // As tokenize_into(text, add_special = false, parse_special = false) would: a
  // user-defined token with exactly this text wins the partition.
  if (const int32_t id = d.find(text); id >= 0) {
    const uint32_t a = d.attrs[id];
    if ((a & attr_user_defined) && !(a & (attr_control | attr_unknown))) return id;
  }
  if (!model) return token_null;
  std::vector<int32_t> ids;
  {
    const vocab_detail::side_scratch_scope side;  // called at load: the thread's scratch stays as it is
    model->run(text, true, ids);
  }
  if (ids.empty() || !all_valid(ids, 0, d.tokens.size())) return token_null;
  return ids[0];
}

gguf::error vocab::impl::tokenize_error(bool add_special) const {
  if (!model) {
    return make_error(errc::unsupported, no_offset, "this file has no tokenizer (tokenizer.ggml.model is '" +
                                                        model_name + "')", "tokenizer.ggml.model");
  }
  // The special token add_special would add that the vocabulary does not have (llama.cpp
  // loads such a file and aborts in llama_tokenize).
  if (add_special) {
    const special_template& tmpl = info->tmpl;
    const char* which = adds(tmpl.bos, d.add_bos) && d.bos == vocab_detail::no_token   ? "bos"
                        : adds(tmpl.eos, d.add_eos) && d.eos == vocab_detail::no_token ? "eos"
                        : adds(tmpl.sep, d.add_sep) && d.sep == vocab_detail::no_token ? "seperator"
                                                                                       : nullptr;
    if (which) {
      const std::string key = std::string("tokenizer.ggml.") + which + "_token_id";
      return make_error(errc::invalid_vocab, no_offset,
                        "adding special tokens needs the " + std::string(which) + " token, but " + key +
                            " is not set or names no token of the vocabulary (tokenize without add_special)",
                        key);
    }
  }
  return make_error(errc::invalid_vocab, no_offset,
                    "the text needs a token this vocabulary does not have, and it has no unknown token "
                    "(or a BOS/EOS/SEP id it adds is missing)",
                    "tokenizer.ggml.unknown_token_id");
}

result<void> vocab::tokenize_into(std::string_view text, std::vector<int32_t>& out, bool add_special,
                                  bool parse_special) const {
  return impl_->tokenize_into(text, out, add_special, parse_special);
}

result<std::vector<int32_t>> vocab::tokenize(std::string_view text, bool add_special, bool parse_special) const {
  std::vector<int32_t> out;
  if (auto r = impl_->tokenize_into(text, out, add_special, parse_special); !r) return r.error();
  return out;
}

}  // namespace gguf
