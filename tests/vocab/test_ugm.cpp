// UGM model: llama.cpp's token ids on tokenizer-vectors/{ugm-sp-test,nomic-bert-moe}.jsonl
// and nomic-bert-moe's .inp/.out pair; the Viterbi and whitespace rules on tiny
// vocabularies; hostile precompiled_charsmap blobs.
#include <gtest/gtest.h>

#include <random>

#include "gguf/vocab.h"
#include "model_vectors.h"
#include "vocab/models/ugm_automaton.h"
#include "vocab/normalizer/ugm_charsmap.h"

using namespace gguf::vocab_detail;
namespace models = gguf::test::models;

namespace {
// A UGM vocabulary of <unk> (id 0, score 0, the unknown token) and then `toks` (ids 1, 2, ...).
vocab_data tiny_vocab(std::initializer_list<std::tuple<const char*, float, token_type>> toks) {
  vocab_data v;
  v.type = vocab_type::ugm;
  v.tokens.push_back({"<unk>", 0, token_type::unknown});
  for (const auto& [t, s, k] : toks) v.tokens.push_back({t, s, k});
  v.unk = 0;
  return v;
}
using gguf::test::models::run;
}  // namespace

TEST(ugm_model, viterbi_prefers_the_best_total_score) {
  // "▁ab": candidates ▁ab (-5) vs ▁a + b (-1 + -1 = -2): the split wins.
  auto v = tiny_vocab({{"\xE2\x96\x81" "ab", -5, token_type::normal},
                       {"\xE2\x96\x81" "a", -1, token_type::normal},
                       {"b", -1, token_type::normal},
                       {"\xE2\x96\x81", -3, token_type::normal}});
  v.add_space_prefix = true;
  auto m = make_ugm(v);
  EXPECT_EQ(run(*m, "ab"), (std::vector<int32_t>{2, 3}));
  // Unknown code points cost min score (-5) - 10 each; a run of them is one unknown.
  EXPECT_EQ(run(*m, "axyb"), (std::vector<int32_t>{2, 0, 3}));
  // Without add_space_prefix the text starts with "a", which no token covers alone.
  v.add_space_prefix = false;
  auto m2 = make_ugm(v);
  EXPECT_EQ(run(*m2, "ab"), (std::vector<int32_t>{0, 3}));
  EXPECT_TRUE(run(*m2, "").empty());
}

TEST(ugm_model, unknown_penalty_is_min_score_minus_10) {
  // "xyz": xy + z = -20; unk(x) + yz = (min -10) - 10 - 1 = -21. With a smaller
  // penalty the unknown path would win.
  auto v = tiny_vocab({{"xy", -10, token_type::normal},
                       {"z", -10, token_type::normal},
                       {"yz", -1, token_type::normal}});
  EXPECT_EQ(run(*make_ugm(v), "xyz"), (std::vector<int32_t>{1, 2}));
  v.tokens.mut(3).score = 0.5f;  // now unk(x) + yz = -19.5 beats -20
  EXPECT_EQ(run(*make_ugm(v), "xyz"), (std::vector<int32_t>{0, 3}));
}

TEST(ugm_model, whitespace_flags) {
  auto v = tiny_vocab({{"\xE2\x96\x81", -1, token_type::normal},
                       {"a", -1, token_type::normal},
                       {" ", -1, token_type::normal}});
  v.add_space_prefix = true;
  v.remove_extra_whitespaces = true;
  // Runs of spaces collapse to one U+2581 before each word, trailing spaces vanish.
  EXPECT_EQ(run(*make_ugm(v), "  a   a  "), (std::vector<int32_t>{1, 2, 1, 2}));
  v.remove_extra_whitespaces = false;
  // Every space is kept (as U+2581), plus the prefix before the first word.
  EXPECT_EQ(run(*make_ugm(v), " a  a"), (std::vector<int32_t>{1, 1, 2, 1, 1, 2}));
  v.escape_whitespaces = false;
  EXPECT_EQ(run(*make_ugm(v), "a a"), (std::vector<int32_t>{3, 2, 3, 2}));
  v.escape_whitespaces = true;
  v.treat_whitespace_as_suffix = true;
  EXPECT_EQ(run(*make_ugm(v), "a"), (std::vector<int32_t>{2, 1}));
}

