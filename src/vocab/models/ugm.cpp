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
#include <array>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>

#include "vocab/models/tokenizer_model.h"
#include "vocab/runtime/id_writer.h"
#include "vocab/normalizer/normalizer.h"
#include "vocab/models/ugm_automaton.h"
#include "vocab/normalizer/ugm_charsmap.h"
#include "vocab/runtime/thread_scratch.h"
#include "vocab/models/ugm_trie.h"
#include "vocab/unicode/unicode.h"
#include "vocab/runtime/word_cache.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gguf::vocab_detail {

namespace {

constexpr float unknown_token_score_penalty = 10.0f;

// The tokens the Viterbi may pick (llama.cpp's token_matcher holds these).
constexpr bool is_candidate(token_type t) noexcept {
  return t == token_type::normal || t == token_type::user_defined || t == token_type::unused;
}

class ugm_model final : public tokenizer_model {
 public:
  ugm_model(const vocab_data& v, bool word_by_word, bool dense_viterbi)
      : charsmap_(v.precompiled_charsmap),
        unk_(v.unk),
        escape_whitespaces_(v.escape_whitespaces),
        treat_whitespace_as_suffix_(v.treat_whitespace_as_suffix),
        add_space_prefix_(v.add_space_prefix),
        remove_extra_whitespaces_(v.remove_extra_whitespaces),
        word_by_word_(word_by_word) {
    float min_score = FLT_MAX;
    // The two tries and what the texts tell (text_facts) from the compiled cache, or
    // built (and saved) below.
    text_facts facts;
    ascii_inner inner;
    const bool cached = v.cache && v.cache->load("ugm.tries", [&](table_reader& r) {
      return tokens_.load(r) && user_defined_.load(r) && r.get_value(facts) && r.get_value(inner);
    });
    std::vector<byte_trie::entry> user_defined;
    scores_.resize(v.tokens.size());
    const std::string_view sep = separator_;
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
      const auto i = static_cast<int32_t>(id);
      if (t.type == token_type::normal) min_score = std::min(min_score, t.score);
      if (t.type == token_type::normal || t.type == token_type::unused) note_score(t.score);
      scores_[id] = t.type == token_type::user_defined ? 0.0f : t.score;
      if (cached) continue;
      if (is_candidate(t.type)) {
        // a token holding the separator past its first byte could span a cut
        if (facts.cut_at_separator && t.text.size() > sep.size() &&
            std::memchr(t.text.data() + 1, sep[0], t.text.size() - 1) != nullptr &&
            t.text.find(sep, 1) != std::string_view::npos)
          facts.cut_at_separator = false;
      }
      if (t.type == token_type::user_defined) {
        user_defined.push_back({t.text, i});
        if (t.text.size() > 1 && t.text.find(' ', 1) != std::string_view::npos) facts.space_inside_user_defined = true;
        for (size_t k = 1; k < t.text.size(); ++k) inner.set(static_cast<uint8_t>(t.text[k]));
      }
    }
    if (!cached) {
      uint64_t labels[4];
      charsmap_.inner_labels(labels);
      facts.charsmap_across_space = (labels[0] >> ' ') & 1;
      inner.bits[0] |= labels[0];
      inner.bits[1] |= labels[1];
      // the candidates straight from the token array (no copy of their texts' views)
      tokens_ = byte_trie(v.tokens.size(), [&](size_t id) {
        const token_data& t = v.tokens[id];
        return byte_trie::entry{is_candidate(t.type) ? t.text : std::string_view(), static_cast<int32_t>(id)};
      });
      user_defined_ = byte_trie(std::move(user_defined));
      if (v.cache)
        v.cache->save("ugm.tries", [&](table_writer& w) {
          tokens_.save(w);
          user_defined_.save(w);
          w.put_value(facts);
          w.put_value(inner);
        });
    }
    cut_at_separator_ = facts.cut_at_separator;
    const float unknown = min_score - unknown_token_score_penalty;
    note_score(unknown);
    unknown_score_ = static_cast<double>(unknown);
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
        return size_t(id) < scores_.size() ? static_cast<double>(scores_[size_t(id)]) : 0.0;  // (else see ids_in_range_)
      });
    // With the automaton every Viterbi's ids are its outputs' or the unknown token's (the
    // tries may come from the compiled cache, so the outputs are checked here).
    ids_in_range_ = dense_ && unk_ >= 0 && size_t(unk_) < v.tokens.size() && dense_.ids_below(v.tokens.size());
    // Bytes that may start a code point normalize_prefix returns as it is: not ' ', not
    // the first byte of a user-defined token, ASCII or a UTF-8 lead byte (the charsmap and
    // the sequence's validity are checked per code point).
    for (uint32_t b = 0; b < 0xF5; ++b)
      passes_[b] = b != ' ' && (b < 0x80 || b >= 0xC2) && user_defined_.child(0, uint8_t(b)) == byte_trie::npos;
    space_unchanged_ = user_defined_.child(0, uint8_t(' ')) == byte_trie::npos;
    for (uint32_t c1 = 0; c1 < 256; ++c1) space_unmapped_before_[c1] = charsmap_.surely_unmapped(' ', uint8_t(c1));
    space_alone_ = std::all_of(space_unmapped_before_.begin(), space_unmapped_before_.end(), [](bool b) { return b; });
    for (uint32_t b = 0; b < 0x80; ++b) ascii_plain_[b] = passes_[b] && charsmap_.unmapped_before_ascii(uint8_t(b));
    raw_words_ = word_by_word_ && cut_at_separator_ && escape_whitespaces_ && remove_extra_whitespaces_ &&
                 !treat_whitespace_as_suffix_ && space_unchanged_ && !facts.space_inside_user_defined &&
                 !facts.charsmap_across_space;
    // With raw words, bytes other than ' ' that end a word as a pure space does: an ASCII
    // byte the charsmap maps alone to spaces whatever follows, that no mapped input holds
    // past its first byte, that no user-defined token starts with or holds (then no
    // normalization step reads across it, and it normalizes to a word's end: '\n', '\t'
    // and '\r' in NMT-style charsmaps).
    for (uint32_t c = 1; c < 0x80 && raw_words_; ++c)
      word_end_[c] = c != ' ' && charsmap_.maps_alone_to_spaces(uint8_t(c)) && !inner.has(uint8_t(c)) &&
                     user_defined_.child(0, uint8_t(c)) == byte_trie::npos;
    low_word_ends_ = std::find(word_end_.begin() + ' ' + 1, word_end_.end(), true) == word_end_.end();
  }

  // With raw_words_, the normalizer runs inside tokenize, word by word (tokenize_raw).
  std::string_view normalize(std::string_view fragment, bool, std::string& buf) const override {
    if (raw_words_) return fragment;
    normalize_into(fragment, buf);
    return buf;
  }

  void tokenize(std::string_view text, std::vector<int32_t>& out) const override {
    if (raw_words_) tokenize_raw(text, out);
    else viterbi(text, out);
  }

  bool ids_in_range() const noexcept override { return ids_in_range_; }

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

  // The length of the code point at `pos` (< in.size()) when normalize_prefix would return
  // it unchanged and it is not a space (the exact conditions of its first branches), else 0.
  size_t unchanged_at(std::string_view in, size_t pos) const noexcept {
    const size_t n = in.size();
    const auto c0 = static_cast<uint8_t>(in[pos]);
    if (ascii_plain_[c0] && (pos + 1 == n || static_cast<uint8_t>(in[pos + 1]) < 0x80)) return 1;
    if (!passes_[c0]) return 0;
    const auto c1 = pos + 1 < n ? static_cast<uint8_t>(in[pos + 1]) : uint8_t{0};
    const auto c2 = pos + 2 < n ? static_cast<uint8_t>(in[pos + 2]) : uint8_t{0};
    if (!charsmap_.surely_unmapped(c0, c1, c2)) return 0;
    if (c0 < 0x80) return 1;
    uint32_t cpt = 0;
    return utf8_decode_strict(in, pos, cpt);
  }

  // The end of the run of code points from `pos` on that normalize_prefix would return
  // unchanged and that hold no space.
  size_t unchanged_run(std::string_view in, size_t pos) const noexcept {
    const size_t n = in.size();
    while (pos < n) {
      const size_t len = unchanged_at(in, pos);
      if (len == 0) break;
      pos += len;
    }
    return pos;
  }

  // Returns true when the Viterbi's steps (one UTF-8 sequence each) surely end exactly at
  // the end of `out`: every piece appended does by itself (unchanged code points, spaces,
  // U+FFFD, replacements that end on a code point), so the steps start at each piece in
  // turn; false when one may not (then ends_on_code_point tells). `separators`, when
  // given, receives how many separators (U+2581 or ' ') it appended.
  bool normalize_into(std::string_view in, std::string& out, size_t* separators = nullptr) const {
    bool aligned = true;
    size_t n_separators = 0;
    out.clear();
    out.reserve(in.size() * 3);
    const std::string_view space = escape_whitespaces_ ? escaped_space : std::string_view(" ");
    const bool prepend_space = !treat_whitespace_as_suffix_ && add_space_prefix_;
    const bool append_space = treat_whitespace_as_suffix_ && add_space_prefix_;
    const bool merge_spaces = remove_extra_whitespaces_;
    bool space_prepended = false;
    bool in_word = false;
    const auto start_word = [&] {
      in_word = true;
      if ((prepend_space && !space_prepended) || merge_spaces) {
        out.append(space);
        ++n_separators;
        space_prepended = true;
      }
    };
    const size_t n = in.size();
    for (size_t pos = 0; pos < n;) {
      if (const size_t end = unchanged_run(in, pos); end > pos) {  // code points passing as they are
        if (!in_word) start_word();
        out.append(in.data() + pos, end - pos);
        pos = end;
        continue;
      }
      if (space_unchanged_ && pure_space(in, pos)) {
        in_word = false;  // what the loop below does with a ' ' normalize_prefix returns as it is
        if (!merge_spaces) out.append(space), ++n_separators;
        ++pos;
        continue;
      }
      const piece p = normalize_prefix(in, pos);
      pos += p.consumed;
      if (p.bytes.empty()) continue;
      if (std::find(p.bytes.begin(), p.bytes.end(), ' ') == p.bytes.end()) {
        if (!in_word) start_word();
        out.append(p.bytes);
        if (aligned) aligned = ends_on_code_point(p.bytes);
        continue;
      }
      aligned = false;  // (the piece's spaces change what is appended)
      for (const char c : p.bytes) {
        if (c != ' ') {
          if (!in_word) start_word();
          out.push_back(c);
        } else {
          in_word = false;
          if (!merge_spaces) out.append(space), ++n_separators;
        }
      }
    }
    if (append_space) out.append(space), ++n_separators;
    if (separators) *separators = n_separators;
    return aligned;
  }

  // 16 bytes per input byte for texts under 4 GiB (the table is the Viterbi's memory
  // traffic), 24 beyond.
  template <class Index>
  struct best {
    int32_t token_id;
    Index start;  // input offset where the token starts
    double score;
  };

  // The normalized text is cut before each separator (U+2581, or ' ' without escaping)
  // when no candidate token holds the separator past its first byte: no token then spans
  // a cut, so the best path passes through every cut and the Viterbi runs word by word,
  // each word starting from the score the path reached (the same sums as one Viterbi
  // over the whole text). Runs of unknown tokens collapse across words too.
  void viterbi(std::string_view s, std::vector<int32_t>& out) const {
    if (s.empty()) return;
    if (!cut_at_separator_ || !word_by_word_) {
      viterbi_word(s, 0, 0.0, out);
      return;
    }
    scratch& sc = thread_scratch<scratch>(instance_);
    const size_t fragment_first = out.size();
    // Words are found `ahead` words before they are tokenized, so that their cache slots
    // are already loading (most words are found in the cache).
    constexpr size_t ahead = 16, mask = ahead - 1;
    struct word {
      size_t a, b;
      uint64_t h;  // text_hash of a word short enough to cache
    };
    word queue[ahead];
    size_t found = 0, done = 0, scan = 0;
    double base = 0.0;
    while (done < found || scan < s.size()) {
      while (found - done < ahead && scan < s.size()) {
        word& nw = queue[found & mask];
        nw.a = scan;
        nw.b = scan = next_cut(s, scan);
        nw.h = nw.b - nw.a <= word_cache_t::max_word ? text_hash(s.substr(nw.a, nw.b - nw.a)) : 0;
        if (nw.h) sc.cache.prefetch_slot(nw.h);
        ++found;
      }
      const word wd = queue[done++ & mask];
      const std::string_view w = s.substr(wd.a, wd.b - wd.a);
      const size_t first = out.size();
      // A word's ids and score do not depend on the score before it while every sum
      // stays exact (see exact_limit_): then a cached word stands in for its Viterbi.
      const bool cacheable = exact(base, w.size()) && w.size() <= word_cache_t::max_word;
      double delta = 0.0;
      if (cacheable && sc.cache.find(w, wd.h, out, &delta)) {
        base += delta;
      } else {
        const double end = viterbi_word(s.substr(0, wd.b), wd.a, base, out);
        if (cacheable) sc.cache.insert(w, wd.h, out.data() + first, out.size() - first, end - base);
        base = end;
      }
      collapse_unknown(out, fragment_first, first);
    }
  }

  // A ' ' that normalizes alone to nothing but the end of a word (merged spaces): nothing
  // maps it, alone or with the byte after it.
  // (Where nothing maps a space with any byte after it, the byte after is not read: the
  // raw-word scan of both UGM vocabularies of the test data, bench.txt's all-cached call
  // 138.3M -> 124.8M instructions.)
  bool pure_space(std::string_view text, size_t pos) const noexcept {
    return text[pos] == ' ' &&
           (space_alone_ || space_unmapped_before_[pos + 1 < text.size() ? static_cast<uint8_t>(text[pos + 1]) : 0]);
  }

  // A pure space or a byte of word_end_: a raw word ends before it.
  bool word_break(std::string_view text, size_t pos) const noexcept {
    return word_end_[static_cast<uint8_t>(text[pos])] || pure_space(text, pos);
  }

  // raw_words_: no normalization step reads across a pure space, and merged spaces
  // normalize to nothing, so the normalized text is the concatenation of each raw word's
  // normalized form (U+2581 and the word), a cut before each: a raw word's ids and score
  // are a function of its bytes (while the sums are exact) and are cached under them,
  // which skips normalizing the words found in the cache. A word whose normalized form
  // ends inside a UTF-8 sequence would shift the Viterbi's steps past it: the fragment is
  // then tokenized as a whole (viterbi).
  void tokenize_raw(std::string_view text, std::vector<int32_t>& vec) const {
    scratch& sc = thread_scratch<scratch>(instance_);
    id_writer out(vec);
    const size_t start = out.size(), n = text.size();
    double base = 0.0;
    // Words are found `ahead` words before they are looked up, their cache slots loading
    // meanwhile (as in viterbi).
    constexpr size_t ahead = 16, mask = ahead - 1;
    struct word {
      size_t a, b;
      uint64_t h;   // hash of a word short enough to cache (short_key_hash or text_hash), else 0
      short_key k;  // a short word's key
    };
    word queue[ahead];
    size_t found = 0, done = 0, scan = 0;
    sc.raw_cache.reserve(n / 32);  // (bench corpus: a distinct word per 36 bytes)
    for (;;) {
      while (found - done < ahead) {
        while (scan < n && word_break(text, scan)) ++scan;
        if (scan == n) break;
        size_t end = scan + 1;
        if (low_word_ends_) {
          for (;; ++end) {  // every break byte is at most ' ': 16 bytes at a time to each
            end = next_control_or_space(text, end);
            if (end == n || word_break(text, end)) break;
          }
        } else {
          while (end < n && !word_break(text, end)) ++end;
        }
        word& nw = queue[found & mask];
        const size_t len = end - scan;
        nw.a = scan;
        nw.b = end;
        if (len <= short_key::max_len) {
          nw.k = short_key_of(text, scan, len);
          nw.h = short_key_hash(nw.k, len);
        } else {
          nw.h = len <= raw_cache_t::max_word ? text_hash(text.substr(scan, len)) : 0;
        }
        scan = end;
        if (nw.h) sc.raw_cache.prefetch_slot(nw.h);
        ++found;
      }
      if (done == found) break;
      const word& wd = queue[done++ & mask];  // (not refilled before the next word)
      const std::string_view w(text.data() + wd.a, wd.b - wd.a);
      const uint64_t h = wd.h;
      const bool short_word = w.size() <= raw_cache_t::max_word;
      raw_cache_t::entry e;
      if (short_word &&
          (w.size() <= short_key::max_len ? sc.raw_cache.lookup_short(wd.k, w.size(), h, e) : sc.raw_cache.lookup(w, h, e)) &&
          exact(base, e.extra.normalized_size)) {
        base += e.extra.delta;
        id_writer::copy_ids(out.room(e.n), e.ids, e.n);
        append_collapsed(out, start, e.n);
        continue;
      }
      double end_score;
      size_t k;  // the word's ids, at out.room()
      size_t separators = 0;
      if (dense_ && plain_word_viterbi(w, base, sc.word, out, end_score, k)) {
        // (sc.word: U+2581 and the word, its normalized form)
      } else if (!normalize_into(w, sc.word, &separators) && !ends_on_code_point(sc.word)) {
        out.truncate(start);
        normalize_into(text, sc.word);
        viterbi(sc.word, out.finish());
        break;
      } else if (separators <= 1 && !sc.word.empty()) {
        // One separator (the word's U+2581): no cut to look for (a U+2581 of the text
        // itself would allow one, which the Viterbi over the whole word does not need).
        // An empty word (all of it normalized away) gives nothing. (At most one id per
        // step, a step per byte.)
        end_score = viterbi_word(sc.word, base, out.room(sc.word.size()), k);
      } else {
        sc.ids.clear();
        end_score = viterbi_segments(sc.word, base, sc.ids);
        k = sc.ids.size();
        if (k) std::memcpy(out.room(k), sc.ids.data(), 4 * k);
      }
      const int32_t* ids = out.data() + out.size();
      if (short_word && exact(base, sc.word.size())) {
        const raw_entry re{end_score - base, sc.word.size()};
        if (w.size() <= short_key::max_len) sc.raw_cache.insert_short(wd.k, w.size(), h, ids, k, re);
        else sc.raw_cache.insert(w, h, ids, k, re);
      }
      base = end_score;
      append_collapsed(out, start, k);
    }
    if (sc.word.capacity() > (size_t(64) << 20)) std::string().swap(sc.word);  // a huge word's buffer
    if (sc.ids.capacity() > (size_t(16) << 20)) std::vector<int32_t>().swap(sc.ids);
  }

  // A raw word (tokenize_raw) whose every code point normalize_into copies as it is
  // normalizes to U+2581 and its bytes: the dense Viterbi then runs over those (written to
  // `word`) and checks each code point as it steps, instead of after normalize_into's own
  // pass over the word. Its ids go to out.room() (k of them), its score to end_score.
  // Returns false, with no id counted in `out`, at the first code point that is not copied
  // as it is (then normalize_into decides), and for words over max_plain_word bytes (the
  // Viterbi's table would be sized for a word that may fail at its first code point).
  // Not inlined: inside tokenize_raw its registers spill into the cached words' path.
  // ugm-sp-test, bench.txt's first call: 93% of the new words (1.70 of 1.97 MB) take it;
  // 49.8 -> 47.6 ms with the id check tokenize_into skips for this model (ids_in_range),
  // medians of 10 alternating runs of 7 each. (Inlined, the same code saved about 0.5 ms.)
  static constexpr size_t max_plain_word = size_t(1) << 16;
  [[gnu::noinline]] bool plain_word_viterbi(std::string_view w, double base, std::string& word, id_writer& out,
                                            double& end_score, size_t& k) const {
    if (w.size() > max_plain_word) return false;
    word.assign(escaped_space);
    word.append(w);
    int32_t* dst = out.room(word.size());  // (at most one id per step, a step per byte)
    pointer_sink sink{dst};
    if (!viterbi_dense<uint32_t, true>(word, 0, base, sink, end_score, escaped_space.size())) return false;
    k = size_t(sink.end - dst);
    return true;
  }

  // Counts the n ids just placed at out.room() as written, the first dropped as
  // collapse_unknown drops it.
  void append_collapsed(id_writer& out, size_t start, size_t n) const noexcept {
    if (n == 0) return;
    const size_t first = out.size();
    int32_t* d = out.data();
    if (joins_unknown_run(d, start, first)) {
      std::memmove(d + first, d + first + 1, 4 * (n - 1));
      --n;
    }
    out.commit(n);
  }

  // The first byte at or after `pos` that is at most ' ' (a control byte or a space), or
  // text.size().
  static size_t next_control_or_space(std::string_view text, size_t pos) noexcept {
    const size_t n = text.size();
#if defined(__SSE2__)
    const __m128i space = _mm_set1_epi8(' ');
    for (; pos + 16 <= n; pos += 16) {
      const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + pos));
      // x <= ' ' (unsigned) exactly when min(x, ' ') == x
      const auto low = static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(x, space), x)));
      if (low) return pos + static_cast<size_t>(__builtin_ctz(low));
    }
