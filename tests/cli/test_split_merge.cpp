// `gguf split` / `gguf merge` against llama.cpp's gguf-split: the recorded plans, exit
// codes and shard sha256/sizes of every model, quant and vocab file
// (tests/cli/reference/split), merge back to the input, shard keys and validation, and
// the commands that read a split model as one.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include <nlohmann/json.hpp>

#include "gguf/file.h"
#include "reference_sections.h"
#include "sha256_hex.h"
#include "test_support.h"

namespace fs = std::filesystem;
using namespace gguf::test;

namespace {

using gguf::test::sha256_hex;

std::string find_data_file(const std::string& name) {
  for (const char* dir : {"models", "quant", "vocab"}) {
    if (fs::exists(data_dir() / dir / (name + ".gguf"))) return std::string(dir) + "/" + name + ".gguf";
  }
  return {};
}

// What merge must give back for `in`: the input itself when ggml's writer would write
// it the same way (GGUF v3, tensor infos without trailing dimensions of 1); a file
// without tensors comes back without padding after its metadata.
std::optional<std::vector<std::byte>> expected_merge(const fs::path& in) {
  auto f = gguf::file::open(in);
  if (!f || f->version() != 3) return std::nullopt;
  for (const auto& t : f->tensors()) {
    if (t.n_dims > 1 && t.ne[t.n_dims - 1] == 1) return std::nullopt;
  }
  auto bytes = read_bytes(in);
  if (f->tensor_count() == 0) bytes.resize(f->metadata_end());
  return bytes;
}

void expect_shard_keys(const fs::path& shard, uint16_t no, uint16_t count, int32_t total) {
  auto f = gguf::file::open(shard);
  ASSERT_TRUE(f) << shard;
  auto sno = f->get("split.no");
  auto scount = f->get("split.count");
  auto stotal = f->get("split.tensors.count");
  ASSERT_TRUE(sno && scount && stotal) << shard;
  EXPECT_EQ(sno->type(), gguf::value_type::uint16);
  EXPECT_EQ(scount->type(), gguf::value_type::uint16);
  EXPECT_EQ(stotal->type(), gguf::value_type::int32);
  EXPECT_EQ(*sno->get<uint16_t>(), no);
  EXPECT_EQ(*scount->get<uint16_t>(), count);
  EXPECT_EQ(*stotal->get<int32_t>(), total);
  if (no > 0) {
    EXPECT_EQ(f->kv_count(), 3u) << shard << ": metadata only in the first shard";
  }
}

}  // namespace

