// Text input (input.h): a regular file mapped, anything else read in 1 MiB blocks.
#include "input.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace gguf::cli {

namespace {

bool is_stdin(const std::string& path) { return path.empty() || path == "-"; }

gguf::error io_failure(const char* what, int err) {
  return make_error(errc::io_error, no_offset, std::string(what) + ": " + std::strerror(err));
}

}  // namespace

std::string input_source(const std::string& path) { return is_stdin(path) ? std::string("<stdin>") : path; }

result<int> open_input_fd(const std::string& path) {
  if (is_stdin(path)) return 0;
  int fd;
  do fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  while (fd < 0 && errno == EINTR);
  if (fd < 0) return io_failure("cannot open", errno);
  return fd;
}

void close_input_fd(int fd) noexcept {
  if (fd > 0) ::close(fd);
}

result<input_text> input_text::read(const std::string& path) {
  auto fd = open_input_fd(path);
  if (!fd) return fd.error();
  input_text t;
  struct stat st {};
  int err = 0;
  // a regular file read from its start (standard input may be one, redirected): mapped
  if (::fstat(*fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && ::lseek(*fd, 0, SEEK_CUR) == 0) {
    const size_t size = size_t(st.st_size);
    void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, *fd, 0);
    if (p != MAP_FAILED) {
      t.map_ = static_cast<const char*>(p);
      t.map_size_ = size;
      close_input_fd(*fd);
      return t;
    }
  }
  // a pipe, a terminal, or a file that cannot be mapped: blocks of 1 MiB, growing
  size_t block = size_t(1) << 20;
  for (;;) {
    const size_t old = t.buf_.size();
    t.buf_.resize(old + block);
    ssize_t n;
    do n = ::read(*fd, t.buf_.data() + old, block);
    while (n < 0 && errno == EINTR);
    t.buf_.resize(old + size_t(n > 0 ? n : 0));
    if (n < 0) err = errno;
    if (n <= 0) break;
    if (size_t(n) == block && block < (size_t(64) << 20)) block *= 2;
  }
  close_input_fd(*fd);
  if (err) return io_failure("cannot read", err);
  return t;
}

input_text::input_text(input_text&& o) noexcept
    : map_(std::exchange(o.map_, nullptr)), map_size_(std::exchange(o.map_size_, 0)), buf_(std::move(o.buf_)) {}

input_text& input_text::operator=(input_text&& o) noexcept {
  if (this != &o) {
    if (map_) ::munmap(const_cast<char*>(map_), map_size_);
    map_ = std::exchange(o.map_, nullptr);
    map_size_ = std::exchange(o.map_size_, 0);
    buf_ = std::move(o.buf_);
  }
  return *this;
}

input_text::~input_text() {
  if (map_) ::munmap(const_cast<char*>(map_), map_size_);
}

}  // namespace gguf::cli
