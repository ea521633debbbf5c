// gguf::edit: metadata edits in place (journaled) when they fit, streamed otherwise.
#include "gguf/edit.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>

#include "format/journal.h"
#include "gguf/io.h"
#include "io/atomic_write.h"

namespace gguf {
namespace fs = std::filesystem;

namespace {

gguf::error io_error(const std::string& what) { return make_error(errc::io_error, no_offset, what); }
gguf::error sys_error(const std::string& what) { return io_error(what + ": " + std::strerror(errno)); }


// Blocks SIGINT/SIGTERM/SIGHUP for a scope: the few milliseconds between the journal
// and its removal are not interrupted by Ctrl-C (SIGKILL is what the journal is for).
struct signal_block {
  sigset_t old;
  signal_block() {
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGINT);
    sigaddset(&s, SIGTERM);
    sigaddset(&s, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &s, &old);
  }
  ~signal_block() { pthread_sigmask(SIG_SETMASK, &old, nullptr); }
};

struct fd_guard {
  int fd = -1;
  ~fd_guard() {
    if (fd >= 0) ::close(fd);
  }
};

// The file as it will be: `meta` followed by zeros up to `size`, in a sparse memfd.
result<file> probe_file(std::span<const std::byte> meta, uint64_t size) {
  fd_guard g{::memfd_create("gguf-edit-probe", MFD_CLOEXEC)};
  if (g.fd < 0) return sys_error("cannot check the edited file (memfd_create)");
  if (!io::pwrite_all(g.fd, meta.data(), meta.size(), 0) || ::ftruncate(g.fd, static_cast<off_t>(size)) != 0) {
    return sys_error("cannot check the edited file");
  }
  return file::open("/proc/self/fd/" + std::to_string(g.fd));
}

// Tensor offsets of `f` are the canonical ones the writer computes (in file order, each
// at the next multiple of the alignment): only then can tensor infos be rewritten as is.
bool canonical_offsets(const file& f) {
  uint64_t off = 0, a = f.alignment();
  for (const auto& t : f.tensors()) {
    if (t.offset != off) return false;
    off += (t.nbytes + a - 1) / a * a;
  }
  return true;
}

// Applies the ops to a writer made from f (the filler key dropped first).
result<writer> apply_ops(const file& f, std::span<const edit_op> ops) {
  auto w = writer::from_file(f);
  w.remove(padding_key);
  for (const auto& op : ops) {
    if (op.what == edit_op::kind::remove) {
      if (!w.remove(op.key) && op.key != padding_key) {
        return make_error(errc::key_not_found, no_offset, "no such key", op.key);
      }
    } else if (auto r = w.set(op.key, op.val); !r) {
      return r.error();
    }
  }
  return w;
}

// The region [0, room) with the new metadata (and filler), or empty if it cannot fit.
std::vector<std::byte> in_place_region(writer& w, const file& f, uint64_t room) {
  if (w.alignment() != f.alignment() || !canonical_offsets(f)) return {};
  const bool tensors = f.tensor_count() > 0;
  uint64_t need = w.metadata_end();
  auto fits_as_is = [&] { return need == room || (tensors && w.data_offset() == room); };
  if (!fits_as_is()) {
    const uint64_t overhead = 8 + padding_key.size() + 4 + 4 + 8;  // key, type, elem type, count
    if (need + overhead > room) return {};
    std::vector<uint8_t> zeros(room - need - overhead);
    if (!w.set(padding_key, value::array<uint8_t>(zeros))) return {};
    if (w.metadata_end() != room) return {};
  }
  auto region = w.metadata_bytes();
  if (region.size() != room) return {};
  return region;
}

using detail::edit_journal;
using detail::read_small_file;

// Writes `region` over [offset, offset + size) of the open file `fd` through a journal.
// `before`: the range's bytes as the file holds them now (kept in the journal, so that a
// recovery can tell this file from another one that takes its inode and size).
result<void> journaled_write(const fs::path& target, int fd, const struct stat& st, uint64_t offset,
                             std::vector<std::byte> region, std::vector<std::byte> before) {
  edit_journal j;
  j.dev = st.st_dev;
  j.ino = st.st_ino;
  j.size = static_cast<uint64_t>(st.st_size);
  j.offset = offset;
  j.payload = std::move(region);
  j.before = std::move(before);
  auto jpath = journal_path(target);
  signal_block blocked;
  {
    output_options o;
    o.handle_signals = false;
    auto out = safe_output::create(jpath, o);
    if (!out) return out.error();
    if (auto r = out->write(j.encode()); !r) return r;
    if (auto r = out->commit(); !r) return r;
  }
  // fdatasync: the region's bytes are what must be durable (the size does not change).
  if (!io::pwrite_all(fd, j.payload.data(), j.payload.size(), offset) || ::fdatasync(fd) != 0) {
    // The journal stays: the next recover_edit finishes the edit.
    return sys_error("cannot write " + target.string() + " in place (the journal " + jpath.string() +
                     " finishes the edit on the next edit or recovery)");
  }
  // No folder fsync: a journal that reappears after a crash is applied again, which
  // rewrites the same bytes (the edit is idempotent).
  ::unlink(jpath.c_str());
  return {};
}

}  // namespace

