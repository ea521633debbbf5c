// safe_output: temp file beside the target, bounded-memory writes, fsync + rename, the
// target's mode/owner/group kept, signal cleanup and stale temp removal (see output.h).
#include "gguf/output.h"

#include <fcntl.h>
#include <grp.h>
#include <sys/file.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <ctime>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "gguf/io.h"
#include "io/atomic_write.h"

namespace gguf {
namespace fs = std::filesystem;

namespace {

constexpr size_t buffer_bytes = 1u << 20;         // write() buffer
constexpr uint64_t chunk_bytes = 64ull << 20;     // one kernel copy / progress step

gguf::error io_error(const std::string& what) { return make_error(errc::io_error, no_offset, what); }
gguf::error sys_error(const std::string& what) { return io_error(what + ": " + std::strerror(errno)); }

std::string octal_mode(mode_t m) {
  char b[16];
  std::snprintf(b, sizeof b, "0%o", static_cast<unsigned>(m & 07777));
  return b;
}

// ---- live temp files, for the signal handler (fixed slots: no allocation in it) ----

constexpr int max_slots = 64;
struct temp_slot {
  std::atomic<int> state{0};  // 0 free, 1 being filled, 2 live
  char path[4096] = {};  // initialized: clang 14 takes no uninitialized member in a constinit object
};
// constinit: zero-initialized in .bss, no static initializer touching its 64 pages at
// every process start (63 page faults, ~0.1 ms, before constinit)
constinit temp_slot g_slots[max_slots];

int register_temp(const std::string& p) {
  if (p.size() >= sizeof(temp_slot::path)) return -1;
  for (int i = 0; i < max_slots; ++i) {
    int expected = 0;
    if (g_slots[i].state.compare_exchange_strong(expected, 1)) {
      std::memcpy(g_slots[i].path, p.c_str(), p.size() + 1);
      g_slots[i].state.store(2);
      return i;
    }
  }
  return -1;  // more than 64 concurrent outputs: still written, just not signal-cleaned
}

void unregister_temp(int slot) {
  if (slot >= 0) g_slots[slot].state.store(0);
}

void on_signal(int sig) {
  remove_temp_files();
  std::signal(sig, SIG_DFL);
  std::raise(sig);  // delivered when the handler returns: dies as the signal says
}

void install_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
      struct sigaction old {};
      if (sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL || (old.sa_flags & SA_SIGINFO)) continue;
      struct sigaction sa {};
      sa.sa_handler = on_signal;
      sigemptyset(&sa.sa_mask);
      sigaction(sig, &sa, nullptr);
    }
  });
}

bool in_group(gid_t g) {
  if (getegid() == g) return true;
  int n = getgroups(0, nullptr);
  if (n <= 0) return false;
  std::vector<gid_t> groups(static_cast<size_t>(n));
  n = getgroups(n, groups.data());
  return n > 0 && std::find(groups.begin(), groups.begin() + n, g) != groups.begin() + n;
}

std::string temp_prefix(const fs::path& target) {
  // Appended piece by piece: GCC 12's -Wrestrict misreads "." + std::string + "..." here.
  std::string prefix = ".";
  prefix += target.filename().string();
  prefix += ".tmp-";
  return prefix;
}

fs::path folder_of(const fs::path& p) { return p.has_parent_path() ? p.parent_path() : fs::path("."); }

}  // namespace

void remove_temp_files() noexcept {
  for (auto& s : g_slots) {
    if (s.state.load() == 2) ::unlink(s.path);
  }
}

fs::path resolve_write_target(const fs::path& path) {
  fs::path p = path;
  for (int depth = 0; depth < 40; ++depth) {
    std::error_code ec;
    if (!fs::is_symlink(p, ec)) break;
    fs::path to = fs::read_symlink(p, ec);
    if (ec) break;
    p = to.is_absolute() ? to : folder_of(p) / to;
  }
  std::error_code ec;
  if (fs::exists(p, ec)) {
    auto c = fs::canonical(p, ec);
    if (!ec) return c;
  }
  return p.lexically_normal();
}

