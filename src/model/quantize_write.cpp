// Carrying out a quantization plan (quantize_plan.cpp): the output metadata in
// llama-quantize's order, the tensor data quantized a window of rows at a time by a
// fixed pool of threads, written in order through safe_output while the next window is
// computed. Memory: two windows of output plus, per thread, its input bytes and floats.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <future>
#include <thread>

#include "io/fd_source.h"
#include "gguf/output.h"
#include "gguf/quant.h"
#include "gguf/workers.h"
#include "gguf/writer.h"
#include "model/quantize_plan.h"

namespace gguf {

namespace {

constexpr uint64_t alignment = 32;  // GGUF_DEFAULT_ALIGNMENT: llama-quantize never uses another
constexpr uint32_t qnt_version = 2;  // GGML_QNT_VERSION

uint64_t pad(uint64_t n) { return (n + alignment - 1) & ~(alignment - 1); }

// gguf_context's key/values: a set removes the key and appends it (gguf_set_val_*).
struct kv_list {
  std::vector<std::pair<std::string, value>> kvs;
  void set(std::string key, value v) {
    remove(key);
    kvs.emplace_back(std::move(key), std::move(v));
  }
  void remove(std::string_view key) {
    auto it = std::find_if(kvs.begin(), kvs.end(), [&](const auto& kv) { return kv.first == key; });
    if (it != kvs.end()) kvs.erase(it);
  }
};

// The metadata llama_model_quantize_impl and llama-quantize's main() give the output.
kv_list output_kvs(const file& first, const planned& p, const quantize_options& o) {
  kv_list l;
  for (const auto& kv : first.kvs()) l.set(std::string(kv.key), value::copy_of(kv.value));
  l.set("general.quantization_version", value::u32(qnt_version));
  l.set("general.file_type", value::u32(p.plan.ftype));
  for (auto k : {"split.no", "split.count", "split.tensors.count"}) l.remove(k);
  std::vector<kv_override> ov = o.kv_overrides;
  if (o.imatrix && !o.imatrix->entries.empty()) {
    kv_override f;
    f.key = "quantize.imatrix.file";
    f.tag = kv_override::kind::str;
    f.s = o.imatrix_file.substr(0, 127);
    ov.push_back(f);
    if (!o.imatrix->datasets.empty()) {
      f.key = "quantize.imatrix.dataset";
      f.s = o.imatrix->datasets[0].substr(0, 127);
      ov.push_back(f);
    }
    kv_override n;
    n.key = "quantize.imatrix.entries_count";
    n.i = int64_t(o.imatrix->entries.size());
    ov.push_back(n);
    if (o.imatrix->chunk_count > 0) {
      n.key = "quantize.imatrix.chunks_count";
      n.i = o.imatrix->chunk_count;
      ov.push_back(n);
    }
  }
  for (const auto& v : ov) {
    switch (v.tag) {
      case kv_override::kind::float_: l.set(v.key, value::f32(float(v.f))); break;
      case kv_override::kind::int_: l.set(v.key, value::u32(uint32_t(v.i < 0 ? -v.i : v.i))); break;
      case kv_override::kind::bool_: l.set(v.key, value::boolean(v.b)); break;
      case kv_override::kind::str: l.set(v.key, value::string(v.s)); break;
    }
  }
  if (p.pruned_block_count >= 0) l.set(p.facts.arch + ".block_count", value::u32(uint32_t(p.pruned_block_count)));
  return l;
}

void put_raw(std::vector<std::byte>& b, const void* p, size_t n) {
  const size_t at = b.size();
  b.resize(at + n);
  if (n) std::memcpy(b.data() + at, p, n);
}
template <class T>
void put(std::vector<std::byte>& b, T v) {
  put_raw(b, &v, sizeof v);
}
void put_str(std::vector<std::byte>& b, std::string_view s) {
  put<uint64_t>(b, s.size());
  put_raw(b, s.data(), s.size());
}

// gguf_get_meta_data of one output file: header, key/values, tensor infos, padding.
std::vector<std::byte> header_bytes(const kv_list& kvs, std::span<const quantize_tensor_plan* const> tensors) {
  std::vector<std::byte> b;
  put_raw(b, "GGUF", 4);
  put<uint32_t>(b, 3);
  put<uint64_t>(b, tensors.size());
  put<uint64_t>(b, kvs.kvs.size());
  for (const auto& [key, v] : kvs.kvs) {
    put_str(b, key);
    put<uint32_t>(b, uint32_t(v.type()));
    put_raw(b, v.payload().data(), v.payload().size());
  }
  uint64_t offset = 0;
  for (const auto* t : tensors) {
    put_str(b, t->name);
    put<uint32_t>(b, t->n_dims);
    for (uint32_t i = 0; i < t->n_dims; ++i) put<int64_t>(b, int64_t(t->ne[i]));
    put<uint32_t>(b, uint32_t(t->type_out));
    put<uint64_t>(b, offset);
    offset += pad(t->size_out);
  }
  b.resize(pad(b.size()));
  return b;
}

struct shard_layout {
  std::vector<const quantize_tensor_plan*> tensors;
  std::vector<std::byte> header;
};

std::vector<shard_layout> layouts(const model_files& in, const planned& p, const quantize_options& o) {
  std::vector<shard_layout> s(p.n_shards);
  for (const auto& t : p.plan.tensors) s[t.shard].tensors.push_back(&t);
  const kv_list base = output_kvs(in.shards()[0], p, o);
  for (uint32_t i = 0; i < p.n_shards; ++i) {
    // Only the first output shard carries the metadata (llama-quantize's other shards start
    // from gguf_init_empty and get the split keys alone).
    kv_list kvs = i == 0 ? base : kv_list{};
    if (p.n_shards > 1) {
      kvs.set("split.no", value::u16(uint16_t(i)));
      kvs.set("split.count", value::u16(uint16_t(p.n_shards)));
      kvs.set("split.tensors.count", value::i32(int32_t(p.plan.tensors.size())));
    }
    s[i].header = header_bytes(kvs, s[i].tensors);
  }
  return s;
}

// n of the process's workers (gguf/workers.h): run(fn) calls fn(0..n-1) on n threads (the
// caller is thread 0).
class pool {
 public:
  explicit pool(int n) : n_(std::max(n, 1)) {}
  int size() const { return n_; }
  void run(const std::function<void(int)>& fn) {
    run_workers(unsigned(n_), [&](unsigned k) { fn(int(k)); });
  }

