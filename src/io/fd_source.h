// Reading a file's bytes for a rewrite without touching its mapping: a descriptor of the
// same file (pread, and kernel copies through safe_output), or the mapped bytes
// themselves where the file has no path (standard input, memory). Not installed.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <span>
#include <string>

#include "gguf/io.h"
#include "gguf/output.h"

namespace gguf::io {

class fd_source {
 public:
  /// Opens `path` when it is still a file of `size` bytes (the one `bytes` were read
  /// from); else every read comes from `bytes`.
  fd_source(const std::string& path, std::span<const std::byte> bytes) : path_(path), bytes_(bytes) {
    fd_ = path.empty() ? -1 : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat st {};
    if (fd_ >= 0 && (::fstat(fd_, &st) != 0 || static_cast<uint64_t>(st.st_size) != bytes.size())) {
      ::close(fd_);
      fd_ = -1;
    }
    if (fd_ >= 0) (void)::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
  }
  fd_source(const fd_source&) = delete;
  fd_source& operator=(const fd_source&) = delete;
  ~fd_source() {
    if (fd_ >= 0) ::close(fd_);
  }

  /// Copies bytes [off, off + n) of the file to `out`.
  result<void> copy_to(safe_output& out, uint64_t off, uint64_t n) const {
    if (n == 0) return {};
    if (fd_ >= 0) return out.copy_from_fd(fd_, off, n);
    return out.write(bytes_.subspan(static_cast<size_t>(off), static_cast<size_t>(n)));
  }

  /// Reads bytes [off, off + buf.size()) of the file into buf.
  result<void> read(uint64_t off, std::span<std::byte> buf) const {
    if (fd_ < 0) {
      std::memcpy(buf.data(), bytes_.data() + off, buf.size());
      return {};
    }
    const ssize_t n = pread_all(fd_, buf.data(), buf.size(), off);
    if (n != static_cast<ssize_t>(buf.size())) {
      return make_error(errc::io_error, off + static_cast<uint64_t>(std::max<ssize_t>(n, 0)),
                        "cannot read " + path_ + ": " + (n >= 0 ? "file shrank" : std::strerror(errno)));
    }
    return {};
  }

 private:
  std::string path_;
  std::span<const std::byte> bytes_;
  int fd_ = -1;
};

}  // namespace gguf::io
