// JSON of a gguf::diff_result, shared by `gguf diff --json` and `gguf serve`'s /api/diff
// (the schema is documented in docs/diff.md).
#pragma once

#include <nlohmann/json.hpp>

#include "gguf/diff.h"

namespace gguf::cli {

/// {"kv": [{"key", "status", "a", "b", ...}], "tensors": [{"name", "status", "a", "b",
/// "nmse", "max_abs", ...}]}: scalars and strings as JSON values, arrays summarized
/// ({"type": "array", "element_type", "length"} and, where they differ, "index" with the
/// elements at that index), tensors as {"type", "ne", "offset", "nbytes"}.
nlohmann::ordered_json diff_json(const diff_result& d);

/// A metadata value in one line for text output: scalars as JSON, strings quoted and cut
/// after `max_chars` (with their length), arrays as "array[TYPE] of N".
std::string value_line(const value_ref& v, size_t max_chars = 80);

/// "q4_0 [64, 64]": a tensor's type and shape.
std::string tensor_line(const tensor_info& t);

}  // namespace gguf::cli
