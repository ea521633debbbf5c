// UGM (unigram) tokenizer model: precompiled-charsmap normalizer, then Viterbi over a
// trie of the token texts with the tokens' scores.
//
// Follows llama.cpp's llm_tokenizer_ugm / llm_tokenizer_ugm_session (src/llama-vocab.cpp),
// itself SentencePiece's optimized unigram Viterbi:
//  - normalization, per input prefix: a user-defined token text (the deepest walk in their
//    trie) passes through unchanged; else the longest charsmap match is replaced; else one
//    valid UTF-8 sequence passes through; else one byte becomes U+FFFD. Spaces in the
//    result become U+2581 (escape_whitespaces), runs of them collapse to one placed before
//    each word (remove_extra_whitespaces), a space goes before the first word
//    (add_space_prefix) or after the text (with treat_whitespace_as_suffix).
//  - Viterbi: normal, user-defined and unused tokens are candidates; user-defined ones
//    score 0, the others their score; a code point no candidate covers exactly costs the
//    unknown token with score min(normal scores) - 10. Scores add up in double.
//  - Runs of unknown tokens in the best path collapse into one.
#include <algorithm>
#include <cfloat>

#include "vocab/tokenizer_model.h"
#include "vocab/normalizer.h"
#include "vocab/ugm_charsmap.h"
#include "vocab/ugm_trie.h"
#include "vocab/unicode.h"

namespace gguf::vocab_detail {

namespace {

constexpr float unknown_token_score_penalty = 10.0f;

class ugm_model final : public tokenizer_model {
 public:
  explicit ugm_model(const vocab_data& v)
      : charsmap_(v.precompiled_charsmap),
        unk_(v.unk),
        escape_whitespaces_(v.escape_whitespaces),
        treat_whitespace_as_suffix_(v.treat_whitespace_as_suffix),
        add_space_prefix_(v.add_space_prefix),
        remove_extra_whitespaces_(v.remove_extra_whitespaces) {
    float min_score = FLT_MAX;
    // the two tries from the compiled cache, or built (and saved) below
    const bool cached = v.cache && v.cache->load("ugm.tries", [&](table_reader& r) {
      return tokens_.load(r) && user_defined_.load(r);
    });
    std::vector<byte_trie::entry> candidates, user_defined;
    scores_.resize(v.tokens.size());
    for (size_t id = 0; id < v.tokens.size(); ++id) {
      const token_data& t = v.tokens[id];
      const auto i = static_cast<int32_t>(id);
      if (t.type == token_type::normal) min_score = std::min(min_score, t.score);
      if (!cached && (t.type == token_type::normal || t.type == token_type::user_defined || t.type == token_type::unused))
        candidates.push_back({t.text, i});
      if (!cached && t.type == token_type::user_defined) user_defined.push_back({t.text, i});
      scores_[id] = t.type == token_type::user_defined ? 0.0 : static_cast<double>(t.score);
    }
    unknown_score_ = static_cast<double>(min_score - unknown_token_score_penalty);
    if (!cached) {
      tokens_ = byte_trie(std::move(candidates));
      user_defined_ = byte_trie(std::move(user_defined));
      if (v.cache)
        v.cache->save("ugm.tries", [&](table_writer& w) {
          tokens_.save(w);
          user_defined_.save(w);
        });
    }
  }

  std::string_view normalize(std::string_view fragment, bool, std::string& buf) const override {
    normalize_into(fragment, buf);
    return buf;
  }

  void tokenize(std::string_view normalized, std::vector<int32_t>& out) const override { viterbi(normalized, out); }

 private:
  struct piece {
    std::string_view bytes;
    size_t consumed;
  };

  piece normalize_prefix(std::string_view in, size_t pos) const {
    if (const size_t n = user_defined_.walk_depth(in, pos); n > 0) return {in.substr(pos, n), n};
    if (const auto m = charsmap_.longest_prefix(in, pos); m.consumed > 0) return {m.replacement, m.consumed};
    uint32_t cpt = 0;
    if (const size_t n = utf8_decode_strict(in, pos, cpt); n > 0) return {in.substr(pos, n), n};
    return {"\xEF\xBF\xBD", 1};  // U+FFFD for one invalid byte
  }