TEST(ugm_model, user_defined_tokens_score_zero_and_pass_normalization) {
  auto v = tiny_vocab({{"x", -1, token_type::normal},
                       {"y", -1, token_type::normal},
                       {"xy", -100, token_type::user_defined}});
  auto m = make_ugm(v);
  EXPECT_EQ(run(*m, "xy"), (std::vector<int32_t>{3}));  // 0 beats -2
  EXPECT_EQ(run(*m, "yx"), (std::vector<int32_t>{2, 1}));
}

TEST(ugm_model, word_by_word_viterbi_and_cache_equal_one_viterbi_per_fragment) {
  // Random vocabularies over a few pieces, with scores that tie often, with one score so
  // large that sums after it are inexact (the cache must stay off), tiny ones (a low
  // exactness bound) or ordinary ones, and
  // sometimes a token holding U+2581 inside (no cut is safe then); random texts with
  // long words, unknown code points and a cut UTF-8 sequence (as a user-defined token it
  // passes unchanged: a word's normalized form then ends inside a sequence). Each text
  // runs twice (the second hits the cache).
  static const char* const pieces[] = {"\xE2\x96\x81", "\xE2\x96\x81" "a", "\xE2\x96\x81" "ab", "a", "b", "ab", "ba",
                                       "abc", "c", "\xC3\xA9", "a\xC3\xA9", "\xE2\x96\x81\xC3\xA9", "bb",
                                       "\xE2\x96\x81" "c", "cab", "\xE2\x96\x81\xE2\x96\x81", "\xE2\x96", "b a", "a\xE2\x96\x81" "b"};
  static const char* const chars[] = {"a", "b", "c", " ", " ", "\xC3\xA9", "x", "\xE2\x96\x81", "\xF0\x9F\x98\x80", "\xE2\x96"};
  std::mt19937 rng(42);
  for (int round = 0; round < 300; ++round) {
    vocab_data v;
    v.type = vocab_type::ugm;
    v.unk = 0;
    v.tokens.push_back({"<unk>", 0, token_type::unknown});
    const int kind = round % 4;
    const size_t n_pieces = std::size(pieces) - (round % 5 == 0 ? 0 : 1);  // the last holds U+2581 inside
    for (size_t i = 0; i < n_pieces; ++i) {
      if (rng() % 4 == 0) continue;
      float score = -float(1 + rng() % 4);
      if (kind == 2) score *= 1e-7f;
      if (kind == 3) score -= float(rng() % 1000) / 997.0f;
      const token_type t = rng() % 9 == 0 ? token_type::user_defined : rng() % 9 == 0 ? token_type::unused : token_type::normal;
      v.tokens.push_back({pieces[i], score, t});
    }
    // "x" at -1e20: after it every sum is -1e20 and the words' comparisons all tie
    if (kind == 1) v.tokens.push_back({"x", -1e20f, token_type::normal});
    v.add_space_prefix = rng() % 4 != 0;
    v.remove_extra_whitespaces = rng() % 2 == 0;
    v.escape_whitespaces = rng() % 6 != 0;
    const auto fast = make_ugm(v), reference = make_ugm(v, false, false);
    for (int t = 0; t < 20; ++t) {
      std::string text;
      const size_t len = rng() % (t % 5 == 0 ? 200 : 30);
      for (size_t k = 0; k < len; ++k) text += chars[rng() % std::size(chars)];
      const auto want = run(*reference, text);
      ASSERT_EQ(run(*fast, text), want) << "round " << round << " text '" << text << "'";
      ASSERT_EQ(run(*fast, text), want) << "round " << round << " (cached) text '" << text << "'";
    }
  }
}

