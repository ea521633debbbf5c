// gguf/vocab.h — the tokenizer llama.cpp builds from a GGUF file's tokenizer.ggml.* keys.
//
//   auto f = gguf::file::open("model.gguf");
//   auto v = gguf::vocab::load(*f);                 // result<vocab>
//   auto ids = v->tokenize("Hello world");          // result<std::vector<int32_t>>
//   std::string text = v->detokenize(*ids);
//
// Behaviour follows llama.cpp's llama_vocab (src/llama-vocab.cpp, src/unicode.cpp):
// the same defaults for absent keys, the same special-token handling, the same
// pre-tokenizer regexes and Unicode tables, so that ids are identical to llama_tokenize
// and text identical to llama_detokenize. Token texts are views into the mapped file;
// a vocab keeps the file's mapping alive and is cheap to copy (shared, immutable).
// All members are const and thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gguf/error.h"
#include "gguf/file.h"
#include "gguf/tokenizer_models.h"  // vocab_type, token_type, token_null, vocab_type_name

#pragma GCC visibility push(default)  // public API: exported from the shared library
namespace gguf {

/// Every tokenizer.ggml.pre value llama.cpp accepts (its pre-tokenizer presets), in the
/// order of llama.cpp's table; used to check `gguf edit --pre-tokenizer`.
std::vector<std::string_view> known_pre_tokenizers();

/// Options of vocab::load.
struct vocab_load_options {
  /// Folder of the compiled tokenizer cache (docs/tokenizers.md): the tables a load
  /// builds (token map, BPE merge ranks, tries) are written there once, as
  /// `vocab-<key>.bin`, and mapped back, zero-copy, by later loads of the same
  /// vocabulary. The key is XXH3-128 of the file's metadata bytes and of this library's
  /// vocabulary code, so an edited file or another build never reads stale tables; a
  /// cache file that fails its checks is rebuilt. Reading or writing the cache never
  /// fails a load. Empty (the default): no cache.
  std::string cache_dir;
};

/// The cache folder the command-line tool uses: $GGUF_CACHE_DIR, else
/// $XDG_CACHE_HOME/gguf, else $HOME/.cache/gguf; "" (no cache) when GGUF_CACHE_DIR is
/// "" or "0".
std::string default_tokenizer_cache_dir();

class vocab {
 public:
  /// Reads the tokenizer keys of `f` and builds the tokenizer. Errors:
  ///  - errc::unsupported: tokenizer.ggml.model plamo2, hybriddna, whitespace or unknown
  ///    ("unsupported tokenizer"); tokenizer.ggml.pre unknown to llama.cpp (llama.cpp
  ///    refuses to load such a file too);
  ///  - errc::invalid_vocab: missing tokens / merges, scores or token_type shorter than
  ///    tokens, a duplicate token text;
  ///  - errc::type_mismatch: a tokenizer key of the wrong GGUF type.
  /// A missing tokenizer.ggml.pre (BPE) loads with the "default" pre-tokenizer, as
  /// llama.cpp does, and adds a warning; so do bad special ids (kept at their default).
  /// add_bos / add_eos / add_sep set without the id load too (as in llama.cpp v0.5.0):
  /// tokenize() with add_special then fails where it needs the id (llama.cpp aborts).
  static result<vocab> load(const file& f);
  /// load() with options (the compiled tokenizer cache); same results and errors.
  static result<vocab> load(const file& f, const vocab_load_options& options);
  /// True when this vocabulary's tables were mapped from the tokenizer cache.
  bool from_cache() const noexcept;

  vocab_type type() const noexcept;
  /// tokenizer.ggml.model as stored ("" if absent).
  std::string_view model_name() const noexcept;
  /// tokenizer.ggml.pre after llama.cpp's defaulting ("default" when absent; "gemma4" for
  /// the gemma4 model); "" for non-BPE models without the key.
  std::string_view pre() const noexcept;
  /// Name of the pre-tokenizer preset in use (llama.cpp's pre type, e.g. "llama3"), "" if none.
  std::string_view pre_type() const noexcept;

  /// Number of tokens (n_vocab).
  uint32_t n_tokens() const noexcept;
  /// Token text as stored (e.g. "▁the", "Ġthe", "<0x0A>"). Precondition: 0 <= id < n_tokens().
  std::string_view token_text(int32_t id) const;
  float token_score(int32_t id) const;
  /// tokenizer.ggml.token_type of the token (as stored).
  gguf::token_type token_type(int32_t id) const;
  /// llama_token_attr bits after llama.cpp's load-time fix-ups (control-looking tokens,
  /// unused, lstrip/rstrip): 1 unknown, 2 unused, 4 normal, 8 control, 16 user_defined,
  /// 32 byte, 128 lstrip, 256 rstrip.
  uint32_t token_attr(int32_t id) const;
  /// The id of a token text, or token_null.
  int32_t find(std::string_view text) const;

