// Reading a parsed file's bytes for a rewrite without touching its mapping: a
// descriptor of the same file (pread, and kernel copies through safe_output), or the
// mapping itself where the file has no path (standard input, memory). Not installed.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <span>
#include <string>

#include "gguf/file.h"
#include "gguf/output.h"

namespace gguf::detail {

class source_fd {
 public:
  /// Opens f.path() when it is still the file `f` was parsed from (same size).
  explicit source_fd(const file& f) : f_(f) {
    fd_ = ::open(f.path().c_str(), O_RDONLY | O_CLOEXEC);
    struct stat st {};
    if (fd_ >= 0 && (::fstat(fd_, &st) != 0 || static_cast<uint64_t>(st.st_size) != f.size())) {
      ::close(fd_);
      fd_ = -1;
    }
    if (fd_ >= 0) (void)::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
  }
  source_fd(const source_fd&) = delete;
  source_fd& operator=(const source_fd&) = delete;
  ~source_fd() {
    if (fd_ >= 0) ::close(fd_);
  }

  /// Copies bytes [off, off + n) of the file to `out`.
  result<void> copy_to(safe_output& out, uint64_t off, uint64_t n) const {
    if (n == 0) return {};
    if (fd_ >= 0) return out.copy_from_fd(fd_, off, n);
    return out.write(f_.bytes().subspan(static_cast<size_t>(off), static_cast<size_t>(n)));
  }

  /// Reads bytes [off, off + buf.size()) of the file into buf.
  result<void> read(uint64_t off, std::span<std::byte> buf) const {
    if (fd_ < 0) {
      std::memcpy(buf.data(), f_.bytes().data() + off, buf.size());
      return {};
    }
    for (size_t done = 0; done < buf.size();) {
      const ssize_t n = ::pread(fd_, buf.data() + done, buf.size() - done, static_cast<off_t>(off + done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        return make_error(errc::io_error, off + done,
                          "cannot read " + f_.path() + ": " + (n == 0 ? "file shrank" : std::strerror(errno)));
      }
      done += static_cast<size_t>(n);
    }
    return {};
  }

 private:
  const file& f_;
  int fd_ = -1;
};

}  // namespace gguf::detail