fs::path journal_path(const fs::path& path) { return detail::journal_beside(resolve_write_target(path)); }

result<recovery> recover_edit(const fs::path& path) {
  auto target = resolve_write_target(path);
  auto jpath = journal_path(target);
  struct stat jst {};
  if (::lstat(jpath.c_str(), &jst) != 0) return recovery::none;
  auto bytes = read_small_file(jpath);
  if (!bytes) return bytes.error();
  edit_journal j;
  if (!j.decode(*bytes)) {
    // Journals are renamed into place complete and fsynced; a damaged one never reached
    // the file (the file is written only after the journal is durable).
    if (::unlink(jpath.c_str()) != 0) return sys_error("cannot remove the damaged journal " + jpath.string());
    return recovery::discarded;
  }
  fd_guard g{::open(target.c_str(), O_RDWR | O_CLOEXEC)};
  if (g.fd < 0) return sys_error("cannot finish the interrupted edit of " + target.string() + " from " + jpath.string());
  const auto foreign = [&] {
    return io_error("the journal " + jpath.string() + " of an interrupted edit does not belong to " + target.string() +
                    " as it is now (another file, or its size or bytes changed): left alone; remove it if the file "
                    "is right");
  };
  struct stat st {};
  if (::fstat(g.fd, &st) != 0 || !j.belongs_to(st)) return foreign();
  std::vector<std::byte> now(j.payload.size());
  if (io::pread_all(g.fd, now.data(), now.size(), j.offset) != static_cast<ssize_t>(now.size()))
    return sys_error("cannot read " + target.string());
  if (!j.range_matches(now)) return foreign();
  signal_block blocked;
  if (!io::pwrite_all(g.fd, j.payload.data(), j.payload.size(), j.offset) || ::fsync(g.fd) != 0) {
    return sys_error("cannot finish the interrupted edit of " + target.string());
  }
  ::unlink(jpath.c_str());
  io::fsync_folder_of(jpath);
  return recovery::finished;
}

