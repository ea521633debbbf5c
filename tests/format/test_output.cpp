// safe_output (gguf/output.h): the write path every command that writes a file shares.
// Mode, owner, symlinks, hard links, read-only files, signals, stale temp files, a
// target changed during the write, bounded memory and the kernel copy path.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <grp.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <string>

#include "gguf/output.h"
#include "gguf/writer.h"
#include "big_model.h"
#include "test_support.h"

namespace fs = std::filesystem;

namespace {

fs::path fresh_dir(const std::string& name) { return gguf::test::fresh_dir("out-" + name); }

void put_file(const fs::path& p, const std::string& text) {
  std::vector<std::byte> b;
  for (char c : text) b.push_back(static_cast<std::byte>(c));
  gguf::test::write_bytes(p, b);
}

// A fresh folder holding a.bin = "old": the target that a test replaces, or must leave as it was.
fs::path dir_with_old_target(const std::string& name) {
  auto dir = fresh_dir(name);
  put_file(dir / "a.bin", "old");
  return dir;
}

std::string text_of(const fs::path& p) {
  auto b = gguf::test::read_bytes(p);
  return std::string(reinterpret_cast<const char*>(b.data()), b.size());
}

// safe_output::create(p) with `text` written, not yet committed.
gguf::result<gguf::safe_output> started_write(const fs::path& p, const std::string& text,
                                              const gguf::output_options& o = {}) {
  auto out = gguf::safe_output::create(p, o);
  if (!out) return out;
  if (auto r = out->write(text.data(), text.size()); !r) return r.error();
  return out;
}

gguf::result<void> write_text(const fs::path& p, const std::string& text, gguf::output_options o = {}) {
  auto out = started_write(p, text, o);
  if (!out) return out.error();
  return out->commit();
}

std::vector<std::string> temp_files_in(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename().string().find(".tmp-") != std::string::npos) out.push_back(e.path().string());
  }
  return out;
}

mode_t mode_of(const fs::path& p) {
  struct stat st {};
  EXPECT_EQ(::stat(p.c_str(), &st), 0);
  return st.st_mode & 07777;
}

