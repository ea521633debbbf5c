// Regression (fuzz_vocab, CI check of this session): an 8-token RWKV vocabulary without an
// unknown token (a miniature of rwkv-world, big-endian) made tokenize() return -1 ids for
// text it cannot cover. Every id tokenize() returns must be a token of the vocabulary; a
// text that needs a missing unknown token is an invalid_vocab error instead.
#include <gtest/gtest.h>

#include <filesystem>

#include "gguf/vocab.h"
#include "tokenize_failure.h"

namespace {
std::filesystem::path regression(const char* name) {
  // from the source tree (not __FILE__, which is relative to the build folder)
  return std::filesystem::path(GGUF_SOURCE_DIR) / "tests" / "hostile" / "regressions" / name;
}
}  // namespace

TEST(vocab_regressions, no_unknown_token_is_an_error_not_minus_one) {
  auto f = gguf::file::open(regression("fuzz-vocab-rwkv-no-unk-be.gguf"));
  ASSERT_TRUE(f.ok()) << f.error().message();
  EXPECT_EQ(f->byte_order(), gguf::byte_order::big);
  auto v = gguf::vocab::load(*f);
  ASSERT_TRUE(v.ok()) << v.error().message();
  ASSERT_EQ(v->n_tokens(), 8u);
  for (bool add_special : {false, true}) {
    for (bool parse_special : {false, true}) {
      auto ids = v->tokenize("Hello world! <s> 123 \xe4\xbd\xa0\xe5\xa5\xbd\n", add_special, parse_special);
      ASSERT_FALSE(ids.ok());
      EXPECT_EQ(ids.error().code, gguf::errc::invalid_vocab);
      // the reason comes with the failure, the one tokenize() gives
      const auto e = gguf::test::tokenize_into_fails(*v, "Hello", add_special, parse_special);
      EXPECT_EQ(e.code, gguf::errc::invalid_vocab);
      EXPECT_EQ(e.subject, "tokenizer.ggml.unknown_token_id");
      EXPECT_EQ(e.message(), v->tokenize("Hello", add_special, parse_special).error().message());
    }
  }
  // Text made only of the vocabulary's own tokens (RWKV texts are escaped: token 7 is
  // "\\x06", the byte 0x06) still tokenizes.
  auto ids = v->tokenize(std::string("\x06\x01\x06", 3), false, false);
  ASSERT_TRUE(ids.ok()) << ids.error().message();
  EXPECT_EQ(*ids, (std::vector<int32_t>{7, 2, 7}));
}
