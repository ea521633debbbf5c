// The compiled tokenizer cache: file layout, key, checks and the atomic write (see
// table_cache.h).
//
// Layout (little-endian host order; a cache is only read by the build that wrote it):
//   header, 64 bytes: "GGUFVTC1", u32 format, u32 0, key[16], u64 payload size,
//                     u64 XXH3-64 of the payload, 16 zero bytes
//   payload: tables, each: u32 name length, the name, zero padding to 8, u64 array
//            count, u64 size of the arrays that follow; then per array: u64 element count, u32 element size, u32 0,
//            zero padding to 64 (from the file start), the elements, zero padding to 8.
// The write is not fsynced: a file cut short by a crash fails its size or checksum
// check and is rebuilt.
#include "vocab/table_cache.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <optional>
#include <filesystem>
#include <random>
#include <type_traits>

#define XXH_INLINE_ALL  // header-only use of libxxhash: no library to link
#include <xxhash.h>

#include "gguf/file.h"

#ifndef GGUF_VOCAB_SOURCE_HASH
#define GGUF_VOCAB_SOURCE_HASH "unknown"
#endif

namespace gguf::vocab_detail {
namespace {

constexpr char magic[8] = {'G', 'G', 'U', 'F', 'V', 'T', 'C', '1'};
constexpr uint32_t format_version = 1;
constexpr size_t header_size = 64;

struct header {
  char magic[8];
  uint32_t format;
  uint32_t zero;
  unsigned char key[16];
  uint64_t payload_size;
  uint64_t checksum;
  unsigned char pad[16];
};
static_assert(sizeof(header) == header_size);

uint64_t align_up(uint64_t x, uint64_t a) { return (x + a - 1) / a * a; }

std::string hex(const unsigned char* p, size_t n) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n; ++i) s += digits[p[i] >> 4], s += digits[p[i] & 15];
  return s;
}

// The verified record of the cache file at `bin` (vocab-<key>.bin -> vocab-<key>.ok).
std::string verified_path(const std::string& bin) { return bin.substr(0, bin.size() - 4) + ".ok"; }

// XXH3-128 of the vocabulary code's hash (GGUF_VOCAB_SOURCE_HASH) followed by `size`
// bytes at `data`, in canonical (big-endian) byte order: the names of cache files and
// identity records.
void code_keyed_hash(const void* data, size_t size, unsigned char out[16]) {
  const std::string_view code = GGUF_VOCAB_SOURCE_HASH;
  XXH3_state_t st;
  XXH3_INITSTATE(&st);
  XXH3_128bits_reset(&st);
  XXH3_128bits_update(&st, code.data(), code.size());
  XXH3_128bits_update(&st, data, size);
  XXH128_canonical_t h;
  XXH128_canonicalFromHash(&h, XXH3_128bits_digest(&st));
  std::memcpy(out, h.digest, 16);
}

constexpr char ident_magic[8] = {'G', 'G', 'U', 'F', 'V', 'T', 'I', '1'};
constexpr size_t ident_size = 32;  // magic, key, 8 zero bytes

// Reads up to `cap` bytes of the small regular file at `path` (an identity or verified
// record) into `buf`: the count read, or -1. (O_NONBLOCK: a FIFO or a device put under
// the name would otherwise block the open or the read; only a regular file is read.)
ssize_t read_record(const std::string& path, unsigned char* buf, size_t cap) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return -1;
  struct stat sb {};
  ssize_t got = -1;
  if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode)) {
    do got = ::read(fd, buf, cap);
    while (got < 0 && errno == EINTR);
  }
  ::close(fd);
  return got;
}

// The content key in an identity record; false when there is none or it is not one.
bool read_ident(const std::string& path, unsigned char key[16]) {
  unsigned char buf[ident_size + 1];  // (one more: a longer file is not a record)
  const ssize_t got = read_record(path, buf, sizeof buf);
  static constexpr unsigned char zeros[8] = {};
  if (got != ssize_t(ident_size) || std::memcmp(buf, ident_magic, 8) != 0 || std::memcmp(buf + 24, zeros, 8) != 0)
    return false;
  std::memcpy(key, buf + 8, 16);
  return true;
}

