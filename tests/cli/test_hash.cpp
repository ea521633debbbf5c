// `gguf hash` against llama.cpp's gguf-hash: the recorded outputs of --all, --uuid,
// --no-layer and --check on every model, quant and vocab file (tests/cli/reference/hash,
// scripts/record-split-hash-reference.sh), a flipped byte found by --check, and a split
// model hashed as the unsplit one.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "reference_sections.h"
#include "test_support.h"

namespace fs = std::filesystem;
using namespace gguf::test;

namespace {

// models/NAME.gguf, quant/NAME.gguf or vocab/NAME.gguf, relative to the data folder.
std::string find_data_file(const std::string& name) {
  for (const char* dir : {"models", "quant", "vocab"}) {
    if (fs::exists(data_dir() / dir / (name + ".gguf"))) return std::string(dir) + "/" + name + ".gguf";
  }
  return {};
}

std::string join(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

}  // namespace

TEST(CliHash, PrintsWhatGgufHashPrintsOnEveryFile) {
  GGUF_REQUIRE_DATA();
  const std::string prefix = data_dir().string() + "/";
  int files = 0;
  for (const auto& e : fs::directory_iterator(reference_dir() / "hash")) {
    const std::string name = e.path().stem().string();
    if (name == "flipped") continue;
    const std::string rel = find_data_file(name);
    ASSERT_FALSE(rel.empty()) << name;
    ++files;
    const auto sections = read_sections(e.path());
    ASSERT_EQ(sections.size(), 4u) << name;
    std::vector<std::string> manifest;  // gguf-hash --all --uuid: the --all lines, then the uuid line
    for (const auto& s : sections) {
      auto args = split_words(s.args);
      args.pop_back();  // the recorded relative path
      std::vector<std::string> cmd = {"hash"};
      fs::path man_path;
      if (args[0] == "--check") {
        man_path = temp_dir() / ("manifest-" + name + ".txt");
        std::ofstream(man_path) << join(manifest);
        cmd.insert(cmd.end(), {"--check", man_path.string()});
      } else {
        cmd.insert(cmd.end(), args.begin(), args.end());
      }
      cmd.push_back(prefix + rel);
      auto r = run_cli(cmd);
      std::string out = replace_all(r.out, prefix, "");
      if (!man_path.empty()) out = replace_all(out, man_path.string(), "MANIFEST");
      EXPECT_EQ(r.exit_code, s.exit_code) << name << " " << s.args << r.err;
      EXPECT_EQ(out, join(s.output)) << name << " " << s.args;
      if (args[0] == "--all") manifest = s.output;
      if (args[0] == "--uuid") manifest.insert(manifest.end(), s.output.begin(), s.output.end());
    }
  }
  EXPECT_GE(files, 30);
}

// gguf-hash --check on its own manifest, with one tensor byte flipped: the same verdict
// lines (Mismatch for that tensor and the model), exit 1. The manifest names the file
// without a folder: our --check matches it from another folder.
TEST(CliHash, CheckFindsAFlippedByteAsGgufHashDoes) {
  GGUF_REQUIRE_DATA();
  const auto all = read_sections(reference_dir() / "hash" / "stories260K-Q4_0.txt");
  ASSERT_GE(all.size(), 2u);
  const fs::path dir = gguf::test::fresh_dir("flip");
  const fs::path flipped = dir / "flipped.gguf";
  auto bytes = read_bytes(data_file("models/stories260K-Q4_0.gguf"));
  bytes.at(200000) ^= std::byte{1};
  write_bytes(flipped, bytes);
  std::string manifest;
  for (const auto* s : {&all[0], &all[1]}) {
    for (const auto& l : s->output) manifest += replace_all(l, "models/stories260K-Q4_0.gguf", "flipped.gguf") + "\n";
  }
  std::ofstream(dir / "m.txt") << manifest;
  std::ifstream want_in(reference_dir() / "hash" / "flipped.txt");
  std::vector<std::string> want;
  int want_rc = -1;
  for (std::string l; std::getline(want_in, l);) {
    if (l.rfind("## exit ", 0) == 0) want_rc = std::stoi(l.substr(8));
    else want.push_back(l);
  }
  auto r = run_cli({"hash", "--check", (dir / "m.txt").string(), flipped.string()});
  EXPECT_EQ(r.exit_code, want_rc);
  EXPECT_EQ(want_rc, 1);
  std::string out = replace_all(replace_all(r.out, (dir / "m.txt").string(), "m.txt"), dir.string() + "/", "");
  EXPECT_EQ(out, join(want));
  EXPECT_NE(out.find("flipped.gguf  -  Mismatch"), std::string::npos);
}

TEST(CliHash, SplitModelHashesAsTheMergedModel) {
  GGUF_REQUIRE_DATA();
  const std::string in = data_file("models/stories260K-Q8_0.gguf").string();
  const fs::path dir = gguf::test::split_data_into("hash-split", "models/stories260K-Q8_0.gguf", 7).dir;
  auto whole = run_cli({"hash", "--all", "--uuid", in});
  for (const char* shard : {"m-00001-of-00007.gguf", "m-00004-of-00007.gguf"}) {
    auto part = run_cli({"hash", "--all", "--uuid", "--threads", "2", (dir / shard).string()});
    ASSERT_EQ(part.exit_code, 0) << part.err;
    EXPECT_EQ(replace_all(part.out, (dir / shard).string(), "X"), replace_all(whole.out, in, "X")) << shard;
  }
}

TEST(CliHash, JsonAndXxh3AndThreadsAgree) {
  GGUF_REQUIRE_DATA();
  const std::string in = data_file("models/stories260K-Q4_0.gguf").string();
  auto one = run_cli({"hash", "--all", "--xxh3", "--threads", "1", in});
  auto many = run_cli({"hash", "--all", "--xxh3", "--threads", "8", in});
  ASSERT_EQ(one.exit_code, 0);
  EXPECT_EQ(one.out, many.out);
  EXPECT_NE(one.out.find("xxh3      "), std::string::npos);
  auto j = run_cli({"hash", "--sha256", "--json", in});
  ASSERT_EQ(j.exit_code, 0);
  auto doc = nlohmann::json::parse(j.out);
  auto text = run_cli({"hash", "--sha256", "--no-layer", in});
  EXPECT_NE(text.out.find(doc["model"]["sha256"].get<std::string>()), std::string::npos);
  EXPECT_EQ(doc["tensors"].size(), 48u);
}

TEST(CliHash, ManifestErrorsUseGgufHashExitCodes) {
  GGUF_REQUIRE_DATA();
  const std::string in = data_file("models/stories260K-Q4_0.gguf").string();
  EXPECT_EQ(run_cli({"hash", "--check", (temp_dir() / "no-such-manifest").string(), in}).exit_code, 5);
  const fs::path junk = temp_dir() / "junk-manifest.txt";
  std::ofstream(junk) << "md5 0123 x.gguf\n";
  EXPECT_EQ(run_cli({"hash", "--check", junk.string(), in}).exit_code, 4);
  const fs::path other = temp_dir() / "other-manifest.txt";
  std::ofstream(other) << "xxh64  0123456789abcdef  other.gguf\n";
  EXPECT_EQ(run_cli({"hash", "--check", other.string(), in}).exit_code, 3);
}

// libcrypto is loaded only for SHA-1, SHA-256 and the UUID (tools/gguf/crypto_api.h):
// without it xxHash still works, and a SHA asks for it in one line naming the library.
TEST(CliHash, LoadsLibcryptoOnlyForShaAndSaysWhenItIsMissing) {
  GGUF_REQUIRE_DATA();
  const std::string in = data_file("models/stories260K-Q4_0.gguf").string();
  const std::string missing = "GGUF_LIBCRYPTO=" + (temp_dir() / "no-such-libcrypto.so.3").string();
  auto xxh = run_command("env", {missing, GGUF_CLI_PATH, "hash", "--xxh64", "--xxh3", in});
  EXPECT_EQ(xxh.exit_code, 0) << xxh.err;
  EXPECT_EQ(xxh.out, run_cli({"hash", "--xxh64", "--xxh3", in}).out);
  for (const char* opt : {"--sha1", "--sha256", "--uuid"}) {
    auto sha = run_command("env", {missing, GGUF_CLI_PATH, "hash", opt, in});
    EXPECT_EQ(sha.exit_code, 2) << opt;
    EXPECT_EQ(sha.out, "") << opt;
    EXPECT_NE(sha.err.find("gguf: " + in + ": cannot load OpenSSL's libcrypto ("), std::string::npos) << sha.err;
    EXPECT_NE(sha.err.find("no-such-libcrypto.so.3"), std::string::npos) << sha.err;
  }
}