  void normalize_into(std::string_view in, std::string& out) const {
    out.clear();
    out.reserve(in.size() * 3);
    const std::string_view space = escape_whitespaces_ ? escaped_space : std::string_view(" ");
    const bool prepend_space = !treat_whitespace_as_suffix_ && add_space_prefix_;
    const bool append_space = treat_whitespace_as_suffix_ && add_space_prefix_;
    const bool merge_spaces = remove_extra_whitespaces_;
    bool space_prepended = false;
    bool in_word = false;
    for (size_t pos = 0; pos < in.size();) {
      const piece p = normalize_prefix(in, pos);
      for (const char c : p.bytes) {
        if (c != ' ') {
          if (!in_word) {
            in_word = true;
            if ((prepend_space && !space_prepended) || merge_spaces) {
              out.append(space);
              space_prepended = true;
            }
          }
          out.push_back(c);
        } else {
          in_word = false;
          if (!merge_spaces) out.append(space);
        }
      }
      pos += p.consumed;
    }
    if (append_space) out.append(space);
  }

  // 16 bytes per input byte for texts under 4 GiB (the table is the Viterbi's memory
  // traffic), 24 beyond.
  template <class Index>
  struct best {
    int32_t token_id;
    Index start;  // input offset where the token starts
    double score;
  };

  void viterbi(std::string_view s, std::vector<int32_t>& out) const {
    if (s.size() < UINT32_MAX) viterbi<uint32_t>(s, out);
    else viterbi<size_t>(s, out);
  }

  template <class Index>
  void viterbi(std::string_view s, std::vector<int32_t>& out) const {
    using best = ugm_model::best<Index>;
    const size_t n = s.size();
    if (n == 0) return;
    // Per-thread scratch kept between calls (a fresh vector per call costs page faults
    // on every call); released when it grew past 64 MiB.
    thread_local std::vector<best> results;
    results.assign(n + 1, best{unk_, 0, -DBL_MAX});
    results[0] = {unk_, 0, 0.0};
    for (size_t pos = 0; pos < n;) {
      const size_t cp_len = std::min(utf8_len(s[pos]), n - pos);
      const double base = results[pos].score;
      bool single_codepoint_found = false;
      tokens_.for_each_prefix(s, pos, [&](size_t len, int32_t id) {
        if (len == cp_len) single_codepoint_found = true;
        const double challenger = base + scores_[static_cast<size_t>(id)];
        best& champ = results[pos + len];
        if (challenger > champ.score) champ = {id, Index(pos), challenger};
      });
      if (!single_codepoint_found) {
        const double challenger = base + unknown_score_;
        best& champ = results[pos + cp_len];
        if (challenger > champ.score) champ = {unk_, Index(pos), challenger};
      }
      pos += cp_len;
    }
    // Backtrack from the end, collapsing runs of unknown tokens, then reverse.
    const size_t first = out.size();
    bool prev_unknown = false;
    for (size_t at = n;;) {
      const best& b = results[at];
      static_assert(sizeof(Index) != 4 || sizeof(best) == 16);
      const bool unknown = b.token_id == unk_;
      if (!(prev_unknown && unknown)) out.push_back(b.token_id);
      if (b.start == 0) break;
      prev_unknown = unknown;
      at = b.start;
    }
    std::reverse(out.begin() + static_cast<std::ptrdiff_t>(first), out.end());
    if (results.capacity() * sizeof(best) > (size_t(64) << 20)) std::vector<best>().swap(results);
  }

  ugm_charsmap charsmap_;
  byte_trie tokens_;
  byte_trie user_defined_;
  std::vector<double> scores_;  // per token id, as used by the Viterbi
  double unknown_score_ = 0.0;
  int32_t unk_;
  bool escape_whitespaces_, treat_whitespace_as_suffix_, add_space_prefix_, remove_extra_whitespaces_;
};

}  // namespace

std::unique_ptr<tokenizer_model> make_ugm(const vocab_data& v) { return std::make_unique<ugm_model>(v); }

}  // namespace gguf::vocab_detail
