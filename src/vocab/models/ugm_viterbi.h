// The UGM model's Viterbi (internal): the best segmentation of a normalized text into
// candidate tokens by the sum of their scores, llama.cpp's llm_tokenizer_ugm_session::
// tokenize (see ugm.cpp). Two forms with the same steps and the same result: a walk of
// the candidates' trie from each code point (push form), and the pull form over a dense
// Aho-Corasick automaton for small vocabularies (ugm_automaton.h). Also the bound under
// which every sum of scores is exact in double (the word caches rely on it).
#pragma once

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string_view>
#include <vector>

#include "vocab/models/tokenizer_model.h"
#include "vocab/models/ugm_automaton.h"
#include "vocab/models/ugm_trie.h"
#include "vocab/normalizer/ugm_normalizer.h"
#include "vocab/unicode/unicode.h"

namespace gguf::vocab_detail {

class ugm_viterbi {
 public:
  explicit ugm_viterbi(int32_t unk) : unk_(unk) {}

  /// The trie of candidate tokens (built or loaded by the model, then prepare()).
  byte_trie& candidates() noexcept { return tokens_; }
  int32_t unk() const noexcept { return unk_; }
  /// True when the dense automaton is built (viterbi_dense applies).
  bool has_dense() const noexcept { return bool(dense_); }

  /// The scores as the Viterbi adds them, the unknown token's score (min(normal scores) -
  /// 10, as llama.cpp), the exactness bound, and with dense_viterbi (and finite scores)
  /// the automaton. Returns whether every id a Viterbi gives is below n_tokens (the tries
  /// may come from the compiled cache, so the automaton's outputs are checked here).
  bool prepare(const vocab_data& v, bool dense_viterbi) {
    float min_score = FLT_MAX;
    scores_.resize(v.tokens.size());
    uint32_t min_exponent = 0xFF;  // smallest float exponent field of a nonzero score used
    float max_abs = 0.0f;
    const auto note_score = [&](float f) {
      const uint32_t e = (std::bit_cast<uint32_t>(f) >> 23) & 0xFF;
      if (f != 0.0f) min_exponent = std::min(min_exponent, e);
      if (e == 0xFF) max_abs = std::numeric_limits<float>::infinity();  // inf or NaN: never exact
      else max_abs = std::max(max_abs, std::fabs(f));
    };
    for (size_t id = 0; id < v.tokens.size(); ++id) {
      const token_data& t = v.tokens[id];
      if (t.type == token_type::normal) min_score = std::min(min_score, t.score);
      if (t.type == token_type::normal || t.type == token_type::unused) note_score(t.score);
      scores_[id] = t.type == token_type::user_defined ? 0.0f : t.score;
    }
    unknown_score_ = unknown_score(min_score);
    note_score(static_cast<float>(unknown_score_));
    // Every score used is a float, so a multiple of 2^g with g the ulp exponent of the
    // smallest exponent among them; sums of such multiples are exact in double up to
    // 2^(53 + g) in magnitude. Within that bound a Viterbi's choices do not depend on the
    // score it starts from (every comparison is exact), which makes its word cache exact.
    max_abs_score_ = static_cast<double>(max_abs);
    if (min_exponent == 0xFF) exact_limit_ = std::numeric_limits<double>::infinity();  // all scores 0
    else exact_limit_ = std::ldexp(1.0, 53 + static_cast<int>(std::max<uint32_t>(min_exponent, 1)) - 150);
    if (!std::isfinite(max_abs_score_)) exact_limit_ = -1.0;
    // (finite scores only: then the pull form's candidates from mid-code-point positions,
    // at -inf, surely never win)
    if (dense_viterbi && exact_limit_ >= 0.0)
      dense_ = ugm_automaton::build(tokens_, [&](int32_t id) {
        return size_t(id) < scores_.size() ? static_cast<double>(scores_[size_t(id)]) : 0.0;  // (else see the return)
      });
    // With the automaton every Viterbi's ids are its outputs' or the unknown token's.
    return dense_ && unk_ >= 0 && size_t(unk_) < v.tokens.size() && dense_.ids_below(v.tokens.size());
  }

  // 16 bytes per input byte for texts under 4 GiB (the table is the Viterbi's memory
  // traffic), 24 beyond.
  template <class Index>
  struct best {
    int32_t token_id;
    Index start;  // input offset where the token starts
    double score;
  };

