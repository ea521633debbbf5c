// Internal contract between the vocabulary loader and the tokenizer models (not installed).
//
// The pipeline (docs/architecture.md): the loader fills a vocab_data from the
// tokenizer.ggml.* keys and builds the tokenizer_model of its model row (model_table.h);
// tokenize.cpp splits the input on special tokens (parse_special) and runs every
// plain-text fragment through the same two stages, for every model type:
// tokenizer_model::normalize (the normalizer: U+2581 escaping and the SPM space prefix,
// BERT's clean-up/lowercasing/accent stripping, the UGM charsmap) then
// tokenizer_model::tokenize (pre-tokenizer + model), which appends token ids. BOS/EOS/SEP
// come from the row's special-token template, decoding from its decoder.
// Mirrors llama.cpp's llm_tokenizer_{spm,bpe,wpm,ugm,rwkv} + *_session split.
#pragma once

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "gguf/file.h"
#include "gguf/tokenizer_models.h"
#include "vocab/runtime/prefault.h"
#include "vocab/runtime/table_cache.h"
#include "vocab/runtime/token_table.h"

namespace gguf::vocab_detail {

// One enum each, the public ones (gguf/tokenizer_models.h).
using gguf::token_type;
using gguf::vocab_type;

inline constexpr int32_t no_token = gguf::token_null;

/// llama_token_attr bits (llama.h), after llama.cpp's load-time fix-ups.
enum token_attr : uint32_t {
  attr_undefined = 0,
  attr_unknown = 1 << 0,
  attr_unused = 1 << 1,
  attr_normal = 1 << 2,
  attr_control = 1 << 3,
  attr_user_defined = 1 << 4,
  attr_byte = 1 << 5,
  attr_normalized = 1 << 6,
  attr_lstrip = 1 << 7,
  attr_rstrip = 1 << 8,
  attr_single_word = 1 << 9,
};

static_assert(attr_single_word < (1 << 16), "token_attr bits fit vocab_data::attrs");

struct pre_preset;

// The steps of text_hash, shared with text_hash_padded (which must give the same value).
namespace text_hash_steps {
inline uint64_t seed(size_t n) noexcept { return 0x9E3779B97F4A7C15ull ^ (n * 0xFF51AFD7ED558CCDull); }
inline uint64_t word(uint64_t h, uint64_t w) noexcept {  // a whole 8-byte word
  h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
  return h ^ (h >> 31);
}
inline uint64_t tail(uint64_t h, uint64_t w) noexcept { return (h ^ w) * 0x94D049BB133111EBull; }  // 1..7 bytes
inline uint64_t finish(uint64_t h) noexcept {
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9ull;
  return h ^ (h >> 32);
}
}  // namespace text_hash_steps

/// 64-bit hash of a short byte string (word at a time; used for token texts).
inline uint64_t text_hash(std::string_view s) noexcept {
  namespace step = text_hash_steps;
  const char* p = s.data();
  size_t n = s.size();
  uint64_t h = step::seed(n);
  while (n >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h = step::word(h, w);
    p += 8;
    n -= 8;
  }
  if (n) {  // 1..7 bytes left: two overlapping loads, or three bytes (n is in the seed)
    uint64_t w;
    if (n >= 4) {
      uint32_t lo, hi;
      std::memcpy(&lo, p, 4);
      std::memcpy(&hi, p + n - 4, 4);
      w = lo | (uint64_t(hi) << 32);
    } else {
      w = uint64_t(uint8_t(p[0])) | (uint64_t(uint8_t(p[n >> 1])) << 8) | (uint64_t(uint8_t(p[n - 1])) << 16);
    }
    h = step::tail(h, w);
  }
  return step::finish(h);
}

/// text_hash(string_view(p, n)) where the 8 bytes from p may be read (the caller checks
/// p + 8 <= the end of its buffer): a short text (n < 8) is hashed from one 8-byte load,
/// its overlapping words picked out with shifts instead of branches on its length (the
/// texts of tokens and merge rules at load have every length).
inline uint64_t text_hash_padded(const char* p, size_t n) noexcept {
  namespace step = text_hash_steps;
  if (std::endian::native != std::endian::little || n >= 8) return text_hash(std::string_view(p, n));
  uint64_t x;
  std::memcpy(&x, p, 8);
  const unsigned s = unsigned(n);
  // 4..7 bytes: bytes 0..3, and bytes n-4..n-1 above them
  const uint64_t four = (x & 0xFFFFFFFFull) | (((x >> ((8 * (s - 4)) & 63)) & 0xFFFFFFFFull) << 32);
  // 1..3 bytes: bytes 0, n/2 and n-1
  const uint64_t three = (x & 0xFF) | (((x >> (8 * (s >> 1))) & 0xFF) << 8) | (((x >> ((8 * (s - 1)) & 63)) & 0xFF) << 16);
  const uint64_t h = step::seed(n);
  const uint64_t mixed = step::tail(h, s >= 4 ? four : three);
  return step::finish(s ? mixed : h);
}

/// memcmp(a, b, n) == 0 without a call, for the short texts of tokens, rules and words:
/// 8 bytes at a time, the last 8 overlapping; under 8 bytes, two overlapping 4-byte loads
/// or (under 4) the first, middle and last bytes, without a loop.
[[gnu::always_inline]] inline bool same_bytes(const char* a, const char* b, size_t n) noexcept {
  if (n < 8) {
    if (n >= 4) {
      uint32_t x0, y0, x1, y1;
      std::memcpy(&x0, a, 4);
      std::memcpy(&y0, b, 4);
      std::memcpy(&x1, a + n - 4, 4);
      std::memcpy(&y1, b + n - 4, 4);
      return ((x0 ^ y0) | (x1 ^ y1)) == 0;
    }
    if (n == 0) return true;
    return a[0] == b[0] && a[n >> 1] == b[n >> 1] && a[n - 1] == b[n - 1];
  }
  uint64_t x, y;
  for (size_t i = 0; i + 8 < n; i += 8) {
    std::memcpy(&x, a + i, 8);
    std::memcpy(&y, b + i, 8);
    if (x != y) return false;
  }
  std::memcpy(&x, a + n - 8, 8);
  std::memcpy(&y, b + n - 8, 8);
  return x == y;
}

/// Text -> id over the token texts of a vocabulary (an open-addressing table of ids; the
/// texts stay in the token array it was built from, which must outlive it and not move
/// its elements).
class token_map {
 public:
  token_map() = default;
  token_map(const token_map&) = delete;  // it points into the token array
  token_map& operator=(const token_map&) = delete;
  token_map(token_map&&) = default;
  token_map& operator=(token_map&&) = default;

