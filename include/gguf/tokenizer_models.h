// gguf/tokenizer_models.h — one row per tokenizer model (tokenizer.ggml.model).
//
// The facts llama.cpp attaches to each value of tokenizer.ggml.model
// (llama_vocab::impl::load in src/llama-vocab.cpp): the vocab_type it selects, the
// special ids and add_* flags it defaults to, and the special-token template its
// tokenize applies. Data only (no library): schema validates files against these rows,
// vocab loads and tokenizes by them (src/vocab/models/model_table.cpp adds each type's factory
// and decoder). A new tokenizer model is one row here, plus one row there when it brings
// a new vocab_type.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#pragma GCC visibility push(default)  // public API: exported from the shared library
namespace gguf {

/// Tokenizer model (llama_vocab_type), from tokenizer.ggml.model:
/// llama -> spm, gpt2 and gemma4 -> bpe, bert -> wpm, t5 -> ugm, rwkv -> rwkv,
/// plamo2 -> plamo2 (known, not supported by vocab::load), no_vocab / none / absent -> none.
enum class vocab_type { none, spm, bpe, wpm, ugm, rwkv, plamo2 };

/// tokenizer.ggml.token_type values (llama_token_type).
enum class token_type : int32_t { undefined = 0, normal = 1, unknown = 2, control = 3, user_defined = 4, unused = 5, byte = 6 };

/// "no token" for special ids that are not set (llama.cpp's LLAMA_TOKEN_NULL).
inline constexpr int32_t token_null = -1;

/// When the special-token template adds BOS / EOS / SEP around a tokenized text (with
/// add_special; the role of a Hugging Face tokenizers post-processor template).
enum class add_when : uint8_t {
  never,
  if_flag,  ///< when the vocab's add_bos / add_eos / add_sep is set
  always,
};

/// The special-token template: [BOS] text [EOS] [SEP], each per its add_when.
struct special_template {
  add_when bos = add_when::never, eos = add_when::never, sep = add_when::never;
};

/// One tokenizer model: what a value of tokenizer.ggml.model selects.
struct tokenizer_model_info {
  std::string_view names[2];  ///< tokenizer.ggml.model values ("" = unused slot)
  vocab_type type;
  std::string_view type_name;  ///< "spm", "bpe", ... (vocab_type_name)
  bool supported;              ///< vocab::load builds it (false: errc::unsupported)
  /// Default special ids (token_null = none), before the file's keys.
  int32_t bos, eos, unk, sep, pad, mask;
  /// Default flags, before the file's tokenizer.ggml.* keys.
  bool add_bos, add_eos, add_sep, add_space_prefix, clean_spaces, escape_whitespaces;
  special_template tmpl;
  /// The tokenizer.ggml.pre this model implies, whatever the file says ("" = read the key).
  std::string_view forced_pre = {};
  bool reads_pre = false;  ///< reads tokenizer.ggml.pre (gpt2-style BPE; warns when absent)
  bool merges = false;     ///< needs tokenizer.ggml.merges
  bool charsmap = false;   ///< reads tokenizer.ggml.precompiled_charsmap
  bool no_vocab = false;   ///< the file carries no tokenizer (nothing else is read)
};

namespace detail {
inline constexpr int32_t N = token_null;
inline constexpr special_template tmpl_flags{add_when::if_flag, add_when::if_flag, add_when::never};
// clang-format off
inline constexpr tokenizer_model_info tokenizer_model_table[] = {
  // names                 type                  name      supp   bos  eos  unk  sep  pad  mask  add_bos add_eos add_sep space  clean  escape  template
  {{"none", "no_vocab"},   vocab_type::none,     "none",   true,  N,   N,   N,   N,   N,   N,    false,  false,  false,  false, false, true,   {},
   {}, false, false, false, true},
  {{"llama", ""},          vocab_type::spm,      "spm",    true,  1,   2,   0,   N,   N,   N,    true,   false,  false,  true,  false, true,   tmpl_flags},
  {{"gpt2", ""},           vocab_type::bpe,      "bpe",    true,  11,  11,  N,   N,   N,   N,    false,  false,  false,  false, true,  false,  tmpl_flags,
   {}, true, true},
  {{"gemma4", ""},         vocab_type::bpe,      "bpe",    true,  N,   N,   N,   N,   N,   N,    false,  false,  false,  false, true,  false,  tmpl_flags,
   "gemma4", false, true},
  {{"bert", ""},           vocab_type::wpm,      "wpm",    true,  101, N,   100, 102, 0,   103,  true,   false,  true,   false, true,  true,
   {add_when::always, add_when::never, add_when::always}},
  {{"t5", ""},             vocab_type::ugm,      "ugm",    true,  N,   1,   2,   N,   0,   N,    false,  true,   false,  false, false, true,   tmpl_flags,
   {}, false, false, true},
  {{"rwkv", ""},           vocab_type::rwkv,     "rwkv",   true,  N,   N,   N,   N,   N,   N,    false,  false,  false,  false, false, true,   {}},
  {{"plamo2", ""},         vocab_type::plamo2,   "plamo2", false, N,   N,   N,   N,   N,   N,    false,  false,  false,  false, false, true,   {}},
};
// clang-format on
}  // namespace detail

/// Every tokenizer model llama.cpp knows.
constexpr std::span<const tokenizer_model_info> tokenizer_models() noexcept { return detail::tokenizer_model_table; }

/// The row whose names include `ggml_model` (a value of tokenizer.ggml.model), or nullptr.
constexpr const tokenizer_model_info* find_tokenizer_model(std::string_view ggml_model) noexcept {
  for (const auto& m : detail::tokenizer_model_table)
    for (std::string_view n : m.names)
      if (!n.empty() && n == ggml_model) return &m;
  return nullptr;
}

/// "none" "spm" "bpe" "wpm" "ugm" "rwkv" "plamo2".
constexpr std::string_view vocab_type_name(vocab_type t) noexcept {
  for (const auto& m : detail::tokenizer_model_table)
    if (m.type == t) return m.type_name;
  return "none";
}

}  // namespace gguf
#pragma GCC visibility pop