// Writes `data` to `path` whole or not at all (a temporary file, then rename).
bool write_atomic(const std::string& path, const char* data, size_t size) {
  std::random_device rd;
  const std::string tmp = path + ".tmp." + std::to_string(getpid()) + "." + std::to_string(rd());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  bool ok = true;
  for (size_t off = 0; ok && off < size;) {
    const ssize_t w = ::write(fd, data + off, size - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) ok = false;
    else off += size_t(w);
  }
  ok = ::close(fd) == 0 && ok;
  if (ok) ok = std::rename(tmp.c_str(), path.c_str()) == 0;
  if (!ok) ::unlink(tmp.c_str());
  return ok;
}

void write_ident(const std::string& path, const unsigned char key[16]) {
  char buf[ident_size] = {};
  std::memcpy(buf, ident_magic, 8);
  std::memcpy(buf + 8, key, 16);
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  write_atomic(path, buf, sizeof buf);
}

// A verified record, `vocab-<key>.ok` beside the cache file: the cache file's identity
// (device, inode, size, times) when its payload was last hashed and found whole, and that
// checksum. A later open whose cache file still has this identity and header checksum
// skips hashing the payload (gemma-4: 25 MB, about 2 ms of a one-prompt CLI run).
constexpr char verified_magic[8] = {'G', 'G', 'U', 'F', 'V', 'T', 'V', '1'};
struct verified_record {
  char magic[8];
  file_identity id;
  uint64_t checksum;
};
static_assert(std::is_trivially_copyable_v<verified_record>);

file_identity identity_of(const struct stat& sb) {
  const auto ns = [](const struct timespec& t) { return int64_t(t.tv_sec) * 1000000000 + t.tv_nsec; };
  return {uint64_t(sb.st_dev), uint64_t(sb.st_ino), uint64_t(sb.st_size), ns(sb.st_mtim), ns(sb.st_ctim)};
}

// Whether the record at `path` vouches for a cache file of identity `id` and payload
// checksum `checksum`.
bool verified(const std::string& path, const file_identity& id, uint64_t checksum) {
  unsigned char buf[sizeof(verified_record) + 1];  // (one more: a longer file is not a record)
  if (read_record(path, buf, sizeof buf) != ssize_t(sizeof(verified_record))) return false;
  verified_record r;
  std::memcpy(&r, buf, sizeof r);
  return std::memcmp(r.magic, verified_magic, 8) == 0 && r.id == id && r.checksum == checksum;
}

void write_verified(const std::string& path, const file_identity& id, uint64_t checksum) {
  verified_record r{};
  std::memcpy(r.magic, verified_magic, 8);
  r.id = id;
  r.checksum = checksum;
  write_atomic(path, reinterpret_cast<const char*>(&r), sizeof r);
}

// The file's times are identity_min_age_ns old or older.
bool old_enough(const file_identity& id) {
  struct timespec now {};
  if (clock_gettime(CLOCK_REALTIME, &now) != 0) return false;
  const int64_t t = int64_t(now.tv_sec) * 1000000000 + now.tv_nsec;
  return t - id.mtime_ns >= identity_min_age_ns && t - id.ctime_ns >= identity_min_age_ns;
}

}  // namespace

std::string default_cache_dir() {
  if (const char* d = std::getenv("GGUF_CACHE_DIR")) {
    const std::string s = d;
    return s == "0" ? std::string() : s;
  }
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/gguf";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/gguf";
  return {};
}

bool table_reader::get_raw(uint32_t elem_size, const void*& data, uint64_t& count) {
  if (end_ - at_ < 16) return false;
  uint64_t n;
  uint32_t es;
  std::memcpy(&n, at_, 8);
  std::memcpy(&es, at_ + 8, 4);
  if (es != elem_size) return false;
  // the data starts at the next multiple of 64 of the file offset; the mapping is page
  // aligned, so the address is aligned the same way
  const auto addr = reinterpret_cast<uintptr_t>(at_ + 16);
  const std::byte* p = at_ + 16 + (align_up(addr, 64) - addr);
  if (p > end_ || n > uint64_t(end_ - p) / elem_size) return false;
  data = p;
  count = n;
  const uint64_t bytes = n * elem_size;
  at_ = p + bytes;
  const uint64_t pad = align_up(bytes, 8) - bytes;
  if (uint64_t(end_ - at_) < pad) return false;
  at_ += pad;
  return true;
}

