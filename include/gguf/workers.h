// gguf/workers.h — the process's worker threads, shared by every parallel job of the
// library and its front ends (vocab::tokenize_batch, the command-line tool's --jsonl
// pipeline).
//
//   std::vector<uint64_t> sums(4);
//   gguf::run_workers(4, [&](unsigned k) { sums[k] = work_on_part(k); });
//
// The threads are created on first need and kept for the life of the process, so that
// what a thread keeps between calls (the tokenizers' word caches) stays warm from one run
// to the next; a process forked from one that had them makes its own (the child has none
// of the parent's threads).
#pragma once

#include <functional>

#pragma GCC visibility push(default)  // public API: exported from the shared library
namespace gguf {

/// Runs job(k) for k = 0..n-1 (n = 0 counts as 1): job(0) on the calling thread, the
/// others on the process's worker threads; returns when every call has returned (an
/// exception from job(0) is rethrown then; one from another k ends the process, as from a
/// std::thread). One run at a time: a second caller waits until the first run has ended,
/// so a job must not call run_workers itself.
void run_workers(unsigned n, const std::function<void(unsigned)>& job);

}  // namespace gguf
#pragma GCC visibility pop