// The vocab-only files (one or two shards each, 22 files) run with GGUF_TEST_SPLIT_ALL=1;
// the default covers every model and the quant fixture (about 50 splits and merges).
TEST(CliSplit, ShardsEqualGgufSplitsAndMergeGivesTheInputBack) {
  GGUF_REQUIRE_DATA();
  const bool all = std::getenv("GGUF_TEST_SPLIT_ALL") != nullptr;
  int cases = 0, merged_identical = 0;
  for (const auto& e : fs::directory_iterator(reference_dir() / "split")) {
    const std::string name = e.path().stem().string();
    const std::string rel = find_data_file(name);
    ASSERT_FALSE(rel.empty()) << name;
    if (!all && rel.rfind("vocab/", 0) == 0) continue;
    const fs::path in = data_dir() / rel;
    const auto want_merge = expected_merge(in);
    const int32_t n_tensors = static_cast<int32_t>(gguf::file::open(in)->tensor_count());
    for (const auto& s : read_sections(e.path())) {
      const fs::path dir = temp_dir() / "split" / (name + std::to_string(cases++));
      fs::create_directories(dir);
      std::vector<std::string> cmd = {"split", in.string(), (dir / name).string()};
      for (const auto& w : split_words(s.args)) cmd.push_back(w);
      auto r = run_cli(cmd);
      const std::string where = name + " " + s.args;
      ASSERT_EQ(r.exit_code, s.exit_code) << where << r.err;
      std::vector<std::string> plan;
      for (const auto& l : lines_of(r.out)) {
        if (l.rfind("n_split:", 0) == 0 || l.rfind("split ", 0) == 0) plan.push_back(l);
      }
      EXPECT_EQ(plan, s.output) << where;
      std::vector<std::string> shards;
      for (const auto& f : fs::directory_iterator(dir)) shards.push_back(f.path().filename().string());
      std::sort(shards.begin(), shards.end());
      ASSERT_EQ(shards.size(), s.after.size()) << where;
      for (size_t i = 0; i < shards.size(); ++i) {
        const auto bytes = read_bytes(dir / shards[i]);
        EXPECT_EQ(sha256_hex(bytes) + "  " + std::to_string(bytes.size()) + "  " + shards[i], s.after[i]) << where;
        expect_shard_keys(dir / shards[i], static_cast<uint16_t>(i), static_cast<uint16_t>(shards.size()), n_tensors);
      }
      if (shards.empty()) continue;
      auto v = run_cli({"validate", "-q", (dir / shards.front()).string(), (dir / shards.back()).string()});
      EXPECT_EQ(v.exit_code, 0) << where << v.out;
      // Merge from any shard's set (given the first), back to the input.
      const fs::path merged = dir / "merged.gguf";
      auto m = run_cli({"merge", (dir / shards.front()).string(), merged.string()});
      ASSERT_EQ(m.exit_code, 0) << where << m.err;
      if (want_merge) {
        EXPECT_TRUE(read_bytes(merged) == *want_merge) << where << ": merged file differs from the input";
        ++merged_identical;
      }
      if (cases % 4 != 1) continue;
      // An existing OUT is refused without --force.
      EXPECT_EQ(run_cli({"merge", (dir / shards.front()).string(), merged.string()}).exit_code, 2) << where;
      EXPECT_EQ(run_cli({"merge", (dir / shards.front()).string(), merged.string(), "--force"}).exit_code, 0);
    }
  }
  EXPECT_GE(cases, all ? 132 : 52);
  EXPECT_GE(merged_identical, all ? 100 : 40);
}

// tokenize and embed given a shard read the whole model: the same ids and floats as
// the unsplit file.
TEST(CliSplit, TokenizeAndEmbedOnAShardEqualTheUnsplitFile) {
  GGUF_REQUIRE_DATA();
  for (const char* model : {"models/stories260K.gguf", "models/llama-2-tiny-random.gguf"}) {
    const std::string in = data_file(model).string();
    const auto shards = split_data_into("split-read-" + fs::path(model).stem().string(), model, 3).shards;
    ASSERT_GE(shards.size(), 2u);
    for (const std::string text : {"Once upon a time, there was a little girl.", "héllo  wörld <s> 123"}) {
      for (const char* cmd : {"tokenize", "embed"}) {
        auto want = run_cli({cmd, "-m", in, text});
        ASSERT_EQ(want.exit_code, 0) << want.err;
        for (const auto& shard : {shards.front(), shards.back()}) {
          auto got = run_cli({cmd, "-m", shard.string(), text});
          EXPECT_EQ(got.exit_code, 0) << got.err;
          EXPECT_EQ(got.out, want.out) << cmd << " " << shard;
        }
      }
    }
  }
}

