// gguf/output.h — writing a file so that a failure never loses the old one.
//
//   gguf::output_options o;
//   o.progress = [](uint64_t done, uint64_t total) { ... };
//   auto out = gguf::safe_output::create("model.gguf", o);   // temp file beside the target
//   if (!out) return out.error();
//   out->write(header_bytes);                                 // buffered (1 MiB)
//   out->copy_from_fd(src_fd, tensor_offset, tensor_nbytes);  // kernel copy, no user buffer
//   if (auto r = out->commit(); !r) return r.error();         // fsync, rename, fsync folder
//
// Contract (what a user of `gguf set`, split, merge or convert-endian relies on):
//   - The bytes go to a temporary file `.NAME.tmp-XXXXXX` in the target's folder (same
//     file system, so the final rename is atomic). Until commit() returns, the target is
//     untouched; after it returns, the target holds the new bytes, fsynced, and the
//     folder entry is fsynced too. A process that has the old file mapped keeps reading
//     the old bytes (its inode lives on until it unmaps).
//   - A symlink is followed: the file it points to (at any depth) is replaced, the link
//     stays a link (Hugging Face cache layouts keep working).
//   - An existing target keeps its permission bits (setuid/setgid/sticky included), its
//     group and its owner. Where the owner cannot be kept (an unprivileged process
//     replacing another user's file) the write is refused before anything is written.
//   - Refused (errc::io_error, before anything is written) where the user could not
//     write the target itself: no write permission for this process's effective user,
//     or no write bit at all (a file made read-only with chmod a-w is refused even for
//     root, as rm and editors treat it). A target with other hard links is refused unless
//     `break_links` (a rename gives this name a new inode: the other names keep the old
//     bytes). The folder must be writable.
//   - Memory is bounded whatever the size of the output: write() buffers at most 1 MiB;
//     copy_from_fd() copies in the kernel (copy_file_range, which reflinks where the file
//     system can, then sendfile) or through the same 1 MiB buffer (pread) where neither
//     works. No tensor is ever held in memory.
//   - SIGINT / SIGTERM: every live temp file is removed before the process dies (a
//     handler is installed on first use where the signal's disposition is the default;
//     a program with its own handler calls remove_temp_files() from it). SIGKILL or a
//     power loss can leave a temp file: each temp file is flock()ed while it is written,
//     so the next safe_output in the same folder removes the unlocked ones of its target,
//     of its target's edit journal, and of other GGUF files there, and names them in
//     stale_temp_files() (a temp file is never the only copy of anything: the target
//     is replaced only by a rename of a complete one).
//   - A replaced target's in-place edit journal (`.NAME.gguf-journal`, gguf/edit.h) is
//     removed with it: the writer read the file in the state the journal gives (or
//     replaces it whole), and a journal naming a freed inode could match a later file.
//   - The target must not change while the output is written: if another process
//     replaced, truncated or modified it (its inode, size or mtime differ from what
//     create() saw), commit() refuses and removes the temp file.
//   - A safe_output that is destroyed or abort()ed without commit removes its temp file.
// Errors are errc::io_error with the system's reason and the path, e.g.
//   "cannot write /m/a.gguf: No space left on device".
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "gguf/error.h"

#pragma GCC visibility push(default)  // public API: exported from the shared library
namespace gguf {

/// Progress of a write: `done` bytes of `total` (total 0 when unknown). Called from the
/// writing thread after each chunk (at most every 64 MiB and at the end).
using progress_fn = std::function<void(uint64_t done, uint64_t total)>;

struct output_options {
  /// Replace a target that has other hard links (they keep the old content).
  bool break_links = false;
  /// Expected size of the output, passed to `progress` as `total` (0: unknown).
  uint64_t expected_size = 0;
  /// Called as bytes are written (may be empty).
  progress_fn progress;
  /// Install the SIGINT/SIGTERM cleanup handler where the disposition is the default.
  bool handle_signals = true;
  /// fsync the file before the rename and the folder after it. Only a cache whose files
  /// carry their own checksum (a file cut short by a crash is detected and rebuilt) turns
  /// this off.
  bool durable = true;
};

/// A file being written through a temporary file and renamed over its target on commit.
/// Move-only; not thread-safe (one writer thread).
class safe_output {
 public:
  /// Checks the target (see the contract above), creates and locks the temp file.
  /// `target` need not exist. Errors: io_error.
  static result<safe_output> create(const std::filesystem::path& target, const output_options& opts = {});

  safe_output(safe_output&&) noexcept;
  safe_output& operator=(safe_output&&) noexcept;
  safe_output(const safe_output&) = delete;
  safe_output& operator=(const safe_output&) = delete;
  /// Removes the temp file unless committed.
  ~safe_output();

