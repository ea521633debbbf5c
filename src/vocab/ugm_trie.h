// A compact, immutable byte trie over token texts, shared by the WPM, UGM and RWKV models.
//
// Built once from (bytes, token_id) pairs; when two pairs have the same bytes the one
// given last wins (the behaviour of llama.cpp's naive_trie::insert, which overwrites).
// Queries walk bytes from a start position and never read past the end of the text.
// Layout: nodes in one vector, the edge bytes of a node contiguous and sorted; nodes are
// numbered so that edge e leads to node e + 1 (children of a node are consecutive). The
// root's 256 edges are a direct table. Memory: 13 bytes per node.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "vocab/table_cache.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gguf::vocab_detail {

class byte_trie {
 public:
  static constexpr uint32_t npos = UINT32_MAX;

  struct entry {
    std::string_view bytes;
    int32_t id = -1;
  };

  byte_trie() {
    root_.fill(npos);
    nodes_.adopt(table_vector<node_t>(1));
    bytes_.assign(narrow_edges, 0);
    pair_.assign(65536, npos);
  }
  byte_trie(byte_trie&&) = default;
  byte_trie& operator=(byte_trie&&) = default;

  /// Builds the trie; `entries` is reordered. Empty keys are ignored.
  explicit byte_trie(std::vector<entry> entries) { build(std::move(entries)); }

