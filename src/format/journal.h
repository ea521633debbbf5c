// The journal of an in-place edit (gguf/edit.h; layout in docs/format.md, "Editing"):
// its encoding, and what a reader makes of one found beside a file. Not installed.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <filesystem>
#include <vector>

#include "gguf/error.h"
#include "gguf/file.h"

namespace gguf::detail {

/// "GGUFJRN1", then uint64 dev, ino, size, offset, length, checksum (FNV-1a 64 over the
/// magic, the five fields and the payload), then the payload: the new bytes of
/// [offset, offset + length) of the file (dev, ino, size) it was made for.
struct edit_journal {
  uint64_t dev = 0, ino = 0, size = 0, offset = 0;
  std::vector<std::byte> payload;

  uint64_t checksum() const;
  std::vector<std::byte> encode() const;
  /// False if the bytes are not a complete, intact journal.
  bool decode(const std::vector<std::byte>& in);
  /// True when the journal was made for the file of `st` (device, inode and size) and
  /// its range lies inside it.
  bool belongs_to(const struct stat& st) const;
};

/// The bytes of a small regular file. Errors: io_error naming it.
result<std::vector<std::byte>> read_small_file(const std::filesystem::path& p);

/// What a reader finds beside the file it opened (`st`: fstat of its descriptor),
/// without writing anything: no journal, one that applies (its payload is the consistent
/// state, returned in `journal`), an incomplete one (the file was not touched yet), or one
/// that belongs to another file.
struct journal_probe {
  pending_edit state = pending_edit::none;
  edit_journal journal;  ///< when state == pending_edit::applied
};
/// Errors: io_error when a journal is there but cannot be read (the file may be half
/// edited, so it is not read without it).
result<journal_probe> probe_journal(const std::filesystem::path& target, const struct stat& st);

}  // namespace gguf::detail