  /// Appends bytes (buffered). Errors: io_error (ENOSPC, EIO, …); the output is then
  /// unusable and commit() fails.
  result<void> write(std::span<const std::byte> bytes);
  result<void> write(const void* p, size_t n) { return write({static_cast<const std::byte*>(p), n}); }
  /// Appends n zero bytes.
  result<void> write_zeros(uint64_t n);
  /// Appends n bytes of `fd` starting at `offset` (pread semantics: fd's file position
  /// is not used). Errors: io_error, also when fd has fewer than offset + n bytes (a
  /// source truncated while it is copied).
  result<void> copy_from_fd(int fd, uint64_t offset, uint64_t n);

  /// The bytes are all written: flushes and fsyncs them and gives back the write
  /// buffer, so that commit() is only the rename. For a set of outputs that must appear
  /// together (split's shards): each is finished as it is written, then all are
  /// committed, and a failure before the commits replaces none. Errors: io_error (as
  /// write(); commit() then fails). The set is then committed with commit_set().
  result<void> finish();
  /// Flushes, fsyncs, gives the temp file the target's mode/owner/group, checks that
  /// the target did not change since create(), renames, fsyncs the folder.
  result<void> commit();
  /// Commits a set of files that are read together (split's shards; the first one is
  /// the file a reader opens). Every output is checked and made ready as commit() does
  /// before any target is touched: a failure there replaces none. Then the first
  /// output's old target, if any, is removed, the others are renamed into place, and the
  /// first one last. A process killed during the renames (SIGKILL, power loss) leaves a
  /// set without its first file, which no reader opens, never a mix of the old set and
  /// the new one that opens as one model. Errors: io_error (the outputs not yet renamed
  /// are then aborted); a failure after the first output's old target was removed or a
  /// later output renamed says that the set is left without its first file.
  static result<void> commit_set(std::span<safe_output> outs);
  /// As commit_set(outs), and on failure `failed` is the index in `outs` of the output
  /// whose check, removal or rename failed (the file the error names).
  static result<void> commit_set(std::span<safe_output> outs, size_t& failed);
  /// Removes the temp file now (idempotent).
  void abort() noexcept;

  /// Bytes appended so far.
  uint64_t size() const noexcept;
  /// The file that commit() replaces (symlinks resolved).
  const std::filesystem::path& target() const noexcept;
  /// The temp file being written.
  const std::filesystem::path& temp_path() const noexcept;
  /// Temp files of earlier writes that no process held (left by a killed process),
  /// removed by create() (see remove_stale_temp_files).
  const std::vector<std::filesystem::path>& stale_temp_files() const noexcept;

 private:
  struct state;
  std::unique_ptr<state> s_;
  explicit safe_output(std::unique_ptr<state> s);
  result<void> prepare();            // commit() up to the rename
  result<void> rename_into_place();  // the rename and what follows it
};

/// The file a write to `path` changes: symlinks followed (a dangling link resolves to
/// the path it names); `path` itself when it is not a link.
std::filesystem::path resolve_write_target(const std::filesystem::path& path);

/// Checks that this process may write the existing file `path` itself (see the
/// contract above: permission, write bits, owner keepable when `rewrite`, hard links
/// unless `break_links`). Errors: io_error naming the reason.
result<void> check_writable(const std::filesystem::path& path, bool rewrite, bool break_links);

/// Temp files beside `target` that no live writer holds (async-unsafe): `.NAME.tmp-*` of
/// the target and `..NAME.gguf-journal.tmp-*` of its in-place edit journal, and those of
/// other GGUF files in the folder (`.X.gguf.tmp-*`, `.X.gguf-journal.tmp-*`, holding
/// GGUF bytes or none). An empty one less than 10 s old is not counted (its writer may
/// not have locked it yet).
std::vector<std::filesystem::path> find_stale_temp_files(const std::filesystem::path& target);
/// Removes what find_stale_temp_files finds; returns the files removed.
std::vector<std::filesystem::path> remove_stale_temp_files(const std::filesystem::path& target);

/// The overwrite policy of every writer of an output file OUT (DESIGN.md, "Command-line
/// contract"; `gguf edit -o`, `convert-endian -o`, `dequantize -o`, `split`, `merge`,
/// `quantize`, Python `edit(out=...)`): OUT may be written when it does not exist, when
/// `force` is set, or when it is one of `inputs` (the same file: symlinks followed,
/// device and inode compared) and `may_replace_input` (a rewrite of the input, as
/// `edit FILE -o FILE` or `convert-endian FILE -o FILE`). Errors (nothing is written):
/// io_error "exists; not replaced without --force" (the front end names its own spelling
/// of force); invalid_argument "is the input ..." when OUT is an input and
/// `!may_replace_input`, even with `force` (a split or merge onto its own input).
result<void> check_overwrite(const std::filesystem::path& out, std::span<const std::filesystem::path> inputs,
                             bool force, bool may_replace_input);

/// Removes every temp file of live safe_outputs in this process. Async-signal-safe:
/// call it from a SIGINT/SIGTERM handler of your own.
void remove_temp_files() noexcept;

}  // namespace gguf
#pragma GCC visibility pop