 private:
  int n_;
};

struct thread_scratch {
  std::vector<std::byte> in;
  std::vector<float> f32;
  error err;
  bool failed = false;
};

// Quantizes rows [r0, r1) of `t` from `src` into `out` (row-major, packed).
result<void> quantize_range(const quantize_tensor_plan& t, const io::fd_source& src, uint64_t data_offset,
                            int64_t r0, int64_t r1, std::byte* out, thread_scratch& s) {
  const int64_t n_per_row = int64_t(t.ne[0]);
  const uint64_t row_in = *ggml_row_size(t.type_in, t.ne[0]);
  const uint64_t row_out = *ggml_row_size(t.type_out, t.ne[0]);
  const uint64_t n = uint64_t(r1 - r0);
  s.in.resize(n * row_in);
  if (auto r = src.read(data_offset + t.info->offset + uint64_t(r0) * row_in, s.in); !r) return r.error();
  const float* f = nullptr;
  if (t.type_in == ggml_type::f32) {
    f = reinterpret_cast<const float*>(s.in.data());
  } else {
    s.f32.resize(n * uint64_t(n_per_row));
    if (auto r = dequantize_row(t.type_in, s.in, s.f32); !r) return r.error();
    f = s.f32.data();
  }
  const int64_t rows_per_expert = int64_t(t.ne[1]);
  for (int64_t r = r0; r < r1;) {
    const int64_t e = r / rows_per_expert;
    const int64_t stop = std::min(r1, (e + 1) * rows_per_expert);
    const float* im = t.imatrix ? t.imatrix + e * n_per_row : nullptr;
    auto q = quantize_rows(t.type_out, f + (r - r0) * n_per_row, out + uint64_t(r - r0) * row_out, stop - r, n_per_row, im);
    if (!q) return q.error();
    r = stop;
  }
  return {};
}

struct writer_state {
  const quantize_options& o;
  pool& workers;
  std::vector<thread_scratch> scratch;
  std::vector<std::byte> out_buf[2];
  std::future<result<void>> pending;  // the write of the previous window
};

result<void> finish_pending(writer_state& w) {
  if (!w.pending.valid()) return {};
  return w.pending.get();
}

result<void> quantize_tensor(const quantize_tensor_plan& t, const file& shard, const io::fd_source& src,
                             safe_output& out, writer_state& w) {
  const uint64_t data_offset = shard.data_offset();
  const uint64_t row_in = *ggml_row_size(t.type_in, t.ne[0]);
  const uint64_t row_out = *ggml_row_size(t.type_out, t.ne[0]);
  const int64_t nrows = int64_t(t.ne[1] * t.ne[2] * t.ne[3]);
  const int nthr = w.workers.size();
  const uint64_t budget = w.o.window_bytes ? w.o.window_bytes : (4u << 20);
  // Rows per thread per window: about `budget` bytes of floats, at least one row.
  const int64_t per_thread = std::max<int64_t>(1, int64_t(budget / (t.ne[0] * sizeof(float) + row_in)));
  const int64_t window = per_thread * nthr;
  int cur = 0;
  for (int64_t w0 = 0; w0 < nrows; w0 += window) {
    const int64_t w1 = std::min(nrows, w0 + window);
    auto& buf = w.out_buf[cur];
    buf.resize(uint64_t(w1 - w0) * row_out);
    const int64_t share = (w1 - w0 + nthr - 1) / nthr;
    // A remote input: this window's bytes are fetched here, and dropped once quantized.
    const uint64_t in_off = data_offset + t.info->offset + uint64_t(w0) * row_in, in_len = uint64_t(w1 - w0) * row_in;
    if (shard.is_remote()) {
      if (auto r = shard.fetch(in_off, in_len); !r) return r.error();
    }
    std::function<void(int)> job = [&](int id) {
      const int64_t a = w0 + share * id, b = std::min(w1, a + share);
      if (a >= b) return;
      auto& s = w.scratch[size_t(id)];
      if (auto r = quantize_range(t, src, data_offset, a, b, buf.data() + uint64_t(a - w0) * row_out, s); !r) {
        s.failed = true;
        s.err = r.error();
      }
    };
    w.workers.run(job);
    if (shard.is_remote()) shard.release(shard.bytes().subspan(in_off, in_len));
    if (auto r = finish_pending(w); !r) return r;
    for (auto& s : w.scratch) {
      if (s.failed) {
        s.failed = false;
        auto e = s.err;
        e.subject = t.name;
        e.subject_is_tensor = true;
        return e;
      }
    }
    w.pending = std::async(std::launch::async, [&out, &buf] { return out.write(buf); });
    cur ^= 1;
  }
  return finish_pending(w);
}

// A tensor that keeps its type: copied by the kernel, or for a remote input fetched and
// written 16 MiB at a time.
result<void> copy_tensor(const file& f, const io::fd_source& src, uint64_t off, uint64_t n, safe_output& out) {
  if (!f.is_remote()) return src.copy_to(out, off, n);
  constexpr uint64_t step = 16u << 20;
  for (uint64_t done = 0; done < n; done += step) {
    const uint64_t len = std::min(step, n - done);
    if (auto r = f.fetch(off + done, len); !r) return r;
    const auto view = f.bytes().subspan(off + done, len);
    auto r = out.write(view);
    f.release(view);
    if (!r) return r;
  }
  return {};
}

}  // namespace

result<quantize_plan> plan_quantize(const model_files& in, const std::filesystem::path& out, const quantize_options& o) {
  auto p = make_plan(in, out, o, true);
  if (!p) return p.error();
  const auto l = layouts(in, *p, o);
  for (const auto& s : l) {
    uint64_t size = s.header.size();
    for (const auto* t : s.tensors) size += pad(t->size_out);
    p->plan.file_sizes.push_back(size);
  }
  return std::move(p->plan);
}

result<quantize_plan> quantize_model(const model_files& in, const std::filesystem::path& out, const quantize_options& o) {
  // OUT is checked first, as llama-quantize does before it reads the model.
  // The overwrite policy of every writer (gguf::check_overwrite, issue 29 item 9): an
  // existing OUT only with force, never an input shard.
  std::vector<std::filesystem::path> inputs;
  for (const auto& shard : in.shards()) inputs.emplace_back(shard.path());
  auto check_out = [&](const std::filesystem::path& path) -> result<void> {
    return check_overwrite(path, inputs, o.force, false);
  };
  if (!o.keep_split) {
    if (auto r = check_out(out); !r) return r.error();
  }
  auto p = make_plan(in, out, o, false);
  if (!p) return p.error();
  for (const auto& path : p->plan.paths) {
    if (auto r = check_out(path); !r) return r.error();
  }
  const auto l = layouts(in, *p, o);
  for (const auto& s : l) {
    uint64_t size = s.header.size();
    for (const auto* t : s.tensors) size += pad(t->size_out);
    p->plan.file_sizes.push_back(size);
  }
  const int nthr = o.nthread > 0 ? o.nthread : int(std::max(1u, std::thread::hardware_concurrency()));
  pool workers(nthr);
  writer_state w{o, workers, std::vector<thread_scratch>(size_t(nthr)), {}, {}};
  std::vector<std::unique_ptr<io::fd_source>> sources;
  for (const auto& shard : in.shards()) sources.push_back(std::make_unique<io::fd_source>(shard.path(), shard.bytes()));

  // Every output is written and fsynced before any is renamed into place.
  std::vector<safe_output> outputs;
  for (size_t i = 0; i < l.size(); ++i) {
    output_options oo;
    oo.expected_size = p->plan.file_sizes[i];
    oo.progress = o.progress;
    auto so = safe_output::create(p->plan.paths[i], oo);
    if (!so) return so.error();
    auto& dst = outputs.emplace_back(std::move(*so));
    const auto& stale = dst.stale_temp_files();
    p->plan.stale_temp_files.insert(p->plan.stale_temp_files.end(), stale.begin(), stale.end());
    if (auto r = dst.write(l[i].header); !r) return r.error();
    for (const auto* t : l[i].tensors) {
      const auto shard = in.find_tensor(t->source_name)->shard;
      const auto& src = *sources[shard];
      const file& f = in.shards()[shard];
      if (!t->quantized) {
        if (auto r = copy_tensor(f, src, f.data_offset() + t->info->offset, t->size_out, dst); !r) return r.error();
      } else if (auto r = quantize_tensor(*t, f, src, dst, w); !r) {
        return r.error();
      }
      if (auto r = dst.write_zeros(pad(t->size_out) - t->size_out); !r) return r.error();
    }
    if (auto r = dst.finish(); !r) return r.error();  // synced, its buffer given back
  }
  // ... and the first shard last, its old file removed first (safe_output::commit_set): a
  // kill during the renames never leaves a mix of an older set and this one.
  if (auto r = safe_output::commit_set(outputs); !r) return r.error();
  return std::move(p->plan);
}

}  // namespace gguf
