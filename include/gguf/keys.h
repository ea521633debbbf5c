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
#include <string_view>

#include "gguf/format.h"

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

}  // namespace gguf
