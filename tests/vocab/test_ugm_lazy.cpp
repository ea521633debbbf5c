// The lazy UGM model (make_ugm(..., lazy = true), the loader's row): until more than its
// byte budget has been tokenized it uses the plain forms (ugm_normalizer::normalize_plain,
// ugm_viterbi::viterbi_plain: the charsmap walked, the candidates looked up in the token
// map), then builds its tables. Both must give the ids of the model built up front: on
// llama.cpp's vectors, on random vocabularies with user-defined tokens and a real
// charsmap, across the budget within one model, through the loader, and under concurrent
// first calls.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <thread>

#include "gguf/vocab.h"
#include "model_vectors.h"

using namespace gguf::vocab_detail;
namespace models = gguf::test::models;
using models::run;

namespace {

constexpr const char* small_file = "vocab/ugm-sp-test.gguf";
constexpr const char* large_file = "vocab/ggml-vocab-nomic-bert-moe.gguf";

// A lazy model that never builds its tables (every call takes the plain forms), and one
// that builds them at its first call.
std::unique_ptr<tokenizer_model> plain_model(const vocab_data& v) { return make_ugm(v, true, true, true, SIZE_MAX); }
std::unique_ptr<tokenizer_model> built_at_first_call(const vocab_data& v) { return make_ugm(v, true, true, true, 0); }

}  // namespace

TEST(ugm_lazy, plain_forms_match_llama_cpp_vectors) {
  GGUF_REQUIRE_DATA();
  models::expect_vectors(small_file, "ugm-sp-test", plain_model);
  models::expect_vectors(large_file, "nomic-bert-moe", plain_model);
  models::expect_inp_out(large_file, "nomic-bert-moe", plain_model);
  models::expect_vectors(small_file, "ugm-sp-test", built_at_first_call);
  models::expect_vectors(large_file, "nomic-bert-moe", built_at_first_call);
}

TEST(ugm_lazy, plain_forms_equal_the_built_model_on_random_vocabularies) {
  // Tiny vocabularies whose tokens tie often, with user-defined tokens (sharing prefixes
  // with the texts, one cut inside a UTF-8 sequence, one holding a space, one starting
  // with one), with no charsmap or ugm-sp-test's real one, and every whitespace flag;
  // texts of characters the charsmap maps or leaves, spaces, NUL and invalid bytes.
  GGUF_REQUIRE_DATA();
  auto lv = models::load(gguf::test::data_file(small_file));
  ASSERT_TRUE(lv);
  static const char* const pieces[] = {"\xE2\x96\x81", "\xE2\x96\x81" "a", "\xE2\x96\x81" "ab", "a", "b", "ab", "ba",
                                       "abc", "c", "\xC3\xA9", "e\xCC\x81", "\xE2\x96\x81\xC3\xA9", "bb", "A", "1",
                                       "\xEF\xBC\x8C", ",", "\xE2\x96", "<s>", "a b", " a", "\xE6\x9D\xB1", "fi"};
  static const char* const chars[] = {"a", "b", "c", " ", " ", "  ", "\t", "\n", "\xC3\xA9", "e\xCC\x81", "x",
                                      "\xE2\x96\x81", "\xF0\x9F\x98\x80", "\xE2\x96", "\xFF", "" /* one NUL byte */,
                                      "\xEF\xBC\xA1", "\xEF\xBC\x8C", "\xE3\x80\x80", "\xEF\xAC\x81", "<s>", "<",
                                      "\xE6\x9D\xB1", "\xC2\xA0", "1"};
  std::mt19937 rng(2026);
  size_t compared = 0;
  for (int round = 0; round < 200; ++round) {
    vocab_data v;
    v.type = vocab_type::ugm;
    v.unk = 0;
    v.tokens.push_back({"<unk>", 0, token_type::unknown});
    for (const char* p : pieces) {
      if (rng() % 4 == 0) continue;
      const float score = round % 2 ? -float(1 + rng() % 3) : -float(rng() % 1000) / 101.0f;
      const token_type t = rng() % 6 == 0 ? token_type::user_defined
                           : rng() % 9 == 0 ? token_type::unused
                           : rng() % 9 == 0 ? token_type::control
                                            : token_type::normal;
      v.tokens.push_back({p, score, t});
    }
    ASSERT_EQ(v.token_to_id.build(v.tokens), v.tokens.size());
    if (round % 2) {  // the facts the loader gathers (vocab_load.cpp), else the model's own pass
      vocab_data::token_facts facts;
      for (size_t id = 0; id < v.tokens.size(); ++id) {
        const token_data& t = v.tokens[id];
        if (t.type == token_type::normal) facts.min_normal_score = std::min(facts.min_normal_score, t.score);
        if (t.type == token_type::user_defined) facts.user_defined.push_back(int32_t(id));
        v.max_token_len = std::max<uint32_t>(v.max_token_len, uint32_t(t.text.size()));
      }
      v.facts = std::move(facts);
    }
    if (round % 3 != 0) v.precompiled_charsmap = lv->data.precompiled_charsmap;
    v.add_space_prefix = rng() % 4 != 0;
    v.remove_extra_whitespaces = rng() % 3 != 0;
    v.escape_whitespaces = rng() % 6 != 0;
    v.treat_whitespace_as_suffix = rng() % 6 == 0;
    const auto eager = make_ugm(v), plain = plain_model(v);
    for (int t = 0; t < 20; ++t) {
      std::string text;
      const size_t len = rng() % (t % 5 == 0 ? 60 : 12);
      for (size_t k = 0; k < len; ++k) {
        const char* c = chars[rng() % std::size(chars)];
        text.append(c, *c ? std::strlen(c) : 1);
      }
      ASSERT_EQ(run(*plain, text), run(*eager, text)) << "round " << round << " [" << testing::PrintToString(text) << "]";
      ++compared;
    }
    EXPECT_FALSE(plain->ids_in_range());  // never built
  }
  EXPECT_EQ(compared, 4000u);
}

