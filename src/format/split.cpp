// Split and merge (gguf/split.h), following llama.cpp's gguf-split: the plan is its
// split_strategy, the shards' metadata is what ggml's gguf writer gives for the same
// key/values and tensors, and the tensor bytes are copied without passing through memory.
#include "gguf/split.h"

#include <algorithm>

#include "io/fd_source.h"
#include "gguf/writer.h"

namespace gguf {
namespace {

constexpr uint64_t ggml_default_alignment = 32;  // GGUF_DEFAULT_ALIGNMENT, gguf-split's size unit

uint64_t pad_to(uint64_t n, uint64_t align) { return (n + align - 1) / align * align; }

// ggml_n_dims: dimensions up to the last one above 1, at least 1 (ggml's writer stores
// tensor infos with this many dimensions).
uint32_t ggml_n_dims(const tensor_info& t) {
  for (uint32_t d = max_dims; d > 1; --d) {
    if (t.ne[d - 1] > 1) return d;
  }
  return 1;
}

bool is_split_key(std::string_view k) {
  return k == kv_split_no || k == kv_split_count || k == kv_split_tensors_count;
}

// The metadata of shard i (its tensors' data spans are only used for their sizes).
result<writer> shard_writer(const file& f, const split_plan& plan, size_t i) {
  writer_options o;
  o.version = 3;
  o.order = f.byte_order();
  writer w(o);
  if (i == 0) {
    for (const auto& kv : f.kvs()) {
      if (auto r = w.set(kv.key, value::copy_of(kv.value)); !r) return r.error();
    }
  }
  // ggml's gguf_set_val_* removes a key and appends it; gguf-split sets split.count last
  // (a placeholder first, the count once every shard is planned).
  auto put = [&](std::string_view key, value v) {
    w.remove(key);
    return w.set(key, std::move(v));
  };
  if (auto r = put(kv_split_no, value::u16(static_cast<uint16_t>(i))); !r) return r.error();
  if (auto r = put(kv_split_tensors_count, value::i32(static_cast<int32_t>(plan.tensor_count))); !r) return r.error();
  if (auto r = put(kv_split_count, value::u16(static_cast<uint16_t>(plan.shards.size()))); !r) return r.error();
  const auto tensors = f.tensors();
  for (uint32_t k : plan.shards[i].tensors) {
    const auto& t = tensors[k];
    if (auto r = w.add_tensor(t.name, t.type, std::span<const uint64_t>(t.ne.data(), ggml_n_dims(t)), t.data); !r) {
      return r.error();
    }
  }
  return w;
}

gguf::error plan_error(std::string detail) { return make_error(errc::invalid_argument, no_offset, std::move(detail)); }

}  // namespace

result<split_plan> plan_split(const file& f, const split_options& opts) {
  if (opts.max_bytes == 0 && opts.max_tensors == 0) return plan_error("--split-max-tensors must be at least 1");
  const auto tensors = f.tensors();
  if (tensors.size() > static_cast<size_t>(INT32_MAX)) return plan_error("more than 2^31-1 tensors");
  split_plan plan;
  plan.tensor_count = static_cast<uint32_t>(tensors.size());
  auto new_shard = [&](bool allow_empty) -> result<void> {
    if (!plan.shards.empty() && plan.shards.back().tensors.empty() && !allow_empty) {
      return plan_error("one of the shards would hold no tensor (the size or tensor limit is too small)");
    }
    plan.shards.emplace_back();
    return {};
  };
  (void)new_shard(false);
  if (opts.no_tensor_first_split) (void)new_shard(true);
  uint64_t current = 0;  // the current shard's data, each tensor padded to 32
  for (uint32_t i = 0; i < tensors.size(); ++i) {
    const uint64_t n = pad_to(tensors[i].nbytes, ggml_default_alignment);
    const uint64_t next = current + n;
    const bool split = opts.max_bytes ? next > opts.max_bytes : (i > 0 && i % opts.max_tensors == 0);
    if (split) {
      if (auto r = new_shard(false); !r) return r.error();
      current = n;
    } else {
      current = next;
    }
    plan.shards.back().tensors.push_back(i);
    plan.shards.back().tensor_bytes += tensors[i].nbytes;
  }
  if (plan.shards.size() > UINT16_MAX) {
    return plan_error(std::to_string(plan.shards.size()) + " shards: split.count is a uint16 (at most 65535)");
  }
  for (size_t i = 0; i < plan.shards.size(); ++i) {
    auto w = shard_writer(f, plan, i);
    if (!w) return w.error();
    plan.shards[i].metadata_size = w->data_offset();
    plan.shards[i].file_size = w->file_size();
  }
  return plan;
}

result<void> write_shard(const file& f, const split_plan& plan, size_t i, safe_output& out) {
  if (i >= plan.shards.size()) return plan_error("no shard " + std::to_string(i) + " in the plan");
  auto w = shard_writer(f, plan, i);
  if (!w) return w.error();
  if (auto r = out.write(w->metadata_bytes()); !r) return r;
  const uint64_t align = w->alignment();
  io::fd_source src(f.path(), f.bytes());
  const auto tensors = f.tensors();
  for (uint32_t k : plan.shards[i].tensors) {
    const auto& t = tensors[k];
    if (auto r = src.copy_to(out, f.data_offset() + t.offset, t.nbytes); !r) return r;
    if (auto r = out.write_zeros(pad_to(t.nbytes, align) - t.nbytes); !r) return r;
  }
  return {};
}

namespace {

writer merged_writer(const model_files& m) {
  const file& first = m.shards()[0];
  writer_options o;
  o.version = first.version() == 1 ? 3 : first.version();
  o.order = first.byte_order();
  // A model without tensors ends right after its metadata, as gguf-py writes vocab-only
  // files (ggml pads it; the padding carries nothing).
  o.pad_without_tensors = false;
  writer w(o);
  for (const auto& kv : first.kvs()) {
    if (!is_split_key(kv.key)) (void)w.set(kv.key, value::copy_of(kv.value));
  }
  for (const auto& r : m.tensors()) {
    const auto& t = *r.info;
    (void)w.add_tensor(t.name, t.type, std::span<const uint64_t>(t.ne.data(), t.n_dims), t.data);
  }
  return w;
}

}  // namespace

uint64_t merged_size(const model_files& m) { return merged_writer(m).file_size(); }

result<void> write_merged(const model_files& m, safe_output& out) {
  const writer w = merged_writer(m);
  if (auto r = out.write(w.metadata_bytes()); !r) return r;
  const uint64_t align = w.alignment();
  const auto shards = m.shards();
  std::unique_ptr<io::fd_source> src;
  uint32_t open_shard = UINT32_MAX;
  for (const auto& ref : m.tensors()) {
    if (ref.shard != open_shard) {
      src.reset();
      src = std::make_unique<io::fd_source>(shards[ref.shard].path(), shards[ref.shard].bytes());
      open_shard = ref.shard;
    }
    const auto& t = *ref.info;
    if (auto r = src->copy_to(out, shards[ref.shard].data_offset() + t.offset, t.nbytes); !r) return r;
    if (auto r = out.write_zeros(pad_to(t.nbytes, align) - t.nbytes); !r) return r;
  }
  return {};
}

}  // namespace gguf
