// WPM model: llama.cpp's token ids on tokenizer-vectors/bert-bge.jsonl and bert-bge's
// .inp/.out pair; BERT pre-tokenization and WordPiece rules on a tiny vocabulary.
#include <gtest/gtest.h>

#include <thread>

#include "model_vectors.h"
#include "vocab/unicode/unicode.h"

using namespace gguf::vocab_detail;
namespace models = gguf::test::models;

namespace {
#define W "\xE2\x96\x81"  // U+2581, the word-initial marker
vocab_data tiny_vocab() {
  vocab_data v;
  v.type = vocab_type::wpm;
  for (const char* t : {"[UNK]", W "hello", W "un", "aff", "able", W "!", W "a", "b", W "e", W "你", W ",", W "ab"})
    v.tokens.push_back({t, 0.0f, token_type::normal});
  v.unk = 0;
  return v;
}
using gguf::test::models::run;
}  // namespace

TEST(wpm_model, greedy_longest_pieces_and_unknown_words) {
  auto m = make_wpm(tiny_vocab());
  EXPECT_EQ(run(*m, "Hello"), (std::vector<int32_t>{1}));        // lowercased
  EXPECT_EQ(run(*m, "unaffable"), (std::vector<int32_t>{2, 3, 4}));
  EXPECT_EQ(run(*m, "abb"), (std::vector<int32_t>{11, 7}));       // "▁ab" beats "▁a"
  EXPECT_EQ(run(*m, "unaffablex"), (std::vector<int32_t>{0}));    // any unmatched rest: the word is unknown
  EXPECT_EQ(run(*m, "hello!!"), (std::vector<int32_t>{1, 5, 5})); // punctuation: one-character words
  EXPECT_EQ(run(*m, "  hello\t\n hello  "), (std::vector<int32_t>{1, 1}));
  EXPECT_TRUE(run(*m, "").empty());
  EXPECT_TRUE(run(*m, " \t").empty());
}

TEST(wpm_model, normalization) {
  auto m = make_wpm(tiny_vocab());
  EXPECT_EQ(run(*m, "\xC3\x89"), (std::vector<int32_t>{8}));                 // É -> E -> e
  EXPECT_EQ(run(*m, "e\xCC\x81"), (std::vector<int32_t>{8}));                // combining acute dropped
  EXPECT_EQ(run(*m, "\xE4\xBD\xA0\xE4\xBD\xA0"), (std::vector<int32_t>{9, 9}));  // CJK: one word each
  EXPECT_EQ(run(*m, "a\x01\x7f" "b"), (std::vector<int32_t>{11}));            // controls dropped
  EXPECT_EQ(run(*m, "a\xff" "b"), (std::vector<int32_t>{11}));                // invalid byte dropped
  EXPECT_EQ(run(*m, "a\xE3\x80\x80" "a"), (std::vector<int32_t>{6, 6}));     // U+3000 is white space
  auto v = tiny_vocab();
  v.lowercase = false;
  v.strip_accents = false;
  EXPECT_EQ(run(*make_wpm(v), "Hello"), (std::vector<int32_t>{0}));
  EXPECT_EQ(run(*make_wpm(v), "e\xCC\x81"), (std::vector<int32_t>{0}));
}

TEST(unicode, tables_follow_llama_cpp) {
  namespace u = gguf::vocab_detail;
  EXPECT_TRUE(u::flags_of(' ').is_whitespace());
  EXPECT_TRUE(u::flags_of(0x3000).is_whitespace());
  EXPECT_TRUE(u::flags_of('!').is_punctuation());
  EXPECT_TRUE(u::flags_of('$').is_symbol());
  EXPECT_TRUE(u::flags_of(0x0301).is_accent_mark());
  EXPECT_TRUE(u::flags_of(0xE000).is_control());  // private use is \p{C}
  EXPECT_TRUE(u::flags_of(0x0378).is_undefined());
  EXPECT_TRUE(u::flags_of(0x31EF).is_symbol());   // Unicode 15.1
  EXPECT_EQ(u::flags_of(0x110000).bits, 0);
  EXPECT_EQ(u::to_lower('A'), uint32_t('a'));
  EXPECT_EQ(u::to_lower(0x0130), 0x0069u);     // İ -> i (simple mapping)
  EXPECT_EQ(u::to_nfd(0x00C5), 0x0041u);
  EXPECT_EQ(u::to_nfd(0xAC00), 0x1100u);    // Hangul syllable -> leading jamo
  EXPECT_EQ(u::to_nfd('a'), uint32_t('a'));
}

