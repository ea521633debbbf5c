// What every process of the command-line tool pays before it does anything: the dynamic
// loader and the shared libraries it maps and relocates (~0.4 ms each). `gguf` is linked
// statically (GGUF_STATIC_CLI, CMakeLists.txt); gguf-dynamic, the same commands linked
// dynamically, links PCRE2, xxHash, libstdc++ and libgcc statically and loads libcrypto
// (gguf hash) and libcurl (URLs) only when a command needs them; the static gguf runs it
// for those commands (tools/gguf/main.cpp, cmd_hash.cpp).
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <sstream>

#include "test_support.h"

using namespace gguf::test;
namespace fs = std::filesystem;

namespace {

/// The NEEDED entries of an ELF file (readelf), or nullopt when readelf is absent.
std::optional<std::set<std::string>> needed_of(const std::string& path, std::string* program_headers = nullptr) {
  auto r = run_command("readelf", {"--dynamic", "--program-headers", "--wide", path});
  if (r.exit_code == 127) return std::nullopt;
  EXPECT_EQ(r.exit_code, 0) << r.err;
  if (program_headers) *program_headers = r.out;
  std::set<std::string> needed;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("(NEEDED)") == std::string::npos) continue;
    const auto a = line.find('['), b = line.find(']');
    EXPECT_NE(b, std::string::npos) << line;
    if (b != std::string::npos) needed.insert(line.substr(a + 1, b - a - 1));
  }
  return needed;
}

fs::path dynamic_cli() { return fs::path(GGUF_CLI_PATH).parent_path() / "gguf-dynamic"; }

}  // namespace

TEST(CliProcessStart, NeedsOnlyTheCLibrary) {
  const std::string path = GGUF_CLI_STATIC ? dynamic_cli().string() : std::string(GGUF_CLI_PATH);
  auto needed = needed_of(path);
  if (!needed) GTEST_SKIP() << "readelf (binutils) not found";
  EXPECT_TRUE(needed->count("libc.so.6")) << path;  // the parse found the entries
  std::set<std::string> allowed = {"libc.so.6", "libm.so.6", "ld-linux-x86-64.so.2"};
#if defined(__SANITIZE_ADDRESS__)  // GGUF_SANITIZE: the runtimes, and the shared libstdc++ they want
  allowed.insert({"libasan.so.8", "libubsan.so.1", "libstdc++.so.6", "libgcc_s.so.1"});
#endif
  for (const auto& lib : *needed) EXPECT_TRUE(allowed.count(lib)) << path << " needs " << lib << " at every start";
}

