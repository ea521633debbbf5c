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
// The normalizer is ugm_normalizer.h, the Viterbi ugm_viterbi.h; this file holds the
// model: its tables from the compiled cache or built, the flags that pick a path, and the
// word-by-word drivers with their caches (exact while the sums are, see ugm_viterbi.h).
#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>

#include "vocab/models/tokenizer_model.h"
#include "vocab/models/ugm_trie.h"
#include "vocab/models/ugm_viterbi.h"
#include "vocab/normalizer/ugm_normalizer.h"
#include "vocab/runtime/id_writer.h"
#include "vocab/runtime/thread_scratch.h"
#include "vocab/runtime/word_cache.h"
#include "vocab/unicode/unicode.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gguf::vocab_detail {

namespace {

constexpr bool is_candidate(token_type t) noexcept { return ugm_viterbi::is_candidate(t); }

class ugm_model final : public tokenizer_model {
 public:
  // lazy (without the compiled cache, or with a hit): the tables are built once the
  // normalized text tokenized in all would pass `plain_bytes` (make_ugm); until then each
  // fragment is normalized and tokenized by the plain forms (ugm_normalizer::
  // normalize_plain, ugm_viterbi::viterbi_plain), which need none of them. `v` must then
  // outlive the model. A hit's tries are mapped now (the cache is read only while the
  // vocabulary loads); what is built from them (the automaton, the byte tables) waits. A
  // miss builds everything now, so that the cache file gets every table.
  ugm_model(const vocab_data& v, bool word_by_word, bool dense_viterbi, bool lazy, size_t plain_bytes)
      : norm_(v, /*tables=*/!(lazy && (!v.cache || v.cache->hit()))),
        vit_(v.unk),
        word_by_word_(word_by_word),
        dense_viterbi_(dense_viterbi) {
    if (lazy && (!v.cache || v.cache->hit())) {
      if (v.cache) load_tries(v);
      data_ = &v;
      plain_budget_.store(int64_t(std::min<size_t>(plain_bytes, INT64_MAX / 2)), std::memory_order_relaxed);
      prepare_plain(v);
      return;
    }
    build(v);
    std::call_once(built_once_, [] {});
    built_.store(true, std::memory_order_release);
  }

  // With raw_words_, the normalizer runs inside tokenize, word by word (tokenize_raw); in
  // a lazy model always (tokenize_lazy). (data_ first: a lazy model's raw_words_ may be
  // being written by the build on another thread.)
  std::string_view normalize(std::string_view fragment, bool, std::string& buf) const override {
    if (data_ || raw_words_) return fragment;
    norm_.normalize_into(fragment, buf);
    return buf;
  }

  void tokenize(std::string_view text, std::vector<int32_t>& out) const override {
    if (data_) tokenize_lazy(text, out);
    else if (raw_words_) tokenize_raw(text, out);
    else viterbi(text, out);
  }

  bool ids_in_range() const noexcept override { return built_.load(std::memory_order_acquire) && ids_in_range_; }

 private:
  // The tables and the flags that pick a path.
  void build(const vocab_data& v) {
    if (data_) norm_.build_tables();
    if (!tries_loaded_) load_tries(v);
    const text_facts& facts = facts_;
    cut_at_separator_ = facts.cut_at_separator;
    ids_in_range_ = vit_.prepare(v, dense_viterbi_);
    norm_.prepare();
    raw_words_ = word_by_word_ && cut_at_separator_ && norm_.escape_whitespaces() && norm_.remove_extra_whitespaces() &&
                 !norm_.treat_whitespace_as_suffix() && norm_.space_unchanged() && !facts.space_inside_user_defined &&
                 !facts.charsmap_across_space;
    if (raw_words_) norm_.set_word_ends(inner_);
  }

  // The two tries and what the texts tell (text_facts) from the compiled cache, or built
  // (and saved with a cache).
  void load_tries(const vocab_data& v) {
    text_facts& facts = facts_;
    ugm_ascii_inner& inner = inner_;
    tries_loaded_ = true;
    load_or_build(
        v.cache, "ugm.tries",
        [&](table_reader& r) {
          return vit_.candidates().load(r) && norm_.user_defined().load(r) && r.get_value(facts) && r.get_value(inner);
        },
        [&] { build_tries(v, facts, inner); },
        [&](table_writer& w) {
          vit_.candidates().save(w);
          norm_.user_defined().save(w);
          w.put_value(facts);
          w.put_value(inner);
        });
  }

