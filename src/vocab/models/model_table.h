// The vocab layer's half of a tokenizer model row (internal): what each vocab_type of
// gguf/tokenizer_models.h is built and decoded with. The facts (names, defaults, the
// special-token template) are the public row; this row adds the code. Loading,
// tokenize.cpp and decode.cpp read both rows and never switch on vocab_type.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "vocab/models/tokenizer_model.h"

namespace gguf::vocab_detail {

/// How llama.cpp finds the newline token (linefeed_id).
enum class newline_rule : uint8_t {
  byte_token,  ///< "<0x0A>", else "\n", else the padding token (SPM)
  pad,         ///< the padding token (WPM)
  first_id,    ///< the first id "\n" tokenizes to (without special tokens), else pad
};

struct model_row {
  vocab_type type;
  /// The factory: the normalizer and model for a loaded vocab_data (may throw
  /// std::exception for a vocabulary it cannot build).
  std::unique_ptr<tokenizer_model> (*make)(const vocab_data&);
  /// The decoder: the text of a token that is not control/unknown/user-defined rendered
  /// verbatim (llama_token_to_piece's per-type branch).
  std::string (*piece)(const vocab_data&, const token_data&, uint32_t attr);
  newline_rule newline;
};

/// The decoders (decode.cpp).
/// SPM / WPM / UGM: verbatim specials, U+2581 -> ' ' in normal tokens, <0xXX> bytes.
std::string piece_sentencepiece(const vocab_data& d, const token_data& t, uint32_t attr);
/// BPE: as SPM when escape_whitespaces, else the GPT-2 byte alphabet back to bytes.
std::string piece_bpe(const vocab_data& d, const token_data& t, uint32_t attr);
/// RWKV: the token text unescaped.
std::string piece_rwkv(const vocab_data& d, const token_data& t, uint32_t attr);

/// One row per supported vocab_type.
std::span<const model_row> model_table() noexcept;

}  // namespace gguf::vocab_detail
