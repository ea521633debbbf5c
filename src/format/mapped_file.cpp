#include "format/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace gguf::detail {

mapped_file::mapped_file(mapped_file&& o) noexcept
    : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)), map_(std::exchange(o.map_, nullptr)) {}

mapped_file& mapped_file::operator=(mapped_file&& o) noexcept {
  if (this != &o) {
    if (map_) munmap(map_, size_);
    data_ = std::exchange(o.data_, nullptr);
    size_ = std::exchange(o.size_, 0);
    map_ = std::exchange(o.map_, nullptr);
  }
  return *this;
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

}  // namespace gguf::detail
