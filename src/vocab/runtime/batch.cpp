// vocab::tokenize_batch: many texts on several threads. The vocabulary is immutable and
// shared; the work is handed out in small runs of consecutive texts from one atomic
// counter, so that threads stay busy whatever the texts' lengths. The threads are the
// process's workers (gguf/workers.h), which live as long as the process: their per-thread
// word caches (thread_scratch.h) stay warm across batches.
#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

#include "gguf/vocab.h"
#include "gguf/workers.h"

namespace gguf {

result<std::vector<std::vector<int32_t>>> vocab::tokenize_batch(std::span<const std::string_view> texts,
                                                                unsigned n_threads, bool add_special,
                                                                bool parse_special) const {
  const size_t n = texts.size();
  std::vector<std::vector<int32_t>> out(n);
  if (n_threads == 0) n_threads = std::max(1u, std::thread::hardware_concurrency());
  n_threads = unsigned(std::min<size_t>(n_threads, std::max<size_t>(n, 1)));
  // Runs of consecutive texts: small enough to balance, large enough that the counter
  // is not contended.
  const size_t run = std::clamp<size_t>(n / (size_t(n_threads) * 16), 1, 64);
  std::atomic<size_t> next{0};
  // the failure of the lowest index, with its reason
  std::mutex failed_mu;
  size_t first_failed = n;
  gguf::error first_error;
  const auto job = [&](unsigned) {
    for (;;) {
      const size_t begin = next.fetch_add(run, std::memory_order_relaxed);
      if (begin >= n) return;
      for (size_t i = begin, end = std::min(n, begin + run); i < end; ++i) {
        auto r = tokenize_into(texts[i], out[i], add_special, parse_special);
        if (r) continue;
        std::lock_guard lock(failed_mu);
        if (i < first_failed) first_failed = i, first_error = r.error();
      }
    }
  };
  run_workers(n_threads, job);

  if (first_failed < n) {
    first_error.detail = "text " + std::to_string(first_failed) + ": " + first_error.detail;
    return first_error;
  }
  return out;
}

}  // namespace gguf