TEST(ugm_charsmap, hostile_blobs_do_not_crash) {
  auto bytes = [](std::initializer_list<int> b) {
    std::vector<std::byte> v;
    for (int x : b) v.push_back(static_cast<std::byte>(x));
    return v;
  };
  const auto short_blob = bytes({1, 0});
  EXPECT_TRUE(ugm_charsmap(short_blob).malformed());
  const auto too_long = bytes({0xff, 0xff, 0xff, 0x7f, 0, 0, 0, 0});
  EXPECT_TRUE(ugm_charsmap(too_long).malformed());
  EXPECT_EQ(ugm_charsmap(too_long).longest_prefix("abc", 0).consumed, 0u);
  // A trie whose root BASE points far outside the array, and one whose leaf points to
  // an unterminated replacement: no match, no out-of-bounds read.
  const auto far = bytes({4, 0, 0, 0, 0x00, 0xfc, 0xff, 0x7f});
  EXPECT_FALSE(ugm_charsmap(far).malformed());
  EXPECT_EQ(ugm_charsmap(far).longest_prefix("abc", 0).consumed, 0u);

  std::mt19937 rng(1234);
  for (int round = 0; round < 2000; ++round) {
    std::vector<std::byte> blob(4 + rng() % 64);
    for (auto& b : blob) b = static_cast<std::byte>(rng());
    const uint32_t xsize = rng() % (blob.size() - 3);
    for (int k = 0; k < 4; ++k) blob[k] = static_cast<std::byte>((xsize >> (8 * k)) & 0xff);
    ugm_charsmap cm(blob);
    std::string text(8, '\0');
    for (auto& c : text) c = static_cast<char>(rng() % 4 == 0 ? rng() : 'a' + rng() % 3);
    for (size_t p = 0; p < text.size(); ++p) {
      auto mres = cm.longest_prefix(text, p);
      ASSERT_LE(mres.consumed, text.size() - p);
      if (mres.consumed) {
        ASSERT_GE(mres.replacement.data(), reinterpret_cast<const char*>(blob.data()));
        ASSERT_LE(mres.replacement.data() + mres.replacement.size(),
                  reinterpret_cast<const char*>(blob.data()) + blob.size());
      }
    }
    // A whole model over the hostile blob must also stay in bounds.
    auto v = tiny_vocab({{"a", -1, token_type::normal}});
    v.precompiled_charsmap = blob;
    std::vector<int32_t> out;
    make_ugm(v)->run(text, true, out);
  }
}

TEST(ugm_charsmap, third_byte_filter_agrees_with_the_walk) {
  // surely_unmapped(c0, c1, c2) says "nothing maps here" for most code points of a block
  // that holds a mapped one; wherever it says so, the walk of the real charsmaps must find
  // no match, whatever follows (the end of the text, continuation bytes, a combining mark,
  // another code point).
  GGUF_REQUIRE_DATA();
  static const std::string_view tails[] = {"", "\x80", "\xBF", "a", "\xCC\x81", "\xE3\x80\x80", "\xE0\xA5\x8D"};
  for (const char* file : {"vocab/ugm-sp-test.gguf", "vocab/ggml-vocab-nomic-bert-moe.gguf"}) {
    auto lv = models::load(gguf::test::data_file(file));
    ASSERT_TRUE(lv);
    const ugm_charsmap cm(lv->data.precompiled_charsmap);
    size_t gained = 0;  // code points only the third byte tells unmapped
    for (uint32_t c0 = 0xC2; c0 <= 0xF4; ++c0) {
      for (uint32_t c1 = 0x80; c1 <= 0xBF; ++c1) {
        // c2 = 0 stands for the end of the text
        if (cm.surely_unmapped(uint8_t(c0), uint8_t(c1), 0)) {
          const std::string two{char(c0), char(c1)};
          ASSERT_EQ(cm.longest_prefix(two, 0).consumed, 0u) << file << " " << c0 << " " << c1 << " at the end";
        }
        for (uint32_t c2 = 1; c2 < 256; ++c2) {
          if (!cm.surely_unmapped(uint8_t(c0), uint8_t(c1), uint8_t(c2))) continue;
          gained += !cm.surely_unmapped(uint8_t(c0), uint8_t(c1));
          for (const std::string_view tail : tails) {
            std::string text{char(c0), char(c1), char(c2)};
            text += tail;
            ASSERT_EQ(cm.longest_prefix(text, 0).consumed, 0u) << file << " " << c0 << " " << c1 << " " << c2;
          }
        }
      }
    }
    EXPECT_GT(gained, 10000u) << file;  // (Cyrillic, Devanagari, ... in blocks with a mapped code point)
  }
}

