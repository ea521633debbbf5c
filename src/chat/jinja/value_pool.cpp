// The storage of values (counted boxes) comes from small per-thread free lists.
//
// A render makes and frees a few hundred boxes (strings, lists, dicts, loop objects) of a
// handful of sizes, often in bursts (a list's items go at once); glibc's per-thread cache
// holds 7 blocks of a size, the rest take malloc's slower paths. Here each size class
// (16-byte steps up to 128 bytes) keeps up to 512 freed blocks for reuse. A block freed on
// another thread than the one that made it simply joins that thread's list (blocks are
// plain ::operator new memory). The lists are freed when their thread ends; a box freed
// after that (a static's value at exit) goes straight back to ::operator delete.
// Under AddressSanitizer the pool is off, so use-after-free of a box is still reported.
#include <cstddef>
#include <new>

#include "chat/jinja/value.h"

#if defined(__SANITIZE_ADDRESS__)
#define GGUF_JINJA_POOL 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GGUF_JINJA_POOL 0
#endif
#endif
#ifndef GGUF_JINJA_POOL
#define GGUF_JINJA_POOL 1
#endif

namespace gguf::jinja {

#if GGUF_JINJA_POOL
namespace {
constexpr size_t kStep = 16, kClasses = 8, kKeep = 512;

struct free_block {
  free_block* next;
};

struct pool {
  free_block* head[kClasses] = {};
  uint32_t count[kClasses] = {};
  ~pool();
};

thread_local bool t_pool_gone = false;  // trivially destructible: readable after ~pool
thread_local pool t_pool;

pool::~pool() {
  t_pool_gone = true;
  for (size_t c = 0; c < kClasses; ++c)
    while (free_block* b = head[c]) {
      head[c] = b->next;
      ::operator delete(b);
    }
}

size_t class_of(size_t n) { return (n + kStep - 1) / kStep - 1; }
}  // namespace

void* counted::operator new(size_t n) {
  size_t c = class_of(n);
  if (c >= kClasses) return ::operator new(n);
  if (!t_pool_gone) {
    pool& p = t_pool;
    if (free_block* b = p.head[c]) {
      p.head[c] = b->next;
      --p.count[c];
      return b;
    }
  }
  // Always the whole class size, even when this thread's list is gone: the block may be
  // freed on a thread whose list is alive and then reused for any size of its class.
  return ::operator new((c + 1) * kStep);
}

void counted::operator delete(void* q, size_t n) noexcept {
  size_t c = class_of(n);
  if (c < kClasses) {
    if (!t_pool_gone) {
      pool& p = t_pool;
      if (p.count[c] < kKeep) {
        auto* b = static_cast<free_block*>(q);
        b->next = p.head[c];
        p.head[c] = b;
        ++p.count[c];
        return;
      }
    }
  }
  ::operator delete(q);
}
#else
void* counted::operator new(size_t n) { return ::operator new(n); }
void counted::operator delete(void* q, size_t) noexcept { ::operator delete(q); }
#endif

}  // namespace gguf::jinja