// Runs fn in a child process as uid/gid 65534 (nobody); returns its exit status.
template <class Fn>
int as_nobody(Fn fn) {
  pid_t pid = fork();
  if (pid == 0) {
    if (setgroups(0, nullptr) != 0 || setgid(65534) != 0 || setuid(65534) != 0) _exit(99);
    _exit(fn());
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

TEST(SafeOutput, NewFileGetsUmaskModeAndContent) {
  auto dir = fresh_dir("new");
  mode_t mask = ::umask(022);
  auto r = write_text(dir / "a.bin", "hello");
  ::umask(mask);
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(text_of(dir / "a.bin"), "hello");
  EXPECT_EQ(mode_of(dir / "a.bin"), 0644u);
  EXPECT_TRUE(temp_files_in(dir).empty());
}

// finish(): the bytes are on disk in the temp file, the target untouched until commit();
// writing after it still works; a set of outputs finished then committed appears whole.
TEST(SafeOutput, FinishedOutputsAppearOnlyWhenCommitted) {
  auto dir = fresh_dir("finish");
  put_file(dir / "b.bin", "old b");
  auto a = gguf::safe_output::create(dir / "a.bin");
  auto b = gguf::safe_output::create(dir / "b.bin");
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE(a->write("first", 5).ok());
  ASSERT_TRUE(a->finish().ok());
  EXPECT_EQ(text_of(a->temp_path()), "first");  // flushed
  ASSERT_TRUE(a->write(" second", 7).ok());
  ASSERT_TRUE(a->finish().ok());
  ASSERT_TRUE(b->write("new b", 5).ok());
  ASSERT_TRUE(b->finish().ok());
  EXPECT_FALSE(fs::exists(dir / "a.bin"));
  EXPECT_EQ(text_of(dir / "b.bin"), "old b");
  ASSERT_TRUE(a->commit().ok());
  ASSERT_TRUE(b->commit().ok());
  EXPECT_EQ(text_of(dir / "a.bin"), "first second");
  EXPECT_EQ(text_of(dir / "b.bin"), "new b");
  EXPECT_TRUE(temp_files_in(dir).empty());
}

TEST(SafeOutput, KeepsThePermissionBitsOfThePrivateFile) {
  auto dir = fresh_dir("mode");
  for (mode_t m : {0600u, 0640u, 0755u, 0604u}) {
    put_file(dir / "a.bin", "old");
    ::chmod((dir / "a.bin").c_str(), m);
    auto r = write_text(dir / "a.bin", "new");
    ASSERT_TRUE(r.ok()) << r.error().message();
    EXPECT_EQ(text_of(dir / "a.bin"), "new");
    EXPECT_EQ(mode_of(dir / "a.bin"), m);
  }
}

TEST(SafeOutput, RefusesAReadOnlyFileEvenForRoot) {
  auto dir = dir_with_old_target("ro");
  ::chmod((dir / "a.bin").c_str(), 0444);
  auto r = write_text(dir / "a.bin", "new");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, gguf::errc::io_error);
  EXPECT_NE(r.error().message().find("read-only (mode 0444)"), std::string::npos) << r.error().message();
  EXPECT_EQ(text_of(dir / "a.bin"), "old");
  EXPECT_TRUE(temp_files_in(dir).empty());
}

TEST(SafeOutput, KeepsOwnerAndGroupOfAnotherUsersFile) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to give the file to another user";
  auto dir = dir_with_old_target("owner");
  ASSERT_EQ(::chown((dir / "a.bin").c_str(), 65534, 65534), 0);
  ASSERT_TRUE(write_text(dir / "a.bin", "new").ok());
  struct stat st {};
  ASSERT_EQ(::stat((dir / "a.bin").c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 65534u);
  EXPECT_EQ(st.st_gid, 65534u);
  EXPECT_EQ(text_of(dir / "a.bin"), "new");
}

TEST(SafeOutput, AnUnprivilegedUserCannotRewriteAnotherUsersFile) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to switch to another user";
  auto dir = fresh_dir("other");
  ::chmod(gguf::test::temp_dir().c_str(), 0711);  // nobody may pass through
  ::chmod(dir.c_str(), 0777);
  put_file(dir / "a.bin", "old");
  ::chmod((dir / "a.bin").c_str(), 0666);  // writable by everyone, owned by root
  int rc = as_nobody([&] {
    auto r = write_text(dir / "a.bin", "new");
    if (r.ok()) return 1;
    return r.error().message().find("change its owner") != std::string::npos ? 0 : 2;
  });
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(text_of(dir / "a.bin"), "old");
  // And a file nobody may not write at all.
  ::chmod((dir / "a.bin").c_str(), 0644);
  rc = as_nobody([&] {
    auto r = write_text(dir / "a.bin", "new");
    return !r.ok() && r.error().message().find("no permission") != std::string::npos ? 0 : 1;
  });
  EXPECT_EQ(rc, 0);
  // A read-only folder: no temp file can be made beside the target.
  ::chmod(dir.c_str(), 0755);
  ::chown((dir / "a.bin").c_str(), 65534, 65534);
  rc = as_nobody([&] {
    auto r = write_text(dir / "a.bin", "new");
    return !r.ok() && r.error().message().find("folder") != std::string::npos ? 0 : 1;
  });
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(text_of(dir / "a.bin"), "old");
  EXPECT_TRUE(temp_files_in(dir).empty());
}

// Issue 29, item 14: a rewrite refused because the group differs says so (it said the
// file belonged to another uid while the user owned it).
TEST(SafeOutput, Issue29Item14TheRefusalNamesTheGroupWhenTheUserOwnsTheFile) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to switch to another user";
  auto dir = fresh_dir("group");
  ::chmod(gguf::test::temp_dir().c_str(), 0711);
  ::chmod(dir.c_str(), 0777);
  put_file(dir / "a.bin", "old");
  ::chmod((dir / "a.bin").c_str(), 0666);
  ASSERT_EQ(::chown((dir / "a.bin").c_str(), 65534, 0), 0);  // nobody's file, root's group
  int rc = as_nobody([&] {
    auto r = write_text(dir / "a.bin", "new");
    if (r.ok()) return 1;
    const auto m = r.error().message();
    return m.find("its group is gid 0") != std::string::npos && m.find("change its group") != std::string::npos &&
                   m.find("belongs to uid") == std::string::npos
               ? 0
               : 2;
  });
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(text_of(dir / "a.bin"), "old");
}