TEST(CliProcessStart, TheStaticBuildHasNoLoaderAndHandsOverWhatNeedsALibrary) {
  if (!GGUF_CLI_STATIC) GTEST_SKIP() << "this build links gguf dynamically (GGUF_STATIC_CLI off or a sanitizer build)";
  GGUF_REQUIRE_DATA();
  std::string headers;
  auto needed = needed_of(GGUF_CLI_PATH, &headers);
  if (!needed) GTEST_SKIP() << "readelf (binutils) not found";
  EXPECT_TRUE(needed->empty()) << headers;
  EXPECT_EQ(headers.find("INTERP"), std::string::npos) << "gguf asks for a dynamic loader:\n" << headers;
  EXPECT_NE(headers.find("LOAD"), std::string::npos) << headers;  // the parse saw the program headers
  // Exceptions find their frames through the linker's sorted table (static_unwind.cpp):
  // CLI11 reports a usage error by throwing, unwound through it.
  EXPECT_NE(headers.find("GNU_EH_FRAME"), std::string::npos) << headers;

  // A copy of gguf alone in a folder: local files need nothing beside it...
  const fs::path dir = fresh_dir("static-alone");
  fs::copy_file(GGUF_CLI_PATH, dir / "gguf");
  const std::string alone = (dir / "gguf").string();
  const std::string vocab = data_file("vocab/ggml-vocab-llama-spm.gguf").string();
  auto local = run_command(alone, {"tokenize", "-m", vocab, "Hello world", "--no-tokenizer-cache"});
  auto beside = run_cli({"tokenize", "-m", vocab, "Hello world", "--no-tokenizer-cache"});
  EXPECT_EQ(local.exit_code, 0) << local.err;
  EXPECT_EQ(local.out, beside.out);
  EXPECT_NE(local.out.find(','), std::string::npos) << local.out;  // ids, not an empty list
  auto usage = run_command(alone, {"tokenize", "-m", vocab, "Hello", "--no-such-option"});
  EXPECT_EQ(usage.exit_code, 2);
  EXPECT_EQ(usage.err, "gguf tokenize: The following argument was not expected: --no-such-option (see --help)\n");

  // ...a URL (also as --option=URL) and a SHA hash run gguf-dynamic, which is not there:
  // one line names it and why, before anything is read or written.
  const std::string model = data_file("models/stories260K.gguf").string();
  struct handover {
    std::vector<std::string> args;
    std::string why;
  };
  const std::vector<handover> cases = {
      {{"info", "http://127.0.0.1:9/m.gguf"}, "reads remote files"},
      {{"info", "hf://owner/repo:Q4_K_M"}, "reads remote files"},
      {{"tokenize", "--model=https://127.0.0.1:9/m.gguf", "Hello"}, "reads remote files"},
      {{"hash", "--sha256", model}, "computes SHA hashes"},
      {{"hash", "--uuid", model}, "computes SHA hashes"},
  };
  for (const auto& c : cases) {
    auto r = run_command(alone, c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args[1];
    EXPECT_EQ(r.out, "") << c.args[1];
    EXPECT_EQ(r.err, "gguf: cannot run " + (dir / "gguf-dynamic").string() + " (installed beside gguf), which " +
                         c.why + ": No such file or directory\n")
        << c.args[1];
  }
  // xxh64 needs no library: the copy hashes alone, as the installed pair does.
  auto xxh = run_command(alone, {"hash", "--xxh64", model});
  EXPECT_EQ(xxh.exit_code, 0) << xxh.err;
  EXPECT_EQ(xxh.out, run_cli({"hash", "--xxh64", model}).out);
  // Beside gguf-dynamic, the SHA-256 lines are those of gguf-dynamic run directly.
  auto sha = run_cli({"hash", "--sha256", model});
  EXPECT_EQ(sha.exit_code, 0) << sha.err;
  EXPECT_EQ(sha.out, run_command(dynamic_cli().string(), {"hash", "--sha256", model}).out);
  EXPECT_NE(sha.out.find("sha256 "), std::string::npos) << sha.out;
}

// The remote options are added to a command only when its command line names one of them or
// may ask for help (tools/gguf/cli_common.cpp, add_remote_options): every form still parses
// and is checked as before.
TEST(CliProcessStart, RemoteOptionsAreAddedWhenTheCommandLineNamesThem) {
  GGUF_REQUIRE_DATA();
  const std::string vocab = data_file("vocab/ugm-sp-test.gguf").string();
  auto plain = run_cli({"tokenize", "-m", vocab, "Hello world", "--no-tokenizer-cache"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  ASSERT_NE(plain.out.find(','), std::string::npos) << plain.out;
  for (const std::vector<std::string>& extra :
       {std::vector<std::string>{"--timeout", "5"}, {"--timeout=5"}, {"--first-request=4096", "--retries", "0"},
        {"--verbose"}, {"--header", "X-A: b"}, {"--hf-token=t"}, {"--no-cache"}}) {
    std::vector<std::string> args = {"tokenize", "-m", vocab, "Hello world", "--no-tokenizer-cache"};
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = run_cli(args);
    EXPECT_EQ(r.exit_code, 0) << extra[0] << ": " << r.err;
    EXPECT_EQ(r.out, plain.out) << extra[0];
  }
  // their checks still apply, in both forms
  for (const char* bad : {"--timeout=0", "--retries=21"}) {
    auto r = run_cli({"tokenize", "-m", vocab, "Hello", bad});
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_NE(r.err.find("not in range"), std::string::npos) << bad << ": " << r.err;
  }
  // a name that only begins like one of them is still refused
  auto near = run_cli({"tokenize", "-m", vocab, "Hello", "--timeouts=5"});
  EXPECT_EQ(near.exit_code, 2);
  EXPECT_NE(near.err.find("--timeouts"), std::string::npos) << near.err;
  // and help lists them, asked for either way
  for (const char* help : {"--help", "-h"}) {
    auto r = run_cli({"tokenize", help});
    EXPECT_EQ(r.exit_code, 0) << help;
    EXPECT_NE(r.out.find("--first-request"), std::string::npos) << help;
  }
}
