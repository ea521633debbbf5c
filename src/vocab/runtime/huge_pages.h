// Allocator for the large tables a vocabulary builds (internal): the token map, the BPE
// merge table, the tries. Their lookups land at random places in several MiB, so with 4 KiB
// pages nearly every lookup of a tokenize call also misses the TLB, and building them takes
// one page fault per 4 KiB. From 512 KiB up, this allocator maps the memory itself, aligned
// to 2 MiB and marked MADV_HUGEPAGE, so the kernel backs it with transparent huge pages where
// it allows them ("madvise" or "always" in /sys/kernel/mm/transparent_hugepage/enabled);
// where it does not, the memory behaves as any other. Smaller tables use operator new.
//
// Measured on llama-bpe (bench_tokenize_file, bench.txt, medians of 3): huge pages for every
// large allocation (glibc.malloc.hugetlb=1, same build) took load 26.4 -> 24.6 ms and the
// first tokenize call 197 -> 187 ms; with this allocator 14 MiB of the tables are in huge
// pages (AnonHugePages). From 512 KiB rather than 2 MiB (a 0.5-1 MiB table then holds a
// whole huge page: one fault and 2 MiB cleared instead of 128-256 faults, and the table is
// not zero-filled by hand), whole-process cold load, CPU medians of 30-60 alternating runs:
// deepseek-coder 6.2 -> 5.5 ms, llama-spm 4.5 -> 4.0, starcoder 6.0 -> 5.3.
//
// Only up to one huge page (2 MiB) per table. A huge page is a free 2 MiB block of physical
// memory, and in a virtual machine that reports its free memory to the host (virtio-balloon
// free page reporting: Firecracker, QEMU, cloud VMs) those blocks are exactly the ones handed
// back: clearing each one faults its 512 host pages in again, 5-10 ms per huge page, in the
// kernel. Where another process has just freed memory (llama-tokenize, alternating in
// bench/load_vs_llama.py), the whole-process cold load of gemma-4 (15 huge pages of tables)
// took 230 ms of CPU with every table from 512 KiB in huge pages and 48 ms with this limit,
// command-r 118 -> 31 ms; the smaller vocabularies, whose tables fit, are unchanged (CPU
// medians of 11, same run; the first-call rates of bench/bpe_rate_vs_llama.py did not move
// beyond their noise). The price is paid where the huge pages would have been backed: in a
// loop of our own processes, back to back, llama-bpe's load (bench_tokenize_file, medians of
// 7) went 15.6 -> 19.3 ms, its tokenize call unchanged. Larger tables get a plain anonymous
// mapping: still zeroed, still prefaulted (prefault.h), in pages of the kernel's choosing.
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
struct huge_page_allocator {
  using value_type = T;
  static constexpr size_t huge = size_t(2) << 20;
  // from this size up, a mapping of its own (a huge page up to 2 MiB: up to 4x the bytes
  // asked for)
  static constexpr size_t threshold = size_t(512) << 10;

  huge_page_allocator() = default;
  template <class U>
  huge_page_allocator(const huge_page_allocator<U>&) noexcept {}

  T* allocate(size_t n) {
    const size_t bytes = n * sizeof(T);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (bytes > huge) {  // a plain mapping, pages of the kernel's choosing
      void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED) throw std::bad_alloc();
      return static_cast<T*>(p);
    }
    if (bytes >= threshold) {
      // map one huge page more than needed, keep the 2 MiB aligned part, unmap the rest
      const size_t len = round_up(bytes);
      void* p = mmap(nullptr, len + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED) throw std::bad_alloc();
      const auto raw = reinterpret_cast<uintptr_t>(p);
      const uintptr_t aligned = (raw + huge - 1) & ~(uintptr_t(huge) - 1);
      if (aligned > raw) munmap(p, aligned - raw);
      if (const size_t tail = raw + len + huge - (aligned + len)) munmap(reinterpret_cast<void*>(aligned + len), tail);
      madvise(reinterpret_cast<void*>(aligned), len, MADV_HUGEPAGE);  // advice only: failure is harmless
      return reinterpret_cast<T*>(aligned);
    }
#endif
    return static_cast<T*>(::operator new(bytes, std::align_val_t(alignof(T) > 16 ? alignof(T) : 16)));
  }
  void deallocate(T* p, size_t n) noexcept {
    const size_t bytes = n * sizeof(T);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (bytes >= threshold) {
      munmap(p, bytes > huge ? bytes : round_up(bytes));
      return;
    }
#endif
    ::operator delete(p, std::align_val_t(alignof(T) > 16 ? alignof(T) : 16));
  }
  template <class U>
  bool operator==(const huge_page_allocator<U>&) const noexcept {
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
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    return bytes >= threshold;
#else
    (void)bytes;
    return false;
#endif
  }

 private:
  static size_t round_up(size_t bytes) noexcept { return (bytes + huge - 1) & ~(huge - 1); }
};

/// The vector type of the tables built at load (pod_table owns one).
template <class T>
using table_vector = std::vector<T, huge_page_allocator<T>>;

}  // namespace gguf::vocab_detail
