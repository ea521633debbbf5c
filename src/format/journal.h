// The journal of an in-place edit (gguf/edit.h; layout in docs/format.md, "Editing"):
// its encoding, and what a reader makes of one found beside a file. Not installed.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

#include "gguf/error.h"
#include "gguf/file.h"

namespace gguf::detail {

/// "GGUFJRN2", then uint64 dev, ino, size, offset, length, checksum (FNV-1a 64 over the
/// magic, the five fields, the payload and the old bytes), then the payload: the new
/// bytes of [offset, offset + length) of the file (dev, ino, size) it was made for, then
/// the `length` bytes that range held before the edit. A "GGUFJRN1" journal (written by
/// earlier versions) has no old bytes and is still read.
struct edit_journal {
  uint64_t dev = 0, ino = 0, size = 0, offset = 0;
  std::vector<std::byte> payload;
  std::vector<std::byte> before;  ///< the range's bytes before the edit (empty: a version-1 journal)
  bool has_before = true;         ///< false for a version-1 journal

  uint64_t checksum() const;
  std::vector<std::byte> encode() const;
  /// False if the bytes are not a complete, intact journal.
  bool decode(const std::vector<std::byte>& in);
  /// True when the journal was made for the file of `st` (device, inode and size) and
  /// its range lies inside it.
  bool belongs_to(const struct stat& st) const;
  /// True when every byte of `now` (the file's [offset, offset + length) as it is) is the
  /// edit's or the one it replaced: the file is the one the journal was made for, as it
  /// was before, during or after the interrupted write, and not another file that took
  /// its inode and size (a copy written over it in place, a download of the same size).
  /// A version-1 journal has no old bytes: true.
  bool range_matches(std::span<const std::byte> now) const;
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
/// `.NAME.gguf-journal` in the folder of `file` as named (no link resolved): the journal
/// of `file` when it is not a symbolic link; gguf::journal_path resolves one first.
std::filesystem::path journal_beside(const std::filesystem::path& file);

/// `bytes`: the file's bytes as mapped (for range_matches). Errors: io_error when a
/// journal is there but cannot be read (the file may be half edited, so it is not read
/// without it).
result<journal_probe> probe_journal(const std::filesystem::path& target, const struct stat& st,
                                    std::span<const std::byte> bytes);

}  // namespace gguf::detail