TEST(ugm_lazy, calls_just_below_and_above_the_budget) {
  // The budget counts normalized bytes: a call takes the plain forms when its raw and its
  // normalized size both fit in what is left (the model then proves no id range yet:
  // ids_in_range() is false), else it builds the tables (ugm-sp-test's built model proves
  // its ids). Every answer is the eager model's.
  GGUF_REQUIRE_DATA();
  auto lv = models::load(gguf::test::data_file(small_file));
  ASSERT_TRUE(lv);
  const auto eager = make_ugm(lv->data);
  ASSERT_TRUE(eager->ids_in_range());
  const auto reference = make_ugm(lv->data, false, false);  // (its normalize() gives the normalized text)
  const auto norm_size = [&](std::string_view t) {
    std::string buf;
    return reference->normalize(t, true, buf).size();
  };
  const auto lazy_model = [&](size_t budget) { return make_ugm(lv->data, true, true, true, budget); };
  const std::string long_text =
      "The tokenizer's first calls, \xEF\xBD\x86\xEF\xBD\x95\xEF\xBD\x8C\xEF\xBD\x8C\xEF\xBC\x8D\xE4\xB8\x9C"
      "\xE4\xBA\xAC and \xEF\xAC\x81 ligatures \xFF\xE2\x96 e\xCC\x81 then the rest of a longer text that goes well "
      "past the budget of the model.";
  {
    const std::string a = "Hello worl";
    ASSERT_EQ(norm_size(a), 15u);  // U+2581 Hello U+2581 worl
    const auto lazy = lazy_model(15);
    EXPECT_EQ(run(*lazy, a), run(*eager, a));
    EXPECT_FALSE(lazy->ids_in_range());
    EXPECT_EQ(run(*lazy, ""), run(*eager, ""));  // (charges nothing)
    EXPECT_FALSE(lazy->ids_in_range());
    EXPECT_EQ(run(*lazy, "d"), run(*eager, "d"));
    EXPECT_TRUE(lazy->ids_in_range());
    EXPECT_EQ(run(*lazy, long_text), run(*eager, long_text));
    EXPECT_EQ(run(*lazy, a), run(*eager, a));
  }
  {
    const auto lazy = lazy_model(14);
    EXPECT_EQ(run(*lazy, "Hello worl"), run(*eager, "Hello worl"));  // one byte short: built at once
    EXPECT_TRUE(lazy->ids_in_range());
  }
  {
    // U+FDFA normalizes to 33 bytes and more: within a budget of 10 raw bytes, not normalized
    const std::string wide = "\xEF\xB7\xBA";
    ASSERT_GT(norm_size(wide), 30u);
    const auto lazy = lazy_model(10);
    EXPECT_EQ(run(*lazy, wide), run(*eager, wide));
    EXPECT_TRUE(lazy->ids_in_range());
  }
  // One text cut at every byte into two calls on a fresh model whose budget is the
  // first's: the second takes the plain forms only when it fits in what is left.
  // (Some leeway beyond the first call, so that some second calls fit and some do not.)
  size_t built = 0;
  for (size_t cut = 0; cut <= 60; ++cut) {
    const std::string a = long_text.substr(0, cut), b = long_text.substr(cut, 20);
    const size_t budget = std::max(a.size(), norm_size(a)) + cut % 5 * 10, left = budget - norm_size(a);
    const auto lazy = lazy_model(budget);
    EXPECT_EQ(run(*lazy, a), run(*eager, a)) << cut;
    EXPECT_FALSE(lazy->ids_in_range()) << cut;
    EXPECT_EQ(run(*lazy, b), run(*eager, b)) << cut;
    const bool fits = b.size() <= left && norm_size(b) <= left;
    EXPECT_EQ(lazy->ids_in_range(), !fits) << cut;
    built += !fits;
  }
  EXPECT_GT(built, 10u);
  EXPECT_LT(built, 50u);
}

