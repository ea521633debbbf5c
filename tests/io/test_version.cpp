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
  const std::string s = gguf::test::read_text(gguf::test::source_dir() / "CMakeLists.txt");
  ASSERT_FALSE(s.empty());
  std::smatch m;
  ASSERT_TRUE(std::regex_search(s, m, std::regex(R"(project\(gguf VERSION ([0-9]+\.[0-9]+\.[0-9]+))")));
  EXPECT_EQ(std::string(gguf::version()), m[1].str());
}
