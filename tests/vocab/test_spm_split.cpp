// SPM fast path (spm.cpp): cutting a fragment into words where no token holds the
// character pair at the cut, and caching each word's ids, must give exactly the ids of
// llama.cpp's single merge queue over the whole fragment (make_spm(v, false), the
// reference that tokenizer-vectors checks against llama.cpp). Differential test on the
// real SPM vocabularies: a long stretch of corpus/bench.txt, and random strings built
// from token texts, separators and broken UTF-8 (so that merges cross every kind of
// boundary).
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>

#include "model_vectors.h"

using namespace gguf::vocab_detail;
namespace models = gguf::test::models;

namespace {

std::string escape_spaces(std::string_view s) {
  std::string out = "\xE2\x96\x81";  // the session's add_space_prefix
  for (char c : s) {
    if (c == ' ') out += "\xE2\x96\x81";
    else out += c;
  }
  return out;
}

class spm_split : public ::testing::TestWithParam<std::string> {};

TEST_P(spm_split, matches_the_single_queue_reference) {
  GGUF_REQUIRE_DATA();
  const auto lv = models::load(gguf::test::data_file(GetParam()));
  ASSERT_TRUE(lv);
  const vocab_data& v = lv->data;
  ASSERT_GT(v.tokens.size(), 200u);
  const auto fast = make_spm(v, true);
  const auto ref = make_spm(v, false);
  // the loader's model: the one queue for its first 2000 bytes in all, then the cut
  const auto lazy = make_spm(v, true, /*lazy=*/true, /*queue_bytes=*/2000);
  EXPECT_TRUE(spm_splits_words(*fast));
  EXPECT_FALSE(spm_splits_words(*ref));
  EXPECT_FALSE(spm_splits_words(*lazy));

  // 1. a long real fragment: the first 200 kB of bench.txt as one fragment
  const std::string text = gguf::test::read_text(gguf::test::data_file("corpus/bench.txt"));
  ASSERT_FALSE(text.empty()) << "corpus/bench.txt missing";
  const std::string corpus = escape_spaces(text.substr(0, 200000));
  const auto want = models::tokenize(*ref, corpus);
  const auto got = models::tokenize(*fast, corpus);
  ASSERT_GT(want.size(), 10000u);
  EXPECT_EQ(got, want) << "bench.txt prefix";

  // 2. random strings: token texts glued together, separators and stray bytes
  const char* const extras[] = {"\xE2\x96\x81", "\xE2\x96\x81\xE2\x96\x81", "\n", " ", "e", "t", ".", "\xE4\xB8\xAD",
                                "\xF0\x9F\x98\x80", "\xFF", "\xC3", "\xE2\x96", "0", "'", "<s>", "\t"};
  std::mt19937 rng(12345);
  std::uniform_int_distribution<size_t> tok(0, v.tokens.size() - 1);
  std::uniform_int_distribution<int> pick(0, 99);
  size_t cases = 0, same = 0;
  for (int c = 0; c < 3000; ++c) {
    std::string s;
    const int parts = 1 + pick(rng) % 40;
    for (int p = 0; p < parts; ++p) {
      if (pick(rng) < 70) s += v.tokens[tok(rng)].text;
      else s += extras[pick(rng) % std::size(extras)];
    }
    ++cases;
    const auto a = models::tokenize(*ref, s), b = models::tokenize(*fast, s), l = models::tokenize(*lazy, s);
    same += a == b && l == a;
    if (a != b || l != a)
      ADD_FAILURE() << "random case " << c << " (" << (a != b ? "eager" : "lazy") << " model differs): "
                    << nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    if (cases - same >= 5) break;
  }
  EXPECT_EQ(same, cases);
  EXPECT_TRUE(spm_splits_words(*lazy)) << "the lazy model never reached its budget";
  // a long fragment past the budget at once is cut (the filter built first)
  const auto lazy2 = make_spm(v, true, /*lazy=*/true, /*queue_bytes=*/2000);
  EXPECT_EQ(models::tokenize(*lazy2, "\xE2\x96\x81Hello"), models::tokenize(*ref, "\xE2\x96\x81Hello"));
  EXPECT_FALSE(spm_splits_words(*lazy2));
  EXPECT_EQ(models::tokenize(*lazy2, corpus), want) << "bench.txt prefix, lazy";
  EXPECT_TRUE(spm_splits_words(*lazy2));
  // two threads, each its own lines, one of them building the filter while the other goes on
  const auto lazy3 = make_spm(v, true, /*lazy=*/true, /*queue_bytes=*/2000);
  models::expect_two_threads_equal(*lazy3, *ref, escape_spaces(text.substr(0, 60000)));
  EXPECT_TRUE(spm_splits_words(*lazy3));
}

INSTANTIATE_TEST_SUITE_P(all, spm_split,
                         ::testing::Values("vocab/ggml-vocab-llama-spm.gguf", "vocab/ggml-vocab-phi-3.gguf",
                                           "vocab/ggml-vocab-baichuan.gguf", "models/llama-2-tiny-random.gguf",
                                           "models/stories260K.gguf"),
                         [](const auto& info) {
                           return gguf::test::test_name(std::filesystem::path(info.param).stem().string());
                         });

}  // namespace
