// A read-only memory mapping of a whole file (POSIX mmap), and a caller's buffer, as
// byte sources. Not installed.
#pragma once

#include <sys/stat.h>

#include <cstddef>
#include <filesystem>
#include <span>

#include "io/byte_source.h"
#include "gguf/error.h"

namespace gguf::io {

/// The identity (gguf/io.h) of the file `st` describes.
file_identity identity_of(const struct stat& st) noexcept;

class mapped_file : public whole_source {
 public:
  mapped_file() = default;
  mapped_file(const mapped_file&) = delete;
  mapped_file& operator=(const mapped_file&) = delete;
  mapped_file(mapped_file&& o) noexcept;
  mapped_file& operator=(mapped_file&& o) noexcept;
  ~mapped_file() override;

  /// Maps `path` read-only (private: overlay() never writes the file). Errors: io_error
  /// naming the system error.
  static result<mapped_file> open(const std::filesystem::path& path);
  std::span<const std::byte> bytes() const noexcept override { return {data_, size_}; }
  std::optional<file_identity> identity() const noexcept override { return identity_; }
  /// fstat of the file when it was mapped.
  const struct stat& stat_info() const noexcept { return stat_; }
  /// Lays `b` over the mapped bytes at `offset` (copy-on-write: the pages touched get a
  /// private copy; the file is not written). Errors: out_of_range, io_error.
  result<void> overlay(uint64_t offset, std::span<const std::byte> b);

 private:
  const std::byte* data_ = nullptr;
  size_t size_ = 0;
  void* map_ = nullptr;
  file_identity identity_;
  struct stat stat_ {};
};

/// Bytes a caller keeps alive, or owned bytes (standard input).
class buffer_source : public whole_source {
 public:
  explicit buffer_source(std::span<const std::byte> b) : view_(b) {}
  explicit buffer_source(std::vector<std::byte> owned) : owned_(std::move(owned)), view_(owned_) {}
  std::span<const std::byte> bytes() const noexcept override { return view_; }

 private:
  std::vector<std::byte> owned_;
  std::span<const std::byte> view_;
};

}  // namespace gguf::io