TEST(ugm_model, word_by_word_equals_one_viterbi_with_real_charsmaps) {
  // The real vocabularies' charsmaps (NFKC-like: compositions, width folding, spaces
  // mapped) on random texts of characters they map, combine or leave alone, spaces
  // among them, and invalid bytes; each text three times (then from the cache).
  GGUF_REQUIRE_DATA();
  static const char* const chars[] = {"a", "e", "Z", "1", " ", " ", "  ", "\t", "\n", "\xCC\x81", "\xC2\xA0",
                                      "\xE3\x80\x80", "\xEF\xBC\xA1", "\xEF\xBD\xB6", "\xE2\x96\x81", "\xFF",
                                      "\xE2\x96", "\xE2\x84\xAB", "\xEF\xAC\x81", "\xE3\x8D\xBB", "\xD0\xB8\xCC\x86",
                                      "\xE0\xA4\x95\xE0\xA5\x8D", "\xF0\x9F\x98\x80", "<s>", "\x00",
                                      "\xE6\x9D\xB1", "\xE4\xBA\xAC", "\xEF\xBC\x8C", "\xEF\xBC\x9A"};
  // (CJK with full-width punctuation: a raw word's dense Viterbi stops at the "，" and goes
  // on over the normalized rest, ugm.cpp's plain_word_viterbi)
  for (const char* file : {"vocab/ugm-sp-test.gguf", "vocab/ggml-vocab-nomic-bert-moe.gguf"}) {
    auto lv = models::load(gguf::test::data_file(file));
    ASSERT_TRUE(lv);
    const auto fast = make_ugm(lv->data), reference = make_ugm(lv->data, false, false);
    std::mt19937 rng(99);
    for (int t = 0; t < 400; ++t) {
      std::string text;
      const size_t len = rng() % (t % 10 == 0 ? 120 : 16);
      for (size_t k = 0; k < len; ++k) text += chars[rng() % std::size(chars)];
      const auto want = run(*reference, text);
      for (int pass = 0; pass < 3; ++pass) ASSERT_EQ(run(*fast, text), want) << file << " text #" << t << " pass " << pass << " [" << testing::PrintToString(text) << "]";
    }
  }
}

TEST(ugm_model, two_vocabularies_on_one_thread_never_share_cached_words) {
  // A thread's word caches are emptied and reused when another vocabulary tokenizes
  // (thread_scratch.h): alternating two vocabularies over the same words, each answer is
  // its own vocabulary's (the uncached one-Viterbi-per-fragment model's).
  GGUF_REQUIRE_DATA();
  auto a = models::load(gguf::test::data_file("vocab/ugm-sp-test.gguf"));
  auto b = models::load(gguf::test::data_file("vocab/ggml-vocab-nomic-bert-moe.gguf"));
  ASSERT_TRUE(a && b);
  const auto fast_a = make_ugm(a->data), fast_b = make_ugm(b->data);
  const auto ref_a = make_ugm(a->data, false, false), ref_b = make_ugm(b->data, false, false);
  const std::string text = "the tokenizer of the model tokenizes the text, Ёлка и ёж; 東京 the model";
  const auto want_a = run(*ref_a, text), want_b = run(*ref_b, text);
  ASSERT_NE(want_a, want_b);
  for (int round = 0; round < 3; ++round) {
    EXPECT_EQ(run(*fast_a, text), want_a) << round;
    EXPECT_EQ(run(*fast_b, text), want_b) << round;
  }
  // a vocabulary freed and another loaded in its place starts empty as well
  for (int round = 0; round < 2; ++round) {
    const auto again = make_ugm(round ? a->data : b->data);
    EXPECT_EQ(run(*again, text), round ? want_a : want_b) << round;
  }
}