// Issue 29, item 9: the one overwrite policy of every writer of OUT.
TEST(CheckOverwrite, Issue29Item9AnExistingOutThatIsNotTheInputNeedsForce) {
  auto dir = fresh_dir("overwrite");
  put_file(dir / "in.gguf", "in");
  put_file(dir / "out.gguf", "out");
  const std::vector<fs::path> inputs{dir / "in.gguf"};
  EXPECT_TRUE(gguf::check_overwrite(dir / "new.gguf", inputs, false, false).ok());
  auto r = gguf::check_overwrite(dir / "out.gguf", inputs, false, false);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, gguf::errc::io_error);
  EXPECT_NE(r.error().message().find("exists; not replaced without --force"), std::string::npos);
  EXPECT_TRUE(gguf::check_overwrite(dir / "out.gguf", inputs, true, false).ok());
  // The input itself, also through a symlink: a rewrite where allowed, never otherwise.
  fs::create_symlink(dir / "in.gguf", dir / "link.gguf");
  EXPECT_TRUE(gguf::check_overwrite(dir / "link.gguf", inputs, false, true).ok());
  for (bool force : {false, true}) {
    auto s = gguf::check_overwrite(dir / "link.gguf", inputs, force, false);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().code, gguf::errc::invalid_argument);
    EXPECT_NE(s.error().message().find("is the input"), std::string::npos);
  }
  // A dangling symlink would create the file it names: it exists as far as OUT goes.
  fs::create_symlink(dir / "missing.gguf", dir / "dangling.gguf");
  EXPECT_FALSE(gguf::check_overwrite(dir / "dangling.gguf", inputs, false, false).ok());
}

TEST(SafeOutput, FollowsSymlinksAndKeepsTheLink) {
  auto dir = fresh_dir("link");
  fs::create_directories(dir / "blobs");
  fs::create_directories(dir / "snapshots");
  put_file(dir / "blobs" / "abc", "old");
  fs::create_symlink("../blobs/abc", dir / "snapshots" / "model.gguf");
  fs::create_symlink("snapshots/model.gguf", dir / "outer.gguf");  // a link to a link
  ASSERT_TRUE(write_text(dir / "outer.gguf", "new").ok());
  EXPECT_TRUE(fs::is_symlink(dir / "outer.gguf"));
  EXPECT_TRUE(fs::is_symlink(dir / "snapshots" / "model.gguf"));
  EXPECT_EQ(text_of(dir / "blobs" / "abc"), "new");
  EXPECT_TRUE(temp_files_in(dir / "blobs").empty());
  EXPECT_TRUE(temp_files_in(dir / "snapshots").empty());
  auto out = gguf::safe_output::create(dir / "outer.gguf");
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->target(), fs::canonical(dir / "blobs" / "abc"));
  EXPECT_EQ(out->temp_path().parent_path(), fs::canonical(dir / "blobs"));
}

TEST(SafeOutput, HardLinksAreRefusedUnlessBroken) {
  auto dir = dir_with_old_target("hard");
  fs::create_hard_link(dir / "a.bin", dir / "b.bin");
  auto r = write_text(dir / "a.bin", "new");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("2 hard links"), std::string::npos) << r.error().message();
  EXPECT_EQ(text_of(dir / "a.bin"), "old");
  gguf::output_options o;
  o.break_links = true;
  ASSERT_TRUE(write_text(dir / "a.bin", "new", o).ok());
  EXPECT_EQ(text_of(dir / "a.bin"), "new");
  EXPECT_EQ(text_of(dir / "b.bin"), "old");
}

TEST(SafeOutput, AbortAndDestructorRemoveTheTempFile) {
  auto dir = dir_with_old_target("abort");
  {
    auto out = started_write(dir / "a.bin", "partial");
    ASSERT_TRUE(out.ok()) << out.error().message();
    EXPECT_TRUE(fs::exists(out->temp_path()));
    EXPECT_EQ(temp_files_in(dir).size(), 1u);
  }
  EXPECT_TRUE(temp_files_in(dir).empty());
  EXPECT_EQ(text_of(dir / "a.bin"), "old");
}