result<void> check_writable(const fs::path& path, bool rewrite, bool break_links) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return sys_error("cannot write " + path.string());
  if (!S_ISREG(st.st_mode)) return io_error("cannot write " + path.string() + ": not a regular file");
  if ((st.st_mode & 0222) == 0) {
    return io_error("cannot write " + path.string() + ": the file is read-only (mode " + octal_mode(st.st_mode) +
                    "); make it writable first (chmod u+w)");
  }
  if (::faccessat(AT_FDCWD, path.c_str(), W_OK, AT_EACCESS) != 0) {
    return io_error("cannot write " + path.string() + ": no permission to write it (mode " + octal_mode(st.st_mode) +
                    ", owner uid " + std::to_string(st.st_uid) + ")");
  }
  if (!rewrite) return {};
  // A rewrite gives the new file this user's uid and can keep only a group the user is in
  // (issue 29, item 14: say which of the two is the obstacle).
  if (geteuid() != 0 && st.st_uid != geteuid()) {
    return io_error("cannot rewrite " + path.string() + ": it belongs to uid " + std::to_string(st.st_uid) +
                    " (this user is uid " + std::to_string(geteuid()) +
                    "), and a rewrite would change its owner (edit it in place, or as its owner)");
  }
  if (geteuid() != 0 && !in_group(st.st_gid)) {
    return io_error("cannot rewrite " + path.string() + ": its group is gid " + std::to_string(st.st_gid) +
                    ", which this user (uid " + std::to_string(geteuid()) +
                    ") is not in, and a rewrite would change its group (edit it in place, or as a member of the "
                    "group)");
  }
  if (st.st_nlink > 1 && !break_links) {
    return io_error("cannot rewrite " + path.string() + ": it has " + std::to_string(st.st_nlink) +
                    " hard links, and a rewrite would leave the other names with the old content "
                    "(an in-place edit keeps them; or allow breaking the links: --break-links)");
  }
  auto dir = folder_of(path);
  if (::faccessat(AT_FDCWD, dir.c_str(), W_OK | X_OK, AT_EACCESS) != 0) {
    return io_error("cannot rewrite " + path.string() + ": its folder " + dir.string() +
                    " is not writable (a rewrite needs a temporary file beside it)");
  }
  return {};
}

