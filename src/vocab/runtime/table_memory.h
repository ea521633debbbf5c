// Allocator for the large tables a vocabulary builds (internal): the token map, the BPE
// merge tables, the tries, the word cache. From 512 KiB up, a table is an anonymous mapping
// of its own: its pages come from the kernel already zeroed, so a table sized over them
// need not be zero-filled by hand (zeroed(), prefaulted_table), and it is unmapped, not
// kept in the heap, when freed. Smaller tables use operator new.
//
// No transparent huge pages (MADV_HUGEPAGE). They were asked for, up to one per table, for
// fewer TLB misses and page faults; but a huge page is a free 2 MiB block of physical
// memory, and in a virtual machine that reports its free memory to the host (virtio-balloon
// free page reporting: Firecracker, QEMU, cloud VMs) those blocks are exactly the ones handed
// back: clearing one faults its 512 host pages in again, 5-10 ms in the kernel, whether the
// table then uses 2 MiB of it or 8 KiB (the word cache, whole_char_table). A whole-process
// `gguf tokenize --no-tokenizer-cache` of 4 MB of text right after llama-tokenize (which
// leaves such blocks behind) took gpt-2 prose 0.15-0.18 s with them (9 huge pages) and
// 0.09-0.10 s without, CJK 0.17-0.22 -> 0.10 s; llama-bpe, whose tables are larger than
// 2 MiB and already had none, was unchanged. Where the huge pages would have been backed
// already (a loop of our own processes) they saved about 1 ms of a cold load (gpt-2 4.6
// -> 5.9 ms without, bench/load_vs_llama.py, CPU medians of 11).
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace gguf::vocab_detail {

template <class T>
struct table_allocator {
  using value_type = T;
  // from this size up, a mapping of its own
  static constexpr size_t threshold = size_t(512) << 10;

  table_allocator() = default;
  template <class U>
  table_allocator(const table_allocator<U>&) noexcept {}

  T* allocate(size_t n) {
    const size_t bytes = n * sizeof(T);
#if defined(__linux__)
    if (bytes >= threshold) {
      void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED) throw std::bad_alloc();
      return static_cast<T*>(p);
    }
#endif
    return static_cast<T*>(::operator new(bytes, std::align_val_t(alignof(T) > 16 ? alignof(T) : 16)));
  }
  void deallocate(T* p, size_t n) noexcept {
    const size_t bytes = n * sizeof(T);
#if defined(__linux__)
    if (bytes >= threshold) {
      munmap(p, bytes);
      return;
    }
#endif
    ::operator delete(p, std::align_val_t(alignof(T) > 16 ? alignof(T) : 16));
  }
  template <class U>
  bool operator==(const table_allocator<U>&) const noexcept {
    return true;
  }
  /// vector(n) and resize(n) default-initialize (a trivial element is left as the memory
  /// holds it): every table is written in full after it is sized, or sized over memory
  /// known to be zero (zeroed()), so value-initializing would write it twice.
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
  /// True when an allocation of `bytes` is a fresh anonymous mapping, whose pages the
  /// kernel hands out zeroed.
  static constexpr bool zeroed(size_t bytes) noexcept {
#if defined(__linux__)
    return bytes >= threshold;
#else
    (void)bytes;
    return false;
#endif
  }
};

/// The vector type of the tables built at load (pod_table owns one).
template <class T>
using table_vector = std::vector<T, table_allocator<T>>;

}  // namespace gguf::vocab_detail
