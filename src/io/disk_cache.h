// The disk cache: one folder for everything the library keeps between runs (the
// compiled tokenizer tables, the metadata of remote files), one key scheme, one size cap,
// one pruning. Not installed.
//
// Folder: $GGUF_CACHE_DIR, else $XDG_CACHE_HOME/gguf, else $HOME/.cache/gguf
// (default_dir; GGUF_CACHE_DIR set to "" or "0": no cache). Entries are files named
// `KIND-KEY.EXT`, KEY 32 hex digits (XXH3-128 of what the entry is built from, key());
// entries with the same KIND-KEY are one unit (a file and its companion records). Files
// with the extension `.key` are identity records (a few dozen bytes: file identity ->
// content key), kept to max_records; every other unit counts towards the size cap,
// $GGUF_CACHE_MAX_MB (default 1024), and the least recently used units are removed
// first (a unit's last use: the newest modification time of its files; touch() marks a
// use). Files of killed writers (`.NAME.tmp-*`, no live writer) are removed too; files
// of other names are never touched.
//
// A cache is an accelerator: every read checks what it reads (its users check their
// files' headers and checksums) and a failed read or write never fails the caller.
// Writes are atomic (io::write_file_atomic) and not fsynced.
#pragma once

#include <sys/types.h>

#include <array>
#include <cstddef>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>

namespace gguf::io {

/// The default cache folder (see above); "" when there is none.
std::string default_cache_dir();

/// A cache key: XXH3-128, canonical byte order.
using cache_key = std::array<unsigned char, 16>;

/// Identity records kept in a cache folder.
inline constexpr size_t max_cache_records = 4096;

class disk_cache {
 public:
  /// The cache in `dir` ("" : none: every path is "" and nothing is read or written).
  explicit disk_cache(std::string dir) : dir_(std::move(dir)) {}
  bool enabled() const noexcept { return !dir_.empty(); }
  const std::string& dir() const noexcept { return dir_; }

  /// XXH3-128 of the concatenation of `parts`.
  static cache_key key(std::initializer_list<std::span<const std::byte>> parts);
  /// 32 lower-case hex digits.
  static std::string hex(const cache_key& k);
  /// The entry `DIR/KIND-KEY.EXT` ("" when the cache is off).
  std::string path(std::string_view kind, const cache_key& k, std::string_view ext) const;

  /// Reads up to `cap` bytes of the small regular file `path` (an entry's record): the
  /// count read, or -1 (missing, not a regular file, unreadable). Never blocks on a FIFO.
  static ssize_t read_small(const std::string& path, void* buf, size_t cap) noexcept;
  /// Writes the concatenation of `parts` to `path` whole or not at all, creating the
  /// folder. False on failure (nothing written).
  bool write(const std::string& path, std::initializer_list<std::span<const std::byte>> parts) const;
  /// Marks `path` as used now (its unit is pruned last).
  static void touch(const std::string& path) noexcept;
  /// Keeps the folder under its size cap and record count (see above), never removing
  /// `keep`'s unit.
  void prune(const std::string& keep) const;

 private:
  std::string dir_;
};

}  // namespace gguf::io
