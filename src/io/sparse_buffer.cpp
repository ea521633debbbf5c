// A reservation of a file's size filled range by range (sparse_buffer.h).
#include "io/sparse_buffer.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>

#include "io/url.h"

namespace gguf::io {

namespace {
uint64_t page_size() {
  static const uint64_t p = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  return p;
}
gguf::error fail(std::string what) { return make_error(errc::io_error, no_offset, std::move(what)); }
}  // namespace

result<void> sparse_buffer::reserve(uint64_t size) {
  if (base_) return fail("internal: reserved twice");
  size_ = size;
  if (size == 0) return {};
  if (size > (1ull << 46)) return fail("the server reports a file of " + human_size(size) + ", more than this reader addresses");
  void* p = mmap(nullptr, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return fail("cannot reserve " + human_size(size) + " of address space for the file");
  base_ = static_cast<std::byte*>(p);
  reserved_ = size;
  return {};
}

void sparse_buffer::unreserve() noexcept {
  if (base_) munmap(base_, reserved_);
  base_ = nullptr;
  reserved_ = size_ = kept_ = 0;
  have_.clear();
}

result<void> sparse_buffer::make_writable(uint64_t from, uint64_t to) {
  if (from >= to) return {};
  uint64_t ps = page_size();
  uint64_t a = from / ps * ps, b = std::min<uint64_t>((to + ps - 1) / ps * ps, (reserved_ + ps - 1) / ps * ps);
  if (mprotect(base_ + a, b - a, PROT_READ | PROT_WRITE) != 0) {
    return fail("cannot commit " + human_size(b - a) + " of memory for fetched bytes");
  }
  return {};
}

void sparse_buffer::mark(uint64_t from, uint64_t to) {
  if (from >= to) return;
  auto it = have_.upper_bound(from);
  if (it != have_.begin()) {
    auto prev = std::prev(it);
    if (prev->second >= from) {
      from = prev->first;
      to = std::max(to, prev->second);
      it = have_.erase(prev);
    }
  }
  while (it != have_.end() && it->first <= to) {
    to = std::max(to, it->second);
    it = have_.erase(it);
  }
  have_.emplace(from, to);
}

bool sparse_buffer::resident(uint64_t off, uint64_t n) const noexcept {
  if (n == 0) return off <= size_;
  if (off > size_ || n > size_ - off) return false;
  auto it = have_.upper_bound(off);
  if (it == have_.begin()) return false;
  --it;
  return it->first <= off && it->second >= off + n;
}

uint64_t sparse_buffer::prefix() const noexcept {
  auto it = have_.find(0);
  return it == have_.end() ? 0 : it->second;
}

void sparse_buffer::keep(uint64_t end) noexcept { kept_ = std::max(kept_, std::min(end, size_)); }

std::vector<byte_range> sparse_buffer::missing(std::span<const byte_range> ranges, uint64_t gap) const {
  std::vector<byte_range> miss;
  for (auto [a, b] : ranges) {
    b = std::min(b, size_);
    if (a >= b) continue;
    uint64_t pos = a;
    auto it = have_.upper_bound(a);
    if (it != have_.begin()) --it;
    for (; pos < b; ) {
      while (it != have_.end() && it->second <= pos) ++it;
      if (it == have_.end() || it->first >= b) {
        miss.emplace_back(pos, b);
        break;
      }
      if (it->first > pos) miss.emplace_back(pos, it->first);
      pos = it->second;
    }
  }
  std::sort(miss.begin(), miss.end());
  std::vector<byte_range> merged;
  for (auto r : miss) {
    if (!merged.empty() && r.first <= merged.back().second + gap) merged.back().second = std::max(merged.back().second, r.second);
    else merged.push_back(r);
  }
  return merged;
}

void sparse_buffer::release(uint64_t off, uint64_t n) noexcept {
  uint64_t ps = page_size();
  uint64_t a = std::max(off, kept_), b = std::min(off + n, size_);
  a = (a + ps - 1) / ps * ps;
  b = b / ps * ps;
  if (a >= b) return;
  madvise(base_ + a, b - a, MADV_DONTNEED);
  mprotect(base_ + a, b - a, PROT_NONE);
  std::map<uint64_t, uint64_t> kept;
  for (auto [s, e] : have_) {
    if (e <= a || s >= b) kept.emplace(s, e);
    else {
      if (s < a) kept.emplace(s, a);
      if (e > b) kept.emplace(b, e);
    }
  }
  have_ = std::move(kept);
}

}  // namespace gguf::io