TEST(ugm_model, matches_llama_cpp_vectors_ugm_sp_test) {
  GGUF_REQUIRE_DATA();
  auto lv = models::load(gguf::test::data_file("vocab/ugm-sp-test.gguf"));
  ASSERT_TRUE(lv);
  EXPECT_FALSE(ugm_charsmap(lv->data.precompiled_charsmap).malformed());
  models::expect_vectors("vocab/ugm-sp-test.gguf", "ugm-sp-test", [](const auto& d) { return make_ugm(d); });
}

TEST(ugm_model, matches_llama_cpp_vectors_nomic_bert_moe) {
  GGUF_REQUIRE_DATA();
  models::expect_vectors("vocab/ggml-vocab-nomic-bert-moe.gguf", "nomic-bert-moe",
                         [](const auto& d) { return make_ugm(d); });
}

TEST(ugm_model, matches_llama_cpp_test_tokenizer_0_nomic_bert_moe) {
  GGUF_REQUIRE_DATA();
  models::expect_inp_out("vocab/ggml-vocab-nomic-bert-moe.gguf", "nomic-bert-moe",
                         [](const auto& d) { return make_ugm(d); });
}

TEST(ugm_model, special_tokens_in_a_long_text_split_it_as_in_a_short_one) {
  // Texts of 1 KiB and more take the partition's quick scan for special tokens (one
  // first byte here, '<': memchr); the ids must be those of the pieces between them.
  GGUF_REQUIRE_DATA();
  auto f = gguf::file::open(gguf::test::data_file("vocab/ugm-sp-test.gguf"));
  ASSERT_TRUE(f);
  auto v = gguf::vocab::load(*f);
  ASSERT_TRUE(v);
  std::string filler;
  while (filler.size() < 1500) filler += "Hello world, \xE4\xBD\xA0\xE5\xA5\xBD 12345 ~x\n";
  for (const char* sp : {"<s>", "</s>"}) {
    const int32_t id = v->find(sp);
    ASSERT_GE(id, 0) << sp;
    const auto part = v->tokenize(filler, false, true);
    ASSERT_TRUE(part);
    std::vector<int32_t> want = *part;
    want.push_back(id);
    want.insert(want.end(), part->begin(), part->end());
    want.push_back(id);
    const auto got = v->tokenize(filler + sp + filler + sp, false, true);
    ASSERT_TRUE(got);
    EXPECT_EQ(*got, want) << sp;
  }
}