  // What the plain forms need: the user-defined texts, a bound on the candidates' length
  // and the unknown token's score, from the loader's facts (else one pass over the tokens).
  void prepare_plain(const vocab_data& v) {
    if (v.facts && v.max_token_len > 0) {
      for (const int32_t id : v.facts->user_defined) plain_user_defined_.push_back(v.tokens[size_t(id)].text);
      plain_max_len_ = v.max_token_len;
      plain_unknown_ = ugm_viterbi::unknown_score(v.facts->min_normal_score);
      return;
    }
    float min_score = FLT_MAX;
    for (const token_data& t : v.tokens) {
      if (t.type == token_type::normal) min_score = std::min(min_score, t.score);
      if (t.type == token_type::user_defined) plain_user_defined_.push_back(t.text);
      if (is_candidate(t.type)) plain_max_len_ = std::max(plain_max_len_, t.text.size());
    }
    plain_unknown_ = ugm_viterbi::unknown_score(min_score);
  }

  // A lazy model's call (`text` is the fragment as it was given: normalize() left it as
  // it is): the plain forms while the budget lasts, else the tables (built by the first
  // call that needs them; thread-safe) and the paths of an eager model.
  void tokenize_lazy(std::string_view text, std::vector<int32_t>& out) const {
    if (!built_.load(std::memory_order_acquire)) {
      // The budget counts the normalized bytes (the Viterbi's work: a charsmap replacement
      // may be ten times its input), the raw ones first bound what is normalized.
      if (int64_t(std::min<size_t>(text.size(), INT64_MAX / 2)) <= plain_budget_.load(std::memory_order_relaxed)) {
        std::string normalized;
        norm_.normalize_plain(text, normalized, plain_user_defined_);
        const auto n = int64_t(normalized.size());
        if (plain_budget_.fetch_sub(n, std::memory_order_relaxed) >= n) {
          vit_.viterbi_plain(normalized, *data_, plain_max_len_, plain_unknown_, out);
          return;
        }
      }
      std::call_once(built_once_, [this] {
        const_cast<ugm_model*>(this)->build(*data_);
        built_.store(true, std::memory_order_release);
      });
    }
    if (raw_words_) {
      tokenize_raw(text, out);
      return;
    }
    scratch& sc = thread_scratch<scratch>(instance_);
    norm_.normalize_into(text, sc.text);
    viterbi(sc.text, out);
    if (sc.text.capacity() > (size_t(64) << 20)) std::string().swap(sc.text);
  }

