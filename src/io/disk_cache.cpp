// The disk cache (disk_cache.h): folder, keys, small reads and writes, pruning.
#include "io/disk_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <vector>

#define XXH_INLINE_ALL  // header-only use of libxxhash: no library to link
#include <xxhash.h>

#include "gguf/io.h"
#include "gguf/output.h"
#include "io/atomic_write.h"

namespace gguf::io {
namespace fs = std::filesystem;

std::string default_cache_dir() {
  if (const char* d = std::getenv("GGUF_CACHE_DIR")) {
    const std::string s = d;
    return s == "0" ? std::string() : s;
  }
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/gguf";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/gguf";
  return {};
}

cache_key disk_cache::key(std::initializer_list<std::span<const std::byte>> parts) {
  XXH3_state_t st;
  XXH3_INITSTATE(&st);
  XXH3_128bits_reset(&st);
  for (auto p : parts) XXH3_128bits_update(&st, p.data(), p.size());
  XXH128_canonical_t h;
  XXH128_canonicalFromHash(&h, XXH3_128bits_digest(&st));
  cache_key k;
  std::memcpy(k.data(), h.digest, 16);
  return k;
}

std::string disk_cache::hex(const cache_key& k) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string s;
  for (unsigned char c : k) s += digits[c >> 4], s += digits[c & 15];
  return s;
}

std::string disk_cache::path(std::string_view kind, const cache_key& k, std::string_view ext) const {
  if (dir_.empty()) return {};
  return dir_ + "/" + std::string(kind) + "-" + hex(k) + std::string(ext);
}

ssize_t disk_cache::read_small(const std::string& path, void* buf, size_t cap) noexcept {
  // (O_NONBLOCK: a FIFO or a device put under the name would otherwise block the open or
  // the read; only a regular file is read)
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return -1;
  struct stat sb {};
  ssize_t got = -1;
  if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode)) got = read_all(fd, buf, cap);
  ::close(fd);
  return got;
}

bool disk_cache::write(const std::string& path, std::initializer_list<std::span<const std::byte>> parts) const {
  if (dir_.empty() || path.empty()) return false;
  std::error_code ec;
  fs::create_directories(dir_, ec);
  return write_file_atomic(path, parts).ok();
}

void disk_cache::touch(const std::string& path) noexcept { utimensat(AT_FDCWD, path.c_str(), nullptr, 0); }

namespace {

// "KIND-KEY" of an entry's file name `KIND-KEY.EXT` (KEY: 32 hex digits), with its
// extension; false for any other name.
bool entry_name(const std::string& name, std::string& stem, std::string& ext) {
  const size_t dot = name.find('.');
  if (dot == std::string::npos || dot == 0) return false;
  stem = name.substr(0, dot);
  ext = name.substr(dot);
  const size_t dash = stem.rfind('-');
  if (dash == std::string::npos || dash == 0 || stem.size() - dash - 1 != 32) return false;
  return std::all_of(stem.begin() + dash + 1, stem.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

}  // namespace

void disk_cache::prune(const std::string& keep) const {
  if (dir_.empty()) return;
  uint64_t cap = uint64_t(1024) << 20;
  if (const char* m = std::getenv("GGUF_CACHE_MAX_MB"); m && *m) cap = std::strtoull(m, nullptr, 10) << 20;
  std::string keep_stem, ignored;
  if (!entry_name(fs::path(keep).filename().string(), keep_stem, ignored)) keep_stem.clear();
  struct unit {
    fs::file_time_type t = fs::file_time_type::min();
    uint64_t size = 0;
    std::vector<fs::path> files;
  };
  std::map<std::string, unit> units;
  std::vector<std::pair<fs::file_time_type, fs::path>> records;
  std::set<std::string> temp_owners;  // entries whose temp files may be stale
  uint64_t total = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir_, ec)) {
    const std::string name = e.path().filename().string();
    std::string stem, ext;
    if (name.starts_with(".") && name.find(".tmp-") != std::string::npos) {
      const std::string owner = name.substr(1, name.rfind(".tmp-") - 1);
      if (entry_name(owner, stem, ext)) temp_owners.insert(owner);
      continue;
    }
    if (!entry_name(name, stem, ext)) continue;
    std::error_code fe;
    const auto t = e.last_write_time(fe);
    if (fe) continue;
    if (ext == ".key") {
      records.emplace_back(t, e.path());
      continue;
    }
    const uint64_t size = e.file_size(fe);
    if (fe) continue;
    unit& u = units[stem];
    u.t = std::max(u.t, t);
    u.size += size;
    u.files.push_back(e.path());
    total += size;
  }
  for (const auto& owner : temp_owners) (void)remove_stale_temp_files(fs::path(dir_) / owner);

  std::vector<std::pair<fs::file_time_type, std::string>> order;
  for (const auto& [stem, u] : units)
    if (stem != keep_stem) order.emplace_back(u.t, stem);
  std::sort(order.begin(), order.end());
  for (const auto& [t, stem] : order) {
    if (total <= cap) break;
    const unit& u = units[stem];
    for (const auto& f : u.files) fs::remove(f, ec);
    total -= u.size;
  }
  if (records.size() > max_cache_records) {
    std::sort(records.begin(), records.end());
    for (size_t i = 0; i + max_cache_records < records.size(); ++i) fs::remove(records[i].second, ec);
  }
}

}  // namespace gguf::io
