// Appends token ids to a std::vector<int32_t> through a pointer (internal). The vector is
// grown ahead by chunks (their new elements zeroed once, in bulk, while they are in the
// cache) and cut back to the ids written by finish(). Against push_back per id, this
// drops the capacity check and the store of the vector's end at every id, and lets a
// word's ids be copied in two fixed-size moves (copy_ids).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace gguf::vocab_detail {

class id_writer {
 public:
  static constexpr size_t chunk = 16384;  ///< ids the vector grows by at least (64 KiB)
  static constexpr size_t slack = 8;      ///< ids of room past what room(n) asks for

  explicit id_writer(std::vector<int32_t>& out) noexcept : out_(out), used_(out.size()) {}
  id_writer(const id_writer&) = delete;
  id_writer& operator=(const id_writer&) = delete;
  ~id_writer() { finish(); }

  /// Room for n + slack more ids: where they go. commit(k) then counts k <= n of them as
  /// written.
  int32_t* room(size_t n) {
    if (out_.size() - used_ < n + slack) out_.resize(used_ + std::max(n + slack, chunk));
    return out_.data() + used_;
  }
  void commit(size_t n) noexcept { used_ += n; }
  /// The ids written so far (the vector's first size() elements).
  size_t size() const noexcept { return used_; }
  int32_t* data() noexcept { return out_.data(); }
  /// Drops the ids from index n on.
  void truncate(size_t n) noexcept { used_ = std::min(used_, n); }
  /// Cuts the vector to the ids written and returns it, for direct use from then on (the
  /// writer is done).
  std::vector<int32_t>& finish() noexcept {
    if (!done_) out_.resize(used_);  // (shrinking: no allocation, no throw)
    done_ = true;
    return out_;
  }

  /// Copies n ids (4 bytes each, in the machine's order, at any alignment) from src to
  /// room(n): up to 8 of them as 32 bytes in two moves, without a branch on n, so src must
  /// have max(4 n, 32) readable bytes.
  static void copy_ids(int32_t* dst, const char* src, size_t n) noexcept {
    if (n <= slack) std::memcpy(dst, src, 4 * slack);
    else std::memcpy(dst, src, 4 * n);
  }

 private:
  std::vector<int32_t>& out_;
  size_t used_;
  bool done_ = false;
};

}  // namespace gguf::vocab_detail
