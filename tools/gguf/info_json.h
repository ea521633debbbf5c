// `gguf info --json`'s document, shared with `gguf serve` (the overview).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "commands.h"

namespace gguf::cli {

/// The summary of `f` as `gguf info --json` prints it; `name` is the input's display name,
/// `split` the facts of its shard set (count 0: not split).
nlohmann::ordered_json info_json(const gguf::file& f, const std::string& name, const split_facts& split);

}  // namespace gguf::cli