  /// The child of `node` by byte `b`, or npos. Branch-light: up to 16 edges are compared
  /// at once (SSE2), more are found through the node's 256-bit edge bitmap and a popcount.
  uint32_t child(uint32_t node, uint8_t b) const noexcept {
    if (node == 0) return root_[b];
    const node_t& n = nodes_[node];
    const uint32_t n_edges = n.meta & edge_mask;
    if (n_edges <= narrow_edges) {
#if defined(__SSE2__)
      // bytes_ has narrow_edges bytes of padding at the end: the load stays inside it
      const __m128i e = _mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes_.data() + n.first_edge));
      const uint32_t hits = uint32_t(_mm_movemask_epi8(_mm_cmpeq_epi8(e, _mm_set1_epi8(char(b))))) &
                            ((1u << n_edges) - 1u);
      return hits ? n.first_edge + uint32_t(__builtin_ctz(hits)) + 1 : npos;
#else
      const uint8_t* first = bytes_.data() + n.first_edge;
      for (uint32_t k = 0; k < n_edges; ++k)
        if (first[k] == b) return n.first_edge + k + 1;
      return npos;
#endif
    }
    const wide_t& w = wide_[n.meta >> edge_bits];
    const uint32_t word = b >> 6;
    const uint64_t bits = w.bits[word];
    if (!((bits >> (b & 63)) & 1)) return npos;
    return n.first_edge + w.before[word] + popcount(bits & ((uint64_t{1} << (b & 63)) - 1)) + 1;
  }
  /// The token id stored at `node`, or -1.
  int32_t value(uint32_t node) const noexcept { return nodes_[node].value; }
  bool has_children(uint32_t node) const noexcept { return (nodes_[node].meta & edge_mask) > 0; }
  bool empty() const noexcept { return nodes_.size() <= 1; }

  /// Calls fn(length, id) for every stored key that is a prefix of text[pos..], shortest first.
  template <class Fn>
  void for_each_prefix(std::string_view text, size_t pos, Fn&& fn) const {
    uint32_t node = 0;
    if (pos + 1 < text.size()) {  // the first two bytes through the direct tables
      const uint8_t b0 = static_cast<uint8_t>(text[pos]);
      node = root_[b0];
      if (node == npos) return;
      if (nodes_[node].value >= 0) fn(1, nodes_[node].value);
      node = pair_[(uint32_t(b0) << 8) | static_cast<uint8_t>(text[pos + 1])];
      if (node == npos) return;
      if (nodes_[node].value >= 0) fn(2, nodes_[node].value);
      pos += 2;
      for (size_t i = pos; i < text.size(); ++i) {
        node = child(node, static_cast<uint8_t>(text[i]));
        if (node == npos) return;
        if (nodes_[node].value >= 0) fn(i + 3 - pos, nodes_[node].value);
      }
      return;
    }
    for (size_t i = pos; i < text.size(); ++i) {
      node = child(node, static_cast<uint8_t>(text[i]));
      if (node == npos) return;
      if (nodes_[node].value >= 0) fn(i + 1 - pos, nodes_[node].value);
    }
  }

  /// The longest stored key that is a prefix of text[pos..]: {length, id}, or {0, -1}.
  std::pair<size_t, int32_t> longest_match(std::string_view text, size_t pos) const noexcept {
    std::pair<size_t, int32_t> best{0, -1};
    uint32_t node = 0;
    if (pos + 1 < text.size()) {  // the first two bytes through the direct tables
      const uint8_t b0 = static_cast<uint8_t>(text[pos]);
      node = root_[b0];
      if (node == npos) return best;
      if (nodes_[node].value >= 0) best = {1, nodes_[node].value};
      node = pair_[(uint32_t(b0) << 8) | static_cast<uint8_t>(text[pos + 1])];
      if (node == npos) return best;
      if (nodes_[node].value >= 0) best = {2, nodes_[node].value};
      for (size_t i = pos + 2; i < text.size(); ++i) {
        node = child(node, static_cast<uint8_t>(text[i]));
        if (node == npos) break;
        if (nodes_[node].value >= 0) best = {i + 1 - pos, nodes_[node].value};
      }
      return best;
    }
    for (size_t i = pos; i < text.size(); ++i) {
      node = child(node, static_cast<uint8_t>(text[i]));
      if (node == npos) break;
      if (nodes_[node].value >= 0) best = {i + 1 - pos, nodes_[node].value};
    }
    return best;
  }

  /// longest_match, and also the index of the last byte of `text` the walk read (the one
  /// where it stopped), or text.size() when it ran to the end: the match depends on
  /// text[pos, last] only.
  struct walked_match {
    size_t len;
    int32_t id;
    size_t last;
  };
  walked_match longest_match_walked(std::string_view text, size_t pos) const noexcept {
    walked_match best{0, -1, text.size()};
    uint32_t node = 0;
    size_t i = pos;
    if (pos + 1 < text.size()) {  // the first two bytes through the direct tables
      const uint8_t b0 = static_cast<uint8_t>(text[pos]);
      node = root_[b0];
      if (node == npos) return {0, -1, pos};
      if (nodes_[node].value >= 0) best = {1, nodes_[node].value, 0};
      node = pair_[(uint32_t(b0) << 8) | static_cast<uint8_t>(text[pos + 1])];
      if (node == npos) return {best.len, best.id, pos + 1};
      if (nodes_[node].value >= 0) best = {2, nodes_[node].value, 0};
      i = pos + 2;
    }
    for (; i < text.size(); ++i) {
      node = child(node, static_cast<uint8_t>(text[i]));
      if (node == npos) return {best.len, best.id, i};
      if (nodes_[node].value >= 0) best = {i + 1 - pos, nodes_[node].value, 0};
    }
    return {best.len, best.id, text.size()};
  }

  /// How many bytes of text[pos..] can be walked in the trie, whether or not a key ends
  /// there (llama.cpp's naive_trie::get_longest_prefix).
  size_t walk_depth(std::string_view text, size_t pos) const noexcept {
    uint32_t node = 0;
    size_t i = pos;
    for (; i < text.size(); ++i) {
      node = child(node, static_cast<uint8_t>(text[i]));
      if (node == npos) break;
    }
    return i - pos;
  }

  size_t node_count() const noexcept { return nodes_.size(); }
  size_t memory_bytes() const noexcept {
    return nodes_.size() * sizeof(node_t) + bytes_.size() + wide_.size() * sizeof(wide_t) +
           pair_.size() * sizeof(uint32_t) + sizeof(root_);
  }

  /// The tables for the compiled cache (table_cache.h).
  void save(table_writer& w) const {
    w.put(nodes_.span());
    w.put(bytes_.span());
    w.put(wide_.span());
    w.put(pair_.span());
    w.put(std::span<const uint32_t>(root_));
  }
  /// Maps the tables back; false when their sizes do not fit together.
  bool load(table_reader& r) {
    std::span<const node_t> nodes;
    std::span<const uint8_t> bytes;
    std::span<const wide_t> wide;
    std::span<const uint32_t> pair, root;
    if (!r.get(nodes) || !r.get(bytes) || !r.get(wide) || !r.get(pair) || !r.get(root)) return false;
    if (nodes.empty() || bytes.size() != nodes.size() - 1 + narrow_edges || pair.size() != 65536 || root.size() != 256)
      return false;
    nodes_.view(nodes);
    bytes_.view(bytes);
    wide_.view(wide);
    pair_.view(pair);
    std::copy(root.begin(), root.end(), root_.begin());
    return true;
  }

 private:
  static constexpr uint32_t edge_bits = 9, edge_mask = (1u << edge_bits) - 1, narrow_edges = 16;
  struct node_t {
    uint32_t first_edge = 0;
    uint32_t meta = 0;  // edge count (low 9 bits); above: index into wide_ when > narrow_edges
    int32_t value = -1;
  };
  struct wide_t {
    uint64_t bits[4] = {0, 0, 0, 0};  // bit b set: an edge with byte b
    uint32_t before[4] = {0, 0, 0, 0};  // edges in the words before each word
  };
  // Inline (the baseline x86-64 target has no POPCNT; the builtin would be a libgcc call).
  static uint32_t popcount(uint64_t x) noexcept {
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
    return uint32_t((x * 0x0101010101010101ull) >> 56);
  }

  struct key {
    uint64_t head;  // the first 8 bytes, big-endian, zero padded
    uint32_t index;
  };
  // LSD radix sort by head, a byte per pass (stable); passes whose byte is the same in
  // every key are skipped (the low bytes of short keys).
  static void sort_by_head(std::vector<key>& keys) {
    if (keys.size() < 64) {
      std::stable_sort(keys.begin(), keys.end(), [](const key& x, const key& y) { return x.head < y.head; });
      return;
    }
    std::vector<std::array<uint32_t, 256>> count(8);
    for (auto& c : count) c.fill(0);
    for (const key& k : keys)
      for (int b = 0; b < 8; ++b) ++count[b][(k.head >> (8 * b)) & 0xFF];
    std::vector<key> tmp(keys.size());
    for (int b = 0; b < 8; ++b) {
      auto& c = count[b];
      if (c[(keys[0].head >> (8 * b)) & 0xFF] == keys.size()) continue;
      uint32_t sum = 0;
      for (auto& x : c) {
        const uint32_t n = x;
        x = sum;
        sum += n;
      }
      for (const key& k : keys) tmp[c[(k.head >> (8 * b)) & 0xFF]++] = k;
      keys.swap(tmp);
    }
  }

  void build(std::vector<entry> entries) {
    std::erase_if(entries, [](const entry& e) { return e.bytes.empty(); });
    // Sort by bytes; equal keys keep their given order, so the last one wins below. The
    // first 8 bytes (big-endian) decide most comparisons without touching the texts.
    std::vector<key> order(entries.size());
    for (size_t i = 0; i < entries.size(); ++i) {
      uint64_t h = 0;
      const std::string_view t = entries[i].bytes;
      for (size_t k = 0; k < 8; ++k) h = (h << 8) | (k < t.size() ? static_cast<uint8_t>(t[k]) : 0u);
      order[i] = {h, static_cast<uint32_t>(i)};
    }
    sort_by_head(order);  // stable: equal heads keep the given order
    // Keys longer than 8 bytes with equal heads: ordered by the rest of their bytes, ties
    // (equal keys) by their given order.
    for (size_t lo = 0; lo < order.size();) {
      size_t hi = lo + 1;
      while (hi < order.size() && order[hi].head == order[lo].head) ++hi;
      if (hi - lo > 1)
        std::sort(order.begin() + lo, order.begin() + hi, [&](const key& x, const key& y) {
          const int c = entries[x.index].bytes.compare(entries[y.index].bytes);
          return c != 0 ? c < 0 : x.index < y.index;
        });
      lo = hi;
    }
    // Keys copied in sorted order, so that each level's scan below reads memory in order.
    std::string arena;
    const size_t n_keys = entries.size();  // = order.size()
    std::vector<uint32_t> offset(n_keys + 1);
    std::vector<int32_t> ids(n_keys);
    size_t total = 0;
    for (const key& k : order) total += entries[k.index].bytes.size();
    arena.reserve(total);
    for (size_t i = 0; i < order.size(); ++i) {
      offset[i] = static_cast<uint32_t>(arena.size());
      arena.append(entries[order[i].index].bytes);
      ids[i] = entries[order[i].index].id;
    }
    offset[order.size()] = static_cast<uint32_t>(arena.size());
    auto size_of = [&](size_t i) { return static_cast<size_t>(offset[i + 1] - offset[i]); };
    auto byte_at = [&](size_t i, size_t depth) { return static_cast<uint8_t>(arena[offset[i] + depth]); };

    root_.fill(npos);
    table_vector<node_t> nodes;
    table_vector<uint8_t> bytes;
    table_vector<wide_t> wide;
    table_vector<uint32_t> pair;
    nodes.push_back({});
    struct pending {
      uint32_t node, lo, hi, depth;
    };
    // Breadth-first, so that the shallow (hottest) nodes sit together in memory. A trie
    // has at most one node per key byte (plus the root).
    nodes.reserve(total + 1);
    bytes.reserve(total + narrow_edges);
    std::vector<pending> queue;
    queue.reserve(total + 1);
    queue.push_back({0, 0, static_cast<uint32_t>(order.size()), 0});
    for (size_t head = 0; head < queue.size(); ++head) {
      const pending p = queue[head];
      size_t i = p.lo;
      while (i < p.hi && size_of(i) == p.depth) {
        nodes[p.node].value = ids[i];  // equal keys: the last given wins
        ++i;
      }
      const uint32_t first_edge = static_cast<uint32_t>(bytes.size());
      size_t n_edges = 0;
      for (size_t j = i; j < p.hi;) {
        const uint8_t b = byte_at(j, p.depth);
        size_t k = j + 1;
        while (k < p.hi && byte_at(k, p.depth) == b) ++k;
        const uint32_t c = static_cast<uint32_t>(nodes.size());
        nodes.push_back({});
        bytes.push_back(b);  // edge e always leads to node e + 1
        if (p.node == 0) root_[b] = c;
        queue.push_back({c, static_cast<uint32_t>(j), static_cast<uint32_t>(k), p.depth + 1});
        ++n_edges;
        j = k;
      }
      nodes[p.node].first_edge = first_edge;
      uint32_t meta = static_cast<uint32_t>(n_edges);
      if (n_edges > narrow_edges) {
        wide_t w;
        for (size_t e = 0; e < n_edges; ++e) {
          const uint8_t b = bytes[first_edge + e];
          w.bits[b >> 6] |= uint64_t{1} << (b & 63);
        }
        for (int k = 1; k < 4; ++k) w.before[k] = w.before[k - 1] + popcount(w.bits[k - 1]);
        meta |= static_cast<uint32_t>(wide.size()) << edge_bits;
        wide.push_back(w);
      }
      nodes[p.node].meta = meta;
    }
    bytes.resize(bytes.size() + narrow_edges, 0);  // padding for the 16-byte edge loads
    // Depth-2 nodes by their two bytes (children of the root's children).
    pair.assign(65536, npos);
    for (uint32_t b0 = 0; b0 < 256; ++b0) {
      const uint32_t n1 = root_[b0];
      if (n1 == npos) continue;
      const node_t& n = nodes[n1];
      for (uint32_t e = 0; e < (n.meta & edge_mask); ++e)
        pair[(b0 << 8) | bytes[n.first_edge + e]] = n.first_edge + e + 1;
    }
    nodes_.adopt(std::move(nodes));
    bytes_.adopt(std::move(bytes));
    wide_.adopt(std::move(wide));
    pair_.adopt(std::move(pair));
  }


  pod_table<node_t> nodes_;
  pod_table<uint8_t> bytes_;  // edge bytes, sorted per node; edge e leads to node e + 1
  pod_table<wide_t> wide_;    // edge bitmaps of the nodes with more than narrow_edges edges
  pod_table<uint32_t> pair_;  // depth-2 node by (b0 << 8) | b1
  std::array<uint32_t, 256> root_{};
};

}  // namespace gguf::vocab_detail