  // Whether every sum of a Viterbi over `size` bytes from score `base` is exact (see
  // exact_limit_).
  bool exact(double base, size_t size) const noexcept {
    return std::fabs(base) + double(size + 1) * max_abs_score_ <= exact_limit_;
  }

  // The Viterbi over s[a, s.size()) starting from score `base`; appends the ids, returns
  // the best path's score.
  double viterbi_word(std::string_view s, size_t a, double base, std::vector<int32_t>& out) const {
    vector_sink sink{out};
    if (s.size() - a < UINT32_MAX) return viterbi_word<uint32_t>(s, a, base, sink);
    return viterbi_word<size_t>(s, a, base, sink);
  }
  // The Viterbi over all of s from score `base`, its ids written to dst (room for one per
  // byte of s) and counted in k.
  double viterbi_word(std::string_view s, double base, int32_t* dst, size_t& k) const {
    pointer_sink sink{dst};
    const double score = s.size() < UINT32_MAX ? viterbi_word<uint32_t>(s, 0, base, sink)
                                               : viterbi_word<size_t>(s, 0, base, sink);
    k = size_t(sink.end - dst);
    return score;
  }
  // Where a Viterbi's backtrack puts the ids, last first: then reverse() puts them in order.
  struct vector_sink {
    std::vector<int32_t>& out;
    size_t first = out.size();
    void push(int32_t id) { out.push_back(id); }
    void reverse() { std::reverse(out.begin() + static_cast<std::ptrdiff_t>(first), out.end()); }
  };
  struct pointer_sink {
    int32_t* begin;
    int32_t* end = begin;
    void push(int32_t id) noexcept { *end++ = id; }
    void reverse() noexcept { std::reverse(begin, end); }
  };

  // The Viterbi's table: per thread, kept between calls (a fresh vector per call costs
  // page faults on every call), released when it grew past 64 MiB; grown only (assign()
  // per word filled element by element, and resize() would value-initialize a grown tail
  // before the fill). It holds at least n + 1 entries, as the last call left them.
  template <class Index>
  static std::vector<best<Index>>& viterbi_table(size_t n) {
    thread_local std::vector<best<Index>> results;
    if (results.size() < n + 1) results.resize(n + 1);
    return results;
  }

  // Appends the best path ending at results[n] (backtracking, collapsing runs of unknown
  // tokens, then reversing); returns its score. Then releases the table past 64 MiB.
  template <class Index, class Sink>
  double backtrack(std::vector<best<Index>>& results, size_t n, Sink& out) const {
    bool prev_unknown = false;
    for (size_t at = n;;) {
      const best<Index>& b = results[at];
      const bool unknown = b.token_id == unk_;
      if (!(prev_unknown && unknown)) out.push(b.token_id);
      if (b.start == 0) break;
      prev_unknown = unknown;
      at = b.start;
    }
    out.reverse();
    const double score = results[n].score;
    if (results.capacity() * sizeof(best<Index>) > (size_t(64) << 20)) std::vector<best<Index>>().swap(results);
    return score;
  }

