// A dense Aho-Corasick automaton over the UGM model's candidate tokens (internal), for
// small vocabularies: the Viterbi then reads, at each code point's end, the tokens that
// end there, instead of walking the trie from each code point's start.
//
// The trie walk costs a hard-to-predict branch at every level and at its end; here a
// step is one table load per byte, whatever the tokens. The table has one row per trie
// node and one column per class of bytes (the bytes some token holds, one class each; all
// other bytes one class), so it is only built while it stays small (max_table_bytes,
// within the per-core L2 cache). ugm-sp-test (1000 tokens): 2,587 nodes, 72 classes,
// 373 KB of transitions.
//
// States are the trie's nodes (byte_trie numbers them breadth first, so a node's failure
// link, being shallower, is numbered below it, and each row can be made from rows already
// made). A state's outputs are the tokens that are suffixes of its path: its own token,
// then its failure link's outputs, so longest first.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "vocab/models/ugm_trie.h"
#include "vocab/runtime/prefault.h"

namespace gguf::vocab_detail {

class ugm_automaton {
 public:
  /// A token ending at a state: its length in bytes, its id and its Viterbi score.
  struct output {
    double score;
    uint32_t len;
    int32_t id;
  };
  /// Transition tables above this size are not built (the trie walk is used instead).
  static constexpr size_t max_table_bytes = size_t(512) << 10;

  ugm_automaton() = default;

  /// Builds the automaton of the keys of `trie` (token ids as values) with
  /// score_of(id) as each token's score; empty (!*this) when the trie has 65,536 nodes
  /// or more, or its transitions or outputs would take more than max_table_bytes each.
  template <class ScoreOf>
  static ugm_automaton build(const byte_trie& trie, ScoreOf&& score_of) {
    ugm_automaton a;
    const size_t n = trie.node_count();
    if (n == 0 || n > UINT16_MAX) return a;
    std::array<bool, 256> used{};
    for (uint32_t s = 0; s < n; ++s) trie.for_each_edge(s, [&](uint8_t b, uint32_t) { used[b] = true; });
    uint32_t classes = 1;  // class 0: bytes no token holds
    for (size_t b = 0; b < 256; ++b) a.class_[b] = used[b] ? uint8_t(classes++) : uint8_t{0};
    if (n * classes * sizeof(uint16_t) > max_table_bytes) return a;
    a.n_classes_ = classes;
    // Every row is written in full below (the root's zeroed, the others copied from their
    // failure link's first): the pages are faulted in by one call and not cleared by hand
    // (a memset of the whole table cost a fault per page at ugm-sp-test's load).
    table_vector<uint16_t> next;
    prefaulted_reserve(next, n * classes);
    next.resize(n * classes);  // default-initialized (table_allocator::construct)
    std::vector<uint16_t> fail(n, 0);
    std::vector<uint32_t> depth(n, 0);
    std::fill(next.begin(), next.begin() + classes, uint16_t{0});
    for (uint32_t s = 0; s < n; ++s) {
      uint16_t* row = next.data() + size_t(s) * classes;
      const uint16_t* fail_row = next.data() + size_t(fail[s]) * classes;
      if (s != 0) std::copy(fail_row, fail_row + classes, row);  // no edge: as the failure link
      trie.for_each_edge(s, [&](uint8_t b, uint32_t child) {
        const uint8_t c = a.class_[b];
        fail[child] = s == 0 ? uint16_t{0} : fail_row[c];
        depth[child] = depth[s] + 1;
        row[c] = uint16_t(child);
      });
    }
    std::vector<uint32_t> first(n + 1, 0);
    std::vector<output> outputs;
    for (uint32_t s = 0; s < n; ++s) {
      first[s] = uint32_t(outputs.size());
      if (const int32_t id = trie.value(s); id >= 0) outputs.push_back({score_of(id), depth[s], id});
      if (s != 0)
        for (uint32_t k = first[fail[s]]; k < first[fail[s] + 1u]; ++k) outputs.push_back(outputs[k]);
      if (outputs.size() * sizeof(output) > max_table_bytes) return a;
    }
    first[n] = uint32_t(outputs.size());
    // (the root's row: the states after one byte from the root)
    for (size_t b = 0; b < 256; ++b) a.root_stays_[b] = next[a.class_[b]] == 0;
    a.root_silent_ = first[1] == first[0];
    a.next_ = std::move(next);
    a.first_ = std::move(first);
    a.outputs_ = std::move(outputs);
    return a;
  }

  explicit operator bool() const noexcept { return !next_.empty(); }

  /// The state after `state` reads byte b (the root is state 0).
  uint32_t step(uint32_t state, uint8_t b) const noexcept { return next_[size_t(state) * n_classes_ + class_[b]]; }
  /// Whether the code point p[0, len) (1 <= len <= 4) leads every state to the root, no
  /// token ending at the root: its first byte is in no token (so the root follows it
  /// whatever came before) and no token starts with a byte after it. No token then starts
  /// before its end and ends past it (the root reads as: no suffix of what was read begins
  /// a token), and none ends at its end. (CJK text against a vocabulary without CJK
  /// tokens: most of its code points.)
  bool dead(const uint8_t* p, size_t len) const noexcept {
    if (class_[p[0]] != 0 || !root_silent_) return false;
    for (size_t k = 1; k < len; ++k)
      if (!root_stays_[p[k]]) return false;
    return true;
  }
  /// The tokens that end at `state`, longest first.
  std::span<const output> outputs(uint32_t state) const noexcept {
    return {outputs_.data() + first_[state], first_[state + 1] - first_[state]};
  }
  /// Whether every output's id is in [0, n).
  bool ids_below(size_t n) const noexcept {
    return std::all_of(outputs_.begin(), outputs_.end(), [n](const output& o) { return o.id >= 0 && size_t(o.id) < n; });
  }
  size_t memory_bytes() const noexcept {
    return next_.size() * sizeof(uint16_t) + first_.size() * sizeof(uint32_t) + outputs_.size() * sizeof(output);
  }

 private:
  std::array<uint8_t, 256> class_{};
  uint32_t n_classes_ = 0;
  std::array<bool, 256> root_stays_{};  // step(0, b) == 0
  bool root_silent_ = false;            // outputs(0) is empty
  table_vector<uint16_t> next_;    // [state * n_classes_ + class]
  std::vector<uint32_t> first_;    // outputs of state s: outputs_[first_[s], first_[s + 1])
  std::vector<output> outputs_;
};

}  // namespace gguf::vocab_detail
