// Shared helpers for the test suite: where the real test data is, and running the CLI.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace gguf::test {

/// $GGUF_TEST_DATA, else the folder configured (-DGGUF_TEST_DATA, default ../shared/data
/// beside the repository). Empty path if the folder is absent.
std::filesystem::path data_dir();
/// The folder data_dir() looks for (for the error when it is absent).
std::filesystem::path data_dir_wanted();
/// data_dir() / rel; empty if the data folder is absent (GGUF_REQUIRE_DATA fails then).
std::filesystem::path data_file(const std::string& rel);
/// Every vocab/*.gguf of data_dir(), sorted by path.
std::vector<std::filesystem::path> vocab_files();
/// Reads a whole file into bytes (test helper; throws on failure).
std::vector<std::byte> read_bytes(const std::filesystem::path& p);
/// A whole file as text; empty when it cannot be read.
std::string read_text(const std::filesystem::path& p);
/// Writes bytes to a path (test helper; throws on failure).
void write_bytes(const std::filesystem::path& p, const std::vector<std::byte>& bytes);
/// A fresh temporary directory for this test process.
std::filesystem::path temp_dir();

/// An empty folder temp_dir() / name (emptied if it exists).
std::filesystem::path fresh_dir(const std::string& name);
/// A writable copy of the data file `rel` (data_file) as dir / name.
std::filesystem::path copy_data_into(const std::filesystem::path& dir, const std::string& rel, const std::string& name);

/// The names of the write leftovers in `dir`: temp files (".tmp-") and edit journals
/// ("journal"), in directory order.
std::vector<std::string> temps_in(const std::filesystem::path& dir);

/// The shards of a data file split by the CLI (split_data_into).
struct split_shards {
  std::filesystem::path dir;                  ///< the fresh folder holding them
  std::vector<std::filesystem::path> shards;  ///< DIR/m-%05d-of-%05d.gguf, sorted by name
};
/// Splits the data file `rel` with `gguf split FILE DIR/m --split-max-tensors N` into a
/// fresh folder DIR = fresh_dir(name); a failed split is a test failure (no shards).
split_shards split_data_into(const std::string& name, const std::string& rel, unsigned max_tensors);

/// A GoogleTest parameter name made of `s`: every character but [A-Za-z0-9] becomes '_'.
std::string test_name(std::string s);

/// Result of running the gguf CLI.
struct run_result {
  int exit_code = -1;
  std::string out;
  std::string err;
};
/// Runs `program` with `args` (shell-quoted), optional stdin from a file.
run_result run_command(const std::string& program, const std::vector<std::string>& args,
                       const std::string& stdin_path = {});
/// Runs the built `gguf` binary with `args` (shell-quoted), optional stdin from a file.
run_result run_cli(const std::vector<std::string>& args, const std::string& stdin_path = {});
/// The repository's root folder.
inline std::filesystem::path source_dir() { return GGUF_SOURCE_DIR; }
/// Runs `scripts/SCRIPT --check COMMITTED` (a generator of committed tables): the test
/// passes when regenerating gives the committed file, skips when the generator's
/// reference source is absent (exit code 77).
void expect_generated(const std::string& script, const std::string& committed);

}  // namespace gguf::test

/// Fails the current test when the shared test data is absent: the data is part of the
/// suite, not an optional reference (a run in a worktree or copy that cannot see
/// ../shared/data must not pass by skipping most of the suite).
#define GGUF_REQUIRE_DATA()                                                                       \
  do {                                                                                            \
    if (::gguf::test::data_dir().empty())                                                         \
      GTEST_FAIL() << "test data folder not found: " << ::gguf::test::data_dir_wanted()           \
                   << " (set GGUF_TEST_DATA, or configure with -DGGUF_TEST_DATA=DIR)";            \
  } while (0)
