// gguf/error.h: the message format the CLI prints, result<T> used with and without
// exceptions, and the code names, which docs/errors.md lists (stable: a code keeps its
// number and name; this test fails when the two drift apart).
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "gguf/error.h"
#include "test_support.h"

TEST(Error, MessageNamesOffsetAndSubject) {
  EXPECT_EQ(gguf::make_error(gguf::errc::truncated, 42, "string of 9 bytes", "general.name").message(),
            "string of 9 bytes (at byte 42, key general.name)");
  EXPECT_EQ(gguf::make_error(gguf::errc::invalid_dimension, 7, "ne[1] = 0", "blk.0.attn_q.weight", true).message(),
            "ne[1] = 0 (at byte 7, tensor blk.0.attn_q.weight)");
  EXPECT_EQ(gguf::make_error(gguf::errc::io_error, gguf::no_offset, "No such file").message(), "No such file");
}

TEST(Error, ResultWithAndWithoutExceptions) {
  gguf::result<int> good = 3;
  int x = 0;
  EXPECT_EQ(std::move(good).get(x), gguf::errc::ok);
  EXPECT_EQ(x, 3);
  gguf::result<int> bad = gguf::make_error(gguf::errc::key_not_found, gguf::no_offset, "missing", "a.b");
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.value_or(-1), -1);
  try {
    (void)bad.value();
    ADD_FAILURE() << "value() of an error did not throw";
  } catch (const gguf::exception& e) {
    EXPECT_EQ(e.error().code, gguf::errc::key_not_found);
    EXPECT_STREQ(e.what(), "missing (key a.b)") << "a message without an offset";
  }
  gguf::result<void> fine;
  EXPECT_TRUE(fine.ok());
  EXPECT_NO_THROW(fine.value());
}

TEST(Error, CodesAreTheOnesDocsErrorsMdLists) {
  const std::string s = gguf::test::read_text(gguf::test::source_dir() / "docs/errors.md");
  ASSERT_FALSE(s.empty()) << "docs/errors.md";
  const std::regex row(R"(\n\| (\d+) \| `([a-z_0-9]+)` \|)");
  int rows = 0;
  for (auto it = std::sregex_iterator(s.begin(), s.end(), row); it != std::sregex_iterator(); ++it) {
    const int code = std::stoi((*it)[1]);
    EXPECT_EQ(gguf::error_name(gguf::errc(code)), (*it)[2].str()) << "code " << code;
    EXPECT_FALSE(gguf::error_message(gguf::errc(code)).empty()) << "code " << code;
    ++rows;
  }
  EXPECT_GT(rows, 25);
  EXPECT_EQ(gguf::error_name(gguf::errc(rows + 1)), gguf::error_name(gguf::errc(9999)))
      << "a code after the last documented one: add its row to docs/errors.md";
}
