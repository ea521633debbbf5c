// vocab::tokenize_batch: on 1, 2 and 3 threads, every case of every tokenizer vector
// file (llama.cpp's ids, ../shared/data/tokenizer-vectors) comes back in input order;
// per-thread word caches do not leak between vocabularies used in turn on one thread;
// errors name the first failing text.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "gguf/vocab.h"
#include "gguf/writer.h"
#include "test_support.h"
#include "vector_vocabs.h"

namespace {

struct vectors {
  std::vector<std::string> texts;
  std::vector<std::vector<int32_t>> ids, ids_special;
};

using gguf::test::vocab_path;

vectors read_vectors(const std::string& name) {
  vectors v;
  std::ifstream in(gguf::test::data_file("tokenizer-vectors/" + name + ".jsonl"));
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    const auto j = nlohmann::json::parse(line);
    v.texts.push_back(j.at("text"));
    v.ids.push_back(j.at("ids"));
    v.ids_special.push_back(j.at("ids_special"));
  }
  return v;
}

gguf::vocab load(const std::string& name) {
  auto f = gguf::file::open(gguf::test::data_file(vocab_path(name)));
  EXPECT_TRUE(f) << f.error().message();
  auto v = gguf::vocab::load(*f);
  EXPECT_TRUE(v) << v.error().message();
  return std::move(*v);
}

class batch_vectors : public ::testing::TestWithParam<std::string> {};

TEST_P(batch_vectors, equal_llama_cpp_in_order) {
  GGUF_REQUIRE_DATA();
  const auto want = read_vectors(GetParam());
  ASSERT_FALSE(want.texts.empty());
  const auto v = load(GetParam());
  const std::vector<std::string_view> views(want.texts.begin(), want.texts.end());
  for (unsigned threads : {1u, 2u, 3u}) {
    auto plain = v.tokenize_batch(views, threads, false, false);
    ASSERT_TRUE(plain) << plain.error().message();
    auto special = v.tokenize_batch(views, threads, true, true);
    ASSERT_TRUE(special) << special.error().message();
    ASSERT_EQ(plain->size(), views.size());
    ASSERT_EQ(special->size(), views.size());
    size_t bad = 0;
    for (size_t i = 0; i < views.size(); ++i) bad += (*plain)[i] != want.ids[i] || (*special)[i] != want.ids_special[i];
    EXPECT_EQ(bad, 0u) << GetParam() << ", " << threads << " threads";
  }
}

INSTANTIATE_TEST_SUITE_P(all, batch_vectors,
                         ::testing::ValuesIn(gguf::test::vector_vocabs),
                         [](const auto& info) { return gguf::test::test_name(info.param); });

// Two BPE and two SPM vocabularies in turn on one thread: each call must use only its own
// vocabulary's cached words (a cache filled by another model would give its ids).
TEST(batch, vocabularies_in_turn_on_one_thread) {
  GGUF_REQUIRE_DATA();
  const std::vector<std::string> names = {"llama-bpe", "gpt-2", "llama-spm", "baichuan"};
  std::vector<gguf::vocab> vs;
  std::vector<vectors> want;
  for (const auto& n : names) vs.push_back(load(n)), want.push_back(read_vectors(n));
  size_t bad = 0, n = 0;
  for (size_t i = 0; i < 400; ++i)
    for (size_t k = 0; k < vs.size(); ++k) {
      if (i >= want[k].texts.size()) continue;
      ++n;
      bad += vs[k].tokenize(want[k].texts[i], false, false).value() != want[k].ids[i];
    }
  EXPECT_GT(n, 1000u);
  EXPECT_EQ(bad, 0u);
}

TEST(batch, empty_and_error_names_the_first_failing_text) {
  GGUF_REQUIRE_DATA();
  const auto v = load("llama-bpe");
  auto e = v.tokenize_batch({}, 2);
  ASSERT_TRUE(e);
  EXPECT_TRUE(e->empty());

  // A file without a tokenizer: every text fails; the error is text 0's.
  gguf::writer w;
  ASSERT_TRUE(w.set("general.architecture", gguf::value::string("llama")));
  auto f = gguf::file::from_buffer(w.to_bytes());
  ASSERT_TRUE(f) << f.error().message();
  auto none = gguf::vocab::load(*f);
  ASSERT_TRUE(none) << none.error().message();
  const std::vector<std::string_view> texts = {"a", "b", "c"};
  auto r = none->tokenize_batch(texts, 2);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, gguf::errc::unsupported);
  EXPECT_EQ(r.error().detail.rfind("text 0: ", 0), 0u) << r.error().detail;
}

}  // namespace
