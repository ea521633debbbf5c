// A model of one file or of several shards (gguf/model_files.h), checked the way
// llama.cpp's loader checks split models.
#include "gguf/model_files.h"

#include <cstdio>
#include <unordered_map>

#include "format/file_impl.h"

namespace gguf {
namespace {

gguf::error split_error(const file& f, std::string detail, std::string_view key = {}) {
  auto e = make_error(errc::invalid_model, no_offset, f.path() + ": " + std::move(detail));
  if (!key.empty()) {
    e.subject = std::string(key);
    if (auto v = f.find(key)) e.offset = v->offset();
  }
  return e;
}

template <class T>
result<T> split_key(const file& f, std::string_view key) {
  auto v = f.get(key);
  if (!v) {
    if (v.error().code != errc::key_not_found) return v.error();
    return split_error(f, "split.count is set but " + std::string(key) +
                              " is missing (a shard has split.no, split.count and split.tensors.count)",
                       key);
  }
  auto x = v->get<T>();
  if (!x) {
    auto e = x.error();
    e.subject = std::string(key);
    e.detail = f.path() + ": " + e.detail;
    return e;
  }
  return *x;
}

}  // namespace

result<std::optional<split_info>> read_split_info(const file& f) {
  if (!f.find(kv_split_count)) return std::optional<split_info>{};
  split_info s;
  auto count = split_key<uint16_t>(f, kv_split_count);
  if (!count) return count.error();
  auto no = split_key<uint16_t>(f, kv_split_no);
  if (!no) return no.error();
  auto total = split_key<int32_t>(f, kv_split_tensors_count);
  if (!total) return total.error();
  s.count = *count;
  s.no = *no;
  s.tensors_count = *total;
  return std::optional<split_info>{s};
}

std::string split_path(std::string_view prefix, uint32_t split_no, uint32_t split_count) {
  char tail[48];
  std::snprintf(tail, sizeof tail, "-%05u-of-%05u.gguf", split_no + 1, split_count);
  return std::string(prefix) + tail;
}

std::optional<std::string> split_prefix(std::string_view path, uint32_t split_no, uint32_t split_count) {
  const std::string tail = split_path("", split_no, split_count);
  if (path.size() <= tail.size() || path.substr(path.size() - tail.size()) != tail) return std::nullopt;
  return std::string(path.substr(0, path.size() - tail.size()));
}

result<model_files> model_files::open(const std::filesystem::path& path, const reader_limits& limits) {
  auto f = file::open(path, limits);
  if (!f) return f.error();
  return from_file(*f, [limits](const std::string& p) { return file::open(p, limits); });
}

result<model_files> model_files::from_file(const file& given, const opener& open_shard) {
  return from_file(given, open_shard, given.path());
}

result<model_files> model_files::from_file(const file& given, const opener& open_shard, const std::string& path) {
  auto info = read_split_info(given);
  if (!info) return info.error();
  if (!*info || (*info)->count <= 1) {
    // One file (split.count 1 is a set of one; 0 is gguf-split's merged output).
    if (*info && (*info)->count == 1 && (*info)->no != 0) {
      return split_error(given, "split.no is " + std::to_string((*info)->no) + " in a set of 1 shard",
                         kv_split_no);
    }
    std::vector<tensor_ref> refs;
    refs.reserve(given.tensor_count());
    for (const auto& t : given.tensors()) refs.push_back({&t, 0});
    return model_files({given}, std::move(refs), given);
  }
  const split_info me = **info;
  if (me.no >= me.count) {
    return split_error(given,
                       "split.no " + std::to_string(me.no) + " is not below split.count " + std::to_string(me.count),
                       kv_split_no);
  }
  auto prefix = split_prefix(path, me.no, me.count);
  if (!prefix) {
    return split_error(given, "shard " + std::to_string(me.no + 1) + " of " + std::to_string(me.count) +
                                  " is not named " + split_path("PREFIX", me.no, me.count) +
                                  " (the other shards are found by that name)");
  }
  auto opener_fn = open_shard ? open_shard : opener([](const std::string& p) { return file::open_any(p); });
  std::vector<file> shards;
  shards.reserve(me.count);
  for (uint32_t i = 0; i < me.count; ++i) {
    if (i == me.no) {
      shards.push_back(given);
      continue;
    }
    const std::string p = split_path(*prefix, i, me.count);
    auto f = opener_fn(p);
    if (!f) {
      auto e = f.error();
      e.detail = p + ": " + (e.code == errc::io_error ? "shard " + std::to_string(i + 1) + " of " +
                                                            std::to_string(me.count) + " is missing or unreadable: "
                                                      : std::string()) +
                 e.detail;
      return e;
    }
    shards.push_back(std::move(*f));
  }
  // Every shard: its place, the same count and total; the tensors add up, unique names.
  uint64_t n_tensors = 0;
  std::unordered_map<std::string_view, uint32_t> seen;
  std::vector<tensor_ref> refs;
  std::string_view arch;
  for (uint32_t i = 0; i < shards.size(); ++i) {
    const file& s = shards[i];
    auto si = read_split_info(s);
    if (!si) return si.error();
    if (!*si) return split_error(s, "shard " + std::to_string(i + 1) + " has no split.count", kv_split_count);
    if ((*si)->no != i) {
      return split_error(s, "split.no is " + std::to_string((*si)->no) + ", expected " + std::to_string(i) +
                                " for shard " + std::to_string(i + 1),
                         kv_split_no);
    }
    if ((*si)->count != me.count) {
      return split_error(s, "split.count is " + std::to_string((*si)->count) + ", the set has " +
                                std::to_string(me.count) + " shards",
                         kv_split_count);
    }
    if ((*si)->tensors_count != me.tensors_count) {
      return split_error(s, "split.tensors.count is " + std::to_string((*si)->tensors_count) + ", shard " +
                                std::to_string(me.no + 1) + " says " + std::to_string(me.tensors_count),
                         kv_split_tensors_count);
    }
    if (auto a = s.get_string("general.architecture")) {
      if (!arch.empty() && *a != arch) {
        return split_error(s, "general.architecture is '" + std::string(*a) + "', the first shard's is '" +
                                  std::string(arch) + "'",
                           "general.architecture");
      }
      if (arch.empty()) arch = *a;
    }
    for (const auto& t : s.tensors()) {
      auto [it, fresh] = seen.emplace(t.name, i);
      if (!fresh) {
        auto e = split_error(s, "tensor is also in shard " + std::to_string(it->second + 1) + " (" +
                                    shards[it->second].path() + ")");
        e.code = errc::duplicate_tensor;
        e.subject = std::string(t.name);
        e.subject_is_tensor = true;
        e.offset = t.info_offset;
        return e;
      }
      refs.push_back({&t, i});
    }
    n_tensors += s.tensor_count();
  }
  if (me.tensors_count < 0 || n_tensors != static_cast<uint64_t>(me.tensors_count)) {
    return split_error(shards[0], "split.tensors.count is " + std::to_string(me.tensors_count) + " but the " +
                                      std::to_string(me.count) + " shards hold " + std::to_string(n_tensors) +
                                      " tensors",
                       kv_split_tensors_count);
  }

  // The merged view: shard 0's header and metadata, all tensors.
  const auto& first = *shards[0].impl_;
  auto impl = std::make_shared<detail::file_impl>();
  impl->path = first.path;
  impl->bytes = first.bytes;
  impl->parts = shards;
  for (const auto& s : shards) impl->part_sources.push_back(s.impl_->source.get());
  impl->version = first.version;
  impl->swap = first.swap;
  impl->order = first.order;
  impl->alignment = first.alignment;
  impl->metadata_end = first.metadata_end;
  impl->data_offset = first.data_offset;
  impl->kvs = first.kvs;
  impl->kv_index = first.kv_index;
  impl->tensors.reserve(refs.size());
  for (const auto& r : refs) impl->tensors.push_back(*r.info);
  for (uint32_t i = 0; i < impl->tensors.size(); ++i) impl->tensor_index.emplace(impl->tensors[i].name, i);
  return model_files(std::move(shards), std::move(refs), file(std::move(impl)));
}

const model_files::tensor_ref* model_files::find_tensor(std::string_view name) const {
  // merged_ holds the same tensors in the same order, with a name index (file::find_tensor)
  if (const tensor_info* t = merged_.find_tensor(name)) {
    const auto i = size_t(t - merged_.tensors().data());
    if (i < tensors_.size() && tensors_[i].info->name == name) return &tensors_[i];
  }
  for (const auto& r : tensors_) {
    if (r.info->name == name) return &r;
  }
  return nullptr;
}

uint64_t model_files::total_size() const noexcept {
  uint64_t n = 0;
  for (const auto& s : shards_) n += s.size();
  return n;
}

}  // namespace gguf