std::unique_ptr<table_cache> table_cache::open(const std::string& dir, const gguf::file& f, bool ignore_existing) {
  if (dir.empty()) return nullptr;
  std::unique_ptr<table_cache> c(new table_cache());
  const auto bytes = f.bytes();
  const size_t n = size_t(std::min<uint64_t>(f.metadata_end(), bytes.size()));
  // The identity record of a local file: its name hashes the code's hash, the identity
  // and the metadata's size; it holds the content key.
  std::string ident_path;
  const std::optional<file_identity> id = f.identity();
  if (id) {
    const uint64_t fields[6] = {id->device, id->inode, id->size, uint64_t(id->mtime_ns), uint64_t(id->ctime_ns), uint64_t(n)};
    unsigned char ident[16];
    code_keyed_hash(fields, sizeof fields, ident);
    ident_path = dir + "/ident-" + hex(ident, 16) + ".key";
    if (!ignore_existing && read_ident(ident_path, c->key_)) {
      c->keyed_by_identity_ = true;
      utimensat(AT_FDCWD, ident_path.c_str(), nullptr, 0);  // recently used: pruned last
    }
  }
  if (!c->keyed_by_identity_) {
    // the key: the vocabulary code's hash, then every byte the tables are built from
    code_keyed_hash(bytes.data(), n, c->key_);
    if (id && old_enough(*id)) write_ident(ident_path, c->key_);
  }
  c->path_ = dir + "/vocab-" + hex(c->key_, 16) + ".bin";

  if (ignore_existing) return c;
  // (O_NONBLOCK: a FIFO under the name would block the open; it fails the check below)
  const int fd = ::open(c->path_.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return c;  // not there yet
  struct stat sb {};
  if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || uint64_t(sb.st_size) < header_size) {
    c->why_ = "not a cache file";
    ::close(fd);
    return c;
  }
  header h;
  ssize_t got;
  do got = ::pread(fd, &h, header_size, 0);
  while (got < 0 && errno == EINTR);
  if (got != ssize_t(header_size)) {
    c->why_ = "cannot read it";
    ::close(fd);
    return c;
  }
  const file_identity bin_id = identity_of(sb);
  const std::string ok_path = verified_path(c->path_);
  // Hashed and found whole before, unchanged since: only the pages used are read, as
  // they are used; else every page is read now, by the hash.
  const bool vouched = verified(ok_path, bin_id, h.checksum);
  void* m = mmap(nullptr, size_t(sb.st_size), PROT_READ, MAP_PRIVATE | (vouched ? 0 : MAP_POPULATE), fd, 0);
  ::close(fd);
  if (m == MAP_FAILED) {
    c->why_ = "cannot map it";
    return c;
  }
  c->map_ = static_cast<const std::byte*>(m);
  c->map_size_ = size_t(sb.st_size);
  if (std::memcmp(h.magic, magic, 8) != 0 || h.format != format_version) {
    c->why_ = "another format";
  } else if (std::memcmp(h.key, c->key_, 16) != 0) {
    c->why_ = "another key";
  } else if (h.payload_size != c->map_size_ - header_size) {
    c->why_ = "truncated";
  } else if (!vouched && XXH3_64bits(c->map_ + header_size, size_t(h.payload_size)) != h.checksum) {
    c->why_ = "checksum mismatch";
  } else {
    c->hit_ = true;
    c->cursor_ = c->map_ + header_size;
    // Recently used, pruned last: the record's time (the cache file's own times are its
    // identity, not touched). A cache file written less than identity_min_age_ns ago
    // gets its record at a later hit, as identity records do.
    c->vouched_ = vouched;
    if (vouched) {
      utimensat(AT_FDCWD, ok_path.c_str(), nullptr, 0);
    } else if (old_enough(bin_id)) {
      write_verified(ok_path, bin_id, h.checksum);
    }
  }
  return c;
}

