// gguf quantize against llama-quantize v0.5.0: every case recorded by
// scripts/record-quantize.sh (tests/model/data/quantize_cases.tsv: models, file types,
// imatrices, options, refusals) is replayed with another thread count; the outputs must
// have the recorded sha256 and size, --dry-run must give the same file sizes, and a
// refusal must name its reason and leave nothing behind. Plus the write path: an existing
// OUT, OUT == IN, the mode of a replaced OUT, a run killed by SIGTERM and by SIGKILL.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "sha256_hex.h"
#include "test_support.h"

namespace fs = std::filesystem;
using gguf::test::run_command;

namespace {

struct qcase {
  std::string name;
  std::vector<std::string> args;
  std::vector<std::string> outputs;
  std::string result;  // "ok h:s,h:s" or "refused EXIT REASON"
};

void PrintTo(const qcase& c, std::ostream* os) { *os << c.name; }

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> v;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep)) {
    if (!cur.empty()) v.push_back(cur);
  }
  return v;
}

std::vector<qcase> load_cases() {
  std::vector<qcase> cases;
  std::ifstream in(gguf::test::source_dir() / "tests/model/data/quantize_cases.tsv");
  for (std::string line; std::getline(in, line);) {
    auto cols = split(line, '\t');
    if (cols.size() != 4) continue;
    cases.push_back({cols[0], split(cols[1], ' '), split(cols[2], ','), cols[3]});
  }
  return cases;
}

std::string sha256_file(const fs::path& p) {
  return gguf::test::sha256_hex(gguf::test::read_bytes(p));
}

// The inputs scripts/record-quantize.sh gives llama-quantize, made again the same way.
class Inputs {
 public:
  static Inputs& get() {
    static Inputs in;
    return in;
  }
  fs::path dir;
  bool ok = false;

 private:
  Inputs() {
    dir = gguf::test::temp_dir() / "quantize-inputs";
    fs::create_directories(dir);
    const std::string gen = GGUF_QUANT_FIXTURE_PATH;
    const auto d = dir.string();
    const auto models = gguf::test::data_dir() / "models";
    bool good = run_command(gen, {"model", d + "/fixture.gguf"}).exit_code == 0 &&
                run_command(gen, {"imatrix", d + "/fixture.gguf", d + "/imatrix.gguf"}).exit_code == 0 &&
                run_command(gen, {"imatrix", d + "/fixture.gguf", d + "/imatrix.dat"}).exit_code == 0 &&
                run_command(gen, {"imatrix", (models / "stories260K.gguf").string(), d + "/stories-imatrix.gguf"})
                        .exit_code == 0 &&
                run_command(GGUF_CLI_PATH, {"split", d + "/fixture.gguf", d + "/fixture-split", "--split-max-tensors", "8"})
                        .exit_code == 0;
    if (good) {
      auto b = gguf::test::read_bytes(dir / "fixture.gguf");
      b.resize(1000000);
      gguf::test::write_bytes(dir / "fixture-trunc.gguf", b);
      std::ofstream(dir / "tensor-types.txt") << "attn_v=q8_0\nffn_down=q5_k  attn_q=iq4_nl\n";
    }
    ok = good;
  }
};

// Runs `gguf quantize ARGS` in `dir` (relative names, as the recording).
gguf::test::run_result quantize_in(const fs::path& dir, const std::vector<std::string>& args) {
  std::vector<std::string> a = {"-c", "cd \"$1\" && shift && exec \"$@\"", "sh", dir.string(), GGUF_CLI_PATH, "quantize"};
  a.insert(a.end(), args.begin(), args.end());
  return run_command("sh", a);
}

