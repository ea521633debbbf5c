// Killed writers leave nothing that piles up (issue 29, item 1): the next write in the
// folder removes the temp files no live process holds (a streamed rewrite's
// `.NAME.tmp-*`, an in-place edit journal's `..NAME.gguf-journal.tmp-*`, a split's or
// a merge's `.OUT.tmp-*`) and says so once on stderr; files of other programs and of
// live writers stay.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <thread>

#include "gguf/file.h"
#include "gguf/output.h"
#include "gguf/writer.h"
#include "test_support.h"

namespace fs = std::filesystem;
using gguf::test::run_cli;

namespace {

fs::path fresh(const std::string& name) { return gguf::test::fresh_dir("stale-" + name); }

// Temp files in `dir` (the names safe_output gives them).
std::vector<std::string> temps_in(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    auto n = e.path().filename().string();
    if (n.find(".tmp-") != std::string::npos) out.push_back(n);
  }
  std::sort(out.begin(), out.end());
  return out;
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

// A GGUF file with one f32 tensor of `n` zeros (big enough that writing it takes a while).
void make_model(const fs::path& p, uint64_t n) {
  gguf::writer w;
  ASSERT_TRUE(w.set("general.architecture", gguf::value::string("llama")).ok());
  ASSERT_TRUE(w.set("general.name", gguf::value::string("big")).ok());
  std::vector<float> zeros(n);
  uint64_t ne[] = {n};
  ASSERT_TRUE(w.add_tensor("t", gguf::ggml_type::f32, ne, std::as_bytes(std::span<const float>(zeros))).ok());
  ASSERT_TRUE(w.write_file(p).ok());
}

// A fresh folder of its own holding m.gguf (make_model with `n` zeros): the path of m.gguf.
fs::path model_in(const std::string& name, uint64_t n) {
  auto p = fresh(name) / "m.gguf";
  make_model(p, n);
  return p;
}

// Runs the CLI with `args` and SIGKILLs it once a temp file with bytes in it (not one of
// those there before) exists in `dir`. True when the kill landed (the run had not
// finished).
bool run_and_kill(const std::vector<std::string>& args, const fs::path& dir) {
  const auto before = temps_in(dir);
  pid_t pid = fork();
  if (pid == 0) {
    std::vector<char*> argv{const_cast<char*>("gguf")};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(GGUF_CLI_PATH, argv.data());
    _exit(127);
  }
  const auto written = [&] {
    for (const auto& t : temps_in(dir)) {
      if (std::find(before.begin(), before.end(), t) != before.end()) continue;
      std::error_code ec;
      if (fs::file_size(dir / t, ec) > 0 && !ec) return true;
    }
    return false;
  };
  for (int i = 0; i < 20000 && !written(); ++i) std::this_thread::sleep_for(std::chrono::microseconds(100));
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
}

}  // namespace

TEST(StaleTemps, KilledRewriteIsCleanedByTheNextEdit) {
  auto p = model_in("rewrite", 8u << 20);  // 32 MiB
  auto dir = p.parent_path();
  const auto size = fs::file_size(p);
  ASSERT_TRUE(run_and_kill({"set", p.string(), "general.name", std::string(5000, 'n'), "--in-place=never"}, dir));
  auto left = temps_in(dir);
  ASSERT_EQ(left.size(), 1u);
  EXPECT_TRUE(left[0].starts_with(".m.gguf.tmp-")) << left[0];
  EXPECT_EQ(fs::file_size(p), size);  // the target is whole

  auto r = run_cli({"set", p.string(), "general.name", "x"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(temps_in(dir).empty());
  EXPECT_EQ(count(r.err, "removed 1 temporary file left by interrupted writes"), 1u) << r.err;
  EXPECT_NE(r.err.find(left[0]), std::string::npos) << r.err;
  EXPECT_EQ(*gguf::file::open(p)->get_string("general.name"), "x");
}

TEST(StaleTemps, KilledSplitIsCleanedByTheNextWriteInTheFolder) {
  auto p = model_in("split", 8u << 20);
  auto dir = p.parent_path();
  // Another program's temp file and a live writer's stay.
  std::ofstream(dir / ".notes.txt.tmp-Ab12Cd") << "not ours";
  auto live = gguf::safe_output::create(dir / "other.gguf");
  ASSERT_TRUE(live.ok());
  ASSERT_TRUE(live->write("GGUF", 4).ok());
  const auto before = temps_in(dir);
  ASSERT_TRUE(run_and_kill({"split", p.string(), (dir / "part").string(), "--split-max-tensors", "1"}, dir));
  std::vector<std::string> left;
  for (const auto& t : temps_in(dir))
    if (std::find(before.begin(), before.end(), t) == before.end()) left.push_back(t);
  ASSERT_EQ(left.size(), 1u);
  EXPECT_TRUE(left[0].starts_with(".part-00001-of-00001.gguf.tmp-")) << left[0];

  // convert-endian -o writes into the folder: it removes the split's leftovers.
  auto r = run_cli({"convert-endian", p.string(), "--to", "big", "-o", (dir / "big.gguf").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(count(r.err, "temporary file"), 1u) << r.err;
  for (const auto& t : left) EXPECT_NE(r.err.find(t), std::string::npos) << r.err;
  auto now = temps_in(dir);
  ASSERT_EQ(now.size(), 2u);
  EXPECT_EQ(now[0], ".notes.txt.tmp-Ab12Cd");
  EXPECT_EQ(dir / now[1], live->temp_path());
  ASSERT_TRUE(live->commit().ok());
}

TEST(StaleTemps, AJournalLeftHalfWrittenIsCleanedByTheNextInPlaceEdit) {
  auto p = model_in("journal", 16);
  auto dir = p.parent_path();
  // An in-place edit killed while its journal was being written: the journal's temp file
  // (what safe_output names it), unlocked.
  const auto jtemp = dir / "..m.gguf.gguf-journal.tmp-Qw12Er";
  std::ofstream(jtemp) << "GGUFJRN1 and less than a whole journal";
  auto r = run_cli({"set", p.string(), "general.name", "y"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("edited in place"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(jtemp));
  EXPECT_EQ(count(r.err, "removed 1 temporary file"), 1u) << r.err;
  EXPECT_TRUE(temps_in(dir).empty());
}

TEST(StaleTemps, DryRunNamesThemAndRemovesNothing) {
  auto p = model_in("dry", 16);
  auto dir = p.parent_path();
  const auto t = dir / ".m.gguf.tmp-Zx98Cv";
  std::ofstream(t) << "GGUF partial";
  auto r = run_cli({"set", p.string(), "general.name", "z", "--dry-run"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("would remove 1 temporary file"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::exists(t));
}
