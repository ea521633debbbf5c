// RWKV model: llama.cpp's token ids on tokenizer-vectors/rwkv-world.jsonl, the unescaping
// rules of llama_unescape_rwkv_token, and greedy longest match on a tiny vocabulary.
#include <gtest/gtest.h>

#include <random>

#include "model_vectors.h"
#include "vocab/rwkv_unescape.h"

using namespace gguf::vocab_detail;
namespace models = gguf::test::models;

TEST(rwkv_unescape, escapes_follow_llama_cpp) {
  EXPECT_EQ(rwkv_unescape("abc"), "abc");
  EXPECT_EQ(rwkv_unescape("\\t\\n\\r"), "\t\n\r");
  EXPECT_EQ(rwkv_unescape("\\x00"), std::string(1, '\0'));
  EXPECT_EQ(rwkv_unescape("\\xff\\x7f"), "\xff\x7f");
  EXPECT_EQ(rwkv_unescape("\\\\"), "\\");
  EXPECT_EQ(rwkv_unescape("\\'"), "'");
  EXPECT_EQ(rwkv_unescape("a\\"), "a");       // dangling escape dropped
  EXPECT_EQ(rwkv_unescape("\\x4"), "");       // unfinished hex dropped
  EXPECT_EQ(rwkv_unescape("\\x41b"), "Ab");
}

namespace {
vocab_data tiny_vocab(std::initializer_list<const char*> texts) {
  vocab_data v;
  v.type = vocab_type::rwkv;
  for (const char* t : texts) v.tokens.push_back({t, 0.0f, token_type::normal});
  return v;
}
}  // namespace

TEST(rwkv_model, greedy_longest_match_and_unknown_bytes) {
  auto v = tiny_vocab({"<s>", "a", "ab", "abc", "b", "c", "\\n", "bcd"});
  v.unk = 0;
  auto m = make_rwkv(v);
  std::vector<int32_t> out;
  m->tokenize("abcd", out);  // "abc" then "d" starts no token -> unk
  EXPECT_EQ(out, (std::vector<int32_t>{3, 0}));
  out.clear();
  m->tokenize("abbcd\n", out);  // "ab", "bcd", "\n" (escaped in the vocabulary)
  EXPECT_EQ(out, (std::vector<int32_t>{2, 7, 6}));
  out.clear();
  m->tokenize("", out);
  EXPECT_TRUE(out.empty());
}

TEST(rwkv_model, duplicate_texts_take_the_last_id) {
  auto v = tiny_vocab({"x", "y", "x"});
  auto m = make_rwkv(v);
  std::vector<int32_t> out;
  m->tokenize("xyx", out);
  EXPECT_EQ(out, (std::vector<int32_t>{2, 1, 2}));
}

TEST(rwkv_model, chunk_cache_equals_one_greedy_pass) {
  // Random vocabularies with tokens holding spaces (" a b", "a ", runs of spaces and
  // newlines) that make a match read past a chunk's end; random texts, each run three
  // times (the third finds its chunks in the cache).
  static const char* const pieces[] = {"a", "b", "c", " ", "  ", "   ", " a", " b", " ab", " a b", "a ", "ab",
                                       "abc", "\\n", "\\n ", "\\n  ", " \\n", "\\t", "b c", "ca", "\\xc3\\xa9"};
  static const char* const chars[] = {"a", "b", "c", " ", " ", " ", "\n", "\t", "\xC3\xA9", "x"};
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    vocab_data v;
    v.type = vocab_type::rwkv;
    v.tokens.push_back({"<unk>", 0.0f, token_type::control});
    v.unk = 0;
    for (const char* p : pieces)
      if (rng() % 3 != 0) v.tokens.push_back({p, 0.0f, token_type::normal});
    const auto fast = make_rwkv(v), reference = make_rwkv(v, false);
    for (int t = 0; t < 30; ++t) {
      std::string text;
      const size_t len = rng() % (t % 5 == 0 ? 150 : 25);
      for (size_t k = 0; k < len; ++k) text += chars[rng() % std::size(chars)];
      std::vector<int32_t> want;
      reference->tokenize(text, want);
      for (int pass = 0; pass < 3; ++pass) {  // chunks enter the cache when met a second time
        std::vector<int32_t> got;
        fast->tokenize(text, got);
        ASSERT_EQ(got, want) << "round " << round << " pass " << pass << " text '" << text << "'";
      }
    }
  }
}

TEST(rwkv_model, matches_llama_cpp_vectors) {
  GGUF_REQUIRE_DATA();
  auto lv = models::load(gguf::test::data_file("vocab/ggml-vocab-rwkv-world.gguf"));
  ASSERT_TRUE(lv);
  auto model = make_rwkv(lv->data);
  const auto cases = models::read_jsonl(gguf::test::data_file("tokenizer-vectors/rwkv-world.jsonl"));
  ASSERT_EQ(cases.size(), 2532u);
  EXPECT_EQ(models::check_cases(*model, cases, "rwkv-world"), cases.size());
}