  /// Indexes tokens[i].text -> i for every i, in order, hashing and prefetching a batch
  /// ahead so that the cache misses overlap. Returns tokens.size(), or the first i whose
  /// text is already present (the map then holds the texts before i). Texts inside
  /// `readable` (the mapped file they are views into) with 8 bytes there from their start
  /// are read 8 bytes at a time (text_hash_padded).
  size_t build(const token_table& tokens, std::span<const std::byte> readable = {}) {
    attach(tokens);
    if (const token_data* built = tokens.locator().built)  // the built form: one load a text, no form test
      return build_from(tokens.size(), [built](size_t i) { return built[i].text; }, readable);
    return build_from(tokens.size(), [&](size_t i) { return tokens.text(i); }, readable);
  }
  /// The same over an array of tokens (tests).
  size_t build(std::span<const token_data> tokens, std::span<const std::byte> readable = {}) {
    text_ = text_locator{tokens.data(), nullptr, nullptr};
    return build_from(tokens.size(), [&](size_t i) { return tokens[i].text; }, readable);
  }
  /// The tables for the compiled cache (table_cache.h).
  void save(table_writer& w) const {
    w.put_value(uint64_t(mask_));
    w.put_value(uint64_t(size_));
    w.put(slots_.span());
  }
  /// Maps the tables back over `tokens` (the array they were built from); false when
  /// they do not fit it.
  bool load(table_reader& r, const token_table& tokens) {
    uint64_t mask = 0, size = 0;
    std::span<const slot> slots;
    if (!r.get_value(mask) || !r.get_value(size) || !r.get(slots)) return false;
    if (slots.size() != mask + 1 || (slots.size() & mask) != 0 || size != tokens.size() || size >= slots.size())
      return false;
    attach(tokens);
    mask_ = size_t(mask), size_ = size_t(size);
    slots_.view(slots);
    return true;
  }

