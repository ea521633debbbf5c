// gguf/version.h: gguf::version() is CMakeLists.txt's project version, its one source
// (gguf --version, ggufkit.__version__ and the wheel take it from there too:
// scripts/test-python-package.sh checks those).
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "gguf/version.h"
#include "test_support.h"

TEST(Version, IsTheProjectVersionOfCMakeLists) {
  std::ifstream in(gguf::test::source_dir() / "CMakeLists.txt");
  ASSERT_TRUE(in);
  std::stringstream text;
  text << in.rdbuf();
  const std::string s = text.str();
  std::smatch m;
  ASSERT_TRUE(std::regex_search(s, m, std::regex(R"(project\(gguf VERSION ([0-9]+\.[0-9]+\.[0-9]+))")));
  EXPECT_EQ(std::string(gguf::version()), m[1].str());
}
