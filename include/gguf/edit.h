// gguf/edit.h — editing the metadata of a GGUF file without losing anything.
//
//   std::vector<gguf::edit_op> ops = {
//       gguf::edit_op::set("general.name", gguf::value::string("My model")),
//       gguf::edit_op::remove("general.url")};
//   auto r = gguf::edit("model.gguf", ops);            // in place when it fits
//   if (!r) report(r.error());                        // the file is unchanged
//   else std::cout << (r->in_place ? "in place" : "rewritten");
//
// Two ways to write the result (docs/format.md, "Editing", has the guarantees):
//
// - In place: when the new header + metadata + tensor infos fit in the old file's
//   metadata region (up to its data section offset), only that region is rewritten;
//   tensor data is not touched (no copy of a 40 GB model). Readers place the data section
//   at the first aligned offset after the tensor infos, so a shorter metadata region is
//   filled up with the key `gguf.padding` (a uint8 array of zeros, ignored by readers,
//   removed by every later edit) to keep that offset. Crash safety: the new region is
//   first written to a journal `.NAME.gguf-journal` beside the file (fsynced and renamed
//   into place), then written over the file and fsynced, then the journal is removed.
//   A journal found later (recover_edit, or the next edit) finishes the edit; until then
//   file::open reads the edit's result without writing (pending_edit, file.h). Processes
//   that have the file mapped see the new metadata at once: use in_place_mode::never
//   for a file in use.
// - Streamed: the whole file is rewritten through safe_output (gguf/output.h): temp file
//   beside the target, bounded memory, fsync, rename; symlinks followed, mode and owner
//   kept, hard links refused unless break_links.
//
// Operations apply in order to the file's key/values (a set of an existing key keeps its
// position, a new key is appended; removing an absent key is errc::key_not_found). The
// output is always GGUF v3 for a v1 input (edit_report::upgraded_from says so), v2/v3
// keep their version, and a big-endian file stays big-endian.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "gguf/error.h"
#include "gguf/file.h"
#include "gguf/output.h"
#include "gguf/writer.h"

#pragma GCC visibility push(default)  // public API: exported from the shared library
namespace gguf {

/// The key of the filler that keeps the data section offset of an in-place edit.
inline constexpr std::string_view padding_key = "gguf.padding";

/// One metadata change.
struct edit_op {
  enum class kind : uint8_t { set, remove };
  kind what = kind::set;
  std::string key;
  gguf::value val;  ///< for set

  static edit_op set(std::string key, gguf::value v) { return {kind::set, std::move(key), std::move(v)}; }
  static edit_op remove(std::string key) { return {kind::remove, std::move(key), {}}; }
};

/// Where the edit may be written in place.
enum class in_place_mode : uint8_t {
  never,      ///< always a streamed rewrite (for files other processes have mapped)
  automatic,  ///< in place when the new metadata fits, streamed otherwise
  always,     ///< in place or not at all (errc::unsupported when it does not fit)
};

struct edit_options {
  /// Write the result here instead of over the input (always streamed; the input is
  /// only read; the input itself given here is a streamed rewrite of it, never in place).
  /// Empty: edit the input file.
  std::filesystem::path output;
  /// Replace an existing `output` that is not the input (check_overwrite in output.h:
  /// refused with io_error otherwise, before anything is written).
  bool overwrite = false;
  in_place_mode in_place = in_place_mode::automatic;
  /// Check and plan only: nothing is written (edit_report tells what would happen).
  bool dry_run = false;
  /// Let a streamed rewrite replace a file with other hard links (see output.h).
  bool break_links = false;
  /// Progress of a streamed rewrite (bytes written, total).
  progress_fn progress;
  /// Called with the file as it will be (its metadata and tensor infos; tensor bytes
  /// read as zeros) before anything is written: an error stops the edit and is returned
  /// (used to refuse edits that make a file invalid).
  std::function<result<void>(const file& before, const file& after)> check;
};

/// What an edit did (or, with dry_run, would do).
struct edit_report {
  std::filesystem::path target;  ///< the file written (symlinks resolved)
  bool in_place = false;         ///< in place, else streamed
  bool over_input = true;        ///< target is the input file itself (else a separate -o OUT)
  uint64_t old_size = 0, new_size = 0;  ///< bytes: the input's size, and the target's size after the edit
  uint64_t metadata_room = 0;    ///< old data section offset: room for in-place metadata
  uint64_t metadata_needed = 0;  ///< bytes the new header + metadata + tensor infos take
  uint32_t upgraded_from = 0;    ///< 1 when a GGUF v1 input was written as v3, else 0
  bool recovered = false;        ///< a journal of an interrupted edit was applied first
  std::vector<std::filesystem::path> stale_temp_files;  ///< left by killed runs, removed (found only with dry_run; see output.h)
};

/// Applies `ops` to the GGUF file at `path` (see the header comment).
/// Errors: every reader error of the input; key_not_found (remove of an absent key);
/// invalid_key / key_too_long / invalid_alignment (set); unsupported (in_place_mode::always
/// and it does not fit); io_error (the file cannot be written: see safe_output's
/// refusals; journal problems; another process is editing it — editors hold an flock on
/// the file); whatever `opts.check` returns. On any error the file is unchanged.
result<edit_report> edit(const std::filesystem::path& path, std::span<const edit_op> ops, const edit_options& opts = {});

/// Result of recover_edit.
enum class recovery : uint8_t {
  none,      ///< no journal beside the file
  finished,  ///< a complete journal was applied (the interrupted edit is done)
  discarded, ///< an incomplete journal (crash while it was written: file untouched) was removed
};

/// Finishes or discards the journal of an interrupted in-place edit of `path`. A
/// journal that belongs to another file (its identity, size or the data section it was
/// made for differ) is left alone and reported as io_error.
result<recovery> recover_edit(const std::filesystem::path& path);

/// The journal path of `path` (symlinks resolved): `.NAME.gguf-journal` in its folder.
std::filesystem::path journal_path(const std::filesystem::path& path);

}  // namespace gguf
#pragma GCC visibility pop