 private:
  template <class TextOf>
  size_t build_from(size_t n_tokens, TextOf&& text_of, std::span<const std::byte> readable) {
    const char* const lo = reinterpret_cast<const char*>(readable.data());
    const char* const last = readable.size() >= 8 ? lo + readable.size() - 8 : nullptr;  // last start of 8 bytes
    const auto padded = [&](std::string_view t) { return t.data() >= lo && t.data() <= last; };
    size_ = 0;
    const size_t n = n_tokens;
    size_t cap = 16;
    while (cap * 2 < n * 3) cap <<= 1;  // load factor <= 2/3
    table_vector<slot> slots = prefaulted_table(cap, slot{});
    mask_ = cap - 1;
    constexpr size_t batch = 64;
    uint64_t hashes[batch], prefixes[batch];
    size_t result = n;
    for (size_t base = 0; base < n && result == n; base += batch) {
      const size_t m = std::min(batch, n - base);
      for (size_t j = 0; j < m; ++j) {
        const std::string_view t = text_of(base + j);
        if (padded(t)) {
          hashes[j] = text_hash_padded(t.data(), t.size());
          prefixes[j] = prefix_padded(t);
        } else {
          hashes[j] = text_hash(t);
          prefixes[j] = prefix(t);
        }
        __builtin_prefetch(&slots[hashes[j] & mask_], 1);
      }
      for (size_t j = 0; j < m && result == n; ++j) {
        const std::string_view text = text_of(base + j);
        const uint64_t pre = prefixes[j];
        for (size_t i = hashes[j] & mask_;; i = (i + 1) & mask_) {
          const slot& s = slots[i];
          if (s.id_plus_1 == 0) {
            slots[i] = {pre, uint32_t(text.size()), uint32_t(base + j + 1)};
            ++size_;
            break;
          }
          if (same(s, pre, text)) {
            result = base + j;
            break;
          }
        }
      }
    }
    slots_.adopt(std::move(slots));
    return result;
  }

 public:
  /// The id of `text`, or -1.
  int32_t find_id(std::string_view text) const noexcept { return find_id(text, text_hash(text)); }
  /// The same, with `h` = text_hash(text) computed by the caller.
  int32_t find_id(std::string_view text, uint64_t h) const noexcept {
    if (size_ == 0) return -1;
    const uint64_t pre = prefix(text);
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      const slot& s = slots_[i];
      if (s.id_plus_1 == 0) return -1;
      if (same(s, pre, text)) return int32_t(s.id_plus_1 - 1);
    }
  }
  /// Starts loading the home slot of hash `h` (a lookup a few words ahead). Always
  /// inlined, so that GCC cannot drop its calls (word_cache.h, prefetch_slot).
  [[gnu::always_inline]] void prefetch(uint64_t h) const noexcept {
    if (size_ != 0) __builtin_prefetch(&slots_[h & mask_]);
  }
  size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }

 private:
  struct slot {  // all zero = empty (no member initializers: a table over zero pages is not written)
    uint64_t prefix;  // first 8 bytes, zero padded
    uint32_t len;
    uint32_t id_plus_1;  // 0 = empty
  };
  // The first 8 bytes in memory order, zero padded: a short text is read with one or two
  // overlapping loads (a copy of a variable length goes through the stack, and the load
  // after it stalls).
  static uint64_t prefix(std::string_view t) noexcept {
    const char* p = t.data();
    const size_t n = t.size();
    uint64_t w = 0;
    if (n >= 8) {
      std::memcpy(&w, p, 8);
    } else if constexpr (std::endian::native == std::endian::little) {
      if (n >= 4) {
        uint32_t lo, hi;
        std::memcpy(&lo, p, 4);
        std::memcpy(&hi, p + n - 4, 4);
        w = lo | (uint64_t(hi) << (8 * (n - 4)));
      } else if (n) {
        w = uint64_t(uint8_t(p[0])) | (uint64_t(uint8_t(p[n >> 1])) << (8 * (n >> 1))) |
            (uint64_t(uint8_t(p[n - 1])) << (8 * (n - 1)));
      }
    } else {
      std::memcpy(&w, p, n);
    }
    return w;
  }
  // prefix(t) where 8 bytes from t.data() may be read: one load, the bytes past t masked.
  static uint64_t prefix_padded(std::string_view t) noexcept {
    if constexpr (std::endian::native != std::endian::little) return prefix(t);
    uint64_t w;
    std::memcpy(&w, t.data(), 8);
    const size_t n = t.size();
    return n >= 8 ? w : w & ((uint64_t(1) << (8 * n)) - 1);
  }
  bool same(const slot& s, uint64_t pre, std::string_view t) const noexcept {
    if (s.len != t.size() || s.prefix != pre) return false;
    return t.size() <= 8 || same_bytes(text_(s.id_plus_1 - 1) + 8, t.data() + 8, t.size() - 8);
  }
  void attach(const token_table& tokens) { text_ = tokens.locator(); }
  pod_table<slot> slots_;
  size_t mask_ = 0;
  size_t size_ = 0;
  text_locator text_;  // the texts of the tokens the map was built over
};

