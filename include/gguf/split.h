// gguf/split.h — splitting a GGUF file into shards and merging shards back, byte for
// byte as llama.cpp's gguf-split (tools/gguf-split/gguf-split.cpp, release v0.5.0).
//
//   auto f = gguf::file::open("model.gguf").value();
//   gguf::split_options o;  o.max_tensors = 3;
//   auto plan = gguf::plan_split(f, o).value();          // which tensors go where
//   std::vector<gguf::safe_output> outs;                  // all shards whole, then renamed:
//   for (size_t i = 0; i < plan.shards.size(); ++i) {     // a failure replaces none
//     auto out = gguf::safe_output::create(gguf::split_path("out/model", i, plan.shards.size())).value();
//     gguf::write_shard(f, plan, i, out).value();  out.finish().value();
//     outs.push_back(std::move(out));
//   }
//   gguf::safe_output::commit_set(outs).value();        // the first shard last
//   auto m = gguf::model_files::open("out/model-00001-of-00002.gguf").value();
//   auto out = gguf::safe_output::create("merged.gguf").value();
//   gguf::write_merged(m, out).value();  out.commit().value();
//
// Shards are written as gguf-split writes them (ggml's gguf writer): GGUF v3, the first
// shard with every key/value of the input followed by split.no (uint16, 0-based),
// split.tensors.count (int32) and split.count (uint16) (in that order: ggml's setters
// move an existing key to the end), the other shards with only those three keys; tensor infos with ggml's n_dims
// (trailing dimensions of 1 dropped, at least 1); tensors in the input's order, each
// padded to the alignment (general.alignment of the input in the first shard, 32 in
// the others). Merging writes the first shard's key/values without the split.* keys and
// every tensor, so that split then merge gives back a file written the same way.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gguf/error.h"
#include "gguf/file.h"
#include "gguf/model_files.h"
#include "gguf/output.h"

#pragma GCC visibility push(default)  // public API: exported from the shared library
namespace gguf {

/// How to split (gguf-split's options).
struct split_options {
  /// --split-max-tensors: at most this many tensors per shard (used when max_bytes is 0).
  uint32_t max_tensors = 128;
  /// --split-max-size in bytes (gguf-split: N M = N * 10^6, N G = N * 10^9); 0: by tensors.
  uint64_t max_bytes = 0;
  /// --no-tensor-first-split: the first shard holds the metadata only.
  bool no_tensor_first_split = false;
};

/// One planned shard.
struct split_shard {
  std::vector<uint32_t> tensors;  ///< indices into file::tensors(), in order
  uint64_t metadata_size = 0;     ///< header, key/values, tensor infos and padding
  uint64_t tensor_bytes = 0;      ///< sum of the tensors' nbytes (unpadded)
  uint64_t file_size = 0;         ///< bytes of the shard file
};

struct split_plan {
  std::vector<split_shard> shards;
  uint32_t tensor_count = 0;  ///< split.tensors.count
};

/// Plans the shards of `f` as gguf-split does: a new shard when the tensor limit is
/// reached, or (by size) when the tensors' data so far plus the next tensor's, each
/// padded to 32 bytes, would exceed max_bytes. Errors: invalid_argument (max_tensors 0;
/// a shard would hold no tensor: "one of splits have 0 tensors" in gguf-split;
/// more than 65535 shards or 2^31-1 tensors), and those of building the shards' metadata.
result<split_plan> plan_split(const file& f, const split_options& opts);

/// Appends shard `i` of `plan` to `out` (the caller commits; the file name is
/// split_path(PREFIX, i, plan.shards.size())). Tensor bytes are copied from f's file by
/// the kernel where possible (bounded memory). Errors: io_error, invalid_argument.
result<void> write_shard(const file& f, const split_plan& plan, size_t i, safe_output& out);

/// Appends the merged model to `out`: the first shard's header version, byte order and
/// key/values without split.no, split.count and split.tensors.count, then every tensor
/// of every shard in order. Errors: io_error.
result<void> write_merged(const model_files& m, safe_output& out);

/// Size in bytes of the file write_merged() produces.
uint64_t merged_size(const model_files& m);

}  // namespace gguf
#pragma GCC visibility pop
