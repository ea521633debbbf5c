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

#include "vocab/runtime/id_writer.h"
#include "vocab/models/tokenizer_model.h"
#include "vocab/runtime/word_cache.h"

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

TEST(WordCache, ShortKeysFindWhatWasInsertedAndNothingElse) {
  // ShortKeys: words of up to 16 bytes go in and are found as short_keys (two words,
  // masked by length, read from a text at any offset, up to its last byte); longer ones
  // through the byte path. Words differing only past their length (a NUL byte, a prefix)
  // stay apart; hashes forced to collide probe past equal hashes and lengths.
  using cache_t = basic_word_cache<extra_t, true>;
  for (const bool collide : {false, true}) {
    std::mt19937 rng(collide ? 7 : 8);
    cache_t cache;
    std::map<std::string, expected> words;
    const auto hash_of = [&](const std::string& w) {
      const uint64_t h = w.size() <= short_key::max_len ? short_key_hash(short_key_of(w, 0, w.size()), w.size()) : text_hash(w);
      return collide ? (h & 7) * 0x10001 : h;
    };
    // a text holding the word at `offset`, with other bytes around it (masking must drop them)
    const auto key_in_text = [&](const std::string& w, size_t offset, size_t after) {
      std::string text(offset, 'x');
      text += w;
      text.append(after, char(0xA5));
      return short_key_of(text, offset, w.size());
    };
    std::vector<std::string> order;
    // near-duplicates first: the same length, one byte different at each position
    std::vector<std::string> near;
    for (const std::string base : {"abcdefghijklmnop", "abcdefghij", "abcdefg"}) {
      near.push_back(base);
      for (size_t k = 0; k < base.size(); ++k) near.push_back(std::string(base).replace(k, 1, 1, 'Z'));
    }
    for (int i = 0; i < 3000 + int(near.size()); ++i) {
      std::string w = i < int(near.size()) ? near[size_t(i)] : random_word(rng, i % 3 ? short_key::max_len : cache_t::max_word);
      if (i % 50 == 0) w = w.substr(0, w.size() / 2) + std::string(1, '\0');  // a NUL inside or at the end
      if (words.count(w)) continue;
      const expected e{random_ids(rng), {double(i) - 0.5, size_t(i)}};
      std::vector<int32_t> out;
      if (w.size() <= short_key::max_len) {
        ASSERT_FALSE(cache.find_short(key_in_text(w, i % 5, i % 17), w.size(), hash_of(w), out));
        cache.insert_short(key_in_text(w, i % 7, i % 3), w.size(), hash_of(w), e.ids.data(), e.ids.size(), e.extra);
      } else {
        cache.insert(w, hash_of(w), e.ids.data(), e.ids.size(), e.extra);
      }
      words[w] = e;
      order.push_back(w);
    }
    for (size_t k = 0; k < order.size(); ++k) {
      const std::string& w = order[k];
      const expected& e = words.at(w);
      std::vector<int32_t> out{-3};
      extra_t x{};
      const bool found = w.size() <= short_key::max_len
                             ? cache.find_short(key_in_text(w, k % 11, k % 2 ? 0 : 20), w.size(), hash_of(w), out, &x)
                             : cache.find(w, hash_of(w), out, &x);
      ASSERT_TRUE(found) << w.size();
      std::vector<int32_t> want{-3};
      want.insert(want.end(), e.ids.begin(), e.ids.end());
      EXPECT_EQ(out, want);
      EXPECT_EQ(x.size, e.extra.size);
      // the word one byte shorter, or with a NUL appended, is another word
      for (const std::string& other : {w.substr(0, w.size() - 1), w + std::string(1, '\0')}) {
        if (other.empty() || other.size() > short_key::max_len || words.count(other)) continue;
        std::vector<int32_t> none;
        EXPECT_FALSE(cache.find_short(short_key_of(other, 0, other.size()), other.size(), hash_of(other), none));
        EXPECT_TRUE(none.empty());
      }
    }
    // a cleared cache finds nothing, and takes words again
    cache.clear();
    std::vector<int32_t> out;
    for (const auto& [w, e] : words) {
      const bool found = w.size() <= short_key::max_len ? cache.find_short(short_key_of(w, 0, w.size()), w.size(), hash_of(w), out)
                                                        : cache.find(w, hash_of(w), out);
      ASSERT_FALSE(found);
    }
    const int32_t id = 9;
    cache.insert_short(short_key_of("again", 0, 5), 5, hash_of("again"), &id, 1, {});
    EXPECT_TRUE(cache.find_short(short_key_of("again", 0, 5), 5, hash_of("again"), out));
    EXPECT_EQ(out, std::vector<int32_t>{9});
  }
}