struct vocab_data {
  vocab_type type = vocab_type::none;
  std::string pre;  ///< tokenizer.ggml.pre as stored (after llama.cpp's defaulting)
  token_table tokens;  ///< index = token id (runtime/token_table.h: built, or placed on a cache hit)
  std::vector<uint16_t> attrs;      ///< index = token id: token_attr bits as llama.cpp ends up with them
  token_map token_to_id;  ///< over `tokens` (built once they are final)
  /// BPE merges: tokenizer.ggml.merges in place (an array of "left right" strings, rank =
  /// index, lower merges first); empty when the file has none. The merge table is built
  /// straight from it.
  gguf::array_ref merges;
  std::span<const std::byte> precompiled_charsmap;  ///< UGM normalizer blob, may be empty

  int32_t bos = no_token, eos = no_token, eot = no_token, eom = no_token, unk = no_token,
          sep = no_token, pad = no_token, mask = no_token, cls = no_token, nl = no_token;
  bool add_bos = false, add_eos = false, add_sep = false;
  bool add_space_prefix = false;
  bool remove_extra_whitespaces = false;
  bool escape_whitespaces = true;          ///< UGM: replace ' ' by U+2581
  bool treat_whitespace_as_suffix = false; ///< UGM
  /// WPM normalizer (llama.cpp's normalizer_options): tokenizer.ggml.normalizer.lowercase,
  /// default true; tokenizer.ggml.normalizer.strip_accents, default = lowercase.
  bool lowercase = true;
  bool strip_accents = true;
  std::vector<std::string> owned_text;     ///< storage for texts that are not file views

  // BPE (and loader) details, llama.cpp's llama_vocab::impl fields of the same names.
  const pre_preset* preset = nullptr;  ///< BPE pre-tokenizer (nullptr for other models)
  bool ignore_merges = false;
  bool clean_spaces = false;
  uint32_t max_token_len = 0;  ///< longest token text in bytes
  /// What the loader finds in the score and type columns (set only by the loader, for
  /// UGM): the lazy UGM model reads these instead of a pass of its own over a large token
  /// table (ugm.cpp's plain forms; nomic-bert-moe: 0.65 ms).
  struct token_facts {
    float min_normal_score = FLT_MAX;   ///< smallest score of a normal token (FLT_MAX: none)
    std::vector<int32_t> user_defined;  ///< ids of the user-defined tokens, ascending
  };
  std::optional<token_facts> facts;

  int32_t find(std::string_view text) const { return token_to_id.find_id(text); }

  /// The compiled tokenizer cache while the vocabulary loads (nullptr: build everything).
  table_cache* cache = nullptr;
  /// The bytes of the file the texts are views into (the merge table keeps offsets).
  std::span<const std::byte> file_bytes;
  /// Where each token's text starts in the tokens array, for the compiled cache's
  /// "tokens.text" table (vocab_load.cpp): kept by a load that writes the cache, until
  /// it is written; empty otherwise.
  std::vector<uint32_t> text_starts;
};

/// One tokenizer model: its normalizer and its pre-tokenizer + model. Built once per
/// vocabulary (may precompute tries, tables); const and thread-safe.
class tokenizer_model {
 public:
  virtual ~tokenizer_model() = default;
  /// The normalizer stage: the text the model tokenizes for one plain-text fragment,
  /// either `fragment` itself or a view of `buf`. `after_special` is true for the first
  /// fragment and for one that follows a special token (SPM adds its space prefix there).
  virtual std::string_view normalize(std::string_view fragment, bool after_special, std::string& buf) const {
    (void)after_special, (void)buf;
    return fragment;
  }
  /// The model stage: appends the ids of a normalized fragment.
  virtual void tokenize(std::string_view normalized, std::vector<int32_t>& out) const = 0;
  /// True when every id tokenize() appends is surely a token of the vocabulary (in
  /// [0, tokens.size())), checked when the model was built: vocab::impl::tokenize_into then
  /// checks only the ids it adds itself instead of every id of the text (a pass over the
  /// output: 7 MB for bench.txt). False (the default) when the model does not prove it, for
  /// example when it may fall back to an unknown token the vocabulary lacks.
  virtual bool ids_in_range() const noexcept { return false; }
  /// Both stages.
  void run(std::string_view fragment, bool after_special, std::vector<int32_t>& out) const {
    std::string buf;
    tokenize(normalize(fragment, after_special, buf), out);
  }
};

