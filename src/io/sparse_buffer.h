// A file's bytes at a fixed address, present only where fetched: a reservation of the
// file's size (address space, no memory) whose pages become readable as ranges are
// written into them, and can be given back. Not thread-safe (http_source locks). Not
// installed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "gguf/error.h"
#include "io/byte_source.h"

namespace gguf::io {

class sparse_buffer {
 public:
  sparse_buffer() = default;
  sparse_buffer(const sparse_buffer&) = delete;
  sparse_buffer& operator=(const sparse_buffer&) = delete;
  ~sparse_buffer() { unreserve(); }

  /// Reserves `size` bytes of address space (none readable). Errors: io_error (twice,
  /// over 64 TiB, or no address space).
  result<void> reserve(uint64_t size);
  /// Gives the reservation back (every pointer into it dangles).
  void unreserve() noexcept;
  bool reserved() const noexcept { return base_ != nullptr || size_ != 0; }

  std::byte* data() const noexcept { return base_; }
  uint64_t size() const noexcept { return size_; }

  /// Makes the pages of [from, to) writable (before bytes are written there). Errors:
  /// io_error (no memory).
  result<void> make_writable(uint64_t from, uint64_t to);
  /// Records [from, to) as holding the file's bytes.
  void mark(uint64_t from, uint64_t to);
  /// Whether [off, off + n) holds the file's bytes.
  bool resident(uint64_t off, uint64_t n) const noexcept;
  /// End of the present prefix [0, n) (fetched windows next to it included).
  uint64_t prefix() const noexcept;
  /// Keeps [0, end) (the parsed metadata) from release(); `end` only grows and must be
  /// present. Fetched bytes past it, even when adjacent, can still be released.
  void keep(uint64_t end) noexcept;
  /// End of the kept prefix.
  uint64_t kept() const noexcept { return kept_; }
  /// The parts of `ranges` not present, sorted, pieces closer than `gap` bytes joined.
  std::vector<byte_range> missing(std::span<const byte_range> ranges, uint64_t gap) const;
  /// Gives back the whole pages of [off, off + n) outside the kept prefix: they must be
  /// fetched again.
  void release(uint64_t off, uint64_t n) noexcept;

 private:
  std::byte* base_ = nullptr;
  uint64_t size_ = 0;
  uint64_t reserved_ = 0;
  uint64_t kept_ = 0;                  // release() never drops [0, kept_)
  std::map<uint64_t, uint64_t> have_;  // present ranges: start -> end, disjoint, merged
};

}  // namespace gguf::io