#endif
    while (pos < n && static_cast<uint8_t>(text[pos]) > ' ') ++pos;
    return pos;
  }

  // Whether every sum of a Viterbi over `size` bytes from score `base` is exact (see
  // exact_limit_).
  bool exact(double base, size_t size) const noexcept {
    return std::fabs(base) + double(size + 1) * max_abs_score_ <= exact_limit_;
  }

  // The Viterbi's steps (one UTF-8 sequence each) end exactly at the end of s.
  static bool ends_on_code_point(std::string_view s) noexcept {
    size_t pos = 0;
    while (pos < s.size()) pos += utf8_len(s[pos]);
    return pos == s.size();
  }

  // A run of unknown tokens across the cut before ids[first] is one unknown token
  // (ids[start, first) came before it in the same fragment): whether ids[first], which
  // exists, is to be dropped.
  bool joins_unknown_run(const int32_t* ids, size_t start, size_t first) const noexcept {
    return first > start && ids[first] == unk_ && ids[first - 1] == unk_;
  }
  void collapse_unknown(std::vector<int32_t>& out, size_t start, size_t first) const {
    if (out.size() > first && joins_unknown_run(out.data(), start, first))
      out.erase(out.begin() + static_cast<std::ptrdiff_t>(first));
  }

  // The Viterbi over s cut by cut (uncached), from score `base`; returns the final score.
  double viterbi_segments(std::string_view s, double base, std::vector<int32_t>& out) const {
    const size_t start = out.size();
    for (size_t a = 0; a < s.size();) {
      const size_t b = next_cut(s, a);
      const size_t first = out.size();
      base = viterbi_word(s.substr(0, b), a, base, out);
      collapse_unknown(out, start, first);
      a = b;
    }
    return base;
  }

  // The next cut after `a`: a code point start (as the Viterbi steps through s) where the
  // separator begins, or s.size().
  size_t next_cut(std::string_view s, size_t a) const {
    const size_t n = s.size();
    const std::string_view sep = separator_;
    const auto sep0 = static_cast<uint8_t>(sep[0]);
    size_t pos = a + std::min(utf8_len(s[a]), n - a);
    // no byte of the separator's first value after the first step: no cut (most words)
    if (pos >= n || std::memchr(s.data() + pos, sep0, n - pos) == nullptr) return n;
    if (sep0 >= 0x80) {  // U+2581: ASCII bytes are skipped 8 at a time
      while (pos < n) {
        if (pos + 8 <= n) {
          uint64_t w;
          std::memcpy(&w, s.data() + pos, 8);
          if ((w & 0x8080808080808080ull) == 0) {
            pos += 8;
            continue;
          }
        }
        const auto c = static_cast<uint8_t>(s[pos]);
        if (c < 0x80) {
          ++pos;
          continue;
        }
        if (c == sep0 && s.compare(pos, sep.size(), sep) == 0) return pos;
        pos += std::min(utf8_len(char(c)), n - pos);
      }
      return n;
    }
    for (; pos < n;) {
      const char c = s[pos];
      if (c == sep[0] && s.compare(pos, sep.size(), sep) == 0) return pos;
      pos += std::min(utf8_len(c), n - pos);
    }
    return n;
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
  // With Check, also stops and returns false at the first code point from s[a + checked]
  // on that normalize_into would not copy as it is (unchanged_at), before any id is
  // written: the raw word s[a + checked, s.size()) is then its own normalized form (see
  // tokenize_raw). Else returns true, the best path's score in `score`.
  template <class Index, bool Check, class Sink>
  bool viterbi_dense(std::string_view s, size_t a, double base, Sink& out, double& score, size_t checked = 0) const {
    const size_t n = s.size() - a;
    std::vector<best<Index>>& table = viterbi_table<Index>(n);
    best<Index>* results = table.data();
    results[0] = {unk_, 0, base};
    const auto* p = reinterpret_cast<const uint8_t*>(s.data() + a);
    uint32_t state = 0;
    for (size_t pos = 0; pos < n;) {
      const uint8_t c0 = p[pos];
      size_t cp_len = 1;
      state = dense_.step(state, c0);
      if constexpr (Check) {
        // (the test of unchanged_at for an ASCII byte followed by one, inline)
        if (pos >= checked && !(ascii_plain_[c0] && (pos + 1 == n || p[pos + 1] < 0x80)) &&
            unchanged_at(s.substr(a + checked), pos - checked) == 0)
          return false;
      }
      if (c0 >= 0x80) {
        cp_len = std::min(utf8_len(char(c0)), n - pos);
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
        const double challenger = results[pos].score + unknown_score_;
        if (challenger > champ.score) champ = {unk_, Index(pos), challenger};
      }
      results[end] = champ;
      pos = end;
    }
    score = backtrack(table, n, out);
    return true;
  }

  template <class Index, class Sink>
  double viterbi_word(std::string_view s, size_t a, double base, Sink& out) const {
    if (dense_) return viterbi_dense<Index>(s, a, base, out);
    using best = ugm_model::best<Index>;
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
      tokens_.for_each_prefix(s, a + pos, [&](size_t len, int32_t id) {
        if (len == cp_len) single_codepoint_found = true;
        const double challenger = from + static_cast<double>(scores_[static_cast<size_t>(id)]);
        best& champ = results[pos + len];
        if (challenger > champ.score) champ = {id, Index(pos), challenger};
      });
      if (!single_codepoint_found) {
        const double challenger = from + unknown_score_;
        best& champ = results[pos + cp_len];
        if (challenger > champ.score) champ = {unk_, Index(pos), challenger};
      }
      pos += cp_len;
    }
    static_assert(sizeof(Index) != 4 || sizeof(best) == 16);
    return backtrack(table, n, out);
  }

  // What the token texts and the charsmap tell the tokenizer (saved with the tries).
  // The ASCII bytes a mapped input (ugm_charsmap::inner_labels) or a user-defined token
  // holds past its first byte: bit c of bits[c >> 6] (saved with the tries).
  struct ascii_inner {
    uint64_t bits[2] = {0, 0};
    void set(uint8_t c) noexcept {
      if (c < 0x80) bits[c >> 6] |= uint64_t{1} << (c & 63);
    }
    bool has(uint8_t c) const noexcept { return c < 0x80 && ((bits[c >> 6] >> (c & 63)) & 1); }
  };
  struct text_facts {
    bool cut_at_separator = true;            // no candidate holds the separator past byte 0
    bool space_inside_user_defined = false;  // a user-defined token holds ' ' past byte 0
    bool charsmap_across_space = false;      // ugm_charsmap::may_map_across_space
  };
  using word_cache_t = basic_word_cache<double>;  // a word's ids and Viterbi score
  struct raw_entry {
    double delta;            // the Viterbi score of the word
    size_t normalized_size;  // the size of its normalized form
  };
  using raw_cache_t = basic_word_cache<raw_entry, true>;  // a raw word's ids (tokenize_raw)
  const uint64_t instance_ = next_model_instance();  // tags this thread's scratch (thread_scratch.h)
  struct scratch {
    word_cache_t cache;
    raw_cache_t raw_cache;
    std::string word;  // a normalized word (tokenize_raw)
    std::vector<int32_t> ids;  // its ids
    void clear() noexcept {  // (thread_scratch, for another vocabulary)
      cache.clear();
      raw_cache.clear();
    }
  };

  ugm_charsmap charsmap_;
  byte_trie tokens_;
  byte_trie user_defined_;
  ugm_automaton dense_;  // over tokens_ for a small vocabulary (viterbi_dense), else empty
  // Per token id, as the Viterbi adds them (as doubles); floats halve the table a
  // Viterbi reads at random (a large vocabulary's stays in cache more).
  std::vector<float> scores_;
  std::array<bool, 256> passes_{};  // bytes normalization copies as they are (constructor)
  std::array<bool, 256> ascii_plain_{};  // ASCII bytes it copies when an ASCII byte follows
  std::array<bool, 256> word_end_{};  // bytes besides pure spaces that end a raw word (constructor)
  std::array<bool, 256> space_unmapped_before_{};  // charsmap_.surely_unmapped(' ', c1) by c1 (pure_space)
  bool low_word_ends_ = true;  // no byte above ' ' in word_end_ (tokenize_raw's word scan)
  bool space_alone_ = false;  // every entry of space_unmapped_before_ (pure_space)
  bool space_unchanged_ = false;  // no user-defined token starts with ' ' 
  double unknown_score_ = 0.0;
  double max_abs_score_ = 0.0;  // largest |score| of a candidate or the unknown token
  double exact_limit_ = -1.0;   // sums up to this magnitude are exact (constructor)
  int32_t unk_;
  bool escape_whitespaces_, treat_whitespace_as_suffix_, add_space_prefix_, remove_extra_whitespaces_;
  std::string_view separator_ = escape_whitespaces_ ? escaped_space : std::string_view(" ");
  bool cut_at_separator_ = true;  // no candidate token can span a cut (viterbi)
  bool word_by_word_ = true;      // false: one Viterbi per fragment, as llama.cpp
  bool raw_words_ = false;        // tokenize_raw applies (constructor)
  bool ids_in_range_ = false;     // ids_in_range() (constructor)
};

}  // namespace

std::unique_ptr<tokenizer_model> make_ugm(const vocab_data& v, bool word_by_word, bool dense_viterbi) {
  return std::make_unique<ugm_model>(v, word_by_word, dense_viterbi);
}

}  // namespace gguf::vocab_detail