TEST(ugm_model, raw_words_end_at_bytes_mapped_alone_to_spaces_unless_something_reads_across) {
  // nomic-bert-moe's charsmap maps '\n', '\t' and '\r' alone to a space: raw words end
  // there too, unless a user-defined token holds such a byte past its first (then a word
  // would cut it) or starts with one (then it is no space). ugm-sp-test's charsmap leaves
  // them alone (raw words run across them), NBSP and EM SPACE map to a space. Each
  // vocabulary against one Viterbi per fragment, each text twice (then from the cache).
  GGUF_REQUIRE_DATA();
  static const char* const chars[] = {"x",  "y", "z",      "ab",         "\n",          "\t",
                                      "\r", " ", "\r\n", "\xC3\xA9", "\xE2\x80\x83", "\xC2\xA0"};
  struct variant {
    const char* extra;
    token_type type;
  };
  for (const char* file : {"vocab/ggml-vocab-nomic-bert-moe.gguf", "vocab/ugm-sp-test.gguf"}) {
    auto lv = models::load(gguf::test::data_file(file));
    ASSERT_TRUE(lv);
    for (const variant x : {variant{"", token_type::normal}, variant{"x\ny", token_type::user_defined},
                            variant{"\tz", token_type::user_defined}, variant{"y\r", token_type::user_defined},
                            variant{"x\ny", token_type::normal}}) {
      vocab_data& v = lv->data;
      if (*x.extra) v.tokens.push_back({x.extra, -1.0f, x.type});
      const auto fast = make_ugm(v), reference = make_ugm(v, false, false);
      if (*x.extra) v.tokens.pop_back();
      std::mt19937 rng(7);
      for (int t = 0; t < 300; ++t) {
        std::string text;
        const size_t len = 1 + rng() % 12;
        for (size_t k = 0; k < len; ++k) text += chars[rng() % std::size(chars)];
        const auto want = run(*reference, text);
        for (int pass = 0; pass < 2; ++pass)
          ASSERT_EQ(run(*fast, text), want) << file << " extra " << testing::PrintToString(std::string(x.extra))
                                            << " text " << testing::PrintToString(text) << " pass " << pass;
      }
    }
  }
}

namespace {
// The candidate tokens' trie of a vocabulary, as ugm.cpp builds it.
byte_trie candidate_trie(const vocab_data& v) {
  return byte_trie(v.tokens.size(), [&](size_t id) {
    const token_data& t = v.tokens[id];
    const bool candidate =
        t.type == token_type::normal || t.type == token_type::user_defined || t.type == token_type::unused;
    return byte_trie::entry{candidate ? t.text : std::string_view(), static_cast<int32_t>(id)};
  });
}
}  // namespace

