// The write-path fault suite: `gguf set` killed (SIGKILL) at random points of streamed
// and in-place edits of a real model, a full disk, a read-only folder, the file truncated
// or replaced by another process during the edit, and a reader that has the old file
// mapped. Afterwards the file is the old one or the new one, byte for byte, and opens.
//
// Runs: GGUF_FAULT_RUNS kills per kind (default 24), seeded by GGUF_FAULT_SEED (default
// 20261124); the seed is printed with every failure.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <thread>

#include "gguf/edit.h"
#include "gguf/file.h"
#include "gguf/writer.h"
#include "big_model.h"
#include "test_support.h"

namespace fs = std::filesystem;
using gguf::test::data_file;
using clock_type = std::chrono::steady_clock;

namespace {

const char* model_rel = "models/synth-llama-256-Q4_K_M.gguf";  // 13 MB, 700 KB of metadata

uint64_t env_or(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}

fs::path fresh_dir(const std::string& name) { return gguf::test::fresh_dir("fault-" + name); }

void copy_to(const fs::path& from, const fs::path& to) {
  fs::copy_file(from, to, fs::copy_options::overwrite_existing);
  fs::permissions(to, fs::perms::owner_write, fs::perm_options::add);
}

pid_t spawn(const std::vector<std::string>& args, uid_t as_uid = 0) {
  pid_t pid = fork();
  if (pid == 0) {
    int null = ::open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    if (as_uid != 0 && (setgroups(0, nullptr) != 0 || setgid(as_uid) != 0 || setuid(as_uid) != 0)) _exit(99);
    std::vector<char*> argv;
    std::string prog = GGUF_CLI_PATH;
    argv.push_back(prog.data());
    std::vector<std::string> copy = args;
    for (auto& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(prog.c_str(), argv.data());
    _exit(127);
  }
  return pid;
}

int wait_exit(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Kills `args` runs at random points; checks old-or-new after each (and recovery).
void kill_at_random_points(const std::string& kind, const std::vector<std::string>& edit_args, bool expect_in_place) {
  GGUF_REQUIRE_DATA();
  const uint64_t runs = env_or("GGUF_FAULT_RUNS", 24);
  const uint64_t seed = env_or("GGUF_FAULT_SEED", 20261124);
  auto dir = fresh_dir(kind);
  auto old_path = data_file(model_rel);
  auto old_bytes = gguf::test::read_bytes(old_path);
  // The new file: the same edit, not interrupted; and how long it takes.
  auto path = dir / "m.gguf";
  copy_to(old_path, path);
  std::vector<std::string> args = {"set", path.string()};
  args.insert(args.end(), edit_args.begin(), edit_args.end());
  auto t0 = clock_type::now();
  ASSERT_EQ(wait_exit(spawn(args)), 0);
  auto full = std::chrono::duration_cast<std::chrono::microseconds>(clock_type::now() - t0).count();
  auto new_bytes = gguf::test::read_bytes(path);
  ASSERT_NE(new_bytes, old_bytes);
  if (expect_in_place) {
    ASSERT_EQ(new_bytes.size(), old_bytes.size());
  }

  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int64_t> delay(0, full + full / 5);
  int saw_old = 0, saw_new = 0, recovered = 0;
  for (uint64_t run = 0; run < runs; ++run) {
    for (const auto& l : gguf::test::temps_in(dir)) fs::remove(dir / l);
    copy_to(old_path, path);
    int64_t us = delay(rng);
    pid_t pid = spawn(args);
    std::this_thread::sleep_for(std::chrono::microseconds(us));
    kill(pid, SIGKILL);
    wait_exit(pid);
    auto rec = gguf::recover_edit(path);  // what the next edit or open does first
    ASSERT_TRUE(rec.ok()) << "seed " << seed << " run " << run << ": " << rec.error().message();
    if (*rec == gguf::recovery::finished) ++recovered;
    auto now = gguf::test::read_bytes(path);
    bool is_old = now == old_bytes, is_new = now == new_bytes;
    ASSERT_TRUE(is_old || is_new) << kind << ": seed " << seed << " run " << run << " killed after " << us
                                  << " us: the file is neither the old nor the new one";
    saw_old += is_old;
    saw_new += is_new;
    ASSERT_TRUE(gguf::file::open(path).ok()) << "seed " << seed << " run " << run;
    // A temp file left by the kill is named by the next edit (and then removed here).
    auto left = gguf::test::temps_in(dir);
    for (const auto& l : left) EXPECT_NE(l.find(".tmp-"), std::string::npos) << l;  // journals are recovered
  }
  std::cout << "[ " << kind << " ] " << runs << " kills (seed " << seed << ", full edit " << full
            << " us): old " << saw_old << ", new " << saw_new << ", finished from the journal " << recovered << "\n";
}

}  // namespace

TEST(EditFaults, SigkillDuringStreamedRewrite) {
  kill_at_random_points("streamed", {"general.name", std::string(4000, 'n'), "--in-place=never", "-q"}, false);
}

TEST(EditFaults, SigkillDuringInPlaceEdit) {
  kill_at_random_points("inplace", {"general.name", "k", "--in-place=always", "-q"}, true);
}

TEST(EditFaults, FullDiskLeavesTheOriginal) {
  GGUF_REQUIRE_DATA();
  auto dir = fresh_dir("enospc");
  if (geteuid() != 0) GTEST_SKIP() << "mounting a small tmpfs needs root: ENOSPC not tested";
  if (::mount("tmpfs", dir.c_str(), "tmpfs", 0, "size=16m") != 0) {
    GTEST_SKIP() << "cannot mount a tmpfs here (" << std::strerror(errno) << "): ENOSPC not tested";
  }
  struct unmount {
    fs::path d;
    ~unmount() { ::umount2(d.c_str(), MNT_DETACH); }
  } guard{dir};
  auto path = dir / "m.gguf";
  copy_to(data_file(model_rel), path);  // 13 MB of 16: no room for a second copy
  auto before = gguf::test::read_bytes(path);
  auto r = gguf::test::run_cli({"set", path.string(), "general.name", std::string(4000, 'n')});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r.err;
  EXPECT_EQ(gguf::test::read_bytes(path), before);
  EXPECT_TRUE(gguf::test::temps_in(dir).empty());
  // An edit that fits is made in place without room for a copy.
  r = gguf::test::run_cli({"set", path.string(), "general.name", "k"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(*gguf::file::open(path)->get_string("general.name"), "k");
}

TEST(EditFaults, ReadOnlyFolderIsAClearErrorForBothPaths) {
  GGUF_REQUIRE_DATA();
  if (geteuid() != 0) GTEST_SKIP() << "needs root to run the edit as another user (root ignores folder modes)";
  auto dir = fresh_dir("rofolder");
  ::chmod(gguf::test::temp_dir().c_str(), 0711);
  auto path = dir / "m.gguf";
  copy_to(data_file("models/stories260K.gguf"), path);
  ASSERT_EQ(::chown(path.c_str(), 65534, 65534), 0);
  ASSERT_EQ(::chmod(dir.c_str(), 0555), 0);
  auto before = gguf::test::read_bytes(path);
  for (const char* mode : {"--in-place=never", "--in-place=auto"}) {
    pid_t pid = spawn({"set", path.string(), "general.name", "k", mode}, 65534);
    EXPECT_EQ(wait_exit(pid), 2) << mode;
  }
  EXPECT_EQ(gguf::test::read_bytes(path), before);
  EXPECT_TRUE(gguf::test::temps_in(dir).empty());
  ::chmod(dir.c_str(), 0755);
}

TEST(EditFaults, FileTruncatedOrReplacedDuringTheEdit) {
  auto dir = fresh_dir("changed");
  auto path = dir / "big.gguf";
  // One 256 MiB tensor so that the rewrite lasts long enough to be interfered with.
  for (int what = 0; what < 2; ++what) {
    gguf::test::make_big_model(path, 64ull << 20);
    pid_t pid = spawn({"set", path.string(), "general.name", "a longer name", "--in-place=never", "-q"});
    for (int i = 0; i < 4000 && gguf::test::temps_in(dir).empty(); ++i) std::this_thread::sleep_for(std::chrono::microseconds(250));
    if (what == 0) {
      ASSERT_EQ(::truncate(path.c_str(), 1 << 20), 0);  // another process truncates it
    } else {
      std::ofstream(dir / "other") << "another file";
      fs::rename(dir / "other", path);  // another process replaces it
    }
    int rc = wait_exit(pid);
    if (rc == 0) {
      GTEST_SKIP() << "the edit finished before the file could be changed (a fast disk): not tested";
    }
    EXPECT_EQ(rc, 2) << (what == 0 ? "truncated" : "replaced");
    EXPECT_TRUE(gguf::test::temps_in(dir).empty());
    if (what == 1) {
      std::ifstream in(path);
      std::string s;
      std::getline(in, s);
      EXPECT_EQ(s, "another file");  // the other process's file is not overwritten
    }
  }
}

TEST(EditFaults, AReaderWithTheOldFileMappedKeepsReadingIt) {
  GGUF_REQUIRE_DATA();
  auto dir = fresh_dir("reader");
  auto path = dir / "m.gguf";
  copy_to(data_file(model_rel), path);
  auto mapped = gguf::file::open(path);
  ASSERT_TRUE(mapped.ok());
  auto original = gguf::file::open(data_file(model_rel));
  auto old_name = std::string(*mapped->get_string("general.name"));
  std::atomic<bool> stop{false};
  std::atomic<int> checks{0}, bad{0};
  std::thread reader([&] {
    while (!stop.load()) {
      for (size_t i = 0; i < mapped->tensor_count(); ++i) {
        const auto& t = mapped->tensors()[i];
        if (std::memcmp(t.data.data(), original->tensors()[i].data.data(), t.nbytes) != 0) ++bad;
      }
      if (*mapped->get_string("general.name") != old_name) ++bad;
      ++checks;
    }
  });
  for (int i = 0; i < 3; ++i) {
    auto r = gguf::test::run_cli({"set", path.string(), "general.name", std::string(3000 + i, 'r'), "--in-place=never"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
  }
  stop = true;
  reader.join();
  EXPECT_GT(checks.load(), 0);
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(gguf::file::open(path)->get_string("general.name")->size(), 3002u);
}
