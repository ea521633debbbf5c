// The values pass of gguf::diff: changed tensors of the same shape dequantized chunk by
// chunk on both sides (bounded memory), NMSE and the largest absolute difference.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <thread>

#include "gguf/quant.h"
#include "model/diff_impl.h"

namespace gguf::detail {
namespace {

struct chunk_job {
  size_t tensor = 0;  ///< into work
  uint64_t row_begin = 0, row_end = 0;
};

// Rows of a tensor: ne[1] * ne[2] * ne[3] rows of ne[0] elements, contiguous.
uint64_t row_count(const tensor_info& t) { return t.ne[1] * t.ne[2] * t.ne[3]; }

result<void> run_chunk(const file& fa, const file& fb, const values_job_tensor& w, const chunk_job& job,
                       std::vector<float>& xa, std::vector<float>& xb, value_stats& s) {
  const uint64_t rows = row_count(*w.a);
  const uint64_t ne0 = w.a->ne[0];
  const uint64_t n = (job.row_end - job.row_begin) * ne0;
  auto view = [&](const tensor_info& t) {
    const uint64_t row_bytes = t.nbytes / rows;
    return t.data.subspan(job.row_begin * row_bytes, (job.row_end - job.row_begin) * row_bytes);
  };
  auto va = view(*w.a);
  auto vb = view(*w.b);
  if (auto r = fa.fetch(va); !r) return r.error();
  if (auto r = fb.fetch(vb); !r) return r.error();
  xa.resize(n);
  xb.resize(n);
  auto da = dequantize_row(w.a->type, va, xa, fa.byte_order());
  auto db = dequantize_row(w.b->type, vb, xb, fb.byte_order());
  fa.release(va);
  fb.release(vb);
  if (!da) return make_error(da.error().code, w.a->info_offset, fa.path() + ": " + da.error().detail,
                             std::string(w.a->name), true);
  if (!db) return make_error(db.error().code, w.b->info_offset, fb.path() + ": " + db.error().detail,
                             std::string(w.b->name), true);
  s.bits_equal = std::memcmp(xa.data(), xb.data(), n * sizeof(float)) == 0;
  double err2 = 0, ref2 = 0, max_abs = 0;
  for (uint64_t i = 0; i < n; ++i) {
    const double x = xa[i];
    const double d = static_cast<double>(xb[i]) - x;
    err2 += d * d;
    ref2 += x * x;
    const double ad = std::fabs(d);
    if (ad > max_abs || std::isnan(ad)) max_abs = ad;  // a NaN difference is reported as NaN
  }
  s.err2 = err2;
  s.ref2 = ref2;
  s.max_abs = max_abs;
  return {};
}

}  // namespace

result<std::vector<value_stats>> compare_values(const file& a, const file& b,
                                                std::span<const values_job_tensor> work,
                                                const diff_options& options) {
  std::vector<chunk_job> jobs;
  std::vector<size_t> first_job(work.size() + 1);
  for (size_t i = 0; i < work.size(); ++i) {
    first_job[i] = jobs.size();
    const uint64_t rows = row_count(*work[i].a);
    const uint64_t per = std::max<uint64_t>(1, options.chunk_elements / std::max<uint64_t>(1, work[i].a->ne[0]));
    for (uint64_t r = 0; r < rows; r += per) jobs.push_back({i, r, std::min(rows, r + per)});
  }
  first_job[work.size()] = jobs.size();

  std::vector<value_stats> partial(jobs.size());
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex err_mutex;
  gguf::error first_error;
  auto worker = [&] {
    std::vector<float> xa, xb;
    for (size_t j; !failed.load(std::memory_order_relaxed) && (j = next.fetch_add(1)) < jobs.size();) {
      auto r = run_chunk(a, b, work[jobs[j].tensor], jobs[j], xa, xb, partial[j]);
      if (!r) {
        std::lock_guard lock(err_mutex);
        if (!failed.exchange(true)) first_error = r.error();
      }
    }
  };
  unsigned n_threads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  n_threads = static_cast<unsigned>(std::min<size_t>(n_threads, jobs.size()));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < n_threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (failed) return first_error;

  std::vector<value_stats> out(work.size());
  for (size_t i = 0; i < work.size(); ++i) {
    auto& s = out[i];
    for (size_t j = first_job[i]; j < first_job[i + 1]; ++j) {
      const auto& p = partial[j];
      s.err2 += p.err2;
      s.ref2 += p.ref2;
      if (p.max_abs > s.max_abs || std::isnan(p.max_abs)) s.max_abs = p.max_abs;
      s.bits_equal = s.bits_equal && p.bits_equal;
    }
  }
  return out;
}

}  // namespace gguf::detail
