// The symbol list and merge loop shared by the SPM and BPE models (internal).
//
// Both models repeatedly merge the best adjacent pair of symbols: SPM by highest score,
// BPE by lowest merge rank, ties going to the leftmost pair (llama.cpp's priority
// queues llm_bigram_spm / llm_bigram_bpe). A pair is only ever formed by adjacent
// live symbols, so "best valid queue entry" equals "best current adjacent pair": short
// words use a linear scan over the pairs, long ones a binary heap with lazy deletion.
// The buffers live in a merge_scratch the caller reuses across words (no allocation
// per word once they have grown).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

namespace gguf::vocab_detail {

struct symbol {
  uint32_t start = 0;  ///< byte offset in the word
  uint32_t len = 0;    ///< bytes; 0 once merged into its left neighbour
  int32_t piece = -1;  ///< model-specific id of the symbol's text (-1: none)
  int32_t prev = -1, next = -1;
};

/// Key of a candidate pair: lower is better. `pair_key(l, r, out)` must return false when
/// l and r cannot merge, else set out (a totally ordered value, e.g. rank or -score)
/// and `merged` (the piece of the result).
template <class Key>
struct pair_candidate {
  Key key;
  int32_t merged;
};

/// Reusable buffers of merge_symbols (one per tokenize call or thread).
template <class Key>
struct merge_scratch {
  struct cand {
    Key key;
    int32_t left, right;
    uint32_t size;
    int32_t merged;
  };
  std::vector<cand> best;     // linear scan: best[i] = candidate (i, next(i))
  std::vector<uint8_t> has;   // ... whether best[i] is set
  std::vector<cand> heap;     // binary heap (worst-first comparator, as std::priority_queue)
};

/// Words of up to this many symbols use the linear scan (by default: a caller whose pair
/// lookups are cheap passes less, the scan's cost then weighing more than the heap's).
inline constexpr int merge_linear_max = 48;

template <class Key, class PairFn>
void merge_symbols(std::vector<symbol>& syms, PairFn pair_fn, merge_scratch<Key>& scratch, int linear_max = merge_linear_max) {
  using cand = typename merge_scratch<Key>::cand;
  const int n = int(syms.size());
  if (n < 2) return;
  const auto apply = [&](int32_t l, int32_t r, int32_t merged) {
    syms[l].len += syms[r].len;
    syms[l].piece = merged;
    syms[r].len = 0;
    syms[l].next = syms[r].next;
    if (syms[r].next >= 0) syms[syms[r].next].prev = l;
  };
  if (n <= linear_max) {
    auto& best = scratch.best;
    auto& has = scratch.has;
    if (best.size() < size_t(n)) best.resize(n);
    has.assign(n, 0);
    const auto eval = [&](int32_t l) {
      if (l < 0) return;
      const int32_t r = syms[l].next;
      has[l] = 0;
      if (r < 0) return;
      pair_candidate<Key> pc;
      if (pair_fn(syms[l], syms[r], pc)) {
        best[l] = {pc.key, l, r, 0, pc.merged};
        has[l] = 1;
      }
    };
    for (int i = 0; i < n - 1; ++i) eval(i);
    for (;;) {
      int32_t b = -1;
      for (int32_t i = 0; i >= 0; i = syms[i].next)
        if (has[i] && (b < 0 || best[i].key < best[b].key)) b = i;
      if (b < 0) break;
      apply(b, best[b].right, best[b].merged);
      eval(syms[b].prev);
      eval(b);
    }
    return;
  }
  const auto worse = [](const cand& a, const cand& b) { return b.key < a.key || (!(a.key < b.key) && a.left > b.left); };
  auto& q = scratch.heap;
  q.clear();
  const auto push = [&](int32_t l, int32_t r) {
    if (l < 0 || r < 0) return;
    pair_candidate<Key> pc;
    if (pair_fn(syms[l], syms[r], pc)) {
      q.push_back({pc.key, l, r, syms[l].len + syms[r].len, pc.merged});
      std::push_heap(q.begin(), q.end(), worse);
    }
  };
  for (int i = 0; i < n - 1; ++i) push(i, i + 1);
  while (!q.empty()) {
    std::pop_heap(q.begin(), q.end(), worse);
    const cand c = q.back();
    q.pop_back();
    const symbol& l = syms[c.left];
    const symbol& r = syms[c.right];
    if (l.len == 0 || r.len == 0 || l.len + r.len != c.size) continue;
    apply(c.left, c.right, c.merged);
    push(syms[c.left].prev, c.left);
    push(c.left, syms[c.left].next);
  }
}

/// Reusable buffers of merge_symbols_ranked.
struct ranked_merge_scratch {
  struct pair_now {
    uint32_t rank;  // of the pair (i, next(i)): 0 = none
    int32_t merged;
  };
  std::vector<pair_now> now;   // [i] = the pair of symbol i and its next one
  std::vector<uint64_t> heap;  // rank << 32 | left, least first
};

/// merge_symbols' heap for keys that are ranks from 1 to 2^32 - 1 (BPE by ids): each
/// candidate is one 64-bit integer (rank, then position, as merge_symbols orders them),
/// and a candidate is current when its left symbol is live and its pair's rank, kept per
/// symbol, is still the candidate's (a rank is one rule, so one pair of pieces: a
/// candidate left over with the same rank stands for the same merge). `pair_fn(l, r,
/// rank, merged)` returns false when l and r cannot merge.
template <class PairFn, class AheadFn>
void merge_symbols_ranked(std::vector<symbol>& syms, PairFn pair_fn, AheadFn ahead, ranked_merge_scratch& scratch) {
  const int n = int(syms.size());
  if (n < 2) return;
  auto& now = scratch.now;
  auto& q = scratch.heap;
  if (now.size() < size_t(n)) now.resize(size_t(n));
  q.clear();
  const std::greater<uint64_t> later;
  for (int i = 0; i < n - 1; ++i) {
    uint32_t rank = 0;
    int32_t merged = -1;
    if (!pair_fn(syms[i], syms[i + 1], rank, merged)) rank = 0;
    now[i] = {rank, merged};
    if (rank) q.push_back(uint64_t(rank) << 32 | uint32_t(i));
  }
  now[n - 1].rank = 0;
  std::make_heap(q.begin(), q.end(), later);
  const auto eval = [&](int32_t l) {
    if (l < 0) return;
    const int32_t r = syms[l].next;
    uint32_t rank = 0;
    int32_t merged = -1;
    if (r < 0 || !pair_fn(syms[l], syms[r], rank, merged)) rank = 0;
    now[l] = {rank, merged};
    if (rank) {
      q.push_back(uint64_t(rank) << 32 | uint32_t(l));
      std::push_heap(q.begin(), q.end(), later);
    }
  };
  while (!q.empty()) {
    std::pop_heap(q.begin(), q.end(), later);
    const uint64_t c = q.back();
    q.pop_back();
    const auto l = int32_t(uint32_t(c));
    if (syms[l].len == 0 || now[l].rank != uint32_t(c >> 32)) continue;
    const int32_t r = syms[l].next;
    if (!q.empty()) {  // the next merge's new pairs, most likely: their lookups started now
      const auto l2 = int32_t(uint32_t(q.front()));
      if (syms[l2].len != 0 && now[l2].rank == uint32_t(q.front() >> 32)) {
        const int32_t p2 = syms[l2].prev, n2 = syms[syms[l2].next].next;
        if (p2 >= 0) ahead(syms[p2].piece, now[l2].merged);
        if (n2 >= 0) ahead(now[l2].merged, syms[n2].piece);
      }
    }
    syms[l].len += syms[r].len;
    syms[l].piece = now[l].merged;
    syms[r].len = 0;
    syms[l].next = syms[r].next;
    if (syms[r].next >= 0) syms[syms[r].next].prev = l;
    eval(syms[l].prev);
    eval(l);
  }
}

template <class Key, class PairFn>
void merge_symbols(std::vector<symbol>& syms, PairFn pair_fn) {
  merge_scratch<Key> scratch;
  merge_symbols<Key>(syms, pair_fn, scratch);
}

}  // namespace gguf::vocab_detail