TEST(unicode, strict_and_lenient_decoders) {
  namespace u = gguf::vocab_detail;
  uint32_t c = 0;
  EXPECT_EQ(u::utf8_decode_strict("\xC3\xA9", 0, c), 2u);
  EXPECT_EQ(c, 0xE9u);
  EXPECT_EQ(u::utf8_decode_strict("\xF0\x9F\x98\x80", 0, c), 4u);
  EXPECT_EQ(c, 0x1F600u);
  EXPECT_EQ(u::utf8_decode_strict("\xC3", 0, c), 0u);     // truncated
  EXPECT_EQ(u::utf8_decode_strict("\x80", 0, c), 0u);     // stray continuation byte
  EXPECT_EQ(u::utf8_decode_strict("\xE2\x28\xA1", 0, c), 0u);  // bad continuation
  EXPECT_EQ(u::utf8_decode_lenient("\xE2\x28\xA1", 0, c), 1u);
  EXPECT_EQ(c, 0xFFFDu);
  EXPECT_EQ(u::utf8_decode_lenient("a", 0, c), 1u);
  EXPECT_EQ(c, uint32_t('a'));
  std::vector<uint32_t> cpts;
  u::utf8_to_cpts("a\xFF" "b\xC3\xA9", cpts);
  EXPECT_EQ(cpts, (std::vector<uint32_t>{'a', 0xFFFD, 'b', 0xE9}));
}

TEST(wpm_model, matches_llama_cpp_vectors_bert_bge) {
  GGUF_REQUIRE_DATA();
  models::expect_vectors("vocab/ggml-vocab-bert-bge.gguf", "bert-bge", [](const auto& d) { return make_wpm(d); });
}

TEST(wpm_model, matches_llama_cpp_test_tokenizer_0_bert_bge) {
  GGUF_REQUIRE_DATA();
  models::expect_inp_out("vocab/ggml-vocab-bert-bge.gguf", "bert-bge", [](const auto& d) { return make_wpm(d); });
}

// The loader's lazy model finds the pieces of its first wpm_map_bytes of text through the
// token map, then builds the trie: both ways give llama.cpp's ids on every vector.
TEST(wpm_model, pieces_through_the_token_map_match_llama_cpp_vectors_bert_bge) {
  GGUF_REQUIRE_DATA();
  const auto by_map = [](const auto& d) { return make_wpm(d, /*lazy=*/true, /*map_bytes=*/SIZE_MAX); };
  models::expect_vectors("vocab/ggml-vocab-bert-bge.gguf", "bert-bge", by_map);
  models::expect_inp_out("vocab/ggml-vocab-bert-bge.gguf", "bert-bge", by_map);
  const auto by_trie = [](const auto& d) { return make_wpm(d, /*lazy=*/true, /*map_bytes=*/0); };
  models::expect_vectors("vocab/ggml-vocab-bert-bge.gguf", "bert-bge", by_trie);
  // on the tiny vocabulary too (unknown words, a piece within U+2581's bytes is none)
  const vocab_data tiny = [] {
    vocab_data v = tiny_vocab();
    v.token_to_id.build(v.tokens);
    return v;
  }();
  const auto eager = make_wpm(tiny);
  for (const char* text : {"hello unaffable unknown a! ab, e\xCC\x81 \xE4\xBD\xA0 aab", "", "  ", "zzz hello"})
    EXPECT_EQ(run(*make_wpm(tiny, true, SIZE_MAX), text), run(*eager, text)) << text;
}

TEST(wpm_model, lazy_tables_built_once_under_concurrent_first_calls) {
  // make_wpm(v, true) (the loader's) builds its trie and code point tables at the first
  // normalize/tokenize call. Several threads make that first call at once on fresh
  // models; every one must get the ids of the model built up front.
  GGUF_REQUIRE_DATA();
  auto lv = models::load(gguf::test::data_file("vocab/ggml-vocab-bert-bge.gguf"));
  ASSERT_TRUE(lv);
  const auto eager = make_wpm(lv->data);
  const std::string text =
      "Hello, World! Ünïcödé façade naïve 你好 unaffable [CLS] tokenization,with-punctuation... e\xCC\x81 \xF0\x9F\x98\x80";
  const auto want = run(*eager, text);
  ASSERT_GT(want.size(), 10u);
  for (int round = 0; round < 20; ++round) {
    // budgets from none (every thread wants the trie) to all (every thread uses the map)
    const auto lazy = make_wpm(lv->data, /*lazy=*/true, /*map_bytes=*/round * text.size() / 4);
    std::vector<std::vector<int32_t>> got(4);
    std::vector<std::thread> threads;
    for (size_t t = 0; t < got.size(); ++t) threads.emplace_back([&, t] { got[t] = run(*lazy, text); });
    for (auto& th : threads) th.join();
    for (const auto& g : got) ASSERT_EQ(g, want) << "round " << round;
  }
}
