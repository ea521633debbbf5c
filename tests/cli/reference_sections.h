// Reads the recorded outputs of llama.cpp's gguf-hash / gguf-split in tests/cli/reference
// (scripts/record-split-hash-reference.sh): sections "## ARGS", output lines, "## exit N".
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace gguf::test {

struct ref_section {
  std::string args;                 ///< the command's options as recorded
  std::vector<std::string> output;  ///< lines before "## exit"
  int exit_code = -1;
  std::vector<std::string> after;   ///< lines after "## exit" (split: shard hashes)
};

inline std::filesystem::path reference_dir() {
  return std::filesystem::path(GGUF_SOURCE_DIR) / "tests" / "cli" / "reference";
}

inline std::vector<ref_section> read_sections(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::vector<ref_section> out;
  std::string line;
  bool after = false;
  while (std::getline(in, line)) {
    if (line.rfind("## exit ", 0) == 0) {
      out.back().exit_code = std::stoi(line.substr(8));
      after = true;
    } else if (line.rfind("## ", 0) == 0) {
      out.push_back({line.substr(3), {}, -1, {}});
      after = false;
    } else if (!out.empty()) {
      (after ? out.back().after : out.back().output).push_back(line);
    }
  }
  return out;
}

inline std::vector<std::string> split_words(const std::string& s) {
  std::istringstream is(s);
  std::vector<std::string> w;
  for (std::string x; is >> x;) w.push_back(x);
  return w;
}

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> v;
  std::istringstream is(text);
  for (std::string l; std::getline(is, l);) v.push_back(l);
  return v;
}

/// Replaces every occurrence of `from` in `s` by `to`.
inline std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t p = 0; (p = s.find(from, p)) != std::string::npos; p += to.size()) s.replace(p, from.size(), to);
  return s;
}

}  // namespace gguf::test
