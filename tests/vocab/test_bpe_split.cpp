// BPE fast path (bpe.cpp): the text-keyed merge table or the id-pair table, the cut of each pre-tokenized word
// where no merge rule can join the characters on either side, and the per-call word cache
// must give exactly the ids of llama.cpp's one merge queue per word (make_bpe(v, false)).
// Differential test on real BPE vocabularies of different presets (byte alphabet or
// not): 300 kB of corpus/bench.txt, 300 kB of corpus/multilingual.txt and random strings glued from token texts, rule
// halves, separators and broken UTF-8.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include "model_vectors.h"
#include "vocab/pre_tokenizer/pre_tokenizer.h"
#include "vocab/models/tokenizer_model.h"
#include "vocab/models/word_split.h"
#include "vocab/unicode/unicode.h"
#include "gguf/byte_swap.h"
#include "gguf/output.h"
#include "gguf/vocab.h"
#include "gguf/writer.h"

using namespace gguf::vocab_detail;
namespace models = gguf::test::models;

namespace {

class bpe_split : public ::testing::TestWithParam<std::string> {};

TEST_P(bpe_split, matches_the_per_word_queue_reference) {
  GGUF_REQUIRE_DATA();
  const auto lv = models::load(gguf::test::data_file("vocab/ggml-vocab-" + GetParam() + ".gguf"));
  ASSERT_TRUE(lv);
  vocab_data& v = lv->data;
  auto merges = lv->file.get_array("tokenizer.ggml.merges");
  ASSERT_TRUE(merges);
  v.merges = *merges;
  std::vector<std::pair<std::string_view, std::string_view>> rules;  // rule halves for the random texts
  ASSERT_TRUE(merges->for_each_string([&](uint64_t, std::string_view w) {
    const size_t pos = w.find(' ', 1);
    if (pos != std::string_view::npos) rules.push_back({w.substr(0, pos), w.substr(pos + 1)});
  }));
  ASSERT_GT(rules.size(), 1000u);
  const std::string pre = std::string(lv->file.get_string("tokenizer.ggml.pre").value_or("default"));
  const pre_name* row = find_pre_name(GetParam() == "gemma-4" ? "gemma4" : pre);
  ASSERT_NE(row, nullptr) << pre;
  v.preset = row->preset;
  v.ignore_merges = row->flags & pre_ignore_merges;
  const auto fast = make_bpe(v, true);
  const auto ref = make_bpe(v, false);
  // the loader's model: the text table first, the id-pair table once enough is merged
  const auto lazy = make_bpe(v, true, /*lazy=*/true);
  const auto lazy_mt = make_bpe(v, true, /*lazy=*/true);  // switched while two threads tokenize

  std::string corpus = gguf::test::read_text(gguf::test::data_file("corpus/bench.txt")).substr(0, 300000);
  ASSERT_FALSE(corpus.empty()) << "corpus/bench.txt missing";
  if (row->flags & pre_escape_ws) {
    std::string e;
    for (char c : corpus) e += c == ' ' ? std::string("\xE2\x96\x81") : std::string(1, c);
    corpus = e;
  }
  const auto want = models::tokenize(*ref, corpus);
  ASSERT_GT(want.size(), 10000u);
  EXPECT_EQ(models::tokenize(*fast, corpus), want) << "bench.txt prefix";
  // the byte-level vocabularies whose every rule result is a token merge by id pairs
  // (bpe_pairs.h): the others keep the text table
  const bool by_ids_expected = GetParam() == "llama-bpe" || GetParam() == "gpt-2" || GetParam() == "qwen2";
  if (by_ids_expected) {
    EXPECT_TRUE(bpe_merges_by_ids(*fast));
  }
  EXPECT_FALSE(bpe_merges_by_ids(*ref));
  // a lazy model merges a prompt through the text table, and does not build the id table for it
  EXPECT_EQ(models::tokenize(*lazy, "Hello world, this is a prompt"), models::tokenize(*ref, "Hello world, this is a prompt"));
  EXPECT_FALSE(bpe_merges_by_ids(*lazy));
  // many scripts, CJK most of all (long pieces of 2- and 3-byte characters)
  std::ifstream in2(gguf::test::data_file("corpus/multilingual.txt"), std::ios::binary);
  ASSERT_TRUE(in2) << "corpus/multilingual.txt missing";
  std::stringstream ss2;
  ss2 << in2.rdbuf();
  const std::string many = ss2.str().substr(0, 300000);
  const auto want_many = models::tokenize(*ref, many);
  EXPECT_EQ(models::tokenize(*fast, many), want_many) << "multilingual.txt prefix";
  // the lazy model: the text table, then (within this call, for the qualifying
  // vocabularies) the id-pair table; the same ids before, across and after the switch
  EXPECT_EQ(models::tokenize(*lazy, corpus), want) << "bench.txt prefix, lazy";
  EXPECT_EQ(models::tokenize(*lazy, many), want_many) << "multilingual.txt prefix, lazy";
  EXPECT_EQ(bpe_merges_by_ids(*lazy), bpe_merges_by_ids(*fast));  // the eager model's table at last
  EXPECT_EQ(models::tokenize(*lazy, many), want_many) << "multilingual.txt prefix, lazy, again";
  // two threads, each its own lines of the multilingual text, the switch made by one of
  // them while the other goes on
  models::expect_two_threads_equal(*lazy_mt, *ref, many);
  EXPECT_EQ(bpe_merges_by_ids(*lazy_mt), bpe_merges_by_ids(*fast));

  const char* const extras[] = {" ", "  ", "\n", "\n\n", "\xE2\x96\x81", "e", "'s", ".", "\xE4\xB8\xAD",
                                "\xF0\x9F\x98\x80", "\xFF", "\xC3", "\xE2\x96", "0", "123", "\t", "\xC4\xA0"};
  std::mt19937 rng(4321);
  std::uniform_int_distribution<size_t> tok(0, v.tokens.size() - 1), rule(0, rules.size() - 1);
  std::uniform_int_distribution<int> pick(0, 99);
  size_t cases = 0, same = 0;
  for (int c = 0; c < 3000 && cases - same < 5; ++c) {
    std::string s;
    const int parts = 1 + pick(rng) % 30;
    for (int p = 0; p < parts; ++p) {
      const int k = pick(rng);
      if (k < 40) s += v.tokens[tok(rng)].text;
      else if (k < 70) s += pick(rng) < 50 ? rules[rule(rng)].first : rules[rule(rng)].second;
      else s += extras[pick(rng) % std::size(extras)];
    }
    ++cases;
    const auto a = models::tokenize(*ref, s), b = models::tokenize(*fast, s), l = models::tokenize(*lazy, s);
    same += a == b && l == a;
    if (a != b || l != a)
      ADD_FAILURE() << "random case " << c << " (" << (a != b ? "eager" : "lazy") << " model differs): "
                    << nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  EXPECT_EQ(same, cases);
}

INSTANTIATE_TEST_SUITE_P(all, bpe_split,
                         ::testing::Values("llama-bpe", "gpt-2", "qwen2", "gemma-4", "command-r", "falcon",
                                           "deepseek-coder"),
                         [](const auto& info) { return gguf::test::test_name(info.param); });

}  // namespace

// whole_char_table (bpe_pairs.h): a character taken as its token from the start must give
// the ids of merging its bytes, whatever the order of the rules. The real vocabularies list
// rules in training order (a character's own merges before any rule that joins it to a
// neighbour), so the checks against neighbours seldom decide anything there. Here
// llama-bpe's and qwen2's rules are reordered so that they must: shuffled, reversed, and
// with every rule whose left side ends in a continuation byte and whose right side starts
// with a lead byte (the rules that join characters) moved first.
TEST(bpe_whole_chars, reordered_rules_give_the_per_word_queue_ids) {
  GGUF_REQUIRE_DATA();
  const std::string many = gguf::test::read_text(gguf::test::data_file("corpus/multilingual.txt")).substr(0, 200000);
  ASSERT_FALSE(many.empty()) << "corpus/multilingual.txt missing";
  // random text from the multi-byte characters of that text: every pair of neighbours
  std::vector<std::string> chars;
  {
    std::set<std::string> seen;
    for (size_t i = 0; i < many.size();) {
      const auto c = uint8_t(many[i]);
      const size_t n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
      if (n == 2 || n == 3) seen.insert(many.substr(i, n));
      i += n;
    }
    chars.assign(seen.begin(), seen.end());
  }
  ASSERT_GT(chars.size(), 500u);
  std::mt19937 rng(97);
  std::string mixed;
  for (int i = 0; i < 30000; ++i) {
    mixed += chars[rng() % chars.size()];
    if (rng() % 16 == 0) mixed += rng() % 2 ? " " : "\n";
  }
  const auto dir = gguf::test::temp_dir();
  for (const std::string name : {"llama-bpe", "qwen2"}) {
    auto src = gguf::file::open(gguf::test::data_file("vocab/ggml-vocab-" + name + ".gguf"));
    ASSERT_TRUE(src) << src.error().message();
    std::vector<std::string> tokens, merges;
    ASSERT_TRUE(src->get_array("tokenizer.ggml.tokens")->for_each_string([&](uint64_t, std::string_view t) { tokens.emplace_back(t); }));
    ASSERT_TRUE(src->get_array("tokenizer.ggml.merges")->for_each_string([&](uint64_t, std::string_view m) { merges.emplace_back(m); }));
    const std::string pre(src->get_string("tokenizer.ggml.pre").value_or("default"));
    // the byte a side's first (last) character stands for
    const auto side_byte = [](std::string_view side, bool first) {
      const std::string_view ch = first ? side.substr(0, uint8_t(side[0]) < 0x80 ? 1 : 2) : side.substr(side.size() - (uint8_t(side.back()) < 0x80 ? 1 : 2));
      uint8_t b = 0;
      const auto* u = reinterpret_cast<const uint8_t*>(ch.data());
      const uint32_t cpt = ch.size() == 1 ? u[0] : (uint32_t(u[0] & 0x1F) << 6 | (u[1] & 0x3F));
      return utf8_cpt_to_byte(cpt, b) ? int(b) : -1;
    };
    for (const std::string order : {"shuffled", "reversed", "joining rules first"}) {
      SCOPED_TRACE(name + ", " + order);
      std::vector<std::string> m = merges;
      if (order == "shuffled") std::shuffle(m.begin(), m.end(), std::mt19937(5));
      if (order == "reversed") std::reverse(m.begin(), m.end());
      if (order == "joining rules first")
        std::stable_partition(m.begin(), m.end(), [&](const std::string& r) {
          const size_t sp = r.find(' ', 1);
          if (sp == std::string::npos || sp + 1 >= r.size()) return false;
          const int l = side_byte(std::string_view(r).substr(0, sp), false), f = side_byte(std::string_view(r).substr(sp + 1), true);
          return l >= 0x80 && l < 0xC0 && f >= 0xC0;
        });
      gguf::writer w;
      ASSERT_TRUE(w.set("general.architecture", gguf::value::string("gpt2")));
      ASSERT_TRUE(w.set("tokenizer.ggml.model", gguf::value::string("gpt2")));
      ASSERT_TRUE(w.set("tokenizer.ggml.pre", gguf::value::string(pre)));
      ASSERT_TRUE(w.set("tokenizer.ggml.tokens", gguf::value::string_array(std::span<const std::string>(tokens))));
      ASSERT_TRUE(w.set("tokenizer.ggml.merges", gguf::value::string_array(std::span<const std::string>(m))));
      const auto path = dir / ("whole-chars-" + name + ".gguf");
      {
        const auto bytes = w.to_bytes();
        std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
      }
      const auto lv = models::load(path);
      ASSERT_TRUE(lv);
      vocab_data& v = lv->data;
      v.merges = *lv->file.get_array("tokenizer.ggml.merges");
      const pre_name* row = find_pre_name(pre);
      ASSERT_NE(row, nullptr) << pre;
      v.preset = row->preset;
      v.ignore_merges = row->flags & pre_ignore_merges;
      const auto fast = make_bpe(v, true), ref = make_bpe(v, false);
      ASSERT_TRUE(bpe_merges_by_ids(*fast));
      EXPECT_EQ(models::tokenize(*fast, many), models::tokenize(*ref, many)) << "multilingual.txt prefix";
      EXPECT_EQ(models::tokenize(*fast, mixed), models::tokenize(*ref, mixed)) << "random characters";
      // the characters were taken whole somewhere (else this test shows nothing)
      EXPECT_GT(bpe_whole_chars(*fast), 20u);
    }
  }
}

// last_chunk (word_split.h) starts its walk at the last position no lead byte can cover;
// on any bytes (broken UTF-8 included) it must give the last chunk of the walk from the start.
TEST(bpe_split_chunks, last_chunk_equals_the_walk_from_the_start) {
  const auto plain = [](std::string_view s) {
    size_t off = 0, len = 0;
    for (size_t i = 0; i < s.size(); i += len) off = i, len = chunk_len(s, i);
    return chunk_bits(s.data() + off, len);
  };
  const uint8_t bytes[] = {'a', ' ', 0x7F, 0x80, 0x96, 0xBF, 0xC0, 0xC4, 0xDF, 0xE0, 0xE2, 0xEF, 0xF0, 0xF4, 0xFF};
  std::mt19937 rng(77);
  for (int c = 0; c < 200000; ++c) {
    std::string s(1 + rng() % 12, '\0');
    for (char& ch : s) ch = char(bytes[rng() % std::size(bytes)]);
    ASSERT_EQ(last_chunk(s), plain(s)) << nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
}

// last_chunk_padded reads the 8 bytes that end where the text ends: the bytes before the
// text (here lead bytes too) must not count, and the two cases it tells from that load
// must agree with the walk from the start.
TEST(bpe_split_chunks, padded_last_chunk_equals_the_walk_from_the_start) {
  const uint8_t bytes[] = {'a', ' ', 0x7F, 0x80, 0x96, 0xA0, 0xBF, 0xC0, 0xC4, 0xDF, 0xE0, 0xE2, 0xEF, 0xF0, 0xF4, 0xFF};
  std::mt19937 rng(78);
  std::string buf(40, '\0');
  for (int c = 0; c < 200000; ++c) {
    for (char& ch : buf) ch = char(bytes[rng() % std::size(bytes)]);
    const size_t len = 1 + rng() % 12, at = 8 + rng() % (buf.size() - 8 - len + 1);
    const std::string_view s(buf.data() + at, len);
    ASSERT_EQ(last_chunk_padded(s), last_chunk(s)) << nlohmann::json(std::string(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
}

// rule_split reads 8 bytes at once where the buffer goes on that far; on any bytes it must
// find the first space from index 1 as the byte loop does (a space at index 0 must not
// flag the byte after it: " !" holds 0x20 0x21, which the word trick would see as a zero
// followed by a borrow).
TEST(bpe_split_chunks, rule_split_equals_the_byte_loop) {
  const auto plain = [](std::string_view w) {
    size_t pos = 1;
    while (pos < w.size() && w[pos] != ' ') ++pos;
    return pos;
  };
  const char bytes[] = {' ', '!', 'a', '\0', '\x01', '\x21', '\x80', '\xA0', '\xC4', '\xFF'};
  std::mt19937 rng(5);
  std::string buf(64, '\0');
  for (int c = 0; c < 200000; ++c) {
    for (char& ch : buf) ch = bytes[rng() % std::size(bytes)];
    const size_t len = rng() % 13, at = rng() % (buf.size() - len + 1);
    const std::string_view w(buf.data() + at, len);
    const size_t got = rule_split(w, buf.data() + buf.size());
    // a rule without a space (or with nothing after it) is no rule: only a split inside counts
    const size_t want = plain(w);
    ASSERT_EQ(std::min(got, w.size()), std::min(want, w.size())) << at << " " << len;
  }
}

// text_hash_padded (one 8-byte load, the length's words picked out by shifts) must equal
// text_hash on every length, whatever bytes follow the text.
TEST(bpe_split_chunks, padded_text_hash_equals_text_hash) {
  std::mt19937 rng(9);
  std::string buf(48, '\0');
  for (int c = 0; c < 100000; ++c) {
    for (char& ch : buf) ch = char(rng());
    const size_t len = rng() % 20, at = rng() % (buf.size() - 8 - len);
    const std::string_view t(buf.data() + at, len);
    ASSERT_EQ(text_hash_padded(t.data(), t.size()), text_hash(t)) << len;
  }
}

// token_map::build reads the texts inside the given span 8 bytes at a time (their hashes
// and prefixes); every lookup (which reads them the plain way) must find its id, and a
// text that differs in a byte past its end must not match.
TEST(bpe_split_chunks, token_map_built_from_padded_texts_finds_every_id) {
  std::mt19937 rng(3);
  std::string buf;
  std::vector<std::pair<size_t, size_t>> at;
  std::set<std::string> seen;
  while (at.size() < 5000) {
    std::string t(1 + rng() % 14, '\0');
    for (char& ch : t) ch = "ab \xC4\xA0\0"[rng() % 6];
    if (!seen.insert(t).second) continue;
    at.push_back({buf.size(), t.size()});
    buf += t;
  }
  std::vector<token_data> tokens(at.size());
  for (size_t i = 0; i < at.size(); ++i) tokens[i].text = std::string_view(buf).substr(at[i].first, at[i].second);
  token_map m;
  ASSERT_EQ(m.build(tokens, std::as_bytes(std::span(buf.data(), buf.size()))), tokens.size());
  for (size_t i = 0; i < tokens.size(); ++i) {
    ASSERT_EQ(m.find_id(std::string(tokens[i].text)), int32_t(i));
    const std::string longer = std::string(tokens[i].text) + "z";
    if (!seen.count(longer)) {
      ASSERT_EQ(m.find_id(longer), -1);
    }
  }
}

// The merge table reads the rules in place: from a big-endian copy of a vocabulary (the
// string arrays walked element by element, lengths swapped) it must give the same ids.
TEST(bpe_split_chunks, big_endian_copy_gives_the_same_ids) {
  GGUF_REQUIRE_DATA();
  const auto le_path = gguf::test::data_file("vocab/ggml-vocab-gpt-2.gguf");
  auto le = gguf::file::open(le_path);
  ASSERT_TRUE(le) << le.error().message();
  const auto be_path = gguf::test::temp_dir() / "bpe-gpt-2-be.gguf";
  {
    auto out = gguf::safe_output::create(be_path);
    ASSERT_TRUE(out) << out.error().message();
    ASSERT_TRUE(gguf::write_byte_swapped(*le, *out));
    ASSERT_TRUE(out->commit());
  }
  auto be = gguf::file::open(be_path);
  ASSERT_TRUE(be) << be.error().message();
  ASSERT_EQ(be->byte_order(), gguf::byte_order::big);
  auto vl = gguf::vocab::load(*le), vb = gguf::vocab::load(*be);
  ASSERT_TRUE(vl && vb);
  std::ifstream in(gguf::test::data_file("corpus/bench.txt"), std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str().substr(0, 200000);
  auto a = vl->tokenize(text, false, false), b = vb->tokenize(text, false, false);
  ASSERT_TRUE(a && b);
  EXPECT_GT(a->size(), 20000u);
  EXPECT_EQ(*a, *b);
}

namespace {

// A merge rule whose left side has 65,536 bytes (past any 16-bit length) matches, from a
// fresh build and from the compiled cache.
TEST(bpe_merges, rule_with_a_side_of_65536_bytes_matches) {
  gguf::writer w;
  std::vector<std::string> tokens{"a", "b"}, merges;
  for (size_t len = 1; len < 65536; len *= 2) {
    const std::string half(len, 'a');
    merges.push_back(half + " " + half);
    tokens.push_back(half + half);
  }
  merges.push_back(std::string(65536, 'a') + " b");
  tokens.push_back(std::string(65536, 'a') + "b");
  ASSERT_TRUE(w.set("general.architecture", gguf::value::string("gpt2")));
  ASSERT_TRUE(w.set("tokenizer.ggml.model", gguf::value::string("gpt2")));
  ASSERT_TRUE(w.set("tokenizer.ggml.pre", gguf::value::string("gpt-2")));
  ASSERT_TRUE(w.set("tokenizer.ggml.tokens", gguf::value::string_array(std::span<const std::string>(tokens))));
  ASSERT_TRUE(w.set("tokenizer.ggml.merges", gguf::value::string_array(std::span<const std::string>(merges))));
  const auto bytes = w.to_bytes();
  auto f = gguf::file::from_bytes(bytes);
  ASSERT_TRUE(f) << f.error().message();
  const std::string text = std::string(65536, 'a') + "b";
  const int32_t whole = int32_t(tokens.size() - 1);
  const auto dir = gguf::test::temp_dir() / "cache-long-merge-side";
  for (int pass = 0; pass < 3; ++pass) {  // no cache, then the cache written, then read
    auto v = pass == 0 ? gguf::vocab::load(*f) : gguf::vocab::load(*f, gguf::vocab_load_options{dir.string()});
    ASSERT_TRUE(v) << v.error().message();
    std::vector<int32_t> ids;
    ASSERT_TRUE(v->tokenize_into(text, ids, false, false));
    EXPECT_EQ(ids, std::vector<int32_t>{whole}) << "pass " << pass;
    ids.clear();
    ASSERT_TRUE(v->tokenize_into(std::string(65536, 'a'), ids, false, false));
    EXPECT_EQ(ids, std::vector<int32_t>{whole - 1}) << "pass " << pass;
  }
}

}  // namespace