namespace {
// Keeps the folder's cache files under GGUF_CACHE_MAX_MB (default 1024) by removing the
// least recently used ones (the time of the file's verified record when it has one, which
// a hit touches, else the file's own), never `keep`, with their records; and its identity
// records to the max_ident_files most recently used.
void prune(const std::filesystem::path& dir, const std::filesystem::path& keep) {
  uint64_t cap = uint64_t(1024) << 20;
  if (const char* m = std::getenv("GGUF_CACHE_MAX_MB"); m && *m) cap = std::strtoull(m, nullptr, 10) << 20;
  struct entry {
    std::filesystem::file_time_type t;
    uint64_t size;
    std::filesystem::path p;
  };
  std::vector<entry> files, idents;
  uint64_t total = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("ident-", 0) == 0 && e.path().extension() == ".key") {
      idents.push_back({e.last_write_time(ec), 0, e.path()});
      continue;
    }
    if (name.rfind("vocab-", 0) != 0 || e.path().extension() != ".bin") continue;
    const uint64_t size = e.file_size(ec);
    if (ec) continue;
    total += size;
    if (e.path() == keep) continue;
    std::error_code ok_ec;
    const auto ok_time = std::filesystem::last_write_time(verified_path(e.path().string()), ok_ec);
    files.push_back({ok_ec ? e.last_write_time(ec) : std::max(ok_time, e.last_write_time(ec)), size, e.path()});
  }
  const auto older = [](const entry& a, const entry& b) { return a.t < b.t; };
  std::sort(files.begin(), files.end(), older);
  for (const auto& f : files) {
    if (total <= cap) break;
    if (std::filesystem::remove(f.p, ec)) {
      total -= f.size;
      std::filesystem::remove(verified_path(f.p.string()), ec);
    }
  }
  // identity records: the most recently used max_ident_files stay
  if (idents.size() > max_ident_files) {
    std::sort(idents.begin(), idents.end(), older);
    for (size_t i = 0; i + max_ident_files < idents.size(); ++i) std::filesystem::remove(idents[i].p, ec);
  }
}
}  // namespace

table_cache::~table_cache() {
  if (map_) munmap(const_cast<std::byte*>(map_), map_size_);
}

bool table_cache::next_table(std::string_view name, table_reader& r) {
  const std::byte* end = map_ + map_size_;
  const std::byte* p = cursor_;
  if (end - p < 4) return false;
  uint32_t name_len;
  std::memcpy(&name_len, p, 4);
  p += 4;
  if (uint64_t(end - p) < name_len || std::string_view(reinterpret_cast<const char*>(p), name_len) != name) return false;
  p += name_len;
  p = map_ + align_up(uint64_t(p - map_), 8);
  if (p > end || end - p < 16) return false;
  uint64_t body;
  std::memcpy(&body, p + 8, 8);
  p += 16;
  if (body > uint64_t(end - p)) return false;
  r.at_ = p;
  r.end_ = p + body;
  cursor_ = p + body;
  return true;
}

bool table_cache::commit() {
  if (hit_ || broken_ || path_.empty() || tables_.empty()) return false;
  std::error_code ec;
  const std::filesystem::path target(path_);
  std::filesystem::create_directories(target.parent_path(), ec);
  // the payload, assembled in memory: offsets are taken from the file start
  std::string out(header_size, '\0');
  const auto pad_to = [&](uint64_t a) { out.resize(size_t(align_up(out.size(), a)), '\0'); };
  const auto put = [&](const void* p, size_t n) { out.append(static_cast<const char*>(p), n); };
  for (const auto& t : tables_) {
    const uint32_t name_len = uint32_t(t.name.size());
    put(&name_len, 4);
    put(t.name.data(), t.name.size());
    pad_to(8);
    const uint64_t n_arrays = t.w->pieces_.size();
    put(&n_arrays, 8);
    const size_t body_at = out.size();
    const uint64_t body_placeholder = 0;
    put(&body_placeholder, 8);
    const size_t body_start = out.size();
    for (const auto& pc : t.w->pieces_) {
      const uint32_t zero = 0;
      put(&pc.count, 8);
      put(&pc.elem_size, 4);
      put(&zero, 4);
      pad_to(64);
      put(pc.data ? pc.data : pc.value, size_t(pc.count * pc.elem_size));
      pad_to(8);
    }
    const uint64_t body = out.size() - body_start;
    std::memcpy(out.data() + body_at, &body, 8);
  }
  header h{};
  std::memcpy(h.magic, magic, 8);
  h.format = format_version;
  std::memcpy(h.key, key_, 16);
  h.payload_size = out.size() - header_size;
  h.checksum = XXH3_64bits(out.data() + header_size, size_t(h.payload_size));
  std::memcpy(out.data(), &h, header_size);

  const bool ok = write_atomic(path_, out.data(), out.size());
  if (ok) prune(target.parent_path(), target);
  return ok;
}

}  // namespace gguf::vocab_detail
