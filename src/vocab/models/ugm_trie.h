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
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "vocab/runtime/prefault.h"
#include "vocab/runtime/swar.h"
#include "vocab/runtime/table_cache.h"

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

  /// The empty trie. Without keys there is no depth-2 table (pair_ stays empty: every
  /// walk stops at root_), so an empty or not yet loaded trie costs no 256 KiB of pages.
  byte_trie() {
    root_.fill(npos);
    nodes_.adopt(table_vector<node_t>(1));
    bytes_.assign(narrow_edges, 0);
  }
  byte_trie(byte_trie&&) = default;
  byte_trie& operator=(byte_trie&&) = default;

  /// Builds the trie. Empty keys are ignored.
  explicit byte_trie(const std::vector<entry>& entries) {
    build(entries.size(), [&](size_t i) -> const entry& { return entries[i]; });
  }
  /// Builds the trie over the n entries key_of(0) .. key_of(n - 1), without a copy of them.
  template <class KeyOf>
  byte_trie(size_t n, KeyOf&& key_of) {
    build(n, key_of);
  }

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
    return n.first_edge + w.before[word] + popcount64(bits & ((uint64_t{1} << (b & 63)) - 1)) + 1;
  }
  /// The depth-2 node of the bytes b0 b1 (child(child(0, b0), b1)), or npos: one load.
  uint32_t pair_child(uint8_t b0, uint8_t b1) const noexcept {
    return pair_.size() ? pair_[(uint32_t(b0) << 8) | b1] : npos;
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

  /// Calls fn(byte, child) for each edge of `node`, in byte order. Nodes are numbered
  /// breadth first: a node's number is larger than its parent's and than every node of a
  /// smaller depth.
  template <class Fn>
  void for_each_edge(uint32_t node, Fn&& fn) const {
    const node_t& n = nodes_[node];
    for (uint32_t e = 0; e < (n.meta & edge_mask); ++e) fn(bytes_[n.first_edge + e], n.first_edge + e + 1);
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
    if (nodes.empty() || bytes.size() != nodes.size() - 1 + narrow_edges || root.size() != 256 ||
        pair.size() != (nodes.size() > 1 ? 65536u : 0u))
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
  struct key {
    uint64_t head;   // the first 8 bytes, big-endian, zero padded
    uint32_t index;  // into the entries
    uint32_t len;
  };
  // The first 8 bytes of t as a big-endian number, zero padded (so that comparing heads
  // compares the bytes).
  static uint64_t head_of(std::string_view t) noexcept {
    const auto* p = reinterpret_cast<const uint8_t*>(t.data());
    const size_t n = t.size();
    if constexpr (std::endian::native == std::endian::little) {
      uint64_t w;
      if (n >= 8) {
        std::memcpy(&w, p, 8);
      } else if (n >= 4) {  // two overlapping loads
        uint32_t lo, hi;
        std::memcpy(&lo, p, 4);
        std::memcpy(&hi, p + n - 4, 4);
        w = lo | (uint64_t(hi) << (8 * (n - 4)));
      } else {
        w = n ? uint64_t(p[0]) | (uint64_t(p[n >> 1]) << (8 * (n >> 1))) | (uint64_t(p[n - 1]) << (8 * (n - 1))) : 0;
      }
      return __builtin_bswap64(w);
    } else {
      uint64_t h = 0;
      for (size_t k = 0; k < 8; ++k) h = (h << 8) | (k < n ? p[k] : 0u);
      return h;
    }
  }
  // Index of the first differing byte of two 8-byte words loaded from memory (x = a ^ b, != 0).
  static size_t first_diff(uint64_t x) noexcept {
    if constexpr (std::endian::native == std::endian::little) return size_t(std::countr_zero(x)) >> 3;
    else return size_t(std::countl_zero(x)) >> 3;
  }
  // Length of the common prefix of two keys.
  static size_t common_prefix(const key& a, const key& b, const char* pa, const char* pb) noexcept {
    const size_t m = std::min(a.len, b.len);
    if (a.head != b.head) return std::min<size_t>(size_t(std::countl_zero(a.head ^ b.head)) >> 3, m);
    if (m <= 8) return m;
    size_t k = 8;
    for (; k + 8 <= m; k += 8) {
      uint64_t x, y;
      std::memcpy(&x, pa + k, 8);
      std::memcpy(&y, pb + k, 8);
      if (x != y) return k + first_diff(x ^ y);
    }
    while (k < m && pa[k] == pb[k]) ++k;
    return k;
  }
  // LSD radix sort by head, 11 bits per pass (6 passes; stable); passes whose digit is the
  // same in every key are skipped (the low bytes of short keys). `count` holds each
  // digit's histogram. (11-bit digits: bert-bge's sort 0.38 -> 0.28 ms, nomic-bert-moe's
  // 4.6 -> 3.0 ms against bytes.)
  static constexpr int digit_bits = 11, n_digits = 6;
  static constexpr uint32_t digit_mask = (1u << digit_bits) - 1;
  using histograms = std::vector<std::array<uint32_t, digit_mask + 1>>;
  static void sort_by_head(std::vector<key>& keys, histograms& count) {
    if (keys.size() < 64) {
      std::stable_sort(keys.begin(), keys.end(), [](const key& x, const key& y) { return x.head < y.head; });
      return;
    }
    std::vector<key> tmp(keys.size());
    for (int b = 0; b < n_digits; ++b) {
      auto& c = count[b];
      if (c[(keys[0].head >> (digit_bits * b)) & digit_mask] == keys.size()) continue;
      uint32_t sum = 0;
      for (auto& x : c) {
        const uint32_t n = x;
        x = sum;
        sum += n;
      }
      for (const key& k : keys) tmp[c[(k.head >> (digit_bits * b)) & digit_mask]++] = k;
      keys.swap(tmp);
    }
  }

  // Sorts the keys, then makes every node in one pass over them: in sorted order, key i
  // adds the nodes for its bytes past its common prefix with key i - 1. The nodes of one
  // depth are made in lexicographic order of their paths, which is their breadth-first
  // order: with each depth's first number known (a first pass counts the nodes per
  // depth), every node gets its final number when it is made, and the children of a node
  // (made while its keys are visited) get consecutive numbers.
  template <class KeyOf>
  void build(size_t n_entries, const KeyOf& key_of) {
    const auto text = [&](uint32_t i) -> std::string_view { return key_of(i).bytes; };
    std::vector<key> order;
    order.reserve(n_entries);
    histograms count(n_digits);
    for (size_t i = 0; i < n_entries; ++i) {
      const std::string_view t = text(static_cast<uint32_t>(i));
      if (t.empty()) continue;
      const uint64_t h = head_of(t);
      order.push_back({h, static_cast<uint32_t>(i), static_cast<uint32_t>(t.size())});
      for (int b = 0; b < n_digits; ++b) ++count[b][(h >> (digit_bits * b)) & digit_mask];
    }
    sort_by_head(order, count);  // stable: equal heads keep the given order
    // Keys longer than 8 bytes (or holding NUL bytes) with equal heads: ordered by all
    // their bytes (bytes 8..15 as a number first, the same way), ties (equal keys) by
    // their given order, so that the last one wins below.
    std::vector<key> group;
    for (size_t lo = 0; lo < order.size();) {
      size_t hi = lo + 1;
      while (hi < order.size() && order[hi].head == order[lo].head) ++hi;
      if (hi - lo > 1) {
        group.assign(order.begin() + lo, order.begin() + hi);
        for (key& k : group) k.head = k.len > 8 ? head_of(text(k.index).substr(8)) : 0;
        std::sort(group.begin(), group.end(), [&](const key& x, const key& y) {
          if (x.head != y.head) return x.head < y.head;
          const int c = text(x.index).compare(text(y.index));
          return c != 0 ? c < 0 : x.index < y.index;
        });
        for (size_t j = 0; j < group.size(); ++j) order[lo + j] = {order[lo].head, group[j].index, group[j].len};
      }
      lo = hi;
    }
    // Pass 1: each key's common prefix with the one before; nodes per depth (as a
    // difference array: key i adds one node at each depth lcp + 1 .. len).
    const size_t n_keys = order.size();
    std::vector<uint32_t> lcp(n_keys);
    size_t max_len = 0;
    for (const key& k : order) max_len = std::max<size_t>(max_len, k.len);
    std::vector<uint32_t> level(max_len + 2, 0);
    constexpr size_t ahead = 16;  // keys in sorted order are far apart: their texts are loaded ahead
    for (size_t i = 0; i < n_keys; ++i) {
      if (i + ahead < n_keys) __builtin_prefetch(text(order[i + ahead].index).data());
      const key& k = order[i];
      const uint32_t l =
          i == 0 ? 0
                 : static_cast<uint32_t>(common_prefix(order[i - 1], k, text(order[i - 1].index).data(), text(k.index).data()));
      lcp[i] = l;
      if (k.len > l) ++level[l + 1], --level[k.len + 1];
    }
    // level[d] := number of the first node of depth d (the root is node 0, depth 0)
    size_t total = 1;
    {
      uint32_t running = 0;
      std::vector<uint32_t> first(max_len + 2, 0);
      for (size_t d = 1; d <= max_len; ++d) {
        running += level[d];
        first[d] = static_cast<uint32_t>(total);
        total += running;
      }
      level.swap(first);
    }
    table_vector<node_t> nodes = prefaulted_table(total, node_t{});
    table_vector<uint8_t> bytes = prefaulted_table<uint8_t>(total - 1 + narrow_edges, 0);  // padding for the 16-byte edge loads
    std::vector<uint32_t> path(max_len + 1, 0);              // path[d]: the node of depth d of the current key
    for (size_t i = 0; i < n_keys; ++i) {
      const key& k = order[i];
      const char* bytes_k = text(k.index).data();
      for (uint32_t d = lcp[i] + 1; d <= k.len; ++d) {
        const uint32_t id = level[d]++;
        node_t& parent = nodes[path[d - 1]];
        if (parent.meta == 0) parent.first_edge = id - 1;
        ++parent.meta;
        bytes[id - 1] = d <= 8 ? static_cast<uint8_t>(k.head >> (64 - 8 * d)) : static_cast<uint8_t>(bytes_k[d - 1]);
        path[d] = id;
      }
      nodes[path[k.len]].value = key_of(k.index).id;  // equal keys: the last given wins
    }
    // Nodes with more than narrow_edges edges: their edge bitmaps.
    table_vector<wide_t> wide;
    for (node_t& n : nodes) {
      if (n.meta <= narrow_edges) continue;
      wide_t w;
      for (uint32_t e = 0; e < n.meta; ++e) {
        const uint8_t b = bytes[n.first_edge + e];
        w.bits[b >> 6] |= uint64_t{1} << (b & 63);
      }
      for (int j = 1; j < 4; ++j) w.before[j] = w.before[j - 1] + popcount64(w.bits[j - 1]);
      n.meta |= static_cast<uint32_t>(wide.size()) << edge_bits;
      wide.push_back(w);
    }
    root_.fill(npos);
    for (uint32_t e = 0; e < (nodes[0].meta & edge_mask); ++e) root_[bytes[e]] = e + 1;
    // Depth-2 nodes by their two bytes (children of the root's children); none without keys.
    table_vector<uint32_t> pair = total > 1 ? prefaulted_table<uint32_t>(65536, npos) : table_vector<uint32_t>();
    for (uint32_t b0 = 0; b0 < 256 && total > 1; ++b0) {
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
