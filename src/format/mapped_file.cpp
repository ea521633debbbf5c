#include "format/mapped_file.h"

#include "format/journal.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace gguf::detail {

mapped_file::mapped_file(mapped_file&& o) noexcept
    : data_(std::exchange(o.data_, nullptr)),
      size_(std::exchange(o.size_, 0)),
      map_(std::exchange(o.map_, nullptr)),
      identity_(o.identity_),
      pending_(o.pending_) {}

mapped_file& mapped_file::operator=(mapped_file&& o) noexcept {
  if (this != &o) {
    if (map_) munmap(map_, size_);
    data_ = std::exchange(o.data_, nullptr);
    size_ = std::exchange(o.size_, 0);
    map_ = std::exchange(o.map_, nullptr);
    identity_ = o.identity_;
    pending_ = o.pending_;
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
  const auto ns = [](const struct timespec& t) { return int64_t(t.tv_sec) * 1000000000 + int64_t(t.tv_nsec); };
  m.identity_ = {uint64_t(st.st_dev), uint64_t(st.st_ino), uint64_t(st.st_size), ns(st.st_mtim), ns(st.st_ctim)};
  // An interrupted in-place edit: read the state its journal makes consistent (issue 29,
  // item 3: readers never write; the next edit finishes the journal).
  auto probe = probe_journal(path, st);
  if (!probe) {
    ::close(fd);
    return probe.error();
  }
  m.pending_ = probe->state;
  const bool overlay = m.pending_ == pending_edit::applied && !probe->journal.payload.empty();
  if (m.size_ > 0) {
    void* p = mmap(nullptr, m.size_, overlay ? PROT_READ | PROT_WRITE : PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      auto e = fail("cannot map");
      ::close(fd);
      return e;
    }
    m.map_ = p;
    m.data_ = static_cast<const std::byte*>(p);
    if (overlay) {  // copy-on-write: only the pages of the metadata region are copied
      const auto& j = probe->journal;
      std::memcpy(static_cast<std::byte*>(p) + j.offset, j.payload.data(), j.payload.size());
      ::mprotect(p, m.size_, PROT_READ);
    }
  }
  ::close(fd);
  return m;
}

}  // namespace gguf::detail