  /// Special token ids, token_null when unset (llama.cpp's defaults per model apply).
  int32_t bos() const noexcept;
  int32_t eos() const noexcept;
  int32_t eot() const noexcept;
  int32_t eom() const noexcept;
  int32_t unk() const noexcept;
  int32_t sep() const noexcept;
  int32_t pad() const noexcept;
  int32_t mask() const noexcept;
  int32_t cls() const noexcept;  ///< = bos (llama.cpp's llama_vocab_cls)
  int32_t nl() const noexcept;   ///< the newline token (llama.cpp linefeed_id)
  int32_t fim_pre() const noexcept;
  int32_t fim_suf() const noexcept;
  int32_t fim_mid() const noexcept;
  int32_t fim_pad() const noexcept;
  int32_t fim_rep() const noexcept;
  int32_t fim_sep() const noexcept;
  /// True if `id` ends generation (llama.cpp's special_eog_ids).
  bool is_eog(int32_t id) const;

  bool add_bos() const noexcept;
  bool add_eos() const noexcept;
  bool add_sep() const noexcept;
  bool add_space_prefix() const noexcept;
  bool remove_extra_whitespaces() const noexcept;
  /// clean_up_tokenization_spaces applied by detokenize.
  bool clean_spaces() const noexcept;

  /// Things llama.cpp would log as warnings while loading (missing pre-tokenizer, bad
  /// special ids, control-looking tokens of another type, ...).
  std::span<const std::string> warnings() const noexcept;

  /// llama_tokenize: with `parse_special`, control and user-defined token texts in the
  /// input become those tokens (user-defined ones always do); with `add_special`, BOS /
  /// EOS / SEP are added as the model is configured. Every id returned is a token of the
  /// vocabulary. Errors: errc::unsupported for a vocab without a tokenizer
  /// (tokenizer.ggml.model none/no_vocab/absent); errc::invalid_vocab when the text needs
  /// the unknown token that the vocabulary does not have, or add_special needs a BOS / EOS /
  /// SEP id it does not have (key: that id's tokenizer.ggml.*_token_id).
  result<std::vector<int32_t>> tokenize(std::string_view text, bool add_special = true,
                                        bool parse_special = true) const;
  /// Same, appending to `out`. Where tokenize() returns an error this returns the same
  /// error and leaves `out` as it was (the reason comes with the failure: no second call
  /// to learn it).
  result<void> tokenize_into(std::string_view text, std::vector<int32_t>& out, bool add_special = true,
                             bool parse_special = true) const;

  /// tokenize() of every text of `texts`, on up to `n_threads` threads (0 = every core,
  /// std::thread::hardware_concurrency()); result i holds the ids of texts[i]. The
  /// vocabulary is shared read-only by the threads; each thread keeps its own word cache
  /// from one call to the next (src/vocab/runtime/thread_scratch.h), so a batch of short texts
  /// runs at the rate of one long text. Threads come from a process-wide pool that
  /// grows to the largest n_threads asked for; one batch runs at a time (concurrent
  /// callers wait). Errors: those of tokenize() for the first text (lowest index) that
  /// fails, its detail prefixed with "text INDEX: ". Source: src/vocab/runtime/batch.cpp.
  result<std::vector<std::vector<int32_t>>> tokenize_batch(std::span<const std::string_view> texts,
                                                           unsigned n_threads = 0, bool add_special = true,
                                                           bool parse_special = true) const;

  /// llama_token_to_piece(lstrip = 0): the text of one token. With special = false,
  /// control and unknown tokens render as "". Out-of-range ids render as "".
  std::string token_to_piece(int32_t id, bool special = true) const;
  /// llama_detokenize: concatenated pieces, the leading space of an SPM-style first piece
  /// removed, clean_up_tokenization_spaces applied where the model uses it.
  /// `remove_special` drops a leading BOS / trailing EOS the model adds;
  /// `unparse_special` renders control/unknown tokens (otherwise they are dropped).
  std::string detokenize(std::span<const int32_t> ids, bool remove_special = false,
                         bool unparse_special = false) const;

  struct impl;

 private:
  std::shared_ptr<const impl> impl_;
  explicit vocab(std::shared_ptr<const impl> p) : impl_(std::move(p)) {}
};

}  // namespace gguf
#pragma GCC visibility pop
