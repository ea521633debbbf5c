// Per-thread scratch of a tokenizer model (internal): the SPM and BPE models keep their
// buffers and their word cache (word_cache.h) from one tokenize call to the next on the
// same thread, so that many short texts (one JSON line each, a batch) tokenize as fast as
// one long text does. A model is const and shared by every thread: each thread has its
// own scratch, tagged with the id of the model instance that filled it; a scratch found
// tagged with another instance (the thread used another vocabulary since) is cleared
// first. Instance ids are never reused, so a model freed and another allocated at the
// same address cannot see the first one's cache.
#pragma once

#include <atomic>
#include <cstdint>

namespace gguf::vocab_detail {

/// A process-unique id for a model instance (never 0).
inline uint64_t next_model_instance() noexcept {
  static std::atomic<uint64_t> n{0};
  return n.fetch_add(1, std::memory_order_relaxed) + 1;
}

/// This thread's Scratch for the model instance `owner`; cleared when the thread last
/// used it for another instance. Bounded: one Scratch per type and thread.
template <class Scratch>
Scratch& thread_scratch(uint64_t owner) {
  thread_local struct {
    uint64_t owner = 0;
    Scratch s;
  } t;
  if (t.owner != owner) {
    t.s = Scratch{};
    t.owner = owner;
  }
  return t.s;
}

}  // namespace gguf::vocab_detail
