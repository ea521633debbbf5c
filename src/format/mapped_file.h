// A read-only memory mapping of a whole file (POSIX mmap). Not installed.
#pragma once

#include <cstddef>
#include <filesystem>
#include <span>

#include "format/byte_source.h"
#include "gguf/error.h"

namespace gguf::detail {

class mapped_file : public whole_source {
 public:
  mapped_file() = default;
  mapped_file(const mapped_file&) = delete;
  mapped_file& operator=(const mapped_file&) = delete;
  mapped_file(mapped_file&& o) noexcept;
  mapped_file& operator=(mapped_file&& o) noexcept;
  ~mapped_file() override;

  /// Maps `path` read-only. A complete journal of an interrupted in-place edit beside it
  /// (format/journal.h) is laid over a private copy-on-write mapping: the bytes are the
  /// edit's result, the file is not written. Errors: io_error naming the system error.
  static result<mapped_file> open(const std::filesystem::path& path);
  std::span<const std::byte> bytes() const noexcept override { return {data_, size_}; }
  std::optional<file_identity> identity() const noexcept override {
    return pending_ == pending_edit::applied ? std::nullopt : std::optional<file_identity>(identity_);
  }
  pending_edit interrupted_edit() const noexcept override { return pending_; }

 private:
  const std::byte* data_ = nullptr;
  size_t size_ = 0;
  void* map_ = nullptr;
  file_identity identity_;
  pending_edit pending_ = pending_edit::none;
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

}  // namespace gguf::detail
