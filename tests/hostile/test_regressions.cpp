// Every input a fuzzer ever crashed on is committed under tests/hostile/regressions/
// (named <fuzz target>-<what>, see docs/security.md) and replayed here: through the
// reader and every accessor, and through every command of the CLI.
#include <gtest/gtest.h>

#include <span>

#include "../../fuzz/fuzz_check.h"
#include "hostile.h"
#include "test_support.h"

namespace gguf::hostile {
namespace {

std::filesystem::path regressions_dir() {
  return std::filesystem::path(__FILE__).parent_path() / "regressions";
}

std::vector<std::filesystem::path> regression_files() {
  std::vector<std::filesystem::path> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(regressions_dir(), ec)) {
    if (e.is_regular_file() && e.path().filename() != "README.md") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(regressions, every_committed_input_is_read_or_rejected) {
  auto files = regression_files();
  if (files.empty()) GTEST_SKIP() << "no regression inputs in " << regressions_dir();
  for (const auto& p : files) {
    SCOPED_TRACE(p.filename().string());
    auto bytes = gguf::test::read_bytes(p);
    // Default limits, and no limits at all: the checks behind the limits (bytes left,
    // overflow) must hold on their own.
    reader_limits unlimited{~uint64_t{0}, ~uint64_t{0}, ~uint64_t{0}, ~uint64_t{0}, 1000, ~uint64_t{0}};
    for (const auto& lim : {reader_limits{}, unlimited}) {
      auto f = gguf::file::from_bytes(bytes, lim);
      if (f) {
        gguf::fuzz::visit_file(*f);
      } else {
        gguf::fuzz::check_error(f.error(), bytes.size());
      }
    }
  }
}

TEST(regressions, every_cli_command_keeps_the_contract_on_them) {
  auto files = regression_files();
  if (files.empty()) GTEST_SKIP() << "no regression inputs in " << regressions_dir();
  auto commands = cli_commands();
  ASSERT_FALSE(commands.empty());
  auto scratch = gguf::test::temp_dir();
  for (const auto& p : files) {
    for (const auto& c : commands) {
      for (const auto& inv : invocations(c, p.string(), scratch)) {
        auto r = run_cli(inv.args);
        std::string cmd;
        for (const auto& a : inv.args) cmd += " " + a;
        EXPECT_EQ(r.violation(inv.allow_usage), "") << "gguf" << cmd << "\n  stderr: " << r.err.substr(0, 300);
      }
    }
  }
}

}  // namespace
}  // namespace gguf::hostile
