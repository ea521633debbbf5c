// The compiled tokenizer cache (internal): the tables a vocabulary builds at load (the
// token map, BPE merge ranks, pair filters, tries) saved once to a file and mapped back,
// zero-copy, by the next process that loads the same vocabulary.
//
// Keyed by content, not by path: the key is XXH3-128 of the GGUF's bytes up to the end
// of its tensor infos (every key/value the tables are built from) and of the vocabulary
// code that builds them (GGUF_VOCAB_SOURCE_HASH, a hash of src/vocab at configure time),
// so an edited file or a changed build never sees stale tables. The file is
// `DIR/vocab-<key>.bin`: a header (magic, format, key, payload size, XXH3-64 of the
// payload) and the payload, checked in full before use; any mismatch is a miss, and a
// miss rebuilds the tables and rewrites the file (temporary file + rename, so a reader
// never sees half of one). The cache is an accelerator: failing to read or write it
// never fails a load. The folder is the disk cache's (io/disk_cache.h: one folder, key
// scheme, size cap and pruning for every cache), kept under GGUF_CACHE_MAX_MB (default
// 1024) by removing the least recently used files after each write.
//
// Once a cache file's payload has been hashed and found whole, and the file's times are
// identity_min_age_ns old, `DIR/vocab-<key>.ok` records the file's identity (device,
// inode, size, modification and change times) and checksum. A later open of the same
// unchanged file skips the hash and maps the file without reading every page up front
// (gemma-4: 25 MB, about 2 ms of a one-prompt CLI run); any write to the file changes its
// times, so a file written since is hashed again. The record, not the cache file, is
// touched when the file is used (the file's times are its identity), and the folder's
// pruning takes a file's last use from it.
//
// The content key of a local file is also recorded under the file's identity
// (gguf::file_identity: device, inode, size, modification and change times), in
// `DIR/ident-<hash>.key`: a later open of the same unchanged file reads its key there
// instead of hashing the metadata again (17 MB for gemma-4). Any write to the file
// changes its times, so an edited file is hashed anew. An identity is recorded only once
// its times are identity_min_age_ns old, so that a write within a filesystem's timestamp
// granularity cannot leave them equal. At most max_ident_files are kept (least recently
// used removed).
//
// Tables are written and read in the order the load builds them, each under a name;
// `pod_table` is how a structure holds an array that may be its own vector or a view
// into the mapped cache.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "io/disk_cache.h"
#include "vocab/runtime/table_memory.h"

namespace gguf {
class file;
}

namespace gguf::vocab_detail {

/// An array a structure owns (built) or views (mapped from the cache). Moves keep the
/// view valid (a moved vector keeps its buffer); copies are not allowed.
template <class T>
class pod_table {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  pod_table() = default;
  pod_table(const pod_table&) = delete;
  pod_table& operator=(const pod_table&) = delete;
  pod_table(pod_table&& o) noexcept : own_(std::move(o.own_)), p_(o.p_), n_(o.n_) { o.p_ = nullptr, o.n_ = 0; }
  pod_table& operator=(pod_table&& o) noexcept {
    own_ = std::move(o.own_), p_ = o.p_, n_ = o.n_;
    o.p_ = nullptr, o.n_ = 0;
    return *this;
  }
  void adopt(table_vector<T> v) noexcept {
    own_ = std::move(v);
    p_ = own_.data(), n_ = own_.size();
  }
  void view(std::span<const T> s) noexcept {
    own_.clear();
    p_ = s.data(), n_ = s.size();
  }
  /// Owns n copies of `x` (for a table filled in place through writable()).
  void assign(size_t n, const T& x) {
    own_.assign(n, x);
    p_ = own_.data(), n_ = own_.size();
  }
  /// The owned elements, to fill in place (only after adopt or assign).
  T* writable() noexcept { return own_.data(); }
  const T& operator[](size_t i) const noexcept { return p_[i]; }
  const T* data() const noexcept { return p_; }
  size_t size() const noexcept { return n_; }
  bool empty() const noexcept { return n_ == 0; }
  std::span<const T> span() const noexcept { return {p_, n_}; }

 private:
  table_vector<T> own_;
  const T* p_ = nullptr;
  size_t n_ = 0;
};

/// Collects the arrays of the tables being saved (by reference: they must stay alive
/// and unchanged until table_cache::commit; scalar values are copied).
class table_writer {
 public:
  template <class T>
  void put(std::span<const T> a) {
    static_assert(std::is_trivially_copyable_v<T>);
    pieces_.push_back({a.data(), a.size(), uint32_t(sizeof(T)), {}});
  }
  template <class T>
  void put_value(const T& x) {
    static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= 16);
    piece p{nullptr, 1, uint32_t(sizeof(T)), {}};
    std::memcpy(p.value, &x, sizeof(T));
    pieces_.push_back(p);
  }

