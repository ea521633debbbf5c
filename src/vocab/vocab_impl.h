// The state behind gguf::vocab (internal): the loaded vocab_data, the two rows of its
// tokenizer model (the public facts, the factory/decoder row), the tokenizer model,
// llama.cpp's special-token cache and the extra ids the public API exposes.
// Loading: vocab_load.cpp, special_tokens.cpp; tokenize: tokenize.cpp; decode: decode.cpp; accessors:
// accessors.cpp.
#pragma once

#include <array>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "gguf/vocab.h"
#include "vocab/models/model_table.h"
#include "vocab/runtime/table_cache.h"
#include "vocab/models/tokenizer_model.h"

namespace gguf {

struct vocab::impl {
  explicit impl(gguf::file f) : file(std::move(f)) {}
  gguf::file file;  ///< keeps the mapping the token texts point into alive
  vocab_detail::vocab_data d;
  const tokenizer_model_info* info = nullptr;  ///< the row of tokenizer.ggml.model
  const vocab_detail::model_row* row = nullptr;  ///< its factory/decoder row; nullptr for none
  uint8_t pre_flags = 0;                         ///< pre_flag bits of the tokenizer.ggml.pre row
  std::unique_ptr<vocab_detail::tokenizer_model> model;
  /// The compiled tokenizer cache whose mapping the tables view (on a hit), else null.
  std::unique_ptr<vocab_detail::table_cache> cache;
  std::string model_name;  ///< tokenizer.ggml.model
  std::string pre;         ///< tokenizer.ggml.pre after defaulting
  std::string_view pre_type;
  int32_t fim_pre = token_null, fim_suf = token_null, fim_mid = token_null, fim_pad = token_null,
          fim_rep = token_null, fim_sep = token_null;
  std::vector<int32_t> eog;  ///< sorted
  /// The ids of the texts fix_up_attrs looks up (its table in the compiled cache).
  std::vector<int32_t> fixed_text_ids;
  std::vector<std::string> warnings;

  /// Control, user-defined and unknown tokens, longest text first (llama.cpp's
  /// cache_special_tokens, same sort).
  std::vector<int32_t> special_cache;
  /// Whether special_cache holds a token without the control and unknown attributes: the
  /// only ones that cut a text tokenized without parse_special.
  bool plain_special = false;
  /// Candidate filter for the partition: the special-cache indices of texts of two bytes
  /// or more, sorted by their first two bytes (bucket_keys: (b0 << 8) | b1, bucket_items:
  /// the index; equal keys in index order), a bitmap of the keys present (pair_bits, 8 KiB:
  /// one bit test per text position, and no 256 KiB table to fill at every load), and the
  /// one-byte ones by their byte.
  std::vector<uint16_t> bucket_keys;
  std::vector<uint32_t> bucket_items;
  std::vector<uint64_t> pair_bits;  // 1024 words
  std::array<std::vector<uint32_t>, 256> single_byte;
  bool has_pair(uint32_t key) const noexcept { return (pair_bits[key >> 6] >> (key & 63)) & 1; }

  /// Load-time fix-ups (special_tokens.cpp): special tokens detected by their text and the
  /// end-of-generation list (fix_up_attrs), llama.cpp's per-model lstrip/rstrip by name
  /// (set_strip_attrs), the special-token cache and its index (build_special_index).
  void fix_up_attrs();
  void set_strip_attrs();
  void build_special_index();

  /// vocab::load over the given tables (tests load a made-up tokenizer model with them).
  static result<std::shared_ptr<impl>> load(const gguf::file& f, std::span<const tokenizer_model_info> models,
                                            std::span<const vocab_detail::model_row> rows,
                                            const vocab_load_options& options = {});
  /// vocab::tokenize_into, token_to_piece, detokenize.
  result<void> tokenize_into(std::string_view text, std::vector<int32_t>& out, bool add_special,
                             bool parse_special) const;
  /// Why tokenize_into failed (no tokenizer, a special id add_special needs, or a token the
  /// vocabulary lacks), as vocab::tokenize reports it.
  gguf::error tokenize_error(bool add_special) const;
  std::string token_to_piece(int32_t id, bool special) const;
  std::string detokenize(std::span<const int32_t> ids, bool remove_special, bool unparse_special) const;
  /// The first id the model gives `text` without special tokens (token_null if none).
  int32_t first_model_id(std::string_view text) const;
};

}  // namespace gguf
