// gguf/io.h — whole reads and writes of file descriptors, and a file's identity.
//
//   char buf[4096];
//   ssize_t n = gguf::io::read_all(fd, buf, sizeof buf);   // < sizeof buf only at the end
//   if (n < 0) perror("read");
//   if (!gguf::io::write_all(out_fd, buf, size_t(n))) perror("write");
//
// POSIX read/write may return fewer bytes than asked (pipes, signals, large counts) or fail
// with EINTR when a signal arrives; these functions loop until the count is done, the end
// of the file is reached, or a real error occurs (then errno says which). They are the
// library's only such loops: the format, vocabulary and command-line code call them.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

#pragma GCC visibility push(default)  // public API: exported from the shared library
namespace gguf {

/// Who a local file was when it was opened (fstat of the descriptor it was mapped from):
/// equal identities mean the same file, unchanged, for caches keyed by a file without
/// reading it. A write changes the modification and change times; the change time cannot
/// be set back by a user. Times in nanoseconds since the epoch.
struct file_identity {
  uint64_t device = 0;
  uint64_t inode = 0;
  uint64_t size = 0;
  int64_t mtime_ns = 0;  ///< last modification
  int64_t ctime_ns = 0;  ///< last status change
  bool operator==(const file_identity&) const = default;
};

namespace io {

/// open(path, O_RDONLY | O_CLOEXEC), retried on EINTR: the descriptor, or -1 with errno.
int open_read(const char* path) noexcept;
/// Reads up to `n` bytes: the count read (less than `n` only at the end of the input),
/// or -1 with errno set.
ssize_t read_all(int fd, void* buf, size_t n) noexcept;
/// read_all at file offset `off` (pread: the descriptor's position is not used).
ssize_t pread_all(int fd, void* buf, size_t n, uint64_t off) noexcept;
/// One read of at most `n` bytes, retried only on EINTR: what a pipe has now (0 at the
/// end of the input), or -1 with errno set.
ssize_t read_some(int fd, void* buf, size_t n) noexcept;
/// Writes all `n` bytes; false with errno set on an error.
bool write_all(int fd, const void* buf, size_t n) noexcept;
/// write_all at file offset `off` (pwrite).
bool pwrite_all(int fd, const void* buf, size_t n, uint64_t off) noexcept;
/// Whether a read of `fd` would not block now (data, the end of the input, or an error
/// that the read will report).
bool readable_now(int fd) noexcept;

}  // namespace io
}  // namespace gguf
#pragma GCC visibility pop