  // viterbi_word in pull form over dense_ (same steps, same candidates in the same order,
  // so the same path and score): at the end j of each step (one code point from pos), the
  // tokens ending at j are the automaton's outputs, longest first, that is in the order
  // of their starts, as the trie walk from each start offers them to j; then the unknown
  // token from pos when no token is that code point alone. A token starting inside a
  // code point (no step starts there) meets -inf there and never wins; every other
  // position before j was written by this call. Same steps as the trie walk: one table
  // load per byte instead of a walk per code point (ugm-sp-test, bench.txt: first call
  // 38.8 -> 36.4 ms, medians of 9 alternating runs).
  template <class Index, class Sink>
  double viterbi_dense(std::string_view s, size_t a, double base, Sink& out) const {
    double score = 0.0;
    viterbi_dense<Index, false>(s, a, base, out, score);
    return score;
  }
  // Where a viterbi_dense with Check stopped: the step's position and the automaton's
  // state there (pos = 0: none). The table up to pos stays as it left it (this thread's).
  struct dense_resume {
    size_t pos = 0;
    uint32_t state = 0;
  };
  // With Check, also stops and returns false at the first code point from s[a + checked]
  // on that `norm`'s normalize_into would not copy as it is (unchanged_at), before any id is
  // written: the raw word s[a + checked, s.size()) is then its own normalized form (see
  // tokenize_raw); `resume`, if given, then says where. Else returns true, the best path's
  // score in `score`. Given a `resume` with pos > 0 (from a stop on this thread, no
  // Viterbi since), the steps go on from there over s, whose bytes up to pos must be the
  // same (the normalized word that continues the raw one): the same steps as one run
  // over s from the start.
  template <class Index, bool Check, class Sink>
  bool viterbi_dense(std::string_view s, size_t a, double base, Sink& out, double& score, size_t checked = 0,
                     const ugm_normalizer* norm = nullptr, dense_resume* resume = nullptr) const {
    const size_t n = s.size() - a;
    std::vector<best<Index>>& table = viterbi_table<Index>(n);
    best<Index>* results = table.data();
    const auto* p = reinterpret_cast<const uint8_t*>(s.data() + a);
    size_t pos = 0;
    uint32_t state = 0;
    constexpr size_t no_run = SIZE_MAX;
    size_t run = no_run;  // where the run of dead steps (ugm_automaton::dead) up to pos began
    if (resume && resume->pos > 0) {
      pos = resume->pos;
      state = resume->state;
    } else {
      results[0] = {unk_, 0, base};
    }
    // results[pos].score, kept in a register: the next step's unknown token adds to it
    // without waiting for the store of the step before (a chain through memory per step)
    double at_pos = results[pos].score;
    while (pos < n) {
      const uint8_t c0 = p[pos];
      size_t cp_len = 1;
      if constexpr (Check) {
        // (the test of unchanged_at for an ASCII byte followed by one, inline)
        if (pos >= checked && !(norm->ascii_plain(c0) && (pos + 1 == n || p[pos + 1] < 0x80)) &&
            norm->unchanged_at(s.substr(a + checked), pos - checked) == 0) {
          if (resume) *resume = {pos, state};
          return false;
        }
      }
      if (c0 >= 0x80) cp_len = std::min(utf8_len(char(c0)), n - pos);
      if (dense_.dead(p + pos, cp_len)) {
        // As below with no output at the root: the unknown token from pos. The positions
        // inside the code point are left as they are: no token reaches back past its end.
        // In a run of such steps each entry points back to where the run began: the
        // backtrack collapses the run's unknown tokens into one all the same, in one step
        // instead of one per code point (and nothing else reads inside the run).
        state = 0;
        const double challenger = at_pos + unknown_score_;
        if (challenger > -DBL_MAX) {
          if (run == no_run) run = pos;
          results[pos + cp_len] = {unk_, Index(run), challenger};
          at_pos = challenger;
        } else {
          results[pos + cp_len] = {unk_, 0, -DBL_MAX};
          at_pos = -DBL_MAX;
          run = no_run;
        }
        pos += cp_len;
        continue;
      }
      run = no_run;
      state = dense_.step(state, c0);
      if (c0 >= 0x80) {
        for (size_t k = 1; k < cp_len; ++k) {
          state = dense_.step(state, p[pos + k]);
          results[pos + k].score = -std::numeric_limits<double>::infinity();  // no step starts here
        }
      }
      const size_t end = pos + cp_len;
      best<Index> champ{unk_, 0, -DBL_MAX};
      bool single_codepoint_found = false;
      for (const ugm_automaton::output& o : dense_.outputs(state)) {
        if (o.len == cp_len) single_codepoint_found = true;
        const double challenger = results[end - o.len].score + o.score;
        if (challenger > champ.score) champ = {o.id, Index(end - o.len), challenger};
      }
      if (!single_codepoint_found) {
        const double challenger = at_pos + unknown_score_;
        if (challenger > champ.score) champ = {unk_, Index(pos), challenger};
      }
      results[end] = champ;
      at_pos = champ.score;
      pos = end;
    }
    score = backtrack(table, n, out);
    return true;
  }

  template <class Index, class Sink>
  double viterbi_word(std::string_view s, size_t a, double base, Sink& out) const {
    if (dense_) return viterbi_dense<Index>(s, a, base, out);
    return viterbi_push<Index>(s, a, base, out, unknown_score_, [this](std::string_view t, size_t at, auto&& fn) {
      tokens_.for_each_prefix(t, at, [&](size_t len, int32_t id) { fn(len, id, static_cast<double>(scores_[size_t(id)])); });
    });
  }