/// split_words = false runs each fragment through one merge queue, as llama.cpp does (the
/// reference the word-splitting fast path is tested against; see spm.cpp).
/// lazy = true (the loader's row; not with the compiled cache, which maps or saves the
/// filter now): the word-split filter (~1 ms for 32k tokens) is built only once the calls
/// have brought more than `queue_bytes` of text in all; until then each fragment goes
/// through the one queue (the same ids). `v` must outlive the model.
inline constexpr size_t spm_queue_bytes = 4096;
std::unique_ptr<tokenizer_model> make_spm(const vocab_data& v, bool split_words = true, bool lazy = false,
                                          size_t queue_bytes = spm_queue_bytes);
/// split_words = false merges each pre-tokenized word whole, as llama.cpp does (the
/// reference the fast path of bpe.cpp is tested against). lazy = true (the loader's row;
/// not with the compiled cache, which saves the tables now): a vocabulary that could merge
/// by token-id pairs (bpe_pairs.h) merges through the text table, which is cheaper to
/// build, until the bytes of the words it has merged, in all calls, reach a quarter of
/// the rule count, and only then builds the id-pair table (thread-safe; the same ids
/// either way). `v` must outlive the model.
std::unique_ptr<tokenizer_model> make_bpe(const vocab_data& v, bool split_words = true, bool lazy = false);
/// True when `m` is an SPM model that cuts fragments into words now (for tests).
bool spm_splits_words(const tokenizer_model& m) noexcept;
/// True when `m` is a BPE model that merges by token-id pairs (bpe_pairs.h; for tests).
bool bpe_merges_by_ids(const tokenizer_model& m) noexcept;
/// How many characters `m` (a BPE model merging by ids) has so far found it may take as
/// one token from the start (whole_char_table; for tests).
size_t bpe_whole_chars(const tokenizer_model& m) noexcept;
/// lazy = true builds the tables when a call first needs them (not with the compiled
/// cache): `v` must outlive the model, and its token map be built. The loader's row does
/// so, so that a load that never tokenizes (detokenize, info) does not pay for the trie,
/// nor one that tokenizes less than `map_bytes` of text in all: those pieces are found
/// through the token map (the same ids; tests/vocab/test_wpm.cpp compares both ways).
inline constexpr size_t wpm_map_bytes = 2048;
std::unique_ptr<tokenizer_model> make_wpm(const vocab_data& v, bool lazy = false, size_t map_bytes = wpm_map_bytes);
/// word_by_word = false runs one Viterbi over each normalized fragment, as llama.cpp does
/// (the reference the word-by-word Viterbi and its cache are tested against; see ugm.cpp).
/// lazy = true (not with the compiled cache) builds the tries, the automaton and the
/// charsmap's tables only once the normalized text tokenized in all would pass
/// `plain_bytes`: until then each fragment goes through llama.cpp's plain loops (the
/// charsmap walked, the candidates looked up in the token map by length; the same ids),
/// so that a process that tokenizes a few words does not pay for them. A fragment takes
/// them when its raw and its normalized size both fit in what is left; its normalized
/// size is charged. `v` must outlive the model and its token map be built; the loader's
/// row does so, with the budget ugm_plain_bytes.
std::unique_ptr<tokenizer_model> make_ugm(const vocab_data& v, bool word_by_word = true, bool dense_viterbi = true,
                                          bool lazy = false, size_t plain_bytes = 0);
/// The loader's budget for a vocabulary of n_tokens: about where the plain forms have
/// cost what building the tables costs (the build grows with the vocabulary). Measured
/// whole-process against main's eager build, prose: ugm-sp-test (1,000 tokens) 0.2 ms
/// a KiB plain, 0.7 ms to build, even at ~3 KiB; nomic-bert-moe (250k) 1 ms a KiB, ~35
/// ms, even at ~35 KiB.
constexpr size_t ugm_plain_bytes(size_t n_tokens) noexcept { return 2048 + n_tokens / 10; }
/// fast = false matches through the byte trie, a longest-match walk per token, as llama.cpp
/// does (the reference the flat tables of rwkv_matcher.h are tested against). lazy = true
/// (with fast, without the compiled cache) builds the tables at the first tokenize call
/// of more than one byte: `v` must outlive the model. The loader's row does so, so that a
/// load pays for them only when it tokenizes.
std::unique_ptr<tokenizer_model> make_rwkv(const vocab_data& v, bool fast = true, bool lazy = false);

}  // namespace gguf::vocab_detail
