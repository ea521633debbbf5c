// Rule group "split.*": the keys of a shard of a split model (llama.cpp's gguf-split
// writes them; llama_model_loader reads them) and the set of shards it belongs to.
#include "gguf/model_files.h"
#include "schema/checker.h"

namespace gguf::detail {
namespace {

bool is_split_key(std::string_view k) {
  return k == kv_split_no || k == kv_split_count || k == kv_split_tensors_count;
}

}  // namespace

bool check_split(checker& c) {
  const kv_ref* count = c.kv(kv_split_count);
  const kv_ref* no = c.kv(kv_split_no);
  const kv_ref* total = c.kv(kv_split_tensors_count);
  if (!count && !no && !total) return false;
  bool typed = true;
  auto want = [&](const kv_ref* kv, value_type t) {
    if (kv && kv->value.type() != t) {
      c.add(severity::error, "split.type", kv->key, kv->offset,
            "must be " + std::string(value_type_name(t)) + " (gguf-split writes it so and llama.cpp reads it so), found " +
                std::string(value_type_name(kv->value.type())));
      typed = false;
    }
  };
  want(count, value_type::uint16);
  want(no, value_type::uint16);
  want(total, value_type::int32);
  for (auto [kv, key] : {std::pair{count, kv_split_count}, {no, kv_split_no}, {total, kv_split_tensors_count}}) {
    if (!kv) {
      c.add(severity::error, "split.missing_key", key, no_offset,
            "a shard has split.no, split.count and split.tensors.count; this one lacks " + std::string(key));
      typed = false;
    }
  }
  if (!typed) return false;
  const uint16_t n = *count->value.get<uint16_t>();
  const uint16_t i = *no->value.get<uint16_t>();
  if (n == 0) {
    // What gguf-split's merge leaves in a merged file: read as one file.
    c.add(severity::note, "split.merged", kv_split_count, count->offset,
          "split.count 0: a file merged by gguf-split (llama.cpp reads it as one file)");
    return false;
  }
  if (i >= n) {
    c.add(severity::error, "split.no", kv_split_no, no->offset,
          "split.no " + std::to_string(i) + " is not below split.count " + std::to_string(n));
    return false;
  }
  if (n == 1) return false;
  // the shard whose name the file has (llama.cpp opens shard k by that name and refuses a
  // split.no other than k), if it has one of this set
  const std::string& path = c.options && !c.options->path.empty() ? c.options->path : c.f.path();
  std::optional<uint32_t> named_as;
  for (uint32_t k = 0; k < n && !named_as; ++k) {
    if (k != i && split_prefix(path, k, n)) named_as = k;
  }
  if (named_as) {
    c.add(severity::error, "split.no", kv_split_no, no->offset,
          "split.no " + std::to_string(i) + " says shard " + std::to_string(i + 1) + " of " + std::to_string(n) +
              ", but the file is named as shard " + std::to_string(*named_as + 1) +
              ": llama.cpp opens it as that shard and refuses it (invalid split file idx)");
  } else if (!split_prefix(path, i, n)) {
    c.add(severity::warning, "split.name", {}, no_offset,
          "shard " + std::to_string(i + 1) + " of " + std::to_string(n) + " is not named " + split_path("PREFIX", i, n) +
              ": llama.cpp finds the other shards by that name");
  } else if (auto m = model_files::from_file(c.f, c.options ? c.options->open_shard : model_files::opener{}, path); !m) {
    const auto& e = m.error();
    c.add(severity::error, "split.set", e.subject, e.offset, e.detail, e.subject_is_tensor);
  }
  if (i > 0) {
    c.add(severity::note, "split.shard", {}, no_offset,
          "shard " + std::to_string(i + 1) + " of " + std::to_string(n) +
              ": the model's metadata is in the first shard (llama.cpp loads a split model from it)");
    for (const auto& kv : c.f.kvs()) {
      if (!is_split_key(kv.key)) {
        c.add(severity::warning, "split.metadata", kv.key, kv.offset,
              "key in a shard other than the first: gguf-split writes metadata to the first shard only and "
              "llama.cpp reads only the first shard's");
      }
    }
    return true;
  }
  return false;
}

}  // namespace gguf::detail
