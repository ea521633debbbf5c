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
#include "vocab/runtime/table_cache.h"

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
#include <type_traits>

#define XXH_INLINE_ALL  // header-only use of libxxhash: no library to link
#include <xxhash.h>

#include "gguf/file.h"
#include "gguf/io.h"
#include "io/disk_cache.h"
#include "io/mapped_file.h"

#ifndef GGUF_VOCAB_SOURCE_HASH
#define GGUF_VOCAB_SOURCE_HASH "unknown"
#endif

namespace gguf::vocab_detail {
namespace {

constexpr char magic[8] = {'G', 'G', 'U', 'F', 'V', 'T', 'C', '1'};
// 2: the token texts' places (vocab_load.cpp, "tokens.text"); a file of another
// format is a miss, rebuilt.
constexpr uint32_t format_version = 2;
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

// XXH3-128 of the vocabulary code's hash (GGUF_VOCAB_SOURCE_HASH) followed by `size`
// bytes at `data`: the keys of cache files and identity records.
io::cache_key code_keyed_hash(const void* data, size_t size) {
  const std::string_view code = GGUF_VOCAB_SOURCE_HASH;
  return io::disk_cache::key({std::as_bytes(std::span(code.data(), code.size())),
                              {static_cast<const std::byte*>(data), size}});
}

constexpr char ident_magic[8] = {'G', 'G', 'U', 'F', 'V', 'T', 'I', '1'};
constexpr size_t ident_size = 32;  // magic, key, 8 zero bytes

// The content key in an identity record; false when there is none or it is not one.
bool read_ident(const std::string& path, unsigned char key[16]) {
  unsigned char buf[ident_size + 1];  // (one more: a longer file is not a record)
  const ssize_t got = io::disk_cache::read_small(path, buf, sizeof buf);
  static constexpr unsigned char zeros[8] = {};
  if (got != ssize_t(ident_size) || std::memcmp(buf, ident_magic, 8) != 0 || std::memcmp(buf + 24, zeros, 8) != 0)
    return false;
  std::memcpy(key, buf + 8, 16);
  return true;
}

void write_ident(const io::disk_cache& cache, const std::string& path, const unsigned char key[16]) {
  char buf[ident_size] = {};
  std::memcpy(buf, ident_magic, 8);
  std::memcpy(buf + 8, key, 16);
  cache.write(path, {std::as_bytes(std::span(buf))});
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

// Whether the record at `path` vouches for a cache file of identity `id` and payload
// checksum `checksum`.
bool verified(const std::string& path, const file_identity& id, uint64_t checksum) {
  unsigned char buf[sizeof(verified_record) + 1];  // (one more: a longer file is not a record)
  if (io::disk_cache::read_small(path, buf, sizeof buf) != ssize_t(sizeof(verified_record))) return false;
  verified_record r;
  std::memcpy(&r, buf, sizeof r);
  return std::memcmp(r.magic, verified_magic, 8) == 0 && r.id == id && r.checksum == checksum;
}

void write_verified(const io::disk_cache& cache, const std::string& path, const file_identity& id,
                    uint64_t checksum) {
  verified_record r{};
  std::memcpy(r.magic, verified_magic, 8);
  r.id = id;
  r.checksum = checksum;
  cache.write(path, {std::as_bytes(std::span(&r, 1))});
}

// The file's times are identity_min_age_ns old or older.
bool old_enough(const file_identity& id) {
  struct timespec now {};
  if (clock_gettime(CLOCK_REALTIME, &now) != 0) return false;
  const int64_t t = int64_t(now.tv_sec) * 1000000000 + now.tv_nsec;
  return t - id.mtime_ns >= identity_min_age_ns && t - id.ctime_ns >= identity_min_age_ns;
}

}  // namespace

std::string default_cache_dir() { return io::default_cache_dir(); }

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
  std::unique_ptr<table_cache> c(new table_cache(dir));
  const io::disk_cache& cache = c->cache_;
  const auto bytes = f.bytes();
  const size_t n = size_t(std::min<uint64_t>(f.metadata_end(), bytes.size()));
  // The identity record of a local file: its name hashes the code's hash, the identity
  // and the metadata's size; it holds the content key.
  std::string ident_path;
  const std::optional<file_identity> id = f.identity();
  if (id) {
    const uint64_t fields[6] = {id->device, id->inode, id->size, uint64_t(id->mtime_ns), uint64_t(id->ctime_ns), uint64_t(n)};
    ident_path = cache.path("ident", code_keyed_hash(fields, sizeof fields), ".key");
    if (!ignore_existing && read_ident(ident_path, c->key_)) {
      c->keyed_by_identity_ = true;
      io::disk_cache::touch(ident_path);  // recently used: pruned last
    }
  }
  if (!c->keyed_by_identity_) {
    // the key: the vocabulary code's hash, then every byte the tables are built from
    const io::cache_key k = code_keyed_hash(bytes.data(), n);
    std::memcpy(c->key_, k.data(), 16);
    if (id && old_enough(*id)) write_ident(cache, ident_path, c->key_);
  }
  io::cache_key key;
  std::memcpy(key.data(), c->key_, 16);
  c->path_ = cache.path("vocab", key, ".bin");
  c->ok_path_ = cache.path("vocab", key, ".ok");

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
  if (io::pread_all(fd, &h, header_size, 0) != ssize_t(header_size)) {
    c->why_ = "cannot read it";
    ::close(fd);
    return c;
  }
  const file_identity bin_id = io::identity_of(sb);
  const std::string& ok_path = c->ok_path_;
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
      io::disk_cache::touch(ok_path);
    } else if (old_enough(bin_id)) {
      write_verified(cache, ok_path, bin_id, h.checksum);
    }
  }
  return c;
}

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

  const bool ok = cache_.write(path_, {std::as_bytes(std::span(out))});
  if (ok) cache_.prune(path_);  // the least recently used files go, never this one
  return ok;
}

}  // namespace gguf::vocab_detail