TEST(ugm_automaton, outputs_are_the_tokens_ending_there_longest_first) {
  // After reading any bytes from the root, a state's outputs are exactly the tokens that
  // are suffixes of what was read, longest first, with their lengths and scores. Tokens
  // include a prefix chain (a, aa, aaa), ones starting with a UTF-8 continuation byte and
  // a cut sequence; texts hold bytes no token has.
  vocab_data v;
  const char* const toks[] = {"a", "aa", "aaa", "ab", "b", "bab", "\xC3\xA9", "\xA9" "a", "\xE2\x96", "\xE2\x96\x81" "a", "ca"};
  for (const char* t : toks) v.tokens.push_back({t, -float(v.tokens.size() + 1), token_type::normal});
  const byte_trie trie = candidate_trie(v);
  const auto dense = ugm_automaton::build(trie, [&](int32_t id) { return double(v.tokens[size_t(id)].score); });
  ASSERT_TRUE(dense);
  static const char bytes[] = {'a', 'b', 'c', 'x', '\xC3', '\xA9', '\xE2', '\x96', '\x81'};
  std::mt19937 rng(7);
  for (int t = 0; t < 2000; ++t) {
    std::string text;
    uint32_t state = 0;
    const size_t len = 1 + rng() % 12;
    for (size_t k = 0; k < len; ++k) {
      text += bytes[rng() % std::size(bytes)];
      state = dense.step(state, uint8_t(text.back()));
      std::vector<std::pair<uint32_t, int32_t>> want;  // (length, id), longest first
      for (size_t id = 0; id < v.tokens.size(); ++id) {
        const std::string_view tok = v.tokens[id].text;
        if (tok.size() <= text.size() && text.compare(text.size() - tok.size(), tok.size(), tok) == 0)
          want.push_back({uint32_t(tok.size()), int32_t(id)});
      }
      std::sort(want.begin(), want.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
      std::vector<std::pair<uint32_t, int32_t>> got;
      for (const auto& o : dense.outputs(state)) {
        got.push_back({o.len, o.id});
        EXPECT_EQ(o.score, double(v.tokens[size_t(o.id)].score));
      }
      ASSERT_EQ(got, want) << testing::PrintToString(text);
    }
  }
}

TEST(ugm_automaton, a_dead_code_point_leads_every_state_to_the_silent_root) {
  // dead(): the code point's first byte is in no token and no token starts with a byte
  // after it; then from every state its bytes lead to the root, which has no output.
  vocab_data v;
  const char* const toks[] = {"a", "ab", "\xC3\xA9", "\xA9" "a", "\xE2\x96\x81", "\xE2\x96\x81" "a"};
  for (const char* t : toks) v.tokens.push_back({t, -1.0f, token_type::normal});
  const auto dense = ugm_automaton::build(candidate_trie(v), [](int32_t) { return -1.0; });
  ASSERT_TRUE(dense);
  const auto dead = [&](std::string_view cp) { return dense.dead(reinterpret_cast<const uint8_t*>(cp.data()), cp.size()); };
  EXPECT_TRUE(dead("x"));
  EXPECT_TRUE(dead("\xE7\x9A\x84"));         // (no token holds 0xE7; none starts with 0x9A or 0x84)
  EXPECT_FALSE(dead("a"));                   // a token
  EXPECT_FALSE(dead("\xC3\xA9"));             // a token
  EXPECT_FALSE(dead("\xE7\xA9"));             // 0xA9 starts a token
  EXPECT_FALSE(dead("\xE2\x82\xAC"));        // 0xE2 is in a token
  EXPECT_TRUE(dense.outputs(0).empty());
  for (const std::string_view cp : {std::string_view("x"), std::string_view("\xE7\x9A\x84")})
    for (const std::string_view t : toks)
      for (size_t len = 0; len <= t.size(); ++len) {  // from every state a token's prefix reaches
        uint32_t state = 0;
        for (const char c : t.substr(0, len)) state = dense.step(state, uint8_t(c));
        for (const char c : cp) state = dense.step(state, uint8_t(c));
        EXPECT_EQ(state, 0u) << testing::PrintToString(std::string(t.substr(0, len)));
      }
}

TEST(ugm_automaton, built_for_small_vocabularies_only) {
  GGUF_REQUIRE_DATA();
  auto small = models::load(gguf::test::data_file("vocab/ugm-sp-test.gguf"));
  auto large = models::load(gguf::test::data_file("vocab/ggml-vocab-nomic-bert-moe.gguf"));
  ASSERT_TRUE(small && large);
  const auto score = [](int32_t) { return 0.0; };
  const auto dense = ugm_automaton::build(candidate_trie(small->data), score);
  ASSERT_TRUE(dense);  // (else the Viterbi tests below would not reach the dense form)
  EXPECT_LE(dense.memory_bytes(), 2 * ugm_automaton::max_table_bytes);
  EXPECT_FALSE(ugm_automaton::build(candidate_trie(large->data), score));  // 250k tokens
}

TEST(ugm_model, ids_in_range_only_where_the_model_proves_it) {
  // With the automaton the ids are its outputs' (checked at build) or the unknown
  // token's; vocab::impl::tokenize_into then skips its pass over the ids. Without an
  // unknown token, or without the automaton (a large vocabulary, or the trie walk),
  // nothing is proven and every id is checked.
  vocab_data v = tiny_vocab({{"a", -1, token_type::normal}, {"\xE2\x96\x81", -2, token_type::normal}});
  EXPECT_TRUE(make_ugm(v)->ids_in_range());
  EXPECT_FALSE(make_ugm(v, true, false)->ids_in_range());
  v.unk = -1;
  EXPECT_FALSE(make_ugm(v)->ids_in_range());
  v.unk = 3;  // (past the last token)
  EXPECT_FALSE(make_ugm(v)->ids_in_range());
  GGUF_REQUIRE_DATA();
  auto small = models::load(gguf::test::data_file("vocab/ugm-sp-test.gguf"));
  auto large = models::load(gguf::test::data_file("vocab/ggml-vocab-nomic-bert-moe.gguf"));
  ASSERT_TRUE(small && large);
  EXPECT_TRUE(make_ugm(small->data)->ids_in_range());
  EXPECT_FALSE(make_ugm(large->data)->ids_in_range());
}

TEST(ugm_model, dense_viterbi_equals_the_trie_walk) {
  // The pull-form Viterbi over the automaton against the trie walk, word by word and one
  // Viterbi per fragment: random vocabularies whose scores tie often (the first of equal
  // candidates must win), with tokens starting inside a UTF-8 sequence, a cut sequence, and
  // texts with stray continuation bytes, cut sequences, 4-byte code points and code points
  // no token holds. Then ugm-sp-test's real vocabulary on random texts.
  static const char* const pieces[] = {"\xE2\x96\x81", "\xE2\x96\x81" "a", "a", "b", "ab", "ba", "aba", "bab",
                                       "\xC3\xA9", "a\xC3\xA9", "\xA9", "\xA9" "a", "\x81" "b", "\xE2\x96",
                                       "\xF0\x9F\x98\x80", "\x98\x80", "bb", "\xE2\x96\x81" "b" "a"};
  static const char* const chars[] = {"a", "b", "a", "b", " ", "\xC3\xA9", "x", "\xE2\x96\x81", "\xF0\x9F\x98\x80",
                                      "\xE2\x96", "\xA9", "\x80", "\xC3", "\xF0\x9F"};
  std::mt19937 rng(1234);
  for (int round = 0; round < 200; ++round) {
    vocab_data v = tiny_vocab({});
    for (const char* p : pieces) {
      if (rng() % 5 == 0) continue;
      const float score = round % 2 ? -float(1 + rng() % 3) : -float(rng() % 1000) / 101.0f;
      const token_type t = rng() % 9 == 0 ? token_type::user_defined : token_type::normal;
      v.tokens.push_back({p, score, t});
    }
    v.add_space_prefix = rng() % 4 != 0;
    v.remove_extra_whitespaces = rng() % 2 == 0;
    for (const bool word_by_word : {true, false}) {
      const auto dense = make_ugm(v, word_by_word, true), walk = make_ugm(v, word_by_word, false);
      for (int t = 0; t < 20; ++t) {
        std::string text;
        const size_t len = rng() % (t % 5 == 0 ? 150 : 25);
        for (size_t k = 0; k < len; ++k) text += chars[rng() % std::size(chars)];
        ASSERT_EQ(run(*dense, text), run(*walk, text)) << "round " << round << " [" << testing::PrintToString(text) << "]";
      }
    }
  }
  GGUF_REQUIRE_DATA();
  auto lv = models::load(gguf::test::data_file("vocab/ugm-sp-test.gguf"));
  ASSERT_TRUE(lv);
  const auto dense = make_ugm(lv->data, false, true), walk = make_ugm(lv->data, false, false);
  static const char* const words[] = {"the", "tokenizer", "ing", "ed", " ", " ", "\n", ",", ".", "'", "\"", "I",
                                      "\xC3\xA9", "\xE6\x9D\xB1", "\xF0\x9F\x98\x80", "\xFF", "\xE2\x96\x81", "q",
                                      "\xE7\x9A\x84\xE6\x98\xAF", "\xEF\xBC\x8C", "\xE7\x9A"};  // (CJK: dead code points)
  for (int t = 0; t < 500; ++t) {
    std::string text;
    const size_t len = rng() % 40;
    for (size_t k = 0; k < len; ++k) text += words[rng() % std::size(words)];
    ASSERT_EQ(run(*dense, text), run(*walk, text)) << testing::PrintToString(text);
  }
}