TEST(SafeOutput, RemovesStaleTempFilesButNotLiveOnesNorOtherPrograms) {
  auto dir = dir_with_old_target("stale");
  put_file(dir / ".a.bin.tmp-Ab12Cd", "left by a killed run");
  put_file(dir / "..a.bin.gguf-journal.tmp-Ab12Cd", "GGUFJRN1 cut short");  // its journal's
  put_file(dir / ".b.gguf.tmp-Ab12Cd", "GGUF of a killed split");              // another GGUF's
  put_file(dir / ".c.gguf.tmp-Ab12Cd", "not GGUF bytes");                      // not ours
  put_file(dir / ".other.bin.tmp-Ab12Cd", "another file's");
  auto live = gguf::safe_output::create(dir / "a.bin");  // holds its lock
  ASSERT_TRUE(live.ok());
  const std::vector<fs::path> removed = {dir / "..a.bin.gguf-journal.tmp-Ab12Cd", dir / ".a.bin.tmp-Ab12Cd",
                                         dir / ".b.gguf.tmp-Ab12Cd"};
  EXPECT_EQ(live->stale_temp_files(), removed);
  for (const auto& p : removed) EXPECT_FALSE(fs::exists(p)) << p;
  EXPECT_TRUE(fs::exists(dir / ".c.gguf.tmp-Ab12Cd"));
  EXPECT_TRUE(fs::exists(dir / ".other.bin.tmp-Ab12Cd"));
  auto second = gguf::safe_output::create(dir / "a.bin");
  ASSERT_TRUE(second.ok());
  EXPECT_TRUE(second->stale_temp_files().empty());  // the first one's is live
  EXPECT_TRUE(fs::exists(live->temp_path()));
  // An empty one just created may be a writer that has not locked it yet: left alone.
  put_file(dir / ".a.bin.tmp-Zz00Yy", "");
  EXPECT_TRUE(gguf::find_stale_temp_files(dir / "a.bin").empty());
}

TEST(SafeOutput, SigintAndSigtermRemoveTheTempFile) {
  auto dir = dir_with_old_target("signal");
  for (int sig : {SIGINT, SIGTERM}) {
    int pipefd[2];
    ASSERT_EQ(pipe(pipefd), 0);
    pid_t pid = fork();
    if (pid == 0) {
      auto out = gguf::safe_output::create(dir / "a.bin");
      if (!out) _exit(3);
      (void)out->write("partial", 7);
      char c = 'x';
      (void)!::write(pipefd[1], &c, 1);
      for (;;) pause();
    }
    close(pipefd[1]);
    char c;
    ASSERT_EQ(::read(pipefd[0], &c, 1), 1);
    close(pipefd[0]);
    EXPECT_EQ(temp_files_in(dir).size(), 1u);
    kill(pid, sig);
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status));
    EXPECT_EQ(WTERMSIG(status), sig);  // dies of the signal, as a shell expects
    EXPECT_TRUE(temp_files_in(dir).empty()) << strsignal(sig);
    EXPECT_EQ(text_of(dir / "a.bin"), "old");
  }
}

TEST(SafeOutput, RefusesWhenTheTargetChangedDuringTheWrite) {
  auto dir = dir_with_old_target("changed");
  {
    auto out = started_write(dir / "a.bin", "new");
    ASSERT_TRUE(out.ok()) << out.error().message();
    put_file(dir / "other", "someone else's");
    fs::rename(dir / "other", dir / "a.bin");  // replaced by another process
    auto r = out->commit();
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message().find("changed by another process"), std::string::npos);
  }
  EXPECT_EQ(text_of(dir / "a.bin"), "someone else's");
  EXPECT_TRUE(temp_files_in(dir).empty());
  {
    auto out = gguf::safe_output::create(dir / "a.bin");
    ASSERT_TRUE(out.ok());
    ASSERT_TRUE(::truncate((dir / "a.bin").c_str(), 4) == 0);  // truncated in place
    EXPECT_FALSE(out->commit().ok());
  }
  EXPECT_EQ(text_of(dir / "a.bin"), "some");
}

TEST(SafeOutput, CopiesFromADescriptorAndReportsATruncatedSource) {
  auto dir = fresh_dir("copy");
  std::string src(3 << 20, '\0');
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<char>(i * 131 + (i >> 12));
  put_file(dir / "src.bin", src);
  int fd = ::open((dir / "src.bin").c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  uint64_t last_done = 0, last_total = 0;
  int calls = 0;
  gguf::output_options o;
  o.expected_size = 5 + (2 << 20) + 7;
  o.progress = [&](uint64_t done, uint64_t total) {
    EXPECT_GE(done, last_done);
    last_done = done;
    last_total = total;
    ++calls;
  };
  {
    auto out = gguf::safe_output::create(dir / "dst.bin", o);
    ASSERT_TRUE(out.ok());
    ASSERT_TRUE(out->write("head:", 5).ok());
    ASSERT_TRUE(out->copy_from_fd(fd, 12345, 2 << 20).ok());
    ASSERT_TRUE(out->write_zeros(7).ok());
    EXPECT_EQ(out->size(), o.expected_size);
    ASSERT_TRUE(out->commit().ok());
  }
  EXPECT_GE(calls, 1);
  EXPECT_EQ(last_done, o.expected_size);
  EXPECT_EQ(last_total, o.expected_size);
  EXPECT_EQ(text_of(dir / "dst.bin"), "head:" + src.substr(12345, 2 << 20) + std::string(7, '\0'));
  // Bytes beyond the end of the source: the source was truncated under us.
  {
    auto out = gguf::safe_output::create(dir / "dst.bin");
    ASSERT_TRUE(out.ok());
    auto r = out->copy_from_fd(fd, src.size() - 100, 200);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message().find("truncated"), std::string::npos) << r.error().message();
    EXPECT_FALSE(out->commit().ok());
  }
  EXPECT_EQ(text_of(dir / "dst.bin").size(), 5u + (2 << 20) + 7);
  EXPECT_TRUE(temp_files_in(dir).empty());
  ::close(fd);
}

