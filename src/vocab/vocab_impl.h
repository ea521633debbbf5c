// The state behind gguf::vocab (internal): the loaded vocab_data, the tokenizer model,
// llama.cpp's special-token cache and the extra ids the public API exposes.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "gguf/vocab.h"
#include "vocab/model.h"

namespace gguf {

struct vocab::impl {
  explicit impl(gguf::file f) : file(std::move(f)) {}
  gguf::file file;  ///< keeps the mapping the token texts point into alive
  vocab_detail::vocab_data d;
  std::unique_ptr<vocab_detail::tokenizer_model> model;
  std::string model_name;  ///< tokenizer.ggml.model
  std::string pre;         ///< tokenizer.ggml.pre after defaulting
  std::string_view pre_type;
  int32_t fim_pre = token_null, fim_suf = token_null, fim_mid = token_null, fim_pad = token_null,
          fim_rep = token_null, fim_sep = token_null;
  std::vector<int32_t> eog;  ///< sorted
  std::vector<std::string> warnings;

  /// Control, user-defined and unknown tokens, longest text first (llama.cpp's
  /// cache_special_tokens, same sort).
  std::vector<int32_t> special_cache;
  /// Candidate filter for the partition: special-cache indices bucketed by their first
  /// two bytes (CSR over 65536 keys), and the one-byte ones by their byte.
  std::vector<uint32_t> bucket_start;  // 65537 entries
  std::vector<uint32_t> bucket_items;
  std::array<std::vector<uint32_t>, 256> single_byte;

  void build_special_index();
};

}  // namespace gguf