namespace {

// X when `name` is a temp file name ".X.tmp-" + 6 letters or digits (mkstemp's), else "".
std::string temp_file_owner(const std::string& name) {
  constexpr size_t suffix = 6, tag = 5;  // "XXXXXX", ".tmp-"
  if (name.size() < 1 + 1 + tag + suffix || name[0] != '.') return {};
  const size_t tail = name.size() - suffix;
  if (name.compare(tail - tag, tag, ".tmp-") != 0) return {};
  for (size_t i = tail; i < name.size(); ++i)
    if (!std::isalnum(static_cast<unsigned char>(name[i]))) return {};
  return name.substr(1, tail - tag - 1);
}

// Temp files beside `target` that no live writer holds: those of the target and of its
// in-place edit journal, and those of other GGUF files in the folder (named *.gguf or
// *.gguf-journal, holding GGUF bytes or none: a killed split, merge or convert-endian);
// removed when `remove`. An empty one younger than 10 s is left alone: a writer creates
// its temp file, then locks it, then writes.
std::vector<fs::path> stale_temps(const fs::path& target, bool remove) {
  std::vector<fs::path> out;
  const std::string own = target.filename().string(), journal = "." + own + ".gguf-journal";
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(folder_of(target), ec)) {
    const std::string name = e.path().filename().string();
    const std::string x = temp_file_owner(name);
    if (x.empty()) continue;
    const bool mine = x == own || x == journal;
    if (!mine && !x.ends_with(".gguf") && !x.ends_with(".gguf-journal")) continue;
    const int fd = ::open(e.path().c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) continue;
    struct stat st {};
    bool candidate = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    if (candidate && !mine && st.st_size > 0) {
      char magic[4];
      candidate = io::pread_all(fd, magic, sizeof magic, 0) == 4 && std::memcmp(magic, "GGUF", 4) == 0;
    }
    if (candidate && st.st_size == 0) candidate = ::time(nullptr) - st.st_mtim.tv_sec >= 10;
    if (candidate && ::flock(fd, LOCK_EX | LOCK_NB) == 0) {  // nobody writes it
      if (!remove || ::unlink(e.path().c_str()) == 0) out.push_back(e.path());
    }
    ::close(fd);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::vector<fs::path> find_stale_temp_files(const fs::path& target) { return stale_temps(target, false); }
std::vector<fs::path> remove_stale_temp_files(const fs::path& target) { return stale_temps(target, true); }

// ---- safe_output ----

struct safe_output::state {
  fs::path target, temp;
  output_options opts;
  int fd = -1;
  int slot = -1;
  bool committed = false;
  bool existed = false;
  struct stat before {};
  std::vector<char> buf;
  uint64_t written = 0;  // appended, including what is still buffered
  uint64_t reported = 0;
  gguf::error failure;   // first error; sticky
  std::vector<fs::path> stale;

  result<void> fail(gguf::error e) {
    if (failure.code == errc::ok) failure = e;
    return failure;
  }
  result<void> sys_fail(const char* what) {
    return fail(io_error(std::string("cannot write ") + target.string() + ": " + what + std::strerror(errno)));
  }
  void progress(bool force = false) {
    if (!opts.progress) return;
    if (!force && written - reported < chunk_bytes) return;
    reported = written;
    opts.progress(written, opts.expected_size);
  }
  result<void> write_all(const char* p, size_t n) {
    if (!io::write_all(fd, p, n)) return sys_fail("");
    return {};
  }
  result<void> flush() {
    if (failure.code != errc::ok) return failure;
    if (buf.empty()) return {};
    auto r = write_all(buf.data(), buf.size());
    buf.clear();
    return r;
  }
};

safe_output::safe_output(std::unique_ptr<state> s) : s_(std::move(s)) {}
safe_output::safe_output(safe_output&&) noexcept = default;
safe_output& safe_output::operator=(safe_output&& o) noexcept {
  if (this != &o) {
    abort();
    s_ = std::move(o.s_);
  }
  return *this;
}
safe_output::~safe_output() { abort(); }

result<safe_output> safe_output::create(const fs::path& target_in, const output_options& opts) {
  auto s = std::make_unique<state>();
  s->opts = opts;
  s->target = resolve_write_target(target_in);
  if (::stat(s->target.c_str(), &s->before) == 0) {
    s->existed = true;
    if (auto r = check_writable(s->target, true, opts.break_links); !r) return r.error();
  } else if (errno != ENOENT) {
    return sys_error("cannot write " + s->target.string());
  }
  auto dir = folder_of(s->target);
  s->stale = remove_stale_temp_files(s->target);
  std::string tmpl = (dir / (temp_prefix(s->target) + "XXXXXX")).string();
  if (opts.handle_signals) install_handlers();
  // Block the cleanup signals between mkstemp and registration, so that no temp file
  // can exist unregistered when one arrives.
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGTERM);
  sigaddset(&block, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &block, &old);
  s->fd = ::mkostemp(tmpl.data(), O_CLOEXEC);
  int saved = errno;
  if (s->fd >= 0) s->slot = register_temp(tmpl);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (s->fd < 0) {
    errno = saved;
    return sys_error("cannot create a temporary file in " + dir.string() + " to write " + s->target.string());
  }
  s->temp = tmpl;
  ::flock(s->fd, LOCK_EX | LOCK_NB);  // marks it live for find_stale_temp_files
  s->buf.reserve(buffer_bytes);
  return safe_output(std::move(s));
}

result<void> safe_output::write(std::span<const std::byte> bytes) {
  auto& s = *s_;
  if (s.failure.code != errc::ok) return s.failure;
  const char* p = reinterpret_cast<const char*>(bytes.data());
  size_t n = bytes.size();
  if (s.buf.size() + n <= buffer_bytes) {
    s.buf.insert(s.buf.end(), p, p + n);
  } else {
    if (auto r = s.flush(); !r) return r;
    if (n < buffer_bytes) {
      s.buf.insert(s.buf.end(), p, p + n);
    } else {
      // Large spans go straight from the caller's memory, in chunks (progress between).
      while (n > 0) {
        size_t k = std::min<size_t>(n, chunk_bytes);
        if (auto r = s.write_all(p, k); !r) return r;
        s.written += k;
        s.progress();
        p += k;
        n -= k;
      }
      return {};
    }
  }
  s.written += bytes.size();
  s.progress();
  return {};
}

result<void> safe_output::write_zeros(uint64_t n) {
  static const std::byte zeros[4096] = {};
  while (n > 0) {
    size_t k = static_cast<size_t>(std::min<uint64_t>(n, sizeof zeros));
    if (auto r = write(std::span<const std::byte>(zeros, k)); !r) return r;
    n -= k;
  }
  return {};
}

result<void> safe_output::copy_from_fd(int in, uint64_t offset, uint64_t n) {
  auto& s = *s_;
  if (auto r = s.flush(); !r) return r;
  auto short_source = [&](uint64_t at) {
    return s.fail(io_error("cannot write " + s.target.string() + ": the source ends at byte " + std::to_string(at) +
                           ", before the " + std::to_string(offset + n) +
                           " bytes it had (truncated by another process?)"));
  };
  bool try_cfr = true, try_sendfile = true;
  std::vector<char> bounce;
  while (n > 0) {
    size_t want = static_cast<size_t>(std::min<uint64_t>(n, chunk_bytes));
    ssize_t k = -1;
    if (try_cfr) {
      loff_t off_in = static_cast<loff_t>(offset);
      k = ::copy_file_range(in, &off_in, s.fd, nullptr, want, 0);
      if (k < 0 && (errno == EXDEV || errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP || errno == EBADF ||
                    errno == EPERM)) {
        try_cfr = false;
        continue;
      }
    } else if (try_sendfile) {
      off_t off_in = static_cast<off_t>(offset);
      k = ::sendfile(s.fd, in, &off_in, want);
      if (k < 0 && (errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP)) {
        try_sendfile = false;
        continue;
      }
    } else {
      if (bounce.empty()) bounce.resize(buffer_bytes);
      k = ::pread(in, bounce.data(), std::min(want, bounce.size()), static_cast<off_t>(offset));
      if (k > 0) {
        if (auto r = s.write_all(bounce.data(), static_cast<size_t>(k)); !r) return r;
      }
    }
    if (k < 0) {
      if (errno == EINTR) continue;
      return s.sys_fail("");
    }
    if (k == 0) return short_source(offset);
    offset += static_cast<uint64_t>(k);
    n -= static_cast<uint64_t>(k);
    s.written += static_cast<uint64_t>(k);
    s.progress();
  }
  return {};
}

result<void> safe_output::finish() {
  auto& s = *s_;
  if (auto r = s.flush(); !r) return r;
  if (s.opts.durable && ::fsync(s.fd) != 0) return s.sys_fail("(fsync) ");
  std::vector<char>().swap(s.buf);  // a set of finished outputs holds no buffers
  return {};
}

result<void> safe_output::commit() {
  if (auto r = prepare(); !r) return r;
  return rename_into_place();
}

result<void> safe_output::commit_set(std::span<safe_output> outs) {
  size_t failed = 0;
  return commit_set(outs, failed);
}

result<void> safe_output::commit_set(std::span<safe_output> outs, size_t& failed) {
  failed = 0;
  const auto give_up = [&](size_t i, gguf::error e) -> result<void> {
    failed = i;
    for (auto& o : outs) o.abort();
    return e;
  };
  for (size_t i = 0; i < outs.size(); ++i) {
    if (auto r = outs[i].prepare(); !r) return give_up(i, std::move(r).error());
  }
  if (outs.empty()) return {};
  // The first file goes first: without it the old set no longer opens, and a process
  // killed during the renames leaves a set that fails to load, never one that loads as
  // a mix of two models. The new first file is renamed in last, completing the new set.
  auto& first = *outs.front().s_;
  if (first.existed) {
    if (::unlink(first.target.c_str()) != 0) return give_up(0, sys_error("cannot replace " + first.target.string()));
    if (first.opts.durable) io::fsync_folder_of(first.target);
  }
  // Past this point a failure leaves files of the new set in place without its first one.
  const auto left_without_first = [&](gguf::error e) {
    e.detail += "; the set is left without its first file " + first.target.filename().string() +
                " (no reader opens it)";
    return e;
  };
  for (size_t i = 1; i < outs.size(); ++i) {
    if (auto r = outs[i].rename_into_place(); !r) {
      auto e = std::move(r).error();
      return give_up(i, first.existed || i > 1 ? left_without_first(std::move(e)) : std::move(e));
    }
  }
  if (auto r = outs.front().rename_into_place(); !r) {
    auto e = std::move(r).error();
    return give_up(0, first.existed || outs.size() > 1 ? left_without_first(std::move(e)) : std::move(e));
  }
  return {};
}

result<void> safe_output::prepare() {
  auto& s = *s_;
  if (s.committed) return io_error("cannot write " + s.target.string() + ": already committed");
  auto fail = [&](gguf::error e) -> result<void> {
    abort();
    return e;
  };
  if (auto r = s.flush(); !r) return fail(r.error());
  if (s.failure.code != errc::ok) return fail(s.failure);
  if (s.existed) {
    struct stat mine {};
    ::fstat(s.fd, &mine);
    if (mine.st_uid != s.before.st_uid || mine.st_gid != s.before.st_gid) {
      uid_t uid = mine.st_uid != s.before.st_uid ? s.before.st_uid : static_cast<uid_t>(-1);
      if (::fchown(s.fd, uid, s.before.st_gid) != 0) {
        return fail(sys_error("cannot give the new " + s.target.string() + " the owner/group of the old one"));
      }
    }
    // After fchown (which clears setuid/setgid bits).
    if (::fchmod(s.fd, s.before.st_mode & 07777) != 0) return fail(sys_error("cannot set the mode of " + s.temp.string()));
  } else {
    mode_t mask = ::umask(0);
    ::umask(mask);
    if (::fchmod(s.fd, 0666 & ~mask) != 0) return fail(sys_error("cannot set the mode of " + s.temp.string()));
  }
  if (s.opts.durable && ::fsync(s.fd) != 0) return fail(sys_error("cannot write " + s.target.string() + " (fsync)"));
  s.progress(true);
  // The target must be what create() saw.
  struct stat now {};
  bool exists = ::stat(s.target.c_str(), &now) == 0;
  bool same = exists == s.existed;
  if (same && exists) {
    same = now.st_dev == s.before.st_dev && now.st_ino == s.before.st_ino && now.st_size == s.before.st_size &&
           now.st_mtim.tv_sec == s.before.st_mtim.tv_sec && now.st_mtim.tv_nsec == s.before.st_mtim.tv_nsec;
  }
  if (!same) {
    return fail(io_error("cannot write " + s.target.string() +
                         ": the file was changed by another process while it was written (nothing replaced)"));
  }
  return {};
}

result<void> safe_output::rename_into_place() {
  auto& s = *s_;
  if (::rename(s.temp.c_str(), s.target.c_str()) != 0) {
    auto e = sys_error("cannot replace " + s.target.string());
    abort();
    return e;
  }
  s.committed = true;
  unregister_temp(s.slot);
  s.slot = -1;
  ::close(s.fd);
  s.fd = -1;
  // The journal of an interrupted in-place edit of the file just replaced (gguf/edit.h)
  // goes with it: it names the old inode, which the file system gives to a later file.
  if (s.existed) ::unlink((folder_of(s.target) / ("." + s.target.filename().string() + ".gguf-journal")).c_str());
  if (s.opts.durable) io::fsync_folder_of(s.target);  // the rename is durable
  return {};
}

void safe_output::abort() noexcept {
  if (!s_) return;
  if (!s_->committed && !s_->temp.empty()) {
    ::unlink(s_->temp.c_str());
    s_->temp.clear();
  }
  unregister_temp(s_->slot);
  s_->slot = -1;
  if (s_->fd >= 0) {
    ::close(s_->fd);
    s_->fd = -1;
  }
}

uint64_t safe_output::size() const noexcept { return s_->written; }
const fs::path& safe_output::target() const noexcept { return s_->target; }
const fs::path& safe_output::temp_path() const noexcept { return s_->temp; }
const std::vector<fs::path>& safe_output::stale_temp_files() const noexcept { return s_->stale; }

namespace io {

void fsync_folder_of(const fs::path& path) noexcept {
  const int dfd = ::open(folder_of(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) return;
  ::fsync(dfd);
  ::close(dfd);
}

result<void> write_file_atomic(const fs::path& path, std::initializer_list<std::span<const std::byte>> parts,
                               bool durable) {
  output_options o;
  o.handle_signals = false;
  o.durable = durable;
  auto out = safe_output::create(path, o);
  if (!out) return out.error();
  for (auto part : parts)
    if (auto r = out->write(part); !r) return r;
  return out->commit();
}

}  // namespace io
}  // namespace gguf