TEST(SafeOutput, FullDiskIsAnIoErrorAndLeavesNothing) {
  // /dev/full: every write fails with ENOSPC. It is not in a writable folder, so this
  // drives the error path of write() on a descriptor; the fault suite mounts a small
  // tmpfs for the whole-file case.
  auto dir = dir_with_old_target("full");
  int full = ::open("/dev/full", O_WRONLY);
  if (full < 0) GTEST_SKIP() << "no /dev/full";
  ::close(full);
  auto out = gguf::safe_output::create(dir / "a.bin");
  ASSERT_TRUE(out.ok());
  // Replace the temp file's descriptor target by /dev/full through /proc.
  std::string fdpath = "/proc/self/fd/";
  int fd = -1;
  for (const auto& e : fs::directory_iterator("/proc/self/fd")) {
    std::error_code ec;
    if (fs::read_symlink(e.path(), ec) == out->temp_path()) fd = std::stoi(e.path().filename().string());
  }
  ASSERT_GE(fd, 0);
  int devfull = ::open("/dev/full", O_WRONLY);
  ASSERT_GE(devfull, 0);
  ASSERT_EQ(::dup2(devfull, fd), fd);
  ::close(devfull);
  std::string big(3 << 20, 'x');
  auto r = out->write(big.data(), big.size());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("No space left on device"), std::string::npos) << r.error().message();
  EXPECT_FALSE(out->commit().ok());
  EXPECT_EQ(text_of(dir / "a.bin"), "old");
  EXPECT_TRUE(temp_files_in(dir).empty());
}

TEST(SafeOutput, WriterStreamsTensorsInBoundedMemory) {
  // A 192 MiB tensor rewritten by writer::write_file: the max RSS of the process that
  // does it stays far below the tensor size (bytes copied by the kernel).
  auto dir = fresh_dir("rss");
  const uint64_t n = 48ull << 20;  // f32 elements: 192 MiB
  gguf::test::make_big_model(dir / "big.gguf", n);
  if (HasFatalFailure()) return;
  auto f = gguf::file::open(dir / "big.gguf");
  ASSERT_TRUE(f.ok()) << f.error().message();
  ASSERT_EQ(f->tensors()[0].nbytes, n * 4);
  // Max RSS of a child that opens the file and rewrites it, against one that only opens
  // it (the baseline: this process's pages, a sanitizer's runtime).
  auto child_rss = [&](bool rewrite) -> long {
    pid_t pid = fork();
    if (pid == 0) {
      auto src = gguf::file::open(dir / "big.gguf");
      if (!src) _exit(3);
      if (!rewrite) _exit(0);
      auto w = gguf::writer::from_file(*src);
      if (!w.set("general.name", gguf::value::string("renamed"))) _exit(4);
      _exit(w.write_file(dir / "out.gguf").ok() ? 0 : 5);
    }
    int status = 0;
    struct rusage ru {};
    wait4(pid, &status, 0, &ru);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    return ru.ru_maxrss;
  };
  long base = child_rss(false), rss = child_rss(true);
  EXPECT_LT(rss - base, 32 * 1024) << "max RSS (KiB) while rewriting a 192 MiB tensor: " << rss << ", baseline " << base;
  auto g = gguf::file::open(dir / "out.gguf");
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(*g->get_string("general.name"), "renamed");
  ASSERT_EQ(g->tensors()[0].nbytes, n * 4);
  EXPECT_EQ(g->size(), f->size() + (g->data_offset() - f->data_offset()));
}
