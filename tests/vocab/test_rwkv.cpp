// RWKV model: llama.cpp's token ids on tokenizer-vectors/rwkv-world.jsonl, the unescaping
// rules of llama_unescape_rwkv_token, and greedy longest match on a tiny vocabulary.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <random>
#include <thread>
#include <vector>

#include "gguf/vocab.h"
#include "model_vectors.h"
#include "vocab/models/rwkv_matcher.h"
#include "vocab/models/rwkv_unescape.h"

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

TEST(rwkv_unescape, word_scan_for_backslashes_equals_memchr) {
  // Texts anywhere in a buffer (the "mapped file"): at its very end (no 8 bytes left: the
  // byte scan), and followed by backslashes that are not theirs (masked off). Without the
  // mask the texts before a backslash count as escaped; without the bound, ASan sees the
  // reads past the buffer.
  std::mt19937 rng(11);
  for (int round = 0; round < 200; ++round) {
    const size_t size = 1 + rng() % 64;
    std::vector<std::byte> file(size);
    for (auto& b : file) b = std::byte(rng() % 4 == 0 ? '\\' : 'a' + rng() % 3);
    const auto* chars = reinterpret_cast<const char*>(file.data());
    for (size_t at = 0; at <= size; ++at)
      for (size_t n = 0; at + n <= size; ++n) {
        const std::string_view t(chars + at, n);
        ASSERT_EQ(rwkv_has_escape(t, file), t.find('\\') != std::string_view::npos) << "round " << round;
        ASSERT_EQ(rwkv_has_escape(t, {}), t.find('\\') != std::string_view::npos);  // outside: byte scan
      }
  }
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

namespace {
// Random vocabularies over a few letters, with tokens holding spaces and newlines, long
// ones, and (by chance) nodes with many edges; texts from the same letters.
vocab_data random_vocab(std::mt19937& rng, bool with_unk) {
  static const char* const pieces[] = {"a", "b", "c", " ", "  ", "   ", " a", " b", " ab", " a b", "a ", "ab", "abc",
                                       "\\n", "\\n ", "\\n  ", " \\n", "\\t", "b c", "ca", "\\xc3\\xa9", "aaaa",
                                       "abcabcabcabcabcabcabc", "cab", "bca", "aab", "aba", "baa", "bbb", "cc"};
  vocab_data v;
  v.type = vocab_type::rwkv;
  v.tokens.push_back({"<unk>", 0.0f, token_type::control});
  v.unk = with_unk ? 0 : -1;
  for (const char* p : pieces)
    if (rng() % 3 != 0) v.tokens.push_back({p, 0.0f, token_type::normal});
  // a node with many edges: "x" followed by up to 40 different bytes
  v.owned_text.reserve(40);  // the views below stay valid
  for (int k = 0, m = int(rng() % 40); k < m; ++k) {
    char t[8];
    std::snprintf(t, sizeof t, "x\\x%02x", unsigned(0x30 + k));
    v.tokens.push_back({std::string_view(v.owned_text.emplace_back(t)), 0.0f, token_type::normal});
  }
  return v;
}

std::string random_text(std::mt19937& rng, size_t len) {
  static const char* const chars[] = {"a", "b", "c", " ", " ", " ", "\n", "\t", "\xC3\xA9", "x", "x1", "xA", "z"};
  std::string text;
  while (text.size() < len) text += chars[rng() % std::size(chars)];
  return text;
}
}  // namespace

TEST(rwkv_model, fast_tables_equal_the_plain_walk) {
  // The double array, its per-cell answers and two-byte table (short texts: one pass)
  // and the lanes (texts of 4096 bytes and more) against one longest-match walk per
  // token through the byte trie.
  std::mt19937 rng(7);
  for (int round = 0; round < 120; ++round) {
    const vocab_data v = random_vocab(rng, round % 4 != 0);
    const auto fast = make_rwkv(v), reference = make_rwkv(v, false);
    for (int t = 0; t < 12; ++t) {
      const size_t len = t % 3 == 0 ? 4096 + rng() % 30000 : rng() % (t % 2 ? 300 : 20);
      const std::string text = random_text(rng, len);
      std::vector<int32_t> want, got;
      reference->tokenize(text, want);
      fast->tokenize(text, got);
      ASSERT_EQ(got, want) << "round " << round << " text of " << text.size() << " bytes";
    }
  }
}

TEST(rwkv_model, fast_tables_equal_the_plain_walk_on_length_then_byte_ordered_vocabularies) {
  // Ordered as RWKV world's vocabulary (by length, then bytes), the build's first levels
  // see long runs of keys with one parent, gathered per run, and a parent comes back in
  // each length's run: its bytes from every run must count, and each run must end where
  // the parent changes. Deeper levels (short runs) take the per-key gather.
  std::mt19937 rng(23);
  const std::string letters = "ab c";
  for (int round = 0; round < 40; ++round) {
    vocab_data v;
    v.type = vocab_type::rwkv;
    v.tokens.push_back({"<unk>", 0.0f, token_type::control});
    v.unk = 0;
    v.owned_text.reserve(2000);  // the views below stay valid
    std::vector<std::string> level = {""};
    for (int len = 1; len <= 5; ++len) {
      std::vector<std::string> next;
      for (const std::string& t : level)
        for (const char c : letters) next.push_back(t + c);
      for (const std::string& t : next)
        if (rng() % 4 != 0 && v.owned_text.size() < 2000)
          v.tokens.push_back({std::string_view(v.owned_text.emplace_back(t)), 0.0f, token_type::normal});
      level = std::move(next);
    }
    const auto fast = make_rwkv(v), reference = make_rwkv(v, false);
    for (int t = 0; t < 8; ++t) {
      std::string text;
      for (size_t len = rng() % (t % 2 ? 6000 : 200); text.size() < len;) text += letters[rng() % letters.size()];
      std::vector<int32_t> want, got;
      reference->tokenize(text, want);
      fast->tokenize(text, got);
      ASSERT_EQ(got, want) << "round " << round << " text of " << text.size() << " bytes";
    }
  }
}

TEST(rwkv_model, lanes_that_never_meet_fall_back_to_one_pass) {
  // With "aa" and "a", greedy from an odd position never shares a token start with greedy
  // from an even one: lanes cut at odd positions can never be joined.
  auto v = tiny_vocab({"<s>", "a", "aa", "b"});
  const auto fast = make_rwkv(v), reference = make_rwkv(v, false);
  for (size_t len : {4096u, 4097u, 4099u, 10001u, 65537u}) {
    for (const std::string& text : {std::string(len, 'a'), std::string(len / 2, 'a') + "b" + std::string(len / 2, 'a')}) {
      std::vector<int32_t> want, got;
      reference->tokenize(text, want);
      fast->tokenize(text, got);
      ASSERT_EQ(got, want) << len;
    }
  }
}

TEST(rwkv_model, tokens_beyond_the_tables_fields_match_through_the_trie) {
  // A token over 255 bytes does not fit the double array's length field: the model
  // matches through the trie then, with the same ids.
  const std::string long_token(300, 'a');
  auto v = tiny_vocab({"<s>", "a", "aa", "b", "\\n", "a\\x62"});  // escaped: "\n", "ab"
  v.tokens.push_back({long_token, 0.0f, token_type::normal});
  const auto fast = make_rwkv(v), reference = make_rwkv(v, false);
  const std::string text = std::string("b").append(301, 'a').append("b\n").append(5000, 'a').append("ab\n");
  std::vector<int32_t> want, got;
  reference->tokenize(text, want);
  fast->tokenize(text, got);
  EXPECT_EQ(got, want);
  EXPECT_EQ(want[1], 6);  // the 300-byte token
  EXPECT_EQ(want.back(), 4);  // "\n"
  EXPECT_EQ(want[want.size() - 2], 5);  // "ab"
}

TEST(rwkv_model, fast_tables_equal_the_plain_walk_on_the_bench_corpus) {
  GGUF_REQUIRE_DATA();
  auto lv = models::load(gguf::test::data_file("vocab/ggml-vocab-rwkv-world.gguf"));
  ASSERT_TRUE(lv);
  std::ifstream in(gguf::test::data_file("corpus/bench.txt"), std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(text.size(), 1000000u);
  std::vector<int32_t> want, got;
  make_rwkv(lv->data, false)->tokenize(text, want);
  make_rwkv(lv->data)->tokenize(text, got);
  ASSERT_EQ(got.size(), want.size());
  EXPECT_TRUE(got == want);
}

TEST(rwkv_matcher, cached_tables_never_lead_a_match_out_of_its_arrays_or_into_a_stall) {
  // What the compiled cache hands back is checked before use: a hand-made double array
  // (the root at 256, its child by 'a' at 300 + 'a', every pair_ entry an answer cell)
  // is taken; forgeries that could send a read out of the arrays or stall the match are
  // refused, one field at a time.
  using cell = rwkv_matcher::cell;
  constexpr uint32_t free_cell = UINT32_MAX, root = 256, answer = 1000;
  std::vector<cell> cells(1024, cell{0, free_cell});
  cells[root] = {300, root};
  cells[300 + 'a'] = {0, root};
  std::vector<uint32_t> best(cells.size(), 0u | (1u << 24)), pair(65536, answer);
  const auto take = [&](uint32_t max_depth) {
    rwkv_matcher m;
    return m.view(cells, best, pair, root, max_depth);
  };
  ASSERT_TRUE(take(1));
  const auto refused = [&](const char* what, auto forge) {
    const auto c0 = cells;
    const auto b0 = best;
    const auto p0 = pair;
    forge();
    EXPECT_FALSE(take(1)) << what;
    cells = c0, best = b0, pair = p0;
    EXPECT_TRUE(take(1));
  };
  refused("a base past the end", [&] { cells[root].base = 1024 - 255; });
  refused("an answer of length 0 (no progress)", [&] { best[7] = 5; });
  refused("an answer longer than max_depth", [&] { best[7] = 5 | (2u << 24); });
  refused("a pair entry past the end", [&] { pair[123] = 5000; });

  // A loop is not looked for (that would cost a walk over every cell): walks are bounded
  // by max_depth instead, so a table whose cells 397 and 497 are each other's child by
  // 'a' still ends, in one pass and in lanes, with one id per byte at most.
  cells[397] = {400, 497};
  cells[497] = {300, 397};
  pair['a' | ('a' << 8)] = 397;
  rwkv_matcher m;
  ASSERT_TRUE(m.view(cells, best, pair, root, 3));
  for (size_t len : {100u, 10000u}) {
    std::vector<int32_t> out;
    m.tokenize(std::string(len, 'a'), out);
    EXPECT_GE(out.size(), 1u);
    EXPECT_LE(out.size(), len);
  }
}

TEST(rwkv_model, matches_llama_cpp_vectors) {
  GGUF_REQUIRE_DATA();
  models::expect_vectors("vocab/ggml-vocab-rwkv-world.gguf", "rwkv-world", [](const auto& d) { return make_rwkv(d); });
}

TEST(rwkv_model, lazy_tables_give_the_same_ids_before_during_and_after_their_build) {
  // The loader's lazy model answers one-byte texts from its one-pass table until a longer
  // text builds the matcher; then from the matcher. Against the eager model: every byte
  // before and after the build, and texts of 2..40 bytes; the one-byte table includes
  // escaped texts (\n, \xHH, a dropped unfinished escape) and an equal later text wins.
  vocab_data v;
  v.type = vocab_type::rwkv;
  v.unk = 0;
  for (const char* t : {"<unk>", "a", "\\n", "ab", "\\x41", "b\\x4", "\\\\", "c", "\\t", "c", "abc", "\\x0a\\"})
    v.tokens.push_back({t, 0.0f, token_type::normal});
  const auto eager = make_rwkv(v), lazy = make_rwkv(v, true, true);
  const auto ids = [](const tokenizer_model& m, std::string_view text) {
    std::vector<int32_t> out;
    m.tokenize(text, out);
    return out;
  };
  for (int pass = 0; pass < 2; ++pass) {
    for (int b = 0; b < 256; ++b) {
      const std::string one(1, char(b));
      ASSERT_EQ(ids(*lazy, one), ids(*eager, one)) << "byte " << b << " pass " << pass;
    }
    EXPECT_EQ(ids(*lazy, "\n"), std::vector<int32_t>{11});  // the last text that unescapes to "\n"
    EXPECT_EQ(ids(*lazy, "b"), std::vector<int32_t>{5});
    EXPECT_EQ(ids(*lazy, "c"), std::vector<int32_t>{9});
    if (pass == 0) {  // the first longer text builds the tables
      EXPECT_EQ(ids(*lazy, "abcab\n\\"), ids(*eager, "abcab\n\\"));
    }
  }
  std::mt19937 rng(5);
  static const char chars[] = {'a', 'b', 'c', '\n', '\t', 'A', '\\', 'x'};
  for (int t = 0; t < 500; ++t) {
    std::string text(2 + rng() % 39, 'a');
    for (char& c : text) c = chars[rng() % std::size(chars)];
    ASSERT_EQ(ids(*lazy, text), ids(*eager, text)) << text;
  }
}

TEST(rwkv_model, lazy_tables_are_built_once_when_threads_race_to_them) {
  GGUF_REQUIRE_DATA();
  auto lv = models::load(gguf::test::data_file("vocab/ggml-vocab-rwkv-world.gguf"));
  ASSERT_TRUE(lv);
  const std::string text = "The quick brown fox jumps over the lazy dog.\n\t\xE4\xBD\xA0\xE5\xA5\xBD, \xD0\xBC\xD0\xB8\xD1\x80!";
  std::vector<int32_t> want;
  make_rwkv(lv->data)->tokenize(text, want);
  for (int round = 0; round < 5; ++round) {
    const auto lazy = make_rwkv(lv->data, true, true);
    std::vector<std::vector<int32_t>> got(4);
    std::vector<std::thread> threads;
    for (auto& g : got) threads.emplace_back([&] { lazy->tokenize(text, g); });
    for (auto& t : threads) t.join();
    for (const auto& g : got) ASSERT_EQ(g, want) << round;
  }
  // the loader's newline token ("\n" tokenized at load, before any build) is the eager model's
  auto loaded = gguf::vocab::load(lv->file);
  ASSERT_TRUE(loaded);
  std::vector<int32_t> nl;
  make_rwkv(lv->data)->tokenize("\n", nl);
  ASSERT_EQ(nl.size(), 1u);
  EXPECT_EQ(loaded->nl(), nl[0]);
}
