// SPM model: llama.cpp's llm_tokenizer_spm. The text (spaces already escaped to U+2581
// by the normalizer) is split into UTF-8 characters; adjacent symbols whose concatenation
// is a token merge, highest token score first; a final symbol that is not a token is
// emitted as byte tokens (<0xXX>, or the single-byte token).
//
// llama.cpp runs the whole fragment through one priority queue. We cut the fragment
// where no token text holds the two characters on either side of the cut (no merge can
// cross there, see word_split.h) and merge each word on its own; the ids of a word depend
// only on its bytes, so equal words are merged once per call (word_cache.h). The ids are
// identical; make_spm(v, false) keeps the single queue as the reference for the tests.
// The cut needs a filter of the character pairs of every token (~1 ms for 32k tokens, a
// quarter of a cold load); the loader's model (lazy) builds it only once its calls have
// brought more than spm_queue_bytes of text in all: a prompt goes through the one queue.
#include <array>
#include <atomic>
#include <mutex>
#include <string>

#include "vocab/models/byte_fallback.h"
#include "vocab/models/merge_queue.h"
#include "vocab/normalizer/normalizer.h"
#include "vocab/models/tokenizer_model.h"
#include "vocab/unicode/unicode.h"
#include "vocab/runtime/thread_scratch.h"
#include "vocab/runtime/word_cache.h"
#include "vocab/models/word_split.h"

namespace gguf::vocab_detail {
namespace {

class spm_model final : public tokenizer_model {
 public:
  spm_model(const vocab_data& v, bool split_words, bool lazy, size_t queue_bytes) : v_(v), split_words_(split_words) {
    // (a byte without a token: unk, where llama.cpp would throw; it keeps the input visible)
    byte_token_.load_or_find(v, "spm.bytes", byte_fallback::pieces::hex_then_raw, v.unk);
    if (!split_words_) return;
    if (lazy && !v.cache) {
      queue_budget_.store(int64_t(std::min<size_t>(queue_bytes, INT64_MAX / 2)), std::memory_order_relaxed);
      return;
    }
    load_or_build(
        v.cache, "spm.filter", [&](table_reader& r) { return filter_.load(r); }, [&] { build_filter(); },
        [&](table_writer& w) { filter_.save(w); });
    std::call_once(filter_built_, [] {});
    filter_ready_.store(true, std::memory_order_release);
  }

  // Normalizer: a space before the first fragment and after each special token
  // (add_space_prefix), then every space becomes U+2581.
  std::string_view normalize(std::string_view fragment, bool after_special, std::string& buf) const override {
    escape_whitespace(fragment, v_.add_space_prefix && after_special, buf);
    return buf;
  }

  /// Whether fragments are cut into words now (the filter is there).
  bool splits_words() const noexcept { return split_words_ && filter_ready_.load(std::memory_order_acquire); }

  void tokenize(std::string_view text, std::vector<int32_t>& out) const override {
    scratch& sc = thread_scratch<scratch>(instance_);
    if (!split_words_ || !filter_ready(text.size())) {
      merge_word(text, 0, text.size(), sc, out);
      return;
    }
    filter_.split(text, [&](size_t begin, size_t end) { cached_word(text, begin, end, sc, out); });
  }

 private:
  const uint64_t instance_ = next_model_instance();  // tags this thread's scratch (thread_scratch.h)
  // pairs of adjacent chunks inside a token (see word_split.h)
  void build_filter() {
    filter_ = pair_filter{};
    for (const token_data& t : v_.tokens) {
      const std::string_view s = t.text;
      size_t prev = 0, prev_len = 0;
      for (size_t off = 0; off < s.size(); off += chunk_len(s, off)) {
        if (off > 0) filter_.add(chunk_bits(s.data() + prev, prev_len), chunk_bits(s.data() + off, chunk_len(s, off)));
        prev = off, prev_len = chunk_len(s, off);
      }
    }
  }
  // Whether a fragment of `n` bytes is cut into words: once the filter is built, or when
  // it would take the model past its budget of text through the one queue (the filter is
  // then built, once, thread-safe). Else the fragment goes through the queue.
  bool filter_ready(size_t n) const {
    if (filter_ready_.load(std::memory_order_acquire)) return true;
    if (queue_budget_.fetch_sub(int64_t(n), std::memory_order_relaxed) > int64_t(n)) return false;
    std::call_once(filter_built_, [this] {
      const_cast<spm_model*>(this)->build_filter();
      filter_ready_.store(true, std::memory_order_release);
    });
    return true;
  }
  struct scratch {
    std::vector<symbol> syms;
    merge_scratch<float> merge;
    word_cache cache;
    // (thread_scratch, for another vocabulary: the other buffers hold nothing between
    // words)
    void clear() noexcept { cache.clear(); }
  };

  void cached_word(std::string_view text, size_t begin, size_t end, scratch& sc, std::vector<int32_t>& out) const {
    const std::string_view w = text.substr(begin, end - begin);
    if (w.size() > word_cache::max_word) return merge_word(text, begin, end, sc, out);
    const uint64_t h = text_hash(w);
    if (sc.cache.find(w, h, out)) return;
    const size_t first = out.size();
    merge_word(text, begin, end, sc, out);
    sc.cache.insert(w, h, out.data() + first, out.size() - first);
  }

  // llama.cpp's tokenize + resegment over text[begin, end).
  void merge_word(std::string_view text, size_t begin, size_t end, scratch& sc, std::vector<int32_t>& out) const {
    auto& syms = sc.syms;
    syms.clear();
    for (size_t off = begin; off < end;) {
      const size_t len = std::min(utf8_len(text[off]), end - off);
      symbol s;
      s.start = uint32_t(off);
      s.len = uint32_t(len);
      s.prev = int32_t(syms.size()) - 1;
      s.next = off + len == end ? -1 : int32_t(syms.size()) + 1;
      syms.push_back(s);
      off += len;
    }
    const uint32_t n_tokens = uint32_t(v_.tokens.size());
    merge_symbols<float>(
        syms,
        [&](const symbol& l, const symbol& r, pair_candidate<float>& pc) {
          const int32_t id = v_.find(text.substr(l.start, l.len + r.len));
          if (id < 0 || uint32_t(id) >= n_tokens) return false;
          pc.key = -v_.tokens[id].score;
          pc.merged = id;
          return true;
        },
        sc.merge);
    for (int32_t i = syms.empty() ? -1 : 0; i >= 0; i = syms[i].next) {
      const symbol& s = syms[i];
      // a merged symbol is the token found for its text; a single character may be one
      const int32_t id = s.piece >= 0 ? s.piece : v_.find(text.substr(s.start, s.len));
      if (id >= 0) {
        out.push_back(id);
        continue;
      }
      byte_token_.append(text.substr(s.start, s.len), out);
    }
  }

  const vocab_data& v_;
  bool split_words_;
  pair_filter filter_{pair_filter::deferred};  // (with split_words_: loaded or built with the model, or lazily)
  mutable std::once_flag filter_built_;
  mutable std::atomic<bool> filter_ready_{false};
  mutable std::atomic<int64_t> queue_budget_{0};  // a lazy model's bytes still merged by the one queue
  byte_fallback byte_token_;
};

}  // namespace

std::unique_ptr<tokenizer_model> make_spm(const vocab_data& v, bool split_words, bool lazy, size_t queue_bytes) {
  return std::make_unique<spm_model>(v, split_words, lazy, queue_bytes);
}

bool spm_splits_words(const tokenizer_model& m) noexcept {
  const auto* s = dynamic_cast<const spm_model*>(&m);
  return s && s->splits_words();
}

}  // namespace gguf::vocab_detail
