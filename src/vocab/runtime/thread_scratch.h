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

/// True on this thread while a side_scratch_scope is alive.
inline bool& side_scratch_on() noexcept {
  thread_local bool on = false;
  return on;
}

/// While alive, thread_scratch hands out a second Scratch of the thread, for a short run
/// at load (the newline token of a vocabulary): clearing the main one there would free,
/// inside the load, the buffers and word cache that another vocabulary's tokenize calls
/// filled (tens of MB after a long text), and drop them for that vocabulary's next call.
class side_scratch_scope {
 public:
  side_scratch_scope() noexcept : was_(side_scratch_on()) { side_scratch_on() = true; }
  ~side_scratch_scope() { side_scratch_on() = was_; }
  side_scratch_scope(const side_scratch_scope&) = delete;
  side_scratch_scope& operator=(const side_scratch_scope&) = delete;

 private:
  bool was_;
};

/// This thread's Scratch for the model instance `owner`; cleared (its clear(), or a fresh
/// Scratch) when the thread last used it for another instance. Bounded: two Scratch per
/// type and thread (the main one, and the side one of side_scratch_scope, which only ever
/// holds short runs).
template <class Scratch>
Scratch& thread_scratch(uint64_t owner) {
  struct slot {
    uint64_t owner = 0;
    Scratch s;
  };
  thread_local slot main, side;
  slot& t = side_scratch_on() ? side : main;
  if (t.owner != owner) {
    // A Scratch with clear() empties its caches and keeps its buffers: a new vocabulary's
    // first call then writes memory the thread already has instead of faulting fresh
    // pages in (a few MiB of word cache after a long text).
    if constexpr (requires { t.s.clear(); }) t.s.clear();
    else t.s = Scratch{};
    t.owner = owner;
  }
  return t.s;
}

}  // namespace gguf::vocab_detail
