#include "io/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace gguf::io {

file_identity identity_of(const struct stat& st) noexcept {
  const auto ns = [](const struct timespec& t) { return int64_t(t.tv_sec) * 1000000000 + int64_t(t.tv_nsec); };
  return {uint64_t(st.st_dev), uint64_t(st.st_ino), uint64_t(st.st_size), ns(st.st_mtim), ns(st.st_ctim)};
}

mapped_file::mapped_file(mapped_file&& o) noexcept
    : data_(std::exchange(o.data_, nullptr)),
      size_(std::exchange(o.size_, 0)),
      map_(std::exchange(o.map_, nullptr)),
      identity_(o.identity_),
      stat_(o.stat_) {}

mapped_file& mapped_file::operator=(mapped_file&& o) noexcept {
  if (this != &o) {
    if (map_) munmap(map_, size_);
    data_ = std::exchange(o.data_, nullptr);
    size_ = std::exchange(o.size_, 0);
    map_ = std::exchange(o.map_, nullptr);
    identity_ = o.identity_;
    stat_ = o.stat_;
  }
  return *this;
}

result<void> mapped_file::overlay(uint64_t offset, std::span<const std::byte> b) {
  if (offset > size_ || b.size() > size_ - offset) return make_error(errc::out_of_range, offset, "overlay past the end of the file");
  if (b.empty()) return {};
  if (::mprotect(map_, size_, PROT_READ | PROT_WRITE) != 0)
    return make_error(errc::io_error, no_offset, std::string("cannot map: ") + std::strerror(errno));
  std::memcpy(static_cast<std::byte*>(map_) + offset, b.data(), b.size());  // copy-on-write: those pages only
  ::mprotect(map_, size_, PROT_READ);
  return {};
}

mapped_file::~mapped_file() {
  if (map_) munmap(map_, size_);
}

result<mapped_file> mapped_file::open(const std::filesystem::path& path) {
  auto fail = [&](const char* what) {
    return make_error(errc::io_error, no_offset, std::string(what) + ": " + std::strerror(errno));
  };
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fail("cannot open");
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    auto e = fail("cannot stat");
    ::close(fd);
    return e;
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return make_error(errc::io_error, no_offset, "not a regular file");
  }
  mapped_file m;
  m.size_ = static_cast<size_t>(st.st_size);
  m.identity_ = identity_of(st);
  m.stat_ = st;
  if (m.size_ > 0) {
    void* p = mmap(nullptr, m.size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      auto e = fail("cannot map");
      ::close(fd);
      return e;
    }
    m.map_ = p;
    m.data_ = static_cast<const std::byte*>(p);
  }
  ::close(fd);
  return m;
}

}  // namespace gguf::io
