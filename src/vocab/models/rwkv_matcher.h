// Greedy longest match for the RWKV model (rwkv.cpp) over a double array built from the
// token texts: llama.cpp's llm_tokenizer_rwkv_session::tokenize, always the longest token
// that starts at the current byte, the unknown token for a byte that starts none.
//
// Three things make it fast. Every cell carries the longest token that ends on the path
// from the root to its node (id and length), so a walk only follows edges until one is
// missing and then reads its answer off the cell where it stopped. The trie is a double
// array: the child of cell r by byte b is cell base(r) + b when that cell's check is r,
// so a step is two loads and a compare, the same for every node. And a direct table by
// the first two bytes gives the depth-2 cell (or, where there is none, a cell without
// edges that holds the answer), so most tokens cost a table load and a step or two.
// Long texts are matched in lanes stepped together (tokenize, in rwkv_matcher.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "vocab/runtime/table_cache.h"

namespace gguf::vocab_detail {

class rwkv_matcher {
 public:
  /// Builds the tables from the token texts, text(id) for id = 0 .. n_keys - 1, called
  /// once each in that order (of equal texts the last id wins, as in byte_trie), with
  /// `unk` the id for a byte that starts no token; false when the vocabulary is beyond
  /// their fields (ids from 2^23, tokens over 255 bytes, 2^31 cells): the caller then
  /// matches through a byte_trie.
  template <class Text>
  bool build(size_t n_keys, Text&& text, int32_t unk);

  /// Appends the ids of `text`, greedy longest match.
  void tokenize(std::string_view text, std::vector<int32_t>& out) const;

  /// The tables for the compiled cache (table_cache.h).
  void save(table_writer& w) const {
    w.put(cells_.span());
    w.put(best_.span());
    w.put(pair_.span());
    w.put_value(root_);
    w.put_value(max_depth_);
  }
  /// Maps the tables back; false when they do not fit together (view).
  bool load(table_reader& r) {
    std::span<const cell> cells;
    std::span<const uint32_t> best, pair;
    uint32_t root = 0, max_depth = 0;
    if (!r.get(cells) || !r.get(best) || !r.get(pair) || !r.get_value(root) || !r.get_value(max_depth)) return false;
    return view(cells, best, pair, root, max_depth);
  }

  struct cell {
    uint32_t base;   // children at base + byte; 0 for a node without edges (cells 0..255 are never used)
    uint32_t check;  // the parent cell; UINT32_MAX: free
  };
  /// Uses these tables (not copied) when no text can lead a match out of its arrays or
  /// stall it: every base + 255 and every pair_ entry inside the cells, every answer's
  /// length 1..max_depth (each token moves on; walks are bounded by max_depth, so a
  /// table with a loop ends too). False, and nothing changed, otherwise.
  bool view(std::span<const cell> cells, std::span<const uint32_t> best, std::span<const uint32_t> pair, uint32_t root,
            uint32_t max_depth);

 private:
  static constexpr uint32_t max_cells = 1u << 31, id_mask = (1u << 24) - 1;
  static constexpr int32_t id_limit = 1 << 23;  // ids are stored in 24 bits, signed (unk may be -1)
  // One step: the child of cell r by byte b, or r itself when there is none.
  bool step(uint32_t& r, uint8_t b) const noexcept {
    const uint32_t c = cells_[r].base + b;
    if (cells_[c].check != r) return false;
    r = c;
    return true;
  }

  // Greedy from `pos` while it is below `limit`, push(id, start) per token; returns where the
  // last token ends (>= limit).
  template <class Push>
  size_t run(const uint8_t* s, size_t n, size_t pos, size_t limit, Push&& push) const;
  static constexpr size_t lanes_min_bytes = 4096;  // shorter texts: one pass (tokenize)

  pod_table<cell> cells_;
  pod_table<uint32_t> best_;  // per cell: the longest token on the path to it, id (low 24 bits) | length (high 8);
                              // none: unk | 1
  pod_table<uint32_t> pair_;  // by b0 | b1 << 8: the depth-2 cell, or one without edges holding the answer
  uint32_t root_ = 0;
  uint32_t max_depth_ = 0;  // the longest token's length (a walk reads at most this many bytes + 1)
};

}  // namespace gguf::vocab_detail
