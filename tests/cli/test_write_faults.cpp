// The write-path fault suite for the commands that write new files (issue 29, definition
// of done): `split`, `merge`, `convert-endian` (to OUT and in place) and `quantize`
// killed (SIGKILL) while they write a real model. After each kill every file is whole
// (an output is absent or has the bytes of an uninterrupted run; the input is unchanged,
// or for an in-place conversion the old or the new file); the next run of the same
// command succeeds, removes what the killed one left (saying so once on stderr) and leaves
// the folder clean: no temp file, the outputs byte-identical to an uninterrupted run.
//
// Runs: GGUF_FAULT_RUNS kills per command (default 6: half when the run's temp file has
// its first bytes, half at a random time), seeded by GGUF_FAULT_SEED (default 20261124).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <thread>

#include "gguf/edit.h"
#include "gguf/file.h"
#include "journal_builder.h"
#include "test_support.h"

namespace fs = std::filesystem;
using gguf::test::data_file;
using gguf::test::read_bytes;
using bytes = std::vector<std::byte>;

namespace {

const char* model_rel = "models/synth-llama-256-Q4_K_M.gguf";  // 13 MB

uint64_t env_or(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}

std::vector<std::string> temps_in(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    auto n = e.path().filename().string();
    if (n.find(".tmp-") != std::string::npos || n.find(".gguf-journal") != std::string::npos) out.push_back(n);
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool has_written_temp(const fs::path& dir) {
  for (const auto& t : temps_in(dir)) {
    std::error_code ec;
    if (fs::file_size(dir / t, ec) > 0 && !ec) return true;
  }
  return false;
}

// Starts the CLI with `args` (output discarded); kills it with SIGKILL when `at_first_bytes`
// and a temp file in `dir` has bytes, else after `delay`. True when the kill landed.
bool run_and_kill(const std::vector<std::string>& args, const fs::path& dir, bool at_first_bytes,
                  std::chrono::microseconds delay) {
  pid_t pid = fork();
  if (pid == 0) {
    int null = ::open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    std::vector<char*> argv{const_cast<char*>("gguf")};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(GGUF_CLI_PATH, argv.data());
    _exit(127);
  }
  if (at_first_bytes) {
    for (int i = 0; i < 50000 && !has_written_temp(dir); ++i) std::this_thread::sleep_for(std::chrono::microseconds(50));
  } else {
    std::this_thread::sleep_for(delay);
  }
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

// A watched file: its bytes before the command (nullopt: absent) and after an
// uninterrupted run.
struct watched {
  std::optional<bytes> before;
  bytes after;
};

// `prepare(dir)` puts the inputs in the fresh folder `dir`; `args` is the command (paths
// inside `dir`); `outputs` the files it writes (relative to `dir`). The input files are
// the files `prepare` made; they must stay as they were unless listed in `outputs`.
void kill_write_runs(const std::string& kind, const std::function<void(const fs::path&)>& prepare,
                     const std::function<std::vector<std::string>(const fs::path&)>& args_of,
                     const std::vector<std::string>& outputs) {
  GGUF_REQUIRE_DATA();
  const uint64_t runs = env_or("GGUF_FAULT_RUNS", 6);
  const uint64_t seed = env_or("GGUF_FAULT_SEED", 20261124);
  const auto dir = gguf::test::fresh_dir("write-fault-" + kind);
  prepare(dir);
  ASSERT_FALSE(::testing::Test::HasFatalFailure());
  std::map<std::string, watched> files;
  for (const auto& e : fs::directory_iterator(dir)) files[e.path().filename().string()].before = read_bytes(e.path());
  const auto reset = [&] {
    for (const auto& [name, w] : files) {
      if (w.before) gguf::test::write_bytes(dir / name, *w.before);
      else fs::remove(dir / name);
    }
  };
  // The uninterrupted run: what every output must be.
  const auto args = args_of(dir);
  auto force_args = args;
  force_args.insert(force_args.begin() + 1, "--force");
  const auto t0 = std::chrono::steady_clock::now();
  auto full = gguf::test::run_cli(args);
  const auto took = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0);
  ASSERT_EQ(full.exit_code, 0) << kind << ": " << full.err;
  for (const auto& o : outputs) {
    ASSERT_TRUE(fs::exists(dir / o)) << kind << ": " << o;
    files[o].after = read_bytes(dir / o);
  }
  for (auto& [name, w] : files) {
    if (std::find(outputs.begin(), outputs.end(), name) == outputs.end()) {
      ASSERT_TRUE(w.before) << kind << ": the command wrote " << name << ", not listed as an output";
      ASSERT_EQ(read_bytes(dir / name), *w.before) << kind << ": the input " << name << " changed";
      w.after = *w.before;
    }
  }
  ASSERT_TRUE(temps_in(dir).empty()) << kind << ": " << temps_in(dir).front();

  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int64_t> delay(0, took.count() + took.count() / 5);
  int landed = 0, left_temps = 0, partial_outputs = 0, young_empty = 0;
  for (uint64_t run = 0; run < runs; ++run) {
    SCOPED_TRACE(kind + ": seed " + std::to_string(seed) + " run " + std::to_string(run));
    reset();
    const bool at_first_bytes = run % 2 == 0;
    landed += run_and_kill(args, dir, at_first_bytes, std::chrono::microseconds(delay(rng)));
    // Every file whole: the old bytes (or absent) or the new ones.
    int outs_present = 0;
    for (const auto& [name, w] : files) {
      const bool exists = fs::exists(dir / name);
      if (!exists) {
        EXPECT_FALSE(w.before) << name << " is gone";
        continue;
      }
      const auto now = read_bytes(dir / name);
      EXPECT_TRUE(now == w.after || (w.before && now == *w.before)) << name << " is neither the old nor the new file";
      outs_present += !w.before;
    }
    if (outs_present > 0 && outs_present < static_cast<int>(outputs.size())) ++partial_outputs;
    std::vector<std::string> left;  // with bytes in them (an empty one: see below)
    for (const auto& t : temps_in(dir))
      if (fs::file_size(dir / t) > 0) left.push_back(t);
    left_temps += !left.empty();
    // The next run: succeeds (replacing outputs a killed run completed), removes the
    // leftovers and says so once, and leaves exactly the uninterrupted run's files.
    auto r = gguf::test::run_cli(args);
    if (r.exit_code != 0) r = gguf::test::run_cli(force_args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    if (!left.empty()) {
      EXPECT_EQ(count(r.err, "left by interrupted writes"), 1u) << r.err;
      for (const auto& t : left) EXPECT_NE(r.err.find(t), std::string::npos) << t << " not named in: " << r.err;
    }
    // Left behind: nothing, except an empty temp file younger than 10 s (a run killed
    // between creating its temp file and locking it; the sweep leaves such a file to a
    // writer that may be about to lock it, and removes it when older: output.cpp).
    for (const auto& t : temps_in(dir)) {
      const bool empty = fs::file_size(dir / t) == 0;
      EXPECT_TRUE(empty) << t << " left behind after the next run";
      if (empty) {
        ++young_empty;
        fs::remove(dir / t);
      }
    }
    for (const auto& [name, w] : files) {
      ASSERT_TRUE(fs::exists(dir / name)) << name;
      EXPECT_EQ(read_bytes(dir / name), w.after) << name << " differs from an uninterrupted run's";
    }
  }
  std::printf("[ %s ] %llu kills (seed %llu, an uninterrupted run %lld us): %d landed, %d left temp files, %d left "
              "some outputs, %d an empty temp file to the next sweep\n",
              kind.c_str(), static_cast<unsigned long long>(runs), static_cast<unsigned long long>(seed),
              static_cast<long long>(took.count()), landed, left_temps, partial_outputs, young_empty);
  EXPECT_GE(left_temps, 1) << kind << ": no kill landed while a temp file was written";
}

void copy_model(const fs::path& dir) {
  fs::copy_file(data_file(model_rel), dir / "m.gguf");
  fs::permissions(dir / "m.gguf", fs::perms::owner_write, fs::perm_options::add);
}

}  // namespace

TEST(WriteFaults, SigkillDuringSplit) {
  kill_write_runs(
      "split", copy_model,
      [](const fs::path& d) {
        return std::vector<std::string>{"split", (d / "m.gguf").string(), (d / "part").string(), "--split-max-tensors", "6"};
      },
      {"part-00001-of-00004.gguf", "part-00002-of-00004.gguf", "part-00003-of-00004.gguf", "part-00004-of-00004.gguf"});
}

TEST(WriteFaults, SigkillDuringMerge) {
  kill_write_runs(
      "merge",
      [](const fs::path& d) {
        auto r = gguf::test::run_cli({"split", data_file(model_rel).string(), (d / "part").string(), "--split-max-tensors", "6"});
        ASSERT_EQ(r.exit_code, 0) << r.err;
      },
      [](const fs::path& d) {
        return std::vector<std::string>{"merge", (d / "part-00001-of-00004.gguf").string(), (d / "merged.gguf").string()};
      },
      {"merged.gguf"});
}

TEST(WriteFaults, SigkillDuringConvertEndianToOut) {
  kill_write_runs(
      "convert-endian-out", copy_model,
      [](const fs::path& d) {
        return std::vector<std::string>{"convert-endian", (d / "m.gguf").string(), "--to", "big", "-o",
                                        (d / "big.gguf").string()};
      },
      {"big.gguf"});
}

TEST(WriteFaults, SigkillDuringConvertEndianInPlace) {
  kill_write_runs(
      "convert-endian-in-place", copy_model,
      [](const fs::path& d) {
        return std::vector<std::string>{"convert-endian", (d / "m.gguf").string(), "--to", "big"};
      },
      {"m.gguf"});
}

TEST(WriteFaults, SigkillDuringQuantize) {
  kill_write_runs(
      "quantize", copy_model,
      [](const fs::path& d) {
        return std::vector<std::string>{"quantize", "--allow-requantize", (d / "m.gguf").string(),
                                        (d / "q.gguf").string(), "Q8_0", "1"};
      },
      {"q.gguf"});
}

// A split that fails part way (here: a file size limit, EFBIG, on its second shard; a
// full disk is the same) replaces no shard: before the fix the shards written so far
// were renamed into place one by one, so a failed `split --force` over an older shard
// set of the same name and count left a mixed set (the new metadata with the old
// tensors) that every reader took for one valid model.
TEST(WriteFaults, AFailedSplitReplacesNoShard) {
  GGUF_REQUIRE_DATA();
  const auto dir = gguf::test::fresh_dir("write-fault-split-efbig");
  const auto prefix = (dir / "p").string();
  auto old = gguf::test::run_cli({"split", data_file("models/stories260K-Q8_0.gguf").string(), prefix,
                                  "--split-max-tensors", "24", "--no-tensor-first-split"});
  ASSERT_EQ(old.exit_code, 0) << old.err;
  std::vector<std::string> names;
  std::vector<bytes> before;
  for (int i = 1; i <= 3; ++i) {
    names.push_back("p-0000" + std::to_string(i) + "-of-00003.gguf");
    before.push_back(read_bytes(dir / names.back()));
  }
  // The new model's metadata-only first shard (about 11 KB) fits under the limit, its
  // second shard (about 600 KB of f32 tensors) does not.
  ASSERT_LT(before[0].size(), 100000u);
  auto r = gguf::test::run_command(
      "sh", {"-c", "ulimit -f 200 && trap '' XFSZ && exec \"$@\"", "sh", GGUF_CLI_PATH, "split",
             data_file("models/stories260K.gguf").string(), prefix, "--split-max-tensors", "24",
             "--no-tensor-first-split", "--force"});
  ASSERT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("File too large"), std::string::npos) << r.err;
  for (size_t i = 0; i < names.size(); ++i) EXPECT_TRUE(read_bytes(dir / names[i]) == before[i]) << names[i] << " was replaced";
  EXPECT_EQ(temps_in(dir), std::vector<std::string>{});
  // Without an older set: nothing is left at all.
  for (const auto& n : names) fs::remove(dir / n);
  r = gguf::test::run_command("sh", {"-c", "ulimit -f 200 && trap '' XFSZ && exec \"$@\"", "sh", GGUF_CLI_PATH, "split",
                                     data_file("models/stories260K.gguf").string(), prefix, "--split-max-tensors", "24",
                                     "--no-tensor-first-split"});
  ASSERT_EQ(r.exit_code, 2) << r.err;
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(dir)) left.push_back(e.path().filename().string());
  EXPECT_EQ(left, std::vector<std::string>{});
}

