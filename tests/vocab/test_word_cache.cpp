// basic_word_cache (word_cache.h), the per-call cache of a word's ids (SPM, BPE, UGM):
// against a std::map of the same words, with the entries' Extra, words of every length up
// to max_word and past it, id lists of 0 to 40 ids (the short inline copy and the long
// one), hashes forced to collide (probing past equal hashes and equal lengths), reserve
// before and after inserts, and the bound once half the slots are used.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "vocab/tokenizer_model.h"
#include "vocab/word_cache.h"

using namespace gguf::vocab_detail;

namespace {

struct extra_t {
  double score;
  size_t size;
};

struct expected {
  std::vector<int32_t> ids;
  extra_t extra;
};

std::string random_word(std::mt19937& rng, size_t max_len) {
  std::uniform_int_distribution<size_t> len(1, max_len);
  std::uniform_int_distribution<int> byte(0, 255), small(0, 3);
  std::string w(len(rng), '\0');
  for (char& c : w) c = small(rng) ? char('a' + small(rng)) : char(byte(rng));  // many near-equal words
  return w;
}

std::vector<int32_t> random_ids(std::mt19937& rng) {
  std::uniform_int_distribution<int> n(0, 99), id(-1, 1 << 20);
  const int k = n(rng);
  std::vector<int32_t> ids(size_t(k < 80 ? k % 9 : k % 41));
  for (auto& i : ids) i = id(rng);
  return ids;
}

// Every word of `words` is found with its ids and Extra, appended after what `out` held;
// a word never inserted is not found and leaves `out` as it was.
void check_all(const basic_word_cache<extra_t>& cache, const std::map<std::string, expected>& words,
               const std::map<std::string, uint64_t>& hashes, std::mt19937& rng) {
  for (const auto& [w, e] : words) {
    std::vector<int32_t> out = random_ids(rng);
    const std::vector<int32_t> before = out;
    extra_t x{-1.0, 0};
    ASSERT_TRUE(cache.find(w, hashes.at(w), out, &x)) << w.size();
    std::vector<int32_t> want = before;
    want.insert(want.end(), e.ids.begin(), e.ids.end());
    EXPECT_EQ(out, want);
    EXPECT_EQ(x.score, e.extra.score);
    EXPECT_EQ(x.size, e.extra.size);
  }
}

TEST(WordCache, FindsWhatWasInsertedAndNothingElse) {
  for (const bool collide : {false, true}) {
    for (uint32_t seed = 1; seed <= 4; ++seed) {
      std::mt19937 rng(seed);
      basic_word_cache<extra_t> cache;
      if (seed % 2) cache.reserve(500);  // sized at once, or grown while filled
      std::map<std::string, expected> words;
      std::map<std::string, uint64_t> hashes;
      // collide: only 8 distinct hashes, so lookups probe past equal hashes and lengths
      const auto hash_of = [&](const std::string& w) { return collide ? (text_hash(w) & 7) * 0x10001 : text_hash(w); };
      for (int i = 0; i < 2000; ++i) {
        const std::string w = random_word(rng, basic_word_cache<extra_t>::max_word);
        if (words.count(w)) continue;
        const uint64_t h = hash_of(w);
        std::vector<int32_t> out;
        ASSERT_FALSE(cache.find(w, h, out)) << "not inserted yet";
        EXPECT_TRUE(out.empty());
        const expected e{random_ids(rng), {double(i) * 0.25 - 7.0, size_t(i) * 3}};
        cache.insert(w, h, e.ids.data(), e.ids.size(), e.extra);
        words[w] = e;
        hashes[w] = h;
      }
      check_all(cache, words, hashes, rng);
      // a prefix or an extension of a cached word, with the same hash, is another word
      for (const auto& [w, e] : words) {
        const std::string longer = w + "x";
        if (words.count(longer) || longer.size() > basic_word_cache<extra_t>::max_word) continue;
        std::vector<int32_t> out;
        EXPECT_FALSE(cache.find(longer, hashes.at(w), out));
        EXPECT_TRUE(out.empty());
      }
    }
  }
}

TEST(WordCache, SkipsLongWordsAndStopsWhenHalfFull) {
  using cache_t = basic_word_cache<extra_t>;
  cache_t cache;
  const std::string too_long(cache_t::max_word + 1, 'a');
  const int32_t ids[2] = {5, 6};
  cache.insert(too_long, text_hash(too_long), ids, 2, {1.0, 1});
  std::vector<int32_t> out;
  EXPECT_FALSE(cache.find(too_long, text_hash(too_long), out));
  const std::string longest(cache_t::max_word, 'b');
  cache.insert(longest, text_hash(longest), ids, 2, {2.0, 2});
  EXPECT_TRUE(cache.find(longest, text_hash(longest), out));
  EXPECT_EQ(out, (std::vector<int32_t>{5, 6}));

  // Past max_slots / 2 entries, inserts are ignored and every earlier entry stays.
  std::vector<std::string> words;
  for (size_t i = 0; i < cache_t::max_slots / 2 + 100; ++i) words.push_back(std::to_string(i).append("w"));
  cache_t full;
  for (size_t i = 0; i < words.size(); ++i) {
    const auto id = static_cast<int32_t>(i);
    full.insert(words[i], text_hash(words[i]), &id, 1, {double(i), i});
  }
  size_t found = 0;
  for (size_t i = 0; i < words.size(); ++i) {
    std::vector<int32_t> got;
    extra_t x{};
    if (!full.find(words[i], text_hash(words[i]), got, &x)) continue;
    ++found;
    ASSERT_EQ(got, (std::vector<int32_t>{static_cast<int32_t>(i)}));
    EXPECT_EQ(x.size, i);
  }
  EXPECT_EQ(found, cache_t::max_slots / 2);
}

TEST(WordCache, NoExtra) {
  word_cache cache;
  const int32_t ids[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  cache.insert("twelve", text_hash("twelve"), ids, 12);
  cache.insert("one", text_hash("one"), ids, 1);
  cache.insert("none", text_hash("none"), ids, 0);
  std::vector<int32_t> out{-5};
  EXPECT_TRUE(cache.find("twelve", text_hash("twelve"), out));
  EXPECT_TRUE(cache.find("one", text_hash("one"), out));
  EXPECT_TRUE(cache.find("none", text_hash("none"), out));
  EXPECT_EQ(out, (std::vector<int32_t>{-5, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 1}));
}

}  // namespace
