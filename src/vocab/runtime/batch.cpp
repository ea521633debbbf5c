// vocab::tokenize_batch: many texts on several threads. The vocabulary is immutable and
// shared; the work is handed out in small runs of consecutive texts from one atomic
// counter, so that threads stay busy whatever the texts' lengths. The threads belong to
// a process-wide pool that lives as long as the process (their per-thread word caches,
// thread_scratch.h, stay warm across batches); a process forked from one that had a pool
// builds its own (the child has none of the parent's threads).
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

#include "gguf/vocab.h"

namespace gguf {
namespace {

class thread_pool {
 public:
  /// Runs job(k) on the calling thread (k = 0) and on n - 1 pool threads (k = 1..n-1),
  /// returns when all have returned. One run at a time.
  void run(unsigned n, const std::function<void(unsigned)>& job) {
    std::lock_guard run_lock(run_mu_);
    {
      std::lock_guard lock(mu_);
      while (threads_.size() + 1 < n) {
        const unsigned k = unsigned(threads_.size()) + 1;
        threads_.emplace_back([this, k] { work(k); });
      }
      job_ = &job;
      wanted_ = n;
      pending_ = n - 1;
      ++generation_;
    }
    cv_.notify_all();
    job(0);
    std::unique_lock lock(mu_);
    done_.wait(lock, [&] { return pending_ == 0; });
    job_ = nullptr;
  }

  /// The pool of this process (a forked child gets a new one; the parent's is left alone).
  static thread_pool& instance() {
    static std::mutex mu;
    static thread_pool* pool = nullptr;
    static pid_t owner = 0;
    std::lock_guard lock(mu);
    if (!pool || owner != ::getpid()) {
      pool = new thread_pool;  // never destroyed: its threads end with the process
      owner = ::getpid();
    }
    return *pool;
  }

 private:
  void work(unsigned k) {
    uint64_t seen = 0;
    for (;;) {
      const std::function<void(unsigned)>* job;
      {
        std::unique_lock lock(mu_);
        cv_.wait(lock, [&] { return generation_ != seen; });
        seen = generation_;
        if (k >= wanted_) continue;
        job = job_;
      }
      (*job)(k);
      {
        std::lock_guard lock(mu_);
        if (--pending_ == 0) done_.notify_one();
      }
    }
  }

  std::mutex run_mu_, mu_;
  std::condition_variable cv_, done_;
  std::vector<std::thread> threads_;
  const std::function<void(unsigned)>* job_ = nullptr;
  unsigned wanted_ = 0, pending_ = 0;
  uint64_t generation_ = 0;
};

}  // namespace

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
  if (n_threads <= 1) job(0);
  else thread_pool::instance().run(n_threads, job);

  if (const size_t i = first_failed.load(); i < n) {
    auto r = tokenize(texts[i], add_special, parse_special);
    gguf::error e = r ? make_error(errc::invalid_argument, no_offset, "tokenization failed") : r.error();
    e.detail = "text " + std::to_string(i) + ": " + e.detail;
    return e;
  }
  return out;
}

}  // namespace gguf