TEST(WordCache, ClearForgetsEverythingWhateverTheTableSize) {
  // clear() starts a new generation of slots (and zeroes the table when the generation
  // number wraps, every 255 clears): after each of 300 clears nothing of the words before
  // is found, whatever the table size, and words go in and are found again, each round
  // with other ids (an old generation's slot must never answer).
  using cache_t = basic_word_cache<extra_t>;
  for (const size_t words : {size_t(100), size_t(50000)}) {
    cache_t cache;
    cache.reserve(words);
    std::vector<std::string> ws;
    for (size_t i = 0; i < words; ++i) ws.push_back(std::to_string(i).append("w"));
    for (size_t i = 0; i < ws.size(); ++i) {
      const auto id = int32_t(i);
      cache.insert(ws[i], text_hash(ws[i]), &id, 1, {double(i), i});
    }
    std::vector<int32_t> out;
    ASSERT_TRUE(cache.find(ws.back(), text_hash(ws.back()), out));
    const int rounds = words > 1000 ? 3 : 300;
    for (int round = 0; round < rounds; ++round) {
      cache.clear();
      for (const auto& w : ws) ASSERT_FALSE(cache.find(w, text_hash(w), out)) << words << " " << w << " round " << round;
      const size_t step = 7 + size_t(round % 3);  // a different subset each round
      for (size_t i = round % 5; i < ws.size(); i += step) {
        const auto id = int32_t(i + 1000000 * size_t(round + 1));
        cache.insert(ws[i], text_hash(ws[i]), &id, 1, {});
      }
      for (size_t i = 0; i < ws.size(); ++i) {
        std::vector<int32_t> got;
        const bool held = i >= size_t(round % 5) && (i - size_t(round % 5)) % step == 0;
        ASSERT_EQ(cache.find(ws[i], text_hash(ws[i]), got), held) << words << " " << i << " round " << round;
        if (held) {
          ASSERT_EQ(got, std::vector<int32_t>{int32_t(i + 1000000 * size_t(round + 1))});
        }
      }
    }
  }
}

TEST(WordCache, EntriesCopyThroughAnIdWriterAsPushBackWould) {
  // lookup() + id_writer::copy_ids (32 bytes for up to 8 ids, from the cache's padded
  // arena) against find(): words of 0..12 ids, each looked up right after its insert
  // (then it is the arena's last entry), over a vector that already holds ids; then
  // truncate and finish cut it back exactly.
  using cache_t = basic_word_cache<extra_t, true>;
  cache_t cache;
  std::vector<int32_t> got{7, 8}, want{7, 8};
  {
    id_writer out(got);
    std::mt19937 rng(3);
    for (int i = 0; i < 3000; ++i) {
      const std::string w = std::to_string(i).append("w");
      std::vector<int32_t> ids(size_t(i % 13));
      for (auto& id : ids) id = int32_t(rng() % 100000);
      cache.insert(w, text_hash(w), ids.data(), ids.size(), {double(i), size_t(i)});
      cache_t::entry e;
      ASSERT_TRUE(cache.lookup(w, text_hash(w), e));
      ASSERT_EQ(e.n, ids.size());
      EXPECT_EQ(e.extra.size, size_t(i));
      id_writer::copy_ids(out.room(e.n), e.ids, e.n);
      out.commit(e.n);
      ASSERT_TRUE(cache.find(w, text_hash(w), want));
      ASSERT_EQ(out.size(), want.size());
      ASSERT_TRUE(std::equal(want.begin(), want.end(), out.data())) << i;
    }
    out.truncate(out.size() - 5);
    want.resize(want.size() - 5);
  }  // (the destructor finishes)
  EXPECT_EQ(got, want);
}

}  // namespace
