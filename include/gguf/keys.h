// gguf/keys.h — the standardized metadata keys of the GGUF specification and of
// llama.cpp: their value types, the keys each architecture requires, the draft names
// they replaced, and the table of general.file_type values (llama_ftype).
//
// Sources: GGUF specification (ggml docs/gguf.md, "Standardized key-value pairs" and
// the "LLM" architecture sections); llama.cpp include/llama.h (enum llama_ftype) and
// src/llama-arch.cpp / src/llama-model.cpp (which hparams each architecture loads as
// required). The schema layer owns these tables; the model layer reads them.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "gguf/format.h"
#include "gguf/tokenizer_models.h"

#pragma GCC visibility push(default)  // public API: exported from the shared library
namespace gguf {

// ---------------------------------------------------------------------------------
// general.file_type (llama.cpp enum llama_ftype)
// ---------------------------------------------------------------------------------

/// One value of general.file_type. "MOSTLY" means every tensor of two or more
/// dimensions has `main_type`, 1-d tensors (norms, biases) stay F32.
struct file_type_info {
  uint32_t id = 0;                ///< llama_ftype value stored in general.file_type
  std::string_view name;          ///< llama_ftype suffix, e.g. "MOSTLY_Q4_K_M", "ALL_F32"
  std::string_view label;         ///< encoding label of the naming convention, e.g. "Q4_K_M"
  ggml_type main_type = ggml_type::f32;  ///< the type of most 2-d tensors
};

/// Every file type llama.cpp defines (ids 0..41 minus the retired 4, 5, 6, 33, 34, 35).
std::span<const file_type_info> file_types() noexcept;

/// The file type of id `id`, or nullptr for an unknown or retired id.
const file_type_info* find_file_type(uint32_t id) noexcept;

/// llama_ftype name of a general.file_type value without the LLAMA_FTYPE_ prefix:
/// 0 -> "ALL_F32", 1 -> "MOSTLY_F16", 15 -> "MOSTLY_Q4_K_M", 32 -> "MOSTLY_BF16".
/// Empty for an unknown or retired id (4, 5, 6: removed Q4_1_SOME_F16/Q4_2/Q4_3;
/// 33..35: Q4_0_4_4/4_8/8_8, removed from GGUF files).
std::string_view file_type_name(uint32_t id) noexcept;

// ---------------------------------------------------------------------------------
// Standardized keys
// ---------------------------------------------------------------------------------

/// A set of value types, one bit per value_type id.
using type_set = uint32_t;
constexpr type_set type_bit(value_type t) noexcept { return type_set{1} << static_cast<uint32_t>(t); }
/// uint32 or uint64: the spec's counts "uint64 unless otherwise specified; some models use
/// uint32; readers should support both".
inline constexpr type_set count_types = type_bit(value_type::uint32) | type_bit(value_type::uint64);
/// Every integer type, is_integer_type as a set (array elements of per-layer hparams,
/// e.g. head_count_kv).
inline constexpr type_set integer_types = [] {
  type_set s = 0;
  for (uint32_t i = 0; i < value_type_count; ++i)
    if (is_integer_type(static_cast<value_type>(i))) s |= type_bit(static_cast<value_type>(i));
  return s;
}();

/// One standardized key and the value types it may have.
struct key_info {
  /// Full key, or with the spec's "[llm]." placeholder for the architecture prefix,
  /// e.g. "general.alignment", "[llm].context_length", "tokenizer.ggml.tokens".
  std::string_view name;
  type_set types = 0;          ///< accepted value types
  type_set element_types = 0;  ///< for an accepted array: accepted element types (0: any)
  std::string_view spec_type;  ///< the type as the spec writes it, e.g. "uint64", "array[string]"
};

/// Every standardized key this library knows (GGUF spec "Standardized key-value pairs",
/// plus the tokenizer and hparam keys llama.cpp reads with a fixed type).
std::span<const key_info> standard_keys() noexcept;

/// The standardized key `key` of a file whose general.architecture is `arch`
/// ("llama.context_length" with arch "llama" finds "[llm].context_length"), or nullptr.
const key_info* find_standard_key(std::string_view key, std::string_view arch) noexcept;

/// Draft key names of the GGUF proposal (2023) and their current names.
struct renamed_key {
  std::string_view old_name;  ///< e.g. "[llm].hidden_size", "tokenizer.embedded."
  std::string_view new_name;  ///< e.g. "[llm].embedding_length", "tokenizer.ggml."
  bool prefix = false;        ///< old_name is a prefix (tokenizer.embedded.*)
};
std::span<const renamed_key> renamed_keys() noexcept;

/// The current name of a draft key in a file of architecture `arch`
/// ("llama.hidden_size" -> "llama.embedding_length"), or empty if `key` is not a draft name.
std::string renamed_key_for(std::string_view key, std::string_view arch);

// ---------------------------------------------------------------------------------
// Architectures
// ---------------------------------------------------------------------------------

/// The keys an architecture needs, as suffixes after "ARCH." (e.g. "context_length").
struct arch_info {
  std::string_view name;  ///< general.architecture value, e.g. "llama", "command-r"
  /// Keys llama.cpp's load_hparams reads as required for this architecture (loading a
  /// model without them fails). Empty for spec-only architectures llama.cpp dropped.
  std::span<const std::string_view> required;
  /// Keys the spec's section for the architecture lists ("each key specified must be
  /// present") that llama.cpp does not require.
  std::span<const std::string_view> spec_required;
  bool in_spec = false;  ///< has a section in the GGUF specification
  /// `gguf validate` checks this row's keys and tensor names. False for the rows only the
  /// model loader reads so far (mamba2 rwkv6 rwkv7 baichuan refact qwen2moe: their tensor
  /// names are not in the standard list): validate reports those as arch.unknown.
  bool validated = true;
};

/// Every architecture with a row (the spec's: llama mpt gptneox gptj gpt2 bloom falcon
/// mamba rwkv whisper; and qwen2 qwen3 phi3 gemma gemma2 gemma3 gemma4 starcoder2 bert
/// nomic-bert nomic-bert-moe t5 command-r deepseek2; loader-only: mamba2 rwkv6 rwkv7
/// baichuan refact qwen2moe), then the registered ones. This is the one list of
/// architectures: the model layer's rows (src/model/arch_table.cpp) refer to these by
/// name and take their required keys and in_spec from here.
std::span<const arch_info> architectures() noexcept;
/// The row of `name`, or nullptr.
const arch_info* find_architecture(std::string_view name) noexcept;

/// Adds an architecture row after the built-in ones (e.g. one a test or an embedding
/// program defines): validate checks its required keys and the model layer reads them as
/// required. `row`'s spans must outlive every use (static storage). Returns the stored
/// row, or nullptr when `row.name` is empty or already has a row, or the table is full
/// (256 rows). Not thread-safe: register before any thread reads the table; rows never
/// move, so pointers returned earlier stay valid.
const arch_info* register_architecture(const arch_info& row) noexcept;

// ---------------------------------------------------------------------------------
// Tokenizer and tensor names
// ---------------------------------------------------------------------------------

/// Values of tokenizer.ggml.model llama.cpp accepts and the vocab type each selects
/// (the rows of gguf/tokenizer_models.h): "llama" spm, "gpt2" bpe, "gemma4" bpe,
/// "bert" wpm, "t5" ugm, "rwkv" rwkv, "plamo2" plamo2, "none"/"no_vocab" none.
/// Empty for an unknown model.
std::string_view tokenizer_vocab_type(std::string_view ggml_model) noexcept;

/// Token types of tokenizer.ggml.token_type (spec: 1 normal, 2 unknown, 3 control,
/// 4 user defined, 5 unused, 6 byte).
inline constexpr int32_t token_type_min = 1;
inline constexpr int32_t token_type_max = 6;
/// A special token id meaning "none" (-1 stored as uint32), as in stories260K.gguf.
inline constexpr uint64_t token_id_none = 0xFFFFFFFFu;

/// The special-token id keys (tokenizer.ggml.*_token_id), including llama.cpp's
/// spelling "seperator_token_id".
std::span<const std::string_view> special_token_keys() noexcept;

/// True for a standardized tensor name (spec "Standardized tensor names", extended with
/// the names llama.cpp's architectures use): "token_embd.weight", "blk.0.attn_q.weight",
/// "output.bias", …  Suffix ".weight" or ".bias" (also ".scale"), N decimal.
bool is_standard_tensor_name(std::string_view name) noexcept;

}  // namespace gguf
#pragma GCC visibility pop
