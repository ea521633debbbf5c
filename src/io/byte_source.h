// The bytes behind a gguf::file: a mapped local file, a caller's buffer, or a remote file
// fetched by HTTP range requests into a reservation of the file's size. Not installed.
//
// bytes() spans the whole file at a fixed address. Which bytes are readable: all of them
// for a mapped file or a buffer; for a remote one the ranges fetched so far (grow_prefix,
// fetch).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "gguf/error.h"
#include "gguf/io.h"
#include "gguf/remote.h"

namespace gguf::io {

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
  /// A local file's identity when it was opened (file::identity), else nullopt.
  virtual std::optional<file_identity> identity() const noexcept { return std::nullopt; }
  /// True for a file read over HTTP (file::is_remote).
  virtual bool remote() const noexcept { return false; }
  /// The reader parsed the metadata [0, end): a remote source stores it in its cache.
  /// Best effort: nothing is reported.
  virtual void metadata_parsed(uint64_t end) noexcept { (void)end; }
};

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
};

}  // namespace gguf::io
