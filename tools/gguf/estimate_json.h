// `gguf estimate`'s JSON and cache-type names, shared with `gguf serve` (the memory box).
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "gguf/estimate.h"

namespace gguf::cli {

/// One estimate as `gguf estimate --json` prints it (docs/estimate.md).
nlohmann::ordered_json estimate_json(const estimate_result& e, const estimate_params& p);

/// The K/V cache types llama.cpp's --cache-type-k / --cache-type-v accept (f32 f16 bf16
/// q8_0 q4_0 q4_1 iq4_nl q5_0 q5_1); nullopt for another name.
std::optional<ggml_type> cache_type(const std::string& s);

/// --flash-attn's values: on|1|true, off|0|false, auto|-1; nullopt for another.
std::optional<flash_attn_type> flash_attn_from_name(const std::string& s);

}  // namespace gguf::cli