result<edit_report> edit(const fs::path& path, std::span<const edit_op> ops, const edit_options& opts) {
  edit_report rep;
  const auto input = resolve_write_target(path);
  fs::path output = opts.output.empty() ? input : resolve_write_target(opts.output);
  const bool over_input = output == input;
  // An output given (even the input itself) is a streamed rewrite (issue 29, item 9).
  const bool rewrite_asked = !opts.output.empty();
  rep.target = output;
  rep.over_input = over_input;

  if (rewrite_asked) {
    const std::filesystem::path inputs[] = {input};
    if (auto r = check_overwrite(opts.output, inputs, opts.overwrite, true); !r) return r.error();
  }
  if (!opts.dry_run) {
    auto rec = recover_edit(input);
    if (!rec) return rec.error();
    rep.recovered = *rec == recovery::finished;
  }
  // One editor at a time per file (advisory: other gguf processes respect it).
  fd_guard lock{::open(input.c_str(), O_RDONLY | O_CLOEXEC)};
  if (lock.fd < 0) return sys_error("cannot open " + input.string());
  if (over_input && !opts.dry_run && ::flock(lock.fd, LOCK_EX | LOCK_NB) != 0) {
    return make_error(errc::io_error, no_offset, "the file is being edited by another process (try again when it is done)");
  }

  auto f = file::open(input);
  if (!f) return f.error();
  auto w = apply_ops(*f, ops);
  if (!w) return w.error();
  rep.old_size = f->size();
  rep.upgraded_from = f->version() == 1 ? 1 : 0;
  rep.metadata_needed = w->metadata_end();
  const uint64_t room = std::min(f->data_offset(), f->size());
  rep.metadata_room = room;

  std::vector<std::byte> region;
  if (over_input && !rewrite_asked && opts.in_place != in_place_mode::never && f->version() != 1) {
    writer trial = *w;
    region = in_place_region(trial, *f, room);
    if (!region.empty()) *w = std::move(trial);
  }
  if (opts.in_place == in_place_mode::always && region.empty()) {
    std::string why = !over_input                ? "the output is another file"
                      : rewrite_asked            ? "an output file is given (a streamed rewrite)"
                      : f->version() == 1        ? "GGUF v1 is rewritten as v3"
                      : w->alignment() != f->alignment() ? "the alignment changes"
                      : !canonical_offsets(*f)   ? "the tensor offsets are not the canonical ones"
                                                 : "the new metadata (" + std::to_string(rep.metadata_needed) +
                                                       " bytes) does not fit in the " + std::to_string(room) +
                                                       " bytes before the data section";
    return make_error(errc::unsupported, no_offset, "cannot edit in place: " + why);
  }
  rep.in_place = !region.empty();
  rep.new_size = rep.in_place ? f->size() : w->file_size();

  if (opts.check) {
    auto after = rep.in_place ? probe_file(region, rep.new_size) : probe_file(w->metadata_bytes(), rep.new_size);
    if (!after) return after.error();
    if (auto r = opts.check(*f, *after); !r) return r.error();
  }

  if (rep.in_place) {
    if (auto r = check_writable(input, false, true); !r) return r.error();
    if (opts.dry_run) {
      rep.stale_temp_files = find_stale_temp_files(input);
      return rep;
    }
    rep.stale_temp_files = remove_stale_temp_files(input);
    fd_guard rw{::open(input.c_str(), O_RDWR | O_CLOEXEC)};
    if (rw.fd < 0) return sys_error("cannot write " + input.string());
    struct stat st {};
    if (::fstat(rw.fd, &st) != 0) return sys_error("cannot write " + input.string());
    // Still the file that was read: same size, same bytes where the region goes.
    std::vector<std::byte> now(room);
    if (static_cast<uint64_t>(st.st_size) != f->size() ||
        io::pread_all(rw.fd, now.data(), now.size(), 0) != static_cast<ssize_t>(now.size()) ||
        std::memcmp(now.data(), f->bytes().data(), room) != 0) {
      return io_error("cannot write " + input.string() + ": the file was changed by another process during the edit");
    }
    if (auto r = journaled_write(input, rw.fd, st, 0, std::move(region), std::move(now)); !r) return r.error();
    return rep;
  }

  output_options o;
  o.break_links = opts.break_links;
  o.progress = opts.progress;
  o.expected_size = rep.new_size;
  if (opts.dry_run) {
    struct stat st {};
    if (::stat(output.c_str(), &st) == 0) {
      if (auto r = check_writable(output, true, opts.break_links); !r) return r.error();
    }
    rep.stale_temp_files = find_stale_temp_files(output);
    return rep;
  }
  auto out = safe_output::create(output, o);
  if (!out) return out.error();
  rep.stale_temp_files = out->stale_temp_files();
  if (auto r = w->write_to(*out); !r) return r.error();
  if (auto r = out->commit(); !r) return r.error();
  return rep;
}

}  // namespace gguf