  /// The tokens the Viterbi may pick (llama.cpp's token_matcher holds these).
  static constexpr bool is_candidate(token_type t) noexcept {
    return t == token_type::normal || t == token_type::user_defined || t == token_type::unused;
  }
  /// The score of the unknown token from the smallest score of a normal token (FLT_MAX
  /// when there is none), as llama.cpp: 10 below it, in float.
  static double unknown_score(float min_normal_score) noexcept {
    constexpr float unknown_token_score_penalty = 10.0f;
    return static_cast<double>(min_normal_score - unknown_token_score_penalty);
  }

  /// One Viterbi over all of s from score 0 (its ids appended to out) that needs none of
  /// the tables (not even candidates()): the candidates that are prefixes of s[pos..] are
  /// looked up in v's token map one length at a time up to max_len bytes (a loaded
  /// vocabulary's map holds every token text once), their scores read from v. The same
  /// candidates with the same scores as the trie walk, so the same path. For the few bytes
  /// a lazy model tokenizes before it builds its tables; `unknown` is unknown_score(...).
  void viterbi_plain(std::string_view s, const vocab_data& v, size_t max_len, double unknown,
                     std::vector<int32_t>& out) const {
    if (s.empty()) return;
    vector_sink sink{out};
    const auto by_map = [&](std::string_view t, size_t at, auto&& fn) {
      const size_t longest = std::min(max_len, t.size() - at);
      for (size_t len = 1; len <= longest; ++len) {
        const int32_t id = v.find(t.substr(at, len));
        if (id < 0) continue;
        const token_data& tok = v.tokens[size_t(id)];
        if (is_candidate(tok.type))
          fn(len, id, static_cast<double>(tok.type == token_type::user_defined ? 0.0f : tok.score));
      }
    };
    if (s.size() < UINT32_MAX) viterbi_push<uint32_t>(s, 0, 0.0, sink, unknown, by_map);
    else viterbi_push<size_t>(s, 0, 0.0, sink, unknown, by_map);
  }

  // The push form: from each code point's start, prefixes(s, at, fn) calls fn(len, id,
  // score) for every candidate that is a prefix of s[at..].
  template <class Index, class Sink, class Prefixes>
  double viterbi_push(std::string_view s, size_t a, double base, Sink& out, double unknown, Prefixes&& prefixes) const {
    using best = ugm_viterbi::best<Index>;
    const size_t n = s.size() - a;
    std::vector<best>& table = viterbi_table<Index>(n);
    best* results = table.data();
    std::fill_n(results, n + 1, best{unk_, 0, -DBL_MAX});
    results[0] = {unk_, 0, base};
    for (size_t pos = 0; pos < n;) {
      // (a branch for ASCII: the next position is then known before the byte's table
      // lookup, which would otherwise chain every step to the one before)
      const auto c0 = static_cast<uint8_t>(s[a + pos]);
      const size_t cp_len = c0 < 0x80 ? 1 : std::min(utf8_len(char(c0)), n - pos);
      const double from = results[pos].score;
      bool single_codepoint_found = false;
      prefixes(s, a + pos, [&](size_t len, int32_t id, double score) {
        if (len == cp_len) single_codepoint_found = true;
        const double challenger = from + score;
        best& champ = results[pos + len];
        if (challenger > champ.score) champ = {id, Index(pos), challenger};
      });
      if (!single_codepoint_found) {
        const double challenger = from + unknown;
        best& champ = results[pos + cp_len];
        if (challenger > champ.score) champ = {unk_, Index(pos), challenger};
      }
      pos += cp_len;
    }
    static_assert(sizeof(Index) != 4 || sizeof(best) == 16);
    return backtrack(table, n, out);
  }


 private:
  byte_trie tokens_;
  ugm_automaton dense_;  // over tokens_ for a small vocabulary (viterbi_dense), else empty
  // Per token id, as the Viterbi adds them (as doubles); floats halve the table a
  // Viterbi reads at random (a large vocabulary's stays in cache more).
  std::vector<float> scores_;
  double unknown_score_ = 0.0;
  double max_abs_score_ = 0.0;  // largest |score| of a candidate or the unknown token
  double exact_limit_ = -1.0;   // sums up to this magnitude are exact (prepare)
  int32_t unk_;
};

}  // namespace gguf::vocab_detail