// A folder holding links to the inputs, for one case's outputs.
fs::path case_dir(const std::string& name) {
  auto d = gguf::test::temp_dir() / ("q-" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  for (const auto& e : fs::directory_iterator(Inputs::get().dir)) fs::create_symlink(e.path(), d / e.path().filename());
  return d;
}

// A word the reason must contain, per reason of record-quantize.sh.
const std::map<std::string, std::string> reason_words = {
    {"imatrix", "importance matrix"},    {"requantize", "requantizing"},
    {"imatrix-size", "imatrix size"},    {"architecture", "unknown model architecture"},
    {"type", "TYPE"},                    {"unreadable", "past the file end"},
    {"same-file", "is the input"},
};

class QuantizeCases : public ::testing::TestWithParam<qcase> {};

TEST_P(QuantizeCases, MatchesLlamaQuantize) {
  GGUF_REQUIRE_DATA();
  ASSERT_TRUE(Inputs::get().ok) << "cannot make the inputs";
  const auto& c = GetParam();
  const auto dir = case_dir(c.name);
  std::vector<std::string> args;
  const auto models = (gguf::test::data_dir() / "models").string() + "/";
  for (auto a : c.args) {
    if (a.rfind("@M/", 0) == 0) a = models + a.substr(3);
    args.push_back(a);
  }
  // Another thread count than the recording's: the bytes must not depend on it.
  if (!args.empty() && (args.back() == "1" || args.back() == "2")) args.back() = args.back() == "2" ? "3" : "2";

  const auto words = split(c.result, ' ');
  ASSERT_GE(words.size(), 2u);
  if (words[0] == "ok") {
    auto dry = args;
    dry.insert(dry.begin(), {"--dry-run", "--json"});
    auto d = quantize_in(dir, dry);
    ASSERT_EQ(d.exit_code, 0) << d.err;
    auto r = quantize_in(dir, args);
    // Types whose row quantizer is not in gguf::quantize_rows yet (gguf/quant.h can_quantize).
    if (r.exit_code != 0 && r.err.find("cannot quantize to") != std::string::npos) GTEST_SKIP() << r.err;
    auto plan = nlohmann::json::parse(d.out);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto expect = split(words[1], ',');
    ASSERT_EQ(expect.size(), c.outputs.size());
    ASSERT_EQ(plan["file_sizes"].size(), c.outputs.size());
    for (size_t i = 0; i < c.outputs.size(); ++i) {
      const auto colon = expect[i].find(':');
      const auto out = dir / c.outputs[i];
      ASSERT_TRUE(fs::exists(out)) << out;
      EXPECT_EQ(sha256_file(out), expect[i].substr(0, colon)) << c.outputs[i];
      EXPECT_EQ(std::to_string(fs::file_size(out)), expect[i].substr(colon + 1)) << c.outputs[i];
      EXPECT_EQ(plan["file_sizes"][i].get<uint64_t>(), fs::file_size(out)) << "--dry-run size of " << c.outputs[i];
    }
  } else {
    ASSERT_EQ(words[0], "refused");
    auto r = quantize_in(dir, args);
    EXPECT_NE(r.exit_code, 0) << "llama-quantize refused (" << c.result << "), we wrote";
    const auto reason = words.size() > 2 ? words[2] : "other";
    if (auto it = reason_words.find(reason); it != reason_words.end()) {
      EXPECT_NE(r.err.find(it->second), std::string::npos) << "reason '" << it->second << "' not named in: " << r.err;
    }
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;
    for (const auto& e : fs::directory_iterator(dir)) {
      const auto n = e.path().filename().string();
      EXPECT_FALSE(!fs::is_symlink(e.path()) && n != "fixture.gguf") << "left behind: " << n;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Recorded, QuantizeCases, ::testing::ValuesIn(load_cases()),
                         [](const auto& info) { return gguf::test::test_name(info.param.name); });

TEST(Quantize, CasesRecorded) {
  // The recording covers every file type llama-quantize offers, with and without an imatrix.
  const auto cases = load_cases();
  EXPECT_GE(cases.size(), 200u);
  size_t ok = 0;
  for (const auto& c : cases) ok += c.result.rfind("ok ", 0) == 0;
  EXPECT_GE(ok, 150u);
}

TEST(Quantize, ExistingOutputAndSameFile) {
  GGUF_REQUIRE_DATA();
  ASSERT_TRUE(Inputs::get().ok);
  const auto dir = case_dir("write-rules");
  std::ofstream(dir / "out.gguf") << "keep me";
  auto r = quantize_in(dir, {"fixture.gguf", "out.gguf", "Q8_0"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("--force"), std::string::npos) << r.err;
  std::ifstream in(dir / "out.gguf");
  std::string s;
  std::getline(in, s);
  EXPECT_EQ(s, "keep me");

  // --force replaces it and keeps its mode.
  ::chmod((dir / "out.gguf").c_str(), 0640);
  r = quantize_in(dir, {"--force", "fixture.gguf", "out.gguf", "Q8_0"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  struct stat st {};
  ASSERT_EQ(::stat((dir / "out.gguf").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);

  // OUT == IN, also through a link and with --force.
  r = quantize_in(dir, {"--force", "out.gguf", "./out.gguf", "Q4_0"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("is the input"), std::string::npos) << r.err;
}

// A big-endian model (compat/stories260K-be.gguf) is refused, as llama-quantize's loader
// refuses it: its tensor bytes were quantized as if little-endian into a little-endian
// file (NaN and 1e37 weights, found by a new-user pass). Nothing is written; the error
// says how to convert it first; and the model converted to little-endian quantizes to
// the same bytes as the little-endian original.
TEST(Quantize, BigEndianInputIsRefusedNotMisread) {
  GGUF_REQUIRE_DATA();
  const auto dir = case_dir("big-endian");
  fs::create_symlink(gguf::test::data_file("compat/stories260K-be.gguf"), dir / "be.gguf");
  fs::create_symlink(gguf::test::data_file("models/stories260K.gguf"), dir / "le.gguf");
  for (std::vector<std::string> extra : {std::vector<std::string>{}, {"--dry-run"}}) {
    std::vector<std::string> args = extra;
    for (const char* a : {"be.gguf", "out.gguf", "Q8_0", "1"}) args.push_back(a);
    auto r = quantize_in(dir, args);
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("big-endian"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("gguf convert-endian be.gguf --to little -o OUT"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir / "out.gguf"));
  }
  auto c = run_command(GGUF_CLI_PATH, {"convert-endian", (dir / "be.gguf").string(), "--to", "little", "-o",
                                       (dir / "converted.gguf").string()});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  auto a = quantize_in(dir, {"converted.gguf", "a.gguf", "Q8_0", "1"});
  auto b = quantize_in(dir, {"le.gguf", "b.gguf", "Q8_0", "1"});
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_EQ(sha256_file(dir / "a.gguf"), sha256_file(dir / "b.gguf"));
}

// Starts a quantize run, signals it after `after`, waits.
int signal_run(const fs::path& dir, int sig, std::chrono::milliseconds after) {
  pid_t pid = fork();
  if (pid == 0) {
    if (::chdir(dir.c_str()) != 0) _exit(127);
    int devnull = ::open("/dev/null", O_WRONLY);
    ::dup2(devnull, 2);
    execl(GGUF_CLI_PATH, GGUF_CLI_PATH, "quantize", "--imatrix", "imatrix.gguf", "fixture.gguf", "out.gguf", "IQ2_XXS",
          "1", static_cast<char*>(nullptr));
    _exit(127);
  }
  std::this_thread::sleep_for(after);
  ::kill(pid, sig);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

std::vector<std::string> non_links(const fs::path& dir) {
  std::vector<std::string> v;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (!fs::is_symlink(e.path())) v.push_back(e.path().filename().string());
  }
  return v;
}

TEST(Quantize, KilledRunLeavesNothing) {
  GGUF_REQUIRE_DATA();
  ASSERT_TRUE(Inputs::get().ok);
  const auto dir = case_dir("killed");
  // The reference bytes of this run.
  auto ref = quantize_in(dir, {"--imatrix", "imatrix.gguf", "fixture.gguf", "ref.gguf", "IQ2_XXS", "2"});
  ASSERT_EQ(ref.exit_code, 0) << ref.err;
  const auto want = sha256_file(dir / "ref.gguf");
  fs::remove(dir / "ref.gguf");

  for (int sig : {SIGTERM, SIGINT}) {
    const int status = signal_run(dir, sig, std::chrono::milliseconds(60));
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
      fs::remove(dir / "out.gguf");  // finished before the signal: nothing to check
      continue;
    }
    EXPECT_TRUE(non_links(dir).empty()) << "signal " << sig << " left " << non_links(dir).front();
  }
  // SIGKILL: no handler runs; OUT is not there, and the next run writes the right bytes.
  signal_run(dir, SIGKILL, std::chrono::milliseconds(60));
  EXPECT_FALSE(fs::exists(dir / "out.gguf") && sha256_file(dir / "out.gguf") != want);
  auto r = quantize_in(dir, {"--force", "--imatrix", "imatrix.gguf", "fixture.gguf", "out.gguf", "IQ2_XXS", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(sha256_file(dir / "out.gguf"), want);
}

}  // namespace
