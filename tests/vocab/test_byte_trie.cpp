// byte_trie (ugm_trie.h), the trie of the WPM, UGM and RWKV models: its one-pass build from
// the sorted keys (8-byte heads, ties ordered by the rest of their bytes, each key's
// common prefix with the one before) against a plain std::map of the same keys, on
// random key sets made to hit every case of the build: keys sharing 8 and more bytes,
// NUL bytes (equal heads, different keys), duplicates (the last given wins), empty keys,
// nodes with more than 16 edges, and long keys.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "vocab/models/ugm_trie.h"

using namespace gguf::vocab_detail;

namespace {

// The id stored for `key` by walking child() from the root, or -1 (also when the walk
// stops early).
int32_t walk(const byte_trie& t, std::string_view key) {
  uint32_t node = 0;
  for (char c : key) {
    node = t.child(node, static_cast<uint8_t>(c));
    if (node == byte_trie::npos) return -1;
  }
  return t.value(node);
}

std::string random_key(std::mt19937& rng, const std::vector<std::string>& stems) {
  std::uniform_int_distribution<int> pick(0, 99);
  std::string s;
  const int k = pick(rng);
  if (k < 50 && !stems.empty()) s = stems[size_t(pick(rng)) % stems.size()];  // shared prefixes
  const int extra = k < 90 ? pick(rng) % 6 : pick(rng) % 40;
  for (int i = 0; i < extra; ++i) {
    const int c = pick(rng);
    if (c < 5) s.push_back('\0');
    else if (c < 60) s.push_back(char('a' + pick(rng) % 4));  // few bytes: deep shared paths
    else s.push_back(char(pick(rng) * 255 / 99));             // many bytes: wide nodes
  }
  return s;
}

}  // namespace

TEST(byte_trie, build_matches_a_map_of_the_keys) {
  std::mt19937 rng(1234);
  for (int round = 0; round < 40; ++round) {
    std::vector<std::string> stems = {"", "\xE2\x96\x81", "abcdefgh", "abcdefghij", "abcdefg", std::string(9, '\0'),
                                      "\xE2\x96\x81inter", "0123456789abcdef0123"};
    std::vector<std::string> texts;
    const size_t n = round < 10 ? 10 + round * 7 : 300 + round * 50;
    for (size_t i = 0; i < n; ++i) {
      texts.push_back(random_key(rng, stems));
      if (i % 7 == 0) stems.push_back(texts.back());
    }
    for (size_t i = 0; i < n / 10; ++i) texts.push_back(texts[size_t(rng()) % texts.size()]);  // duplicates
    std::vector<byte_trie::entry> entries;
    std::map<std::string, int32_t> want;  // last given wins
    std::set<std::string> prefixes;       // every nonempty prefix of a nonempty key
    for (size_t i = 0; i < texts.size(); ++i) {
      entries.push_back({texts[i], int32_t(i)});
      if (texts[i].empty()) continue;
      want[texts[i]] = int32_t(i);
      for (size_t l = 1; l <= texts[i].size(); ++l) prefixes.insert(texts[i].substr(0, l));
    }
    const byte_trie t(entries);
    ASSERT_EQ(t.node_count(), prefixes.size() + 1) << "round " << round;  // one node per distinct prefix
    EXPECT_EQ(t.value(0), -1);  // empty keys are ignored
    for (const auto& [key, id] : want) ASSERT_EQ(walk(t, key), id) << "round " << round;
    for (const std::string& p : prefixes) {
      if (!want.count(p)) {
        ASSERT_EQ(walk(t, p), -1) << "round " << round;
      }
    }
    // Matches at every position of random texts glued from keys.
    for (int c = 0; c < 50; ++c) {
      std::string text;
      for (int k = 0; k < 4; ++k) text += texts[size_t(rng()) % texts.size()];
      text += random_key(rng, {});
      for (size_t pos = 0; pos <= text.size(); ++pos) {
        std::vector<std::pair<size_t, int32_t>> all, got;
        size_t depth = 0;
        for (size_t l = 1; pos + l <= text.size(); ++l) {
          const std::string p = text.substr(pos, l);
          if (!prefixes.count(p)) break;
          depth = l;
          if (auto it = want.find(p); it != want.end()) all.push_back({l, it->second});
        }
        t.for_each_prefix(text, pos, [&](size_t l, int32_t id) { got.push_back({l, id}); });
        ASSERT_EQ(got, all) << "round " << round << " pos " << pos;
        const auto best = all.empty() ? std::pair<size_t, int32_t>{0, -1} : all.back();
        ASSERT_EQ(t.longest_match(text, pos), best);
        ASSERT_EQ(t.walk_depth(text, pos), depth);
      }
    }
  }
}

TEST(byte_trie, keys_in_any_order_give_the_same_layout) {
  // The layout depends only on the key set (breadth-first, edges by byte): given sorted,
  // reversed or shuffled, every prefix reaches the same node number.
  std::mt19937 rng(99);
  std::vector<std::string> texts;
  std::set<std::string> seen;
  while (texts.size() < 2000) {
    std::string s = random_key(rng, texts.empty() ? std::vector<std::string>{} : std::vector<std::string>{texts.back()});
    if (!s.empty() && seen.insert(s).second) texts.push_back(s);
  }
  const auto layout = [&](const std::vector<size_t>& order) {
    std::vector<byte_trie::entry> entries;
    for (size_t i : order) entries.push_back({texts[i], int32_t(i)});
    const byte_trie t(entries);
    std::vector<uint32_t> nodes;  // the node of every prefix of every key, in key order
    for (const std::string& s : texts) {
      uint32_t node = 0;
      for (char c : s) nodes.push_back(node = t.child(node, static_cast<uint8_t>(c)));
    }
    return nodes;
  };
  std::vector<size_t> order(texts.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  const auto given = layout(order);
  // breadth-first: a node's number is above its parent's
  for (size_t k = 0, at = 0; k < texts.size(); at += texts[k].size(), ++k)
    for (size_t d = 1; d < texts[k].size(); ++d) ASSERT_GT(given[at + d], given[at + d - 1]);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return texts[a] < texts[b]; });
  EXPECT_EQ(layout(order), given);
  std::reverse(order.begin(), order.end());
  EXPECT_EQ(layout(order), given);
  std::shuffle(order.begin(), order.end(), rng);
  EXPECT_EQ(layout(order), given);
}
