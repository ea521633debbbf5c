// What every process of the command-line tool pays before it does anything: the shared
// libraries the dynamic loader maps and relocates (~0.4 ms each). `gguf` links PCRE2,
// xxHash, libstdc++ and libgcc statically and loads libcrypto (gguf hash) and libcurl
// (URLs) only when a command needs them (CMakeLists.txt, tools/gguf/crypto_api.h).
#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "test_support.h"

using namespace gguf::test;

TEST(CliProcessStart, NeedsOnlyTheCLibrary) {
  auto r = run_command("readelf", {"--dynamic", "--wide", GGUF_CLI_PATH});
  if (r.exit_code == 127) GTEST_SKIP() << "readelf (binutils) not found";
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::set<std::string> needed;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("(NEEDED)") == std::string::npos) continue;
    const auto a = line.find('['), b = line.find(']');
    ASSERT_NE(b, std::string::npos) << line;
    needed.insert(line.substr(a + 1, b - a - 1));
  }
  EXPECT_TRUE(needed.count("libc.so.6")) << r.out;  // the parse found the entries
  std::set<std::string> allowed = {"libc.so.6", "libm.so.6", "ld-linux-x86-64.so.2"};
#if defined(__SANITIZE_ADDRESS__)  // GGUF_SANITIZE: the runtimes, and the shared libstdc++ they want
  allowed.insert({"libasan.so.8", "libubsan.so.1", "libstdc++.so.6", "libgcc_s.so.1"});
#endif
  for (const auto& lib : needed) EXPECT_TRUE(allowed.count(lib)) << "gguf needs " << lib << " at every start";
}