  // The normalized text is cut before each separator (U+2581, or ' ' without escaping)
  // when no candidate token holds the separator past its first byte: no token then spans
  // a cut, so the best path passes through every cut and the Viterbi runs word by word,
  // each word starting from the score the path reached (the same sums as one Viterbi
  // over the whole text). Runs of unknown tokens collapse across words too.
  void viterbi(std::string_view s, std::vector<int32_t>& out) const {
    if (s.empty()) return;
    if (!cut_at_separator_ || !word_by_word_) {
      vit_.viterbi_word(s, 0, 0.0, out);
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
      const bool cacheable = vit_.exact(base, w.size()) && w.size() <= word_cache_t::max_word;
      double delta = 0.0;
      if (cacheable && sc.cache.find(w, wd.h, out, &delta)) {
        base += delta;
      } else {
        const double end = vit_.viterbi_word(s.substr(0, wd.b), wd.a, base, out);
        if (cacheable) sc.cache.insert(w, wd.h, out.data() + first, out.size() - first, end - base);
        base = end;
      }
      collapse_unknown(out, fragment_first, first);
    }
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
        while (scan < n && norm_.word_break(text, scan)) ++scan;
        if (scan == n) break;
        size_t end = scan + 1;
        if (norm_.low_word_ends()) {
          for (;; ++end) {  // every break byte is at most ' ': 16 bytes at a time to each
            end = next_control_or_space(text, end);
            if (end == n || norm_.word_break(text, end)) break;
          }
        } else {
          while (end < n && !norm_.word_break(text, end)) ++end;
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
          vit_.exact(base, e.extra.normalized_size)) {
        base += e.extra.delta;
        id_writer::copy_ids(out.room(e.n), e.ids, e.n);
        append_collapsed(out, start, e.n);
        continue;
      }
      double end_score;
      size_t k;  // the word's ids, at out.room()
      size_t separators = 0;
      const plain p = vit_.has_dense() ? plain_word_viterbi(w, base, sc.word, out, end_score, k, separators) : plain::no;
      if (p == plain::done) {
        // (sc.word: U+2581 and the word, its normalized form)
      } else if (p == plain::misaligned ||
                 (p == plain::no && !norm_.normalize_into(w, sc.word, &separators) &&
                  !ugm_normalizer::ends_on_code_point(sc.word))) {
        out.truncate(start);
        norm_.normalize_into(text, sc.word);
        viterbi(sc.word, out.finish());
        break;
      } else if (separators <= 1 && !sc.word.empty()) {
        // One separator (the word's U+2581): no cut to look for (a U+2581 of the text
        // itself would allow one, which the Viterbi over the whole word does not need).
        // An empty word (all of it normalized away) gives nothing. (At most one id per
        // step, a step per byte.)
        end_score = vit_.viterbi_word(sc.word, base, out.room(sc.word.size()), k);
      } else {
        sc.ids.clear();
        end_score = viterbi_segments(sc.word, base, sc.ids);
        k = sc.ids.size();
        if (k) std::memcpy(out.room(k), sc.ids.data(), 4 * k);
      }
      const int32_t* ids = out.data() + out.size();
      if (short_word && vit_.exact(base, sc.word.size())) {
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
  // At the first code point that is not copied as it is, the rest of the word is
  // normalized onto the part before it (normalize_into from there) and, when that adds no
  // separator and ends on a code point, the Viterbi goes on from that point over the
  // normalized word (done): the steps before it are the same. Else the word's normalized
  // form is in `word` and its separators counted (normalized, or misaligned: it may not
  // end on a code point), with no id counted in `out`. Words over max_plain_word bytes
  // (the Viterbi's table would be sized for a word that may fail at its first code point)
  // and a first code point not copied as it is: no (normalize_into decides).
  // Not inlined: inside tokenize_raw its registers spill into the cached words' path.
  // ugm-sp-test, bench.txt's first call: 93% of the new words (1.70 of 1.97 MB) take it;
  // 49.8 -> 47.6 ms with the id check tokenize_into skips for this model (ids_in_range),
  // medians of 10 alternating runs of 7 each. (Inlined, the same code saved about 0.5 ms.)
  // On CJK text, full-width punctuation (U+FF0C ...) stops most words midway: going on
  // from there instead of normalizing and stepping through the whole word again saves
  // (cli_vs_llama.py's cjk.txt) about a fifth of the process.
  enum class plain { done, no, normalized, misaligned };
  static constexpr size_t max_plain_word = size_t(1) << 16;
  [[gnu::noinline]] plain plain_word_viterbi(std::string_view w, double base, std::string& word, id_writer& out,
                                             double& end_score, size_t& k, size_t& separators) const {
    if (w.size() > max_plain_word) return plain::no;
    const size_t esc = escaped_space.size();
    word.assign(escaped_space);
    word.append(w);
    int32_t* dst = out.room(word.size());  // (at most one id per step, a step per byte)
    ugm_viterbi::pointer_sink sink{dst};
    ugm_viterbi::dense_resume resume;
    if (vit_.viterbi_dense<uint32_t, true>(word, 0, base, sink, end_score, esc, &norm_, &resume)) {
      k = size_t(sink.end - dst);
      return plain::done;
    }
    if (resume.pos <= esc) return plain::no;
    word.resize(resume.pos);
    const bool aligned = norm_.normalize_into(w, word, &separators, resume.pos - esc);
    if (!aligned && !ugm_normalizer::ends_on_code_point(word)) return plain::misaligned;
    if (separators > 1) return plain::normalized;
    dst = out.room(word.size());
    ugm_viterbi::pointer_sink rest{dst};
    vit_.viterbi_dense<uint32_t, false>(word, 0, base, rest, end_score, 0, nullptr, &resume);
    k = size_t(rest.end - dst);
    return plain::done;
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

  // A run of unknown tokens across the cut before ids[first] is one unknown token
  // (ids[start, first) came before it in the same fragment): whether ids[first], which
  // exists, is to be dropped.
  bool joins_unknown_run(const int32_t* ids, size_t start, size_t first) const noexcept {
    return first > start && ids[first] == vit_.unk() && ids[first - 1] == vit_.unk();
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
      base = vit_.viterbi_word(s.substr(0, b), a, base, out);
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


  // What the token texts and the charsmap tell the tokenizer (saved with the tries).
  struct text_facts {
    bool cut_at_separator = true;            // no candidate holds the separator past byte 0
    bool space_inside_user_defined = false;  // a user-defined token holds ' ' past byte 0
    bool charsmap_across_space = false;      // ugm_charsmap::may_map_across_space
  };
  // What the texts tell and the two tries, built from the token array and the charsmap.
  void build_tries(const vocab_data& v, text_facts& facts, ugm_ascii_inner& inner) {
    std::vector<byte_trie::entry> user_defined;
    const std::string_view sep = separator_;
    for (size_t id = 0; id < v.tokens.size(); ++id) {
      const token_data& t = v.tokens[id];
      if (is_candidate(t.type)) {
        // a token holding the separator past its first byte could span a cut
        if (facts.cut_at_separator && t.text.size() > sep.size() &&
            std::memchr(t.text.data() + 1, sep[0], t.text.size() - 1) != nullptr &&
            t.text.find(sep, 1) != std::string_view::npos)
          facts.cut_at_separator = false;
      }
      if (t.type == token_type::user_defined) {
        user_defined.push_back({t.text, static_cast<int32_t>(id)});
        if (t.text.size() > 1 && t.text.find(' ', 1) != std::string_view::npos) facts.space_inside_user_defined = true;
        for (size_t k = 1; k < t.text.size(); ++k) inner.set(static_cast<uint8_t>(t.text[k]));
      }
    }
    uint64_t labels[4];
    norm_.charsmap().inner_labels(labels);
    facts.charsmap_across_space = (labels[0] >> ' ') & 1;
    inner.bits[0] |= labels[0];
    inner.bits[1] |= labels[1];
    // the candidates straight from the token array (no copy of their texts' views)
    vit_.candidates() = byte_trie(v.tokens.size(), [&](size_t id) {
      const token_data& t = v.tokens[id];
      return byte_trie::entry{is_candidate(t.type) ? t.text : std::string_view(), static_cast<int32_t>(id)};
    });
    norm_.user_defined() = byte_trie(std::move(user_defined));
  }

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
    std::string text;  // a normalized fragment (tokenize_lazy)
    std::vector<int32_t> ids;  // its ids
    void clear() noexcept {  // (thread_scratch, for another vocabulary)
      cache.clear();
      raw_cache.clear();
    }
  };

  ugm_normalizer norm_;
  ugm_viterbi vit_;
  std::string_view separator_ = norm_.escape_whitespaces() ? escaped_space : std::string_view(" ");
  bool cut_at_separator_ = true;  // no candidate token can span a cut (viterbi)
  bool word_by_word_ = true;      // false: one Viterbi per fragment, as llama.cpp
  bool raw_words_ = false;        // tokenize_raw applies (constructor)
  bool ids_in_range_ = false;     // ids_in_range() (build)
  bool dense_viterbi_ = true;     // the automaton is built where it applies (build)
  text_facts facts_;              // (load_tries)
  ugm_ascii_inner inner_;         // (load_tries)
  bool tries_loaded_ = false;     // load_tries ran
  // A lazy model (tokenize_lazy): its vocabulary, the bytes it may still tokenize by the
  // plain forms, what they need (prepare_plain); whether the tables are built.
  const vocab_data* data_ = nullptr;
  mutable std::atomic<int64_t> plain_budget_{0};
  std::vector<std::string_view> plain_user_defined_;
  size_t plain_max_len_ = 0;
  double plain_unknown_ = 0.0;
  mutable std::once_flag built_once_;
  mutable std::atomic<bool> built_{false};
};

}  // namespace

std::unique_ptr<tokenizer_model> make_ugm(const vocab_data& v, bool word_by_word, bool dense_viterbi, bool lazy,
                                          size_t plain_bytes) {
  return std::make_unique<ugm_model>(v, word_by_word, dense_viterbi, lazy, plain_bytes);
}

}  // namespace gguf::vocab_detail
