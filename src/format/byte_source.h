// The bytes behind a gguf::file: a mapped local file, or a remote file fetched by HTTP
// range requests into a reservation of the file's size. Not installed.
//
// bytes() spans the whole file at a fixed address. Which bytes are readable: all of them
// for a mapped file; for a remote one the ranges fetched so far (ensure / fetch).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "gguf/error.h"
#include "gguf/file.h"
#include "gguf/remote.h"

namespace gguf::detail {

/// [first, second) byte ranges of a file.
using byte_range = std::pair<uint64_t, uint64_t>;

class byte_source {
 public:
  virtual ~byte_source() = default;
  virtual std::span<const std::byte> bytes() const noexcept = 0;
  /// End of the readable prefix [0, n): the reader walks the metadata inside it.
  virtual uint64_t prefix() const noexcept = 0;
  /// Makes [0, end) readable; `hint` is how many bytes past `end` the reader expects to
  /// need next (a request may fetch them too). Errors: io_error.
  virtual result<void> grow_prefix(uint64_t end, uint64_t hint) = 0;
  /// Makes the given ranges readable (merged into as few requests as the gaps allow).
  virtual result<void> fetch(std::span<const byte_range> ranges) = 0;
  /// True when [off, off + n) is readable.
  virtual bool resident(uint64_t off, uint64_t n) const noexcept = 0;
  /// Drops fetched bytes outside the prefix (streaming): they must be fetched again.
  virtual void release(uint64_t off, uint64_t n) noexcept = 0;
  virtual transfer_stats stats() const noexcept = 0;
  /// The metadata is parsed: [0, end) may be stored in the cache.
  virtual void parsed(uint64_t end) noexcept = 0;
  /// A local file's identity when it was opened (file::identity), else nullopt.
  virtual std::optional<file_identity> identity() const noexcept { return std::nullopt; }
  /// What the open found of an interrupted in-place edit (file::interrupted_edit).
  virtual pending_edit interrupted_edit() const noexcept { return pending_edit::none; }
};

/// The remote source whose reservation holds [p, p + n), or nullptr (local bytes). Lets a
/// view built over other files (a split model's tensors) reach the file its bytes are in.
byte_source* remote_source_of(const std::byte* p, size_t n) noexcept;

/// All bytes readable (a mapped file or a caller's buffer).
class whole_source : public byte_source {
 public:
  uint64_t prefix() const noexcept override { return bytes().size(); }
  result<void> grow_prefix(uint64_t, uint64_t) override { return {}; }
  result<void> fetch(std::span<const byte_range>) override { return {}; }
  bool resident(uint64_t off, uint64_t n) const noexcept override {
    return off <= bytes().size() && n <= bytes().size() - off;
  }
  void release(uint64_t, uint64_t) noexcept override {}
  transfer_stats stats() const noexcept override { return {}; }
  void parsed(uint64_t) noexcept override {}
};

}  // namespace gguf::detail