// A file replaced by a rewrite takes the journal of its interrupted in-place edit along
// (found in the new-user pass): `convert-endian FILE` (which reads the edit's state) and
// any writer replacing an OUT with --force left `.FILE.gguf-journal` behind, naming the
// replaced inode; ext4 gives a freed inode to the next new file (converting twice
// returns to the same inode), so the journal could match a later file of the same size
// and be replayed over it.
TEST(WriteFaults, AReplacedFileTakesItsJournalAlong) {
  GGUF_REQUIRE_DATA();
  const auto dir = gguf::test::fresh_dir("write-fault-journal");
  const auto done = dir / "done.gguf";
  fs::copy_file(data_file("models/stories260K.gguf"), done);
  fs::permissions(done, fs::perms::owner_write, fs::perm_options::add);
  auto r = gguf::test::run_cli({"set", done.string(), "general.name", "journaled", "--in-place=always"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto done_bytes = read_bytes(done);
  const auto room = static_cast<long>(gguf::file::open(done)->data_offset());
  const bytes region(done_bytes.begin(), done_bytes.begin() + room);
  // m.gguf: the edit interrupted before it touched the file, its journal complete.
  const auto m = dir / "m.gguf";
  const auto with_journal = [&] {
    fs::copy_file(data_file("models/stories260K.gguf"), m, fs::copy_options::overwrite_existing);
    fs::permissions(m, fs::perms::owner_write, fs::perm_options::add);
    gguf::test::write_bytes(gguf::journal_path(m), gguf::test::make_journal(m, 0, region));
  };

  with_journal();
  r = gguf::test::run_cli({"convert-endian", m.string(), "--to", "big"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(gguf::journal_path(m))) << "the rewrite left the journal of the file it replaced";
  EXPECT_EQ(*gguf::file::open(m)->get_string("general.name"), "journaled");
  r = gguf::test::run_cli({"convert-endian", m.string(), "--to", "little"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(read_bytes(m) == done_bytes) << "not the edited file, converted there and back";

  // An OUT replaced with --force: its pending edit goes with it.
  with_journal();
  r = gguf::test::run_cli({"convert-endian", done.string(), "--to", "big", "-o", m.string(), "--force"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(gguf::journal_path(m)));
  EXPECT_EQ(gguf::file::open(m)->interrupted_edit(), gguf::pending_edit::none);
}
