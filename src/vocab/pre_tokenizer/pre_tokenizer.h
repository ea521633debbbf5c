// Pre-tokenizers of byte-level BPE vocabularies (internal).
//
// A preset is a row of data: an ordered list of split rules (regexes applied one after
// the other, each splitting every piece the previous one produced) and whether the
// pieces are then mapped through the GPT-2 byte alphabet. The presets and the
// tokenizer.ggml.pre names that select them are transcribed from llama.cpp
// (llama-vocab.cpp llm_tokenizer_bpe and llama_vocab::impl::load), see presets.cpp.
//
// Regex semantics follow llama.cpp's unicode_regex_split: a regex that uses a Unicode
// category (\p{N} \p{L} \p{P} \p{M} \p{S} \p{Lu} ...) runs over a "collapsed" text where
// each non-ASCII code point is replaced by one byte standing for its category, and the
// category escapes by [that byte + the ASCII members]; other regexes run over the code
// points with non-ASCII whitespace replaced by \v. Matching is ECMAScript-like
// (leftmost-first backtracking, as std::regex), done with PCRE2 (32-bit code units, no
// UTF/UCP, $ only at the end). Some regexes have hand-written equivalents in llama.cpp
// (split_kind other than `regex`); they are chosen by the row, never by comparing
// pattern strings, and tests compare them with the generic path.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gguf::vocab_detail {

enum class split_kind : uint8_t {
  regex,         ///< generic: the pattern through PCRE2
  gpt2,          ///< llama.cpp unicode_regex_split_custom_gpt2
  llama3,        ///< ... _llama3
  qwen2,         ///< ... _qwen2
  kimi_k2,       ///< ... _kimi_k2 (stands for the whole K2 regex)
  afmoe_digits,  ///< ... _afmoe (digit runs split in groups of 3 from the right)
  newlines,      ///< ... _newlines: runs of '\n' and runs of anything else
};

struct split_rule {
  std::string_view pattern;  ///< the regex (UTF-8); documents the fast path too
  split_kind kind = split_kind::regex;
};

/// One pre-tokenizer (llama.cpp's LLAMA_VOCAB_PRE_TYPE_*).
struct pre_preset {
  std::string_view id;  ///< llama.cpp's name of the pre type, lowercase ("llama3", "qwen2", ...)
  std::span<const split_rule> rules;
  bool byte_encode = true;  ///< map the pieces through the GPT-2 byte alphabet
  // The quirks llama.cpp attaches to a pre type (checked by name there):
  bool newline_runs_whole = false;  ///< a piece of only '\n' is looked up whole, not merged (gemma4)
  bool force_add_bos = false;       ///< add_bos is forced on, with a warning (gemma4)
  bool keep_case = false;           ///< tokenizer.ggml.normalizer.lowercase defaults to false (whitespace)
};

/// Flags a tokenizer.ggml.pre name sets besides its preset (llama.cpp load()).
enum pre_flag : uint8_t {
  pre_keep_spaces = 1,    ///< clean_spaces = false
  pre_ignore_merges = 2,  ///< a piece that is a whole token is not merged
  pre_add_bos = 4,        ///< add_bos default true
  pre_add_sep = 8,        ///< add_sep default true
  pre_escape_ws = 16,     ///< escape_whitespaces (spaces -> U+2581 before BPE)
  pre_no_bos = 32,        ///< bos id defaults to none
  pre_merges_optional = 64,  ///< tokenizer.ggml.merges may be absent (kimi-k2)
};

struct pre_name {
  std::string_view name;  ///< value of tokenizer.ggml.pre
  const pre_preset* preset;
  uint8_t flags;
};

/// Every preset llama.cpp knows (for tests and docs).
std::span<const pre_preset> all_presets();
/// Every tokenizer.ggml.pre value llama.cpp accepts.
std::span<const pre_name> all_pre_names();
/// The row for a tokenizer.ggml.pre value, or nullptr if llama.cpp does not know it.
const pre_name* find_pre_name(std::string_view name);
/// The preset llama.cpp uses when tokenizer.ggml.pre is absent ("default").
const pre_preset& default_preset();

/// A compiled preset. Thread-safe: split() is const and uses per-thread scratch.
class pre_tokenizer {
 public:
  /// Compiles every rule; `force_generic` runs even the hand-written kinds through PCRE2
  /// (for differential tests). Throws std::runtime_error if a pattern does not compile.
  explicit pre_tokenizer(const pre_preset& preset, bool force_generic = false);
  ~pre_tokenizer();
  pre_tokenizer(const pre_tokenizer&) = delete;
  pre_tokenizer& operator=(const pre_tokenizer&) = delete;

  /// Splits `cpts` into pieces; `lengths` receives the length of each piece in code
  /// points (they add up to cpts.size(); zero lengths may occur, as in llama.cpp).
  void split(std::span<const uint32_t> cpts, std::vector<size_t>& lengths) const;

  /// Splits UTF-8 text into pieces, each re-encoded as UTF-8 (invalid bytes become
  /// U+FFFD) and, if the preset says so, mapped through the byte alphabet.
  void split_text(std::string_view text, std::vector<std::string>& pieces) const;

  const pre_preset& preset() const { return preset_; }

 private:
  struct compiled;
  const pre_preset& preset_;
  std::vector<std::unique_ptr<compiled>> rules_;
  bool need_collapse_ = false;
};

}  // namespace gguf::vocab_detail
