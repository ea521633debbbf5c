// Internal: the planner (quantize_plan.cpp) and the writer (quantize_write.cpp) of
// gguf/quantize.h. Not installed.
#pragma once

#include "gguf/quantize.h"
#include "model/quantize_types.h"

namespace gguf {

struct planned {
  quantize_plan plan;
  detail::model_facts facts;
  int pruned_block_count = -1;  ///< new block_count with --prune-layers, else -1
  uint32_t n_shards = 1;
};

/// The plan; with `dry_run` false also every refusal llama-quantize would make while
/// writing (imatrix size, missing imatrix, requantizing), and each tensor's imatrix.
result<planned> make_plan(const model_files& in, const std::filesystem::path& out, const quantize_options& o,
                          bool dry_run);

}  // namespace gguf
