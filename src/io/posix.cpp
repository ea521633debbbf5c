// Whole reads and writes of file descriptors (gguf/io.h): the EINTR and short-count
// loops, written once.
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>

#include "gguf/io.h"

namespace gguf::io {

namespace {
// Calls op(p, k, at) until `n` bytes are done, the end is reached (op returns 0) or an
// error (-1, errno set, EINTR retried): the count done, or -1.
template <class Op>
ssize_t loop(void* buf, size_t n, uint64_t at, Op op) noexcept {
  auto* p = static_cast<char*>(buf);
  size_t done = 0;
  while (done < n) {
    const ssize_t k = op(p + done, n - done, at + done);
    if (k < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    if (k == 0) break;
    done += static_cast<size_t>(k);
  }
  return static_cast<ssize_t>(done);
}
}  // namespace

int open_read(const char* path) noexcept {
  int fd;
  do fd = ::open(path, O_RDONLY | O_CLOEXEC);
  while (fd < 0 && errno == EINTR);
  return fd;
}

ssize_t read_all(int fd, void* buf, size_t n) noexcept {
  return loop(buf, n, 0, [fd](char* p, size_t k, uint64_t) { return ::read(fd, p, k); });
}

ssize_t pread_all(int fd, void* buf, size_t n, uint64_t off) noexcept {
  return loop(buf, n, off, [fd](char* p, size_t k, uint64_t at) { return ::pread(fd, p, k, static_cast<off_t>(at)); });
}

ssize_t read_some(int fd, void* buf, size_t n) noexcept {
  ssize_t k;
  do k = ::read(fd, buf, n);
  while (k < 0 && errno == EINTR);
  return k;
}

bool write_all(int fd, const void* buf, size_t n) noexcept {
  // (a write of 0 bytes is an error here: the device takes no more)
  const ssize_t k = loop(const_cast<void*>(buf), n, 0, [fd](char* p, size_t m, uint64_t) {
    const ssize_t w = ::write(fd, p, m);
    if (w == 0) errno = EIO;
    return w == 0 ? ssize_t(-1) : w;
  });
  return k == static_cast<ssize_t>(n);
}

bool pwrite_all(int fd, const void* buf, size_t n, uint64_t off) noexcept {
  const ssize_t k = loop(const_cast<void*>(buf), n, off, [fd](char* p, size_t m, uint64_t at) {
    const ssize_t w = ::pwrite(fd, p, m, static_cast<off_t>(at));
    if (w == 0) errno = EIO;
    return w == 0 ? ssize_t(-1) : w;
  });
  return k == static_cast<ssize_t>(n);
}

bool readable_now(int fd) noexcept {
  pollfd p{fd, POLLIN, 0};
  int n;
  do n = ::poll(&p, 1, 0);
  while (n < 0 && errno == EINTR);
  return n != 0;
}

}  // namespace gguf::io
