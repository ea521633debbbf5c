// A read-only memory mapping of a whole file (POSIX mmap). Not installed.
#pragma once

#include <cstddef>
#include <filesystem>
#include <span>

#include "gguf/error.h"

namespace gguf::detail {

class mapped_file {
 public:
  mapped_file() = default;
  mapped_file(const mapped_file&) = delete;
  mapped_file& operator=(const mapped_file&) = delete;
  mapped_file(mapped_file&& o) noexcept;
  mapped_file& operator=(mapped_file&& o) noexcept;
  ~mapped_file();

  /// Maps `path` read-only. Errors: io_error naming the system error.
  static result<mapped_file> open(const std::filesystem::path& path);
  std::span<const std::byte> bytes() const noexcept { return {data_, size_}; }

 private:
  const std::byte* data_ = nullptr;
  size_t size_ = 0;
  void* map_ = nullptr;
};

}  // namespace gguf::detail
