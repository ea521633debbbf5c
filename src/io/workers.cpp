// run_workers (gguf/workers.h): one process-wide pool of threads, woken by a generation
// counter for each run, the caller doing share 0.
#include "gguf/workers.h"

#include <unistd.h>

#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace gguf {
namespace {

class worker_pool {
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
    std::exception_ptr failed;
    try {
      job(0);
    } catch (...) {
      failed = std::current_exception();  // the others still use the caller's state: wait for them
    }
    std::unique_lock lock(mu_);
    done_.wait(lock, [&] { return pending_ == 0; });
    job_ = nullptr;
    lock.unlock();
    if (failed) std::rethrow_exception(failed);
  }

  /// The pool of this process (a forked child gets a new one; the parent's is left alone).
  static worker_pool& instance() {
    static std::mutex mu;
    static worker_pool* pool = nullptr;
    static pid_t owner = 0;
    std::lock_guard lock(mu);
    if (!pool || owner != ::getpid()) {
      pool = new worker_pool;  // never destroyed: its threads end with the process
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

void run_workers(unsigned n, const std::function<void(unsigned)>& job) {
  if (n <= 1) {
    job(0);
    return;
  }
  worker_pool::instance().run(n, job);
}

}  // namespace gguf
