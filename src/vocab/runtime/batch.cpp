// vocab::tokenize_batch: many texts on several threads. The vocabulary is immutable and
// shared; the work is handed out in small runs of consecutive texts from one atomic
// counter, so that threads stay busy whatever the texts' lengths. The threads are the
// process's workers (gguf/workers.h), which live as long as the process: their per-thread
// word caches (thread_scratch.h) stay warm across batches.
#include <algorithm>
#include <atomic>
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
  std::atomic<size_t> first_failed{n};
  const auto job = [&](unsigned) {
    for (;;) {
      const size_t begin = next.fetch_add(run, std::memory_order_relaxed);
      if (begin >= n) return;
      for (size_t i = begin, end = std::min(n, begin + run); i < end; ++i) {
        if (tokenize_into(texts[i], out[i], add_special, parse_special)) continue;
        size_t cur = first_failed.load();
        while (i < cur && !first_failed.compare_exchange_weak(cur, i)) {
        }
      }
    }
  };
  run_workers(n_threads, job);

  if (const size_t i = first_failed.load(); i < n) {
    auto r = tokenize(texts[i], add_special, parse_special);
    gguf::error e = r ? make_error(errc::invalid_argument, no_offset, "tokenization failed") : r.error();
    e.detail = "text " + std::to_string(i) + ": " + e.detail;
    return e;
  }
  return out;
}

}  // namespace gguf
