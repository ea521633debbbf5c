// Standard output that cannot be written is an error, not a success: a command whose
// output went to a full disk (/dev/full) exits 2 with one line saying so, for output
// printed through iostreams (info, dump), through C stdio (tokenize's ids, with and
// without --jsonl) and when the process ends without its destructors (end_process).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "test_support.h"

using namespace gguf::test;

namespace {

// `gguf ARGS > OUT` (stdin from `in`, if given)
run_result run_cli_to(const std::string& out, const std::vector<std::string>& cli_args, const std::string& in = {}) {
  std::vector<std::string> args{"-c", "exec \"$0\" \"$@\" >" + out, GGUF_CLI_PATH};
  args.insert(args.end(), cli_args.begin(), cli_args.end());
  return run_command("sh", args, in);
}

}  // namespace

TEST(CliStandardOutput, AFullDiskIsAnErrorForEveryKindOfOutput) {
  GGUF_REQUIRE_DATA();
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full on this system";
  const std::string vocab = data_file("vocab/ggml-vocab-llama-spm.gguf").string();
  const std::string prose = data_file("corpus/prose-en.txt").string();  // ids well past one stdio buffer
  const std::string lines = (fresh_dir("stdout-full") / "lines.jsonl").string();
  std::ofstream(lines) << "\"Hello\"\n\"world\"\n";
  const std::vector<std::vector<std::string>> commands = {
      {"--version"},
      {"info", vocab},
      {"dump", vocab, "--full-arrays"},
      {"dump", vocab, "--json"},
      {"tokenize", "-m", vocab, "Hello"},
      {"tokenize", "-m", vocab, "-f", prose},
      {"tokenize", "-m", vocab, "--jsonl", "-f", lines},
      {"detokenize", "-m", vocab, "1", "15043"},
  };
  for (const auto& cmd : commands) {
    std::string name;
    for (const auto& a : cmd) name += a + " ";
    auto ok = run_cli_to("/dev/null", cmd);
    EXPECT_EQ(ok.exit_code, 0) << name << ok.err;
    auto full = run_cli_to("/dev/full", cmd);
    EXPECT_EQ(full.exit_code, 2) << name << full.err;
    EXPECT_EQ(full.err.rfind("gguf: standard output: cannot write", 0), 0u) << name << full.err;
    EXPECT_NE(full.err.find("the output is incomplete\n"), std::string::npos) << name << full.err;
    EXPECT_EQ(full.err.find("gguf: standard output", 1), std::string::npos) << name << "said twice: " << full.err;
  }
}
