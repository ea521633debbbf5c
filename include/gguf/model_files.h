// gguf/model_files.h — a model stored as one file or as shards (split GGUF), read as one.
//
//   auto m = gguf::model_files::open("Model-00002-of-00004.gguf");  // any shard
//   if (!m) { std::cerr << m.error().message(); }
//   const gguf::file& f = m->merged();     // first shard's metadata, every shard's tensors
//   auto* t = f.find_tensor("output.weight");  // found in whichever shard holds it
//
// Shards follow llama.cpp's convention (llama_split_path / llama_split_prefix, and
// gguf-split): files named PREFIX-%05d-of-%05d.gguf (numbered from 1), each holding
// split.no (uint16, 0-based), split.count (uint16) and split.tensors.count (int32, the
// tensors of all shards); the other metadata is in the first shard only. As llama.cpp's
// loader (llama_model_loader) does, every shard is opened, each shard's split.no must be
// its place, the tensor counts must add up to split.tensors.count, and no tensor name
// may be in two shards. A file without split.count, or with split.count 1, is a model
// of one file; split.count 0 is what gguf-split's merge leaves in a merged file, and
// reads as one file too.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gguf/error.h"
#include "gguf/file.h"

#pragma GCC visibility push(default)  // public API: exported from the shared library
namespace gguf {

inline constexpr std::string_view kv_split_no = "split.no";                        ///< uint16, 0-based
inline constexpr std::string_view kv_split_count = "split.count";                  ///< uint16
inline constexpr std::string_view kv_split_tensors_count = "split.tensors.count";  ///< int32

/// The split.* keys of one file.
struct split_info {
  uint16_t no = 0;             ///< split.no: this shard's index, 0-based
  uint16_t count = 0;          ///< split.count: number of shards
  int32_t tensors_count = 0;   ///< split.tensors.count: tensors over all shards
};

/// The split.* keys of `f`, or nullopt when it has no split.count. All three must be
/// present with the types above (llama.cpp reads them with exactly these types).
/// Errors: key_not_found (split.count without split.no / split.tensors.count),
/// type_mismatch (another type; offset and key given).
result<std::optional<split_info>> read_split_info(const file& f);

/// llama_split_path: "PREFIX-%05d-of-%05d.gguf" for shard `split_no` (0-based) of
/// `split_count`.
std::string split_path(std::string_view prefix, uint32_t split_no, uint32_t split_count);

/// llama_split_prefix: the PREFIX of `path` when it ends with the name of shard
/// `split_no` (0-based) of `split_count`; nullopt otherwise.
std::optional<std::string> split_prefix(std::string_view path, uint32_t split_no, uint32_t split_count);

/// A model of one file or of all its shards, opened and checked.
class model_files {
 public:
  /// Opens a shard by path (how the other shards are opened: file::open by default;
  /// a caller reading over HTTP passes its own).
  using opener = std::function<result<file>(const std::string& path)>;

  /// One tensor of the model and the shard that holds it.
  struct tensor_ref {
    const tensor_info* info = nullptr;
    uint32_t shard = 0;
  };

  /// Opens the model `path` belongs to: the file itself, or every shard of its set
  /// when it is a shard (any shard may be given). Errors: those of file::open (for the
  /// shard concerned), and invalid_model naming the shard: a shard missing, a name not
  /// of the PREFIX-%05d-of-%05d.gguf form, split.no out of place, split.count or
  /// split.tensors.count differing between shards, the tensor count not adding up, a
  /// tensor in two shards, more than one architecture.
  static result<model_files> open(const std::filesystem::path& path, const reader_limits& limits = {});

  /// Same, from a file already opened (its path() names it); the other shards are
  /// opened with `open_shard` (file::open_any when empty: a path, or a URL with the default
  /// remote options).
  static result<model_files> from_file(const file& f, const opener& open_shard = {});
  /// Same, for a file whose path() is not where it is (or will be): `path` names it (an
  /// edit's probe of the new metadata is checked as the shard it replaces).
  static result<model_files> from_file(const file& f, const opener& open_shard, const std::string& path);

  /// Number of files: 1 for an unsplit model.
  size_t shard_count() const noexcept { return shards_.size(); }
  /// True when the model is split over more than one file.
  bool is_split() const noexcept { return shards_.size() > 1; }
  /// The files in shard order (split.no 0, 1, ...).
  std::span<const file> shards() const noexcept { return shards_; }
  /// Every tensor, in shard order and each shard's order (the order of the merged file).
  std::span<const tensor_ref> tensors() const noexcept { return tensors_; }
  /// The tensor named `name` and its shard, or nullptr.
  const tensor_ref* find_tensor(std::string_view name) const;
  /// Sum of the shards' sizes in bytes.
  uint64_t total_size() const noexcept;

  /// The model as one gguf::file: the first shard's header and metadata (split.* keys
  /// included, as stored), and the tensors of every shard in shard order, each viewing
  /// its own shard's bytes. A tensor's `offset` and `info_offset` stay relative to its
  /// own shard. For an unsplit model this is the file itself.
  const file& merged() const noexcept { return merged_; }

 private:
  std::vector<file> shards_;
  std::vector<tensor_ref> tensors_;
  file merged_;
  model_files(std::vector<file> shards, std::vector<tensor_ref> tensors, file merged)
      : shards_(std::move(shards)), tensors_(std::move(tensors)), merged_(std::move(merged)) {}
};

}  // namespace gguf
#pragma GCC visibility pop