TEST(ugm_lazy, the_loaders_model_gives_the_eager_models_ids) {
  // gguf::vocab::load builds the lazy model: short texts (the plain forms), then a text
  // past its budget (ugm_plain_bytes), then short texts again (the tables), each against
  // the model built up front.
  GGUF_REQUIRE_DATA();
  for (const char* file : {small_file, large_file}) {
    auto lv = models::load(gguf::test::data_file(file));
    ASSERT_TRUE(lv);
    const auto eager = make_ugm(lv->data);
    auto f = gguf::file::open(gguf::test::data_file(file));
    ASSERT_TRUE(f);
    auto voc = gguf::vocab::load(*f);
    ASSERT_TRUE(voc) << voc.error().message();
    const auto ids = [&](std::string_view text) {
      auto r = voc->tokenize(text, /*add_special=*/false);
      EXPECT_TRUE(r);
      return r ? *r : std::vector<int32_t>{};
    };
    std::string long_text;
    while (long_text.size() <= ugm_plain_bytes(lv->data.tokens.size())) long_text += "Hello, world! \xE6\x9D\xB1\xE4\xBA\xAC\xEF\xBC\x8C\xEF\xBD\x86\xEF\xBD\x95\xEF\xBD\x8C\xEF\xBD\x8C\xEF\xBC\x8D\xEF\xBD\x97\xEF\xBD\x89\xEF\xBD\x84\xEF\xBD\x94\xEF\xBD\x88 \xEF\xAC\x81 e\xCC\x81. ";
    const std::string shorts[] = {"Hello", "", " ", "\xE6\x9D\xB1", "\xEF\xBC\x8C", "Hello world", std::string("a\0b", 3), "\xFF"};
    for (int pass = 0; pass < 2; ++pass) {
      for (const std::string& s : shorts) EXPECT_EQ(ids(s), run(*eager, s)) << file << " pass " << pass << " [" << s << "]";
      EXPECT_EQ(ids(long_text), run(*eager, long_text)) << file << " pass " << pass;
    }
  }
}

TEST(ugm_lazy, tables_built_once_under_concurrent_first_calls) {
  // Four threads make their first calls at once on fresh lazy models, with budgets from
  // none (every thread wants the tables) to more than all their text (none does).
  GGUF_REQUIRE_DATA();
  auto lv = models::load(gguf::test::data_file(small_file));
  ASSERT_TRUE(lv);
  const auto eager = make_ugm(lv->data);
  const std::string text = "Hello, World! \xC3\x9Cn\xC3\xAF" "c\xC3\xB6" "d\xC3\xA9 fa\xC3\xA7" "ade \xE6\x9D\xB1\xE4\xBA\xAC\xEF\xBC\x8C\xEF\xBD\x86\xEF\xBD\x95\xEF\xBD\x8C\xEF\xBD\x8C the tokenizer \xF0\x9F\x98\x80 e\xCC\x81";
  const auto want = run(*eager, text);
  ASSERT_GT(want.size(), 10u);
  for (int round = 0; round < 20; ++round) {
    const auto lazy = make_ugm(lv->data, true, true, true, size_t(round) * text.size() / 4);
    std::vector<std::vector<int32_t>> got(4);
    std::vector<std::thread> threads;
    for (size_t t = 0; t < got.size(); ++t)
      threads.emplace_back([&, t] {
        for (int k = 0; k < 3; ++k) got[t] = run(*lazy, text);
      });
    for (auto& th : threads) th.join();
    for (const auto& g : got) ASSERT_EQ(g, want) << "round " << round;
  }
}
