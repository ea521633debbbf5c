// Where the benchmarks find the test data, and reading a whole file: one definition for
// every bench_*.cpp (they are built with GGUF_TEST_DATA_DEFAULT, the repository's
// ../shared/data).
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

/// The test data folder: $GGUF_TEST_DATA when set and not empty, else the build's default.
inline std::filesystem::path data_dir() {
  const char* env = std::getenv("GGUF_TEST_DATA");
  return env && *env ? env : GGUF_TEST_DATA_DEFAULT;
}

/// data_dir() / rel, as a string.
inline std::string data(const std::string& rel) { return (data_dir() / rel).string(); }

/// The bytes of file `p` (empty when it cannot be read).
inline std::string read_whole(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