// info on a shard: its own size, which shard it is and the set's size; the model facts
// (tensors, parameters) are the whole model's, as for the unsplit file.
TEST(CliSplit, InfoOnAShardGivesItsOwnSizeAndTheSet) {
  GGUF_REQUIRE_DATA();
  const std::string in = data_file("models/stories260K-Q8_0.gguf").string();
  const auto shards = split_data_into("split-info", "models/stories260K-Q8_0.gguf", 10).shards;
  ASSERT_GE(shards.size(), 3u);
  uint64_t total = 0;
  for (const auto& s : shards) total += fs::file_size(s);
  const auto whole = nlohmann::json::parse(run_cli({"info", "--json", in}).out);
  EXPECT_FALSE(whole.contains("split"));
  for (size_t i = 0; i < shards.size(); ++i) {
    auto r = run_cli({"info", "--json", shards[i].string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["file_size"].get<uint64_t>(), fs::file_size(shards[i])) << shards[i];
    EXPECT_EQ(j["split"]["count"].get<size_t>(), shards.size());
    EXPECT_EQ(j["split"]["no"].get<size_t>(), i);
    EXPECT_EQ(j["split"]["total_size"].get<uint64_t>(), total);
    EXPECT_EQ(j["parameters"], whole["parameters"]);
    EXPECT_EQ(j["tensor_count"], whole["tensor_count"]);
    auto text = run_cli({"info", shards[i].string()});
    EXPECT_NE(text.out.find("; shard " + std::to_string(i + 1) + " of " + std::to_string(shards.size())),
              std::string::npos) << text.out;
  }
}

TEST(CliSplit, BrokenSetsAreClearErrorsNamingTheShard) {
  GGUF_REQUIRE_DATA();
  const std::string in = data_file("models/stories260K-Q4_0.gguf").string();
  const fs::path dir = split_data_into("split-broken", "models/stories260K-Q4_0.gguf", 20).dir;
  const fs::path s1 = dir / "m-00001-of-00003.gguf", s2 = dir / "m-00002-of-00003.gguf",
                 s3 = dir / "m-00003-of-00003.gguf";
  // A missing shard: named in the error, from merge, info and validate.
  fs::rename(s3, dir / "away.gguf");
  auto r = run_cli({"merge", s1.string(), (dir / "out.gguf").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("m-00003-of-00003.gguf"), std::string::npos) << r.err;
  EXPECT_NE(run_cli({"info", s2.string()}).exit_code, 0);
  auto v = run_cli({"validate", s1.string()});
  EXPECT_EQ(v.exit_code, 1);
  EXPECT_NE(v.out.find("split.set"), std::string::npos) << v.out;
  EXPECT_FALSE(fs::exists(dir / "out.gguf"));
  // A shard in the wrong place: shard 2's file where shard 3 belongs.
  fs::copy_file(s2, s3);
  r = run_cli({"merge", s1.string(), (dir / "out.gguf").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("m-00003-of-00003.gguf"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("split.no"), std::string::npos) << r.err;
  // A file that is not a shard.
  EXPECT_EQ(run_cli({"merge", in, (dir / "out.gguf").string()}).exit_code, 1);
  // The size limit as gguf-split counts it: units M and G only.
  EXPECT_EQ(run_cli({"split", in, (dir / "x").string(), "--split-max-size", "100K"}).exit_code, 2);
  EXPECT_EQ(run_cli({"split", in, (dir / "x").string(), "--split-max-size", "0M"}).exit_code, 2);
  // --dry-run writes nothing.
  auto d = run_cli({"split", in, (dir / "dry").string(), "--split-max-tensors", "5", "--dry-run"});
  EXPECT_EQ(d.exit_code, 0);
  EXPECT_NE(d.out.find("n_split: 10"), std::string::npos) << d.out;
  EXPECT_FALSE(fs::exists(dir / "dry-00001-of-00010.gguf"));
}

// An output folder that does not exist is said before anything is planned or written:
// no plan on standard output, one error naming OUT and the folder, exit 2 (as a write
// error), for every command that checks OUT this way.
TEST(CliSplit, AMissingOutputFolderIsSaidBeforeThePlan) {
  GGUF_REQUIRE_DATA();
  const fs::path dir = gguf::test::fresh_dir("split-no-folder");
  const std::string in = data_file("models/stories260K-Q4_0.gguf").string();
  const fs::path missing = dir / "missing";
  auto s = run_cli({"split", in, (missing / "m").string(), "--split-max-tensors", "20"});
  EXPECT_EQ(s.exit_code, 2);
  EXPECT_EQ(s.out, "");
  EXPECT_NE(s.err.find((missing / "m-00001-of-00003.gguf").string()), std::string::npos) << s.err;
  EXPECT_NE(s.err.find("no such folder"), std::string::npos) << s.err;
  // OUT's folder is a file
  const fs::path file = dir / "a-file";
  { std::FILE* f = std::fopen(file.string().c_str(), "wb"); ASSERT_NE(f, nullptr); std::fclose(f); }
  for (const std::vector<std::string>& cmd :
       {std::vector<std::string>{"dequantize", in, "token_embd.weight", "-o", (file / "out.f32").string()},
        std::vector<std::string>{"convert-endian", in, "--to", "big", "-o", (file / "out.gguf").string()}}) {
    auto r = run_cli(cmd);
    EXPECT_EQ(r.exit_code, 2) << cmd[0] << ": " << r.err;
    EXPECT_NE(r.err.find("is not a folder"), std::string::npos) << cmd[0] << ": " << r.err;
  }
  EXPECT_FALSE(fs::exists(missing));
}

namespace {

// Runs `gguf ARGS` under strace, SIGKILLed on entering its K-th rename.
run_result run_cli_killed_at_rename(const std::vector<std::string>& cli_args, int k) {
  std::vector<std::string> args{"-f", "-qq", "-o", "/dev/null", "-e", "trace=rename,renameat,renameat2",
                                "-e", "inject=rename,renameat,renameat2:signal=KILL:when=" + std::to_string(k),
                                GGUF_CLI_PATH};
  args.insert(args.end(), cli_args.begin(), cli_args.end());
  return run_command("strace", args);
}

// Replaces the 3-shard set `old_shards` (copied into fresh folders) by the set `new_shards`
// with `cmd` (which writes DIR/m-0000i-of-00003.gguf; "{DIR}" in it is the folder), killed
// at each of its renames in turn: what is left may be the old set, the new one, or a set
// without its first shard (which no reader opens), never the first shard of one set over
// shards of the other. A rerun completes the new set and removes the killed run's temps.
void expect_no_mixed_set_after_a_kill(const std::string& name, const std::vector<fs::path>& old_shards,
                                      const std::vector<fs::path>& new_shards, const std::vector<std::string>& cmd) {
  ASSERT_EQ(old_shards.size(), 3u);
  ASSERT_EQ(new_shards.size(), 3u);
  std::vector<std::string> old_sha, new_sha;
  for (size_t i = 0; i < 3; ++i) {
    old_sha.push_back(sha256_hex(read_bytes(old_shards[i])));
    new_sha.push_back(sha256_hex(read_bytes(new_shards[i])));
    ASSERT_NE(old_sha[i], new_sha[i]) << name;
  }
  for (int k = 1; k <= 3; ++k) {
    const fs::path dir = fresh_dir(name + "-kill-" + std::to_string(k));
    for (const auto& s : old_shards) fs::copy_file(s, dir / s.filename());
    std::vector<std::string> args = cmd;
    for (auto& a : args) {
      if (auto at = a.find("{DIR}"); at != std::string::npos) a.replace(at, 5, dir.string());
    }
    auto r = run_cli_killed_at_rename(args, k);
    EXPECT_NE(r.exit_code, 0) << name << ", rename " << k << ": not killed";
    std::string state;  // per shard: 'o' old, 'n' new, '-' absent, '?' neither
    for (size_t i = 0; i < 3; ++i) {
      const fs::path p = dir / old_shards[i].filename();
      const std::string sha = fs::exists(p) ? sha256_hex(read_bytes(p)) : "";
      state += sha.empty() ? '-' : sha == old_sha[i] ? 'o' : sha == new_sha[i] ? 'n' : '?';
    }
    const std::string where = name + " killed at rename " + std::to_string(k) + ": " + state;
    EXPECT_EQ(state.find('?'), std::string::npos) << where << " (a shard of neither set)";
    if (state[0] != '-') {
      EXPECT_EQ(std::count(state.begin(), state.end(), state[0]), 3) << where << " (a first shard over another set's shards)";
    } else {
      auto m = run_cli({"merge", (dir / old_shards[0].filename()).string(), (dir / "merged.gguf").string()});
      EXPECT_NE(m.exit_code, 0) << where << ": a set without its first shard was merged";
    }
    auto again = run_cli(args);
    EXPECT_EQ(again.exit_code, 0) << where << ": " << again.err;
    for (size_t i = 0; i < 3; ++i)
      EXPECT_EQ(sha256_hex(read_bytes(dir / old_shards[i].filename())), new_sha[i]) << where << ", rerun: shard " << i + 1;
    EXPECT_EQ(temps_in(dir), std::vector<std::string>{}) << where << ", rerun";
  }
}

bool strace_works() { return run_command("strace", {"-qq", "-o", "/dev/null", "true"}).exit_code == 0; }

}  // namespace

// split --force over an older set of the same name, killed at each rename (strace's fault
// injection): the first shard, the file every reader opens, is removed before any shard
// is replaced and the new one renamed in last (safe_output::commit_set).
TEST(CliSplit, AKillDuringTheRenamesNeverLeavesAMixOfTwoSets) {
  GGUF_REQUIRE_DATA();
  if (!strace_works()) GTEST_SKIP() << "strace cannot trace a process here (no ptrace permission): the kill is not injected";
  const auto old_set = split_data_into("split-kill-old", "models/stories260K-Q4_0.gguf", 20);
  const auto new_set = split_data_into("split-kill-new", "models/stories260K-Q8_0.gguf", 20);
  expect_no_mixed_set_after_a_kill("split", old_set.shards, new_set.shards,
                                   {"split", data_file("models/stories260K-Q8_0.gguf").string(), "{DIR}/m",
                                    "--split-max-tensors", "20", "--force"});
}

// A rename that fails during the commit (strace's fault injection: EACCES at the second
// rename, the last shard's): the error names that shard, not the first, and says the set is
// left without its first file; a note says how to complete it, and a forced rerun does.
TEST(CliSplit, ARenameThatFailsNamesItsShard) {
  GGUF_REQUIRE_DATA();
  if (!strace_works()) GTEST_SKIP() << "strace cannot trace a process here (no ptrace permission): the fault is not injected";
  const fs::path dir = fresh_dir("split-rename-fails");
  const std::string in = data_file("models/stories260K-Q8_0.gguf").string();
  const std::vector<std::string> cmd{"split", in, (dir / "m").string(), "--split-max-tensors", "20"};
  // The traced process exits normally: LeakSanitizer, which cannot run under ptrace, is
  // turned off for it (a sanitizer build's other checks stay on).
  const char* asan = std::getenv("ASAN_OPTIONS");
  std::vector<std::string> args{"ASAN_OPTIONS=" + (asan && *asan ? std::string(asan) + ":" : std::string()) +
                                    "detect_leaks=0",
                                "strace", "-f", "-qq", "-o", "/dev/null", "-e", "trace=rename,renameat,renameat2",
                                "-e", "inject=rename,renameat,renameat2:error=EACCES:when=2", GGUF_CLI_PATH};
  args.insert(args.end(), cmd.begin(), cmd.end());
  auto r = run_command("env", args);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  const std::string last = (dir / "m-00003-of-00003.gguf").string();
  EXPECT_EQ(r.err.rfind("gguf: " + last + ": cannot replace " + last + ": Permission denied", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("the set is left without its first file m-00001-of-00003.gguf"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("run the same command with --force"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "m-00001-of-00003.gguf"));
  EXPECT_TRUE(fs::exists(dir / "m-00002-of-00003.gguf"));
  EXPECT_EQ(temps_in(dir), std::vector<std::string>{});
  std::vector<std::string> forced = cmd;
  forced.push_back("--force");
  auto again = run_cli(forced);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  // the same shards as a split that no fault met
  const fs::path clean = fresh_dir("split-rename-clean");
  ASSERT_EQ(run_cli({"split", in, (clean / "m").string(), "--split-max-tensors", "20"}).exit_code, 0);
  for (int i = 1; i <= 3; ++i) {
    const std::string name = "m-0000" + std::to_string(i) + "-of-00003.gguf";
    EXPECT_EQ(sha256_hex(read_bytes(dir / name)), sha256_hex(read_bytes(clean / name))) << name;
  }
}

// The same for quantize --keep-split over an older quantization of the same set.
TEST(CliSplit, AKillDuringQuantizeKeepSplitNeverLeavesAMixOfTwoSets) {
  GGUF_REQUIRE_DATA();
  if (!strace_works()) GTEST_SKIP() << "strace cannot trace a process here (no ptrace permission): the kill is not injected";
  const auto in = split_data_into("quantize-kill-in", "models/stories260K.gguf", 20);
  ASSERT_EQ(in.shards.size(), 3u);
  std::vector<fs::path> old_shards, new_shards;
  for (const char* type : {"Q4_0", "Q8_0"}) {
    const fs::path dir = fresh_dir(std::string("quantize-kill-") + type);
    auto r = run_cli({"quantize", "--keep-split", in.shards[0].string(), (dir / "m.gguf").string(), type, "1"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (int i = 1; i <= 3; ++i)
      (type[1] == '4' ? old_shards : new_shards).push_back(dir / ("m-0000" + std::to_string(i) + "-of-00003.gguf"));
  }
  expect_no_mixed_set_after_a_kill("quantize", old_shards, new_shards,
                                   {"quantize", "--keep-split", "--force", in.shards[0].string(), "{DIR}/m.gguf", "Q8_0", "1"});
}

// get on a shard: the split.* keys are the shard's own (which shard it is), the others the
// model's (the first shard holds them).
TEST(CliSplit, GetOnAShardGivesItsOwnSplitKeys) {
  GGUF_REQUIRE_DATA();
  const auto shards = split_data_into("split-get", "models/stories260K-Q8_0.gguf", 10).shards;
  ASSERT_GE(shards.size(), 3u);
  for (size_t i = 0; i < shards.size(); ++i) {
    const std::string shard = shards[i].string();
    auto no = run_cli({"get", shard, "split.no"});
    EXPECT_EQ(no.exit_code, 0) << no.err;
    EXPECT_EQ(no.out, std::to_string(i) + "\n") << shard;
    EXPECT_EQ(run_cli({"get", shard, "split.count", "--json"}).out, std::to_string(shards.size()) + "\n");
    EXPECT_EQ(run_cli({"get", shard, "general.architecture"}).out, "llama") << shard;
  }
}

// A file whose split.* keys are broken: info and tokenize refuse it with one line that names
// the file once and the key; dump and get read it alone after a warning (they show a file's
// own metadata, and the file is what the user is looking into).
TEST(CliSplit, BrokenSplitKeysAreNamedOnceAndDumpAndGetStillReadTheFile) {
  GGUF_REQUIRE_DATA();
  const fs::path dir = fresh_dir("split-keys");
  const std::string lacking = copy_data_into(dir, "models/stories260K.gguf", "lacking.gguf").string();
  ASSERT_EQ(run_cli({"edit", lacking, "--set", "split.count:uint16=3", "--force"}).exit_code, 0);
  const std::string past = copy_data_into(dir, "models/stories260K.gguf", "past.gguf").string();
  ASSERT_EQ(run_cli({"edit", past, "--set", "split.count:uint16=3", "--set", "split.no:uint16=5", "--set",
                     "split.tensors.count:int32=48", "--force"})
                .exit_code,
            0);
  auto times = [](const std::string& s, const std::string& what) {
    size_t n = 0;
    for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
    return n;
  };
  auto info = run_cli({"info", lacking});
  EXPECT_EQ(info.exit_code, 1);
  EXPECT_EQ(info.err, "gguf: " + lacking +
                          ": split.count is set but split.no is missing (a shard has split.no, split.count and "
                          "split.tensors.count) (key split.no)\n");
  auto tok = run_cli({"tokenize", "-m", past, "Hello"});
  EXPECT_EQ(tok.exit_code, 1);
  EXPECT_EQ(times(tok.err, past), 1u) << tok.err;
  EXPECT_NE(tok.err.find("split.no 5 is not below split.count 3"), std::string::npos) << tok.err;

  auto get = run_cli({"get", lacking, "general.architecture"});
  EXPECT_EQ(get.exit_code, 0) << get.err;
  EXPECT_EQ(get.out, "llama");
  EXPECT_EQ(get.err, "gguf: " + lacking +
                         ": warning: split.count is set but split.no is missing (a shard has split.no, split.count "
                         "and split.tensors.count) (key split.no); read as one file (gguf validate " +
                         lacking + " lists the problems)\n");
  auto dump = run_cli({"dump", lacking});
  EXPECT_EQ(dump.exit_code, 0) << dump.err;
  EXPECT_NE(dump.out.find("48 tensors"), std::string::npos) << dump.out;
  EXPECT_EQ(dump.err, get.err);
  // a set the keys can be read for but that cannot be assembled stays an error
  auto d2 = run_cli({"dump", past});
  EXPECT_EQ(d2.exit_code, 1);
  EXPECT_EQ(times(d2.err, past), 1u) << d2.err;
}