 private:
  friend class table_cache;
  struct piece {
    const void* data;  // nullptr: the value below
    uint64_t count;
    uint32_t elem_size;
    unsigned char value[16];
  };
  std::vector<piece> pieces_;
};

/// Reads the arrays of one table back, in the order they were put; every read checks
/// the element size and stays inside the payload (false otherwise).
class table_reader {
 public:
  template <class T>
  bool get(std::span<const T>& out) {
    static_assert(std::is_trivially_copyable_v<T>);
    const void* p = nullptr;
    uint64_t n = 0;
    if (!get_raw(sizeof(T), p, n)) return false;
    out = {static_cast<const T*>(p), size_t(n)};
    return true;
  }
  template <class T>
  bool get_value(T& x) {
    std::span<const T> s;
    if (!get(s) || s.size() != 1) return false;
    std::memcpy(&x, s.data(), sizeof(T));
    return true;
  }

 private:
  friend class table_cache;
  bool get_raw(uint32_t elem_size, const void*& data, uint64_t& count);
  const std::byte* at_ = nullptr;
  const std::byte* end_ = nullptr;
};

/// How old (by the clock) a file's modification and change times must be for its
/// identity to be recorded (2 s: coarser filesystems' granularity). Tests set 0.
inline int64_t identity_min_age_ns = 2'000'000'000;
/// Identity records kept in a cache folder (the disk cache's record count).
inline constexpr size_t max_ident_files = io::max_cache_records;

class table_cache {
 public:
  /// The cache for `f`'s vocabulary in `dir` (created when missing); nullptr when `dir`
  /// is empty. Maps an existing valid file (unless `ignore_existing`); otherwise the
  /// load builds and commit() writes.
  static std::unique_ptr<table_cache> open(const std::string& dir, const gguf::file& f, bool ignore_existing = false);
  ~table_cache();
  table_cache(const table_cache&) = delete;
  table_cache& operator=(const table_cache&) = delete;

  /// True when the tables come from the file (a hit).
  bool hit() const noexcept { return hit_; }
  /// The next table, which must be named `name`: true and `read(reader)` ran and
  /// returned true, else false (a miss: build, then save()).
  template <class Read>
  bool load(std::string_view name, Read&& read) {
    if (!hit_) return false;
    table_reader r;
    if (!next_table(name, r) || !read(r)) {
      hit_ = false;  // a bad table: everything is rebuilt and the file rewritten
      broken_ = true;
      return false;
    }
    return true;
  }
  /// Records a built table for commit().
  template <class Write>
  void save(std::string_view name, Write&& write) {
    tables_.push_back({std::string(name), std::make_unique<table_writer>()});
    write(*tables_.back().w);
  }
  /// True when a table of the file did not fit (the load must start over without it).
  bool broken() const noexcept { return broken_; }
  /// After a miss: writes the saved tables (best effort: errors are ignored, a
  /// half-written temporary file is removed). Returns true when a file was written.
  bool commit();
  /// The cache file's path.
  const std::string& path() const noexcept { return path_; }
  /// Why the file was not used, when it existed (for --verbose); empty otherwise.
  const std::string& why_miss() const noexcept { return why_; }
  /// True when the key was read from the identity record instead of hashed.
  bool keyed_by_identity() const noexcept { return keyed_by_identity_; }
  /// True when the file's payload was not hashed: its verified record vouched for it.
  bool vouched() const noexcept { return vouched_; }

 private:
  explicit table_cache(const std::string& dir) : cache_(dir) {}
  bool next_table(std::string_view name, table_reader& r);
  struct saved {
    std::string name;
    std::unique_ptr<table_writer> w;
  };
  io::disk_cache cache_;
  std::string path_, ok_path_;
  std::string why_;
  unsigned char key_[16] = {};
  const std::byte* map_ = nullptr;
  size_t map_size_ = 0;
  const std::byte* cursor_ = nullptr;  // next table in the mapped payload
  bool hit_ = false;
  bool broken_ = false;
  bool keyed_by_identity_ = false;
  bool vouched_ = false;
  std::vector<saved> tables_;
};

/// The one rule of every cached table: read it from `cache` when the cache has it (a
/// hit), else build it and, with a cache, save it for commit(). `read(table_reader&)`
/// returns false for a table that does not fit (the load then starts over without the
/// cache); `build()` makes the table; `write(table_writer&)` puts it.
template <class Read, class Build, class Write>
void load_or_build(table_cache* cache, std::string_view name, Read&& read, Build&& build, Write&& write) {
  if (cache && cache->load(name, read)) return;
  build();
  if (cache) cache->save(name, write);
}

/// The default cache folder (io::default_cache_dir): $GGUF_CACHE_DIR, else
/// $XDG_CACHE_HOME/gguf, else $HOME/.cache/gguf; empty (no cache) when GGUF_CACHE_DIR is
/// set to "" or "0" or no home is known.
std::string default_cache_dir();

}  // namespace gguf::vocab_detail
