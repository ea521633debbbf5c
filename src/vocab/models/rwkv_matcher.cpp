// The RWKV matcher's match (see rwkv_matcher.h): the tables viewed from the compiled
// cache, and the greedy longest match over them, in lanes for long texts. The tables are
// built with the model (rwkv.cpp).
#include <algorithm>
#include <array>
#include <cstring>

#include "vocab/models/rwkv_matcher.h"

namespace gguf::vocab_detail {

bool rwkv_matcher::view(std::span<const cell> cells, std::span<const uint32_t> best, std::span<const uint32_t> pair,
                        uint32_t root, uint32_t max_depth) {
  const size_t n = cells.size();
  if (n <= 512 || n >= max_cells || best.size() != n || pair.size() != 65536 || root >= n || max_depth > 255)
    return false;
  const uint32_t longest = std::max<uint32_t>(max_depth, 1);
  for (size_t c = 0; c < n; ++c)
    if (cells[c].base > n - 256 || (best[c] >> 24) == 0 || (best[c] >> 24) > longest) return false;
  for (const uint32_t p : pair)
    if (p >= n) return false;
  cells_.view(cells);
  best_.view(best);
  pair_.view(pair);
  root_ = root;
  max_depth_ = max_depth;
  return true;
}

namespace {

// Ids appended to a vector through a small buffer (no capacity check per id).
class id_sink {
 public:
  explicit id_sink(std::vector<int32_t>& out) : out_(out) {}
  void operator()(int32_t id, size_t /*start*/) {
    buf_[n_++] = id;
    if (n_ == std::size(buf_)) flush();
  }
  void append(const int32_t* ids, size_t count) {
    flush();
    out_.insert(out_.end(), ids, ids + count);
  }
  void flush() {
    out_.insert(out_.end(), buf_, buf_ + n_);
    n_ = 0;
  }

 private:
  std::vector<int32_t>& out_;
  int32_t buf_[256];
  size_t n_ = 0;
};

// The pair_ index of the two bytes at s: s[0] | s[1] << 8.
uint32_t two_bytes(const uint8_t* s) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  uint16_t v;
  std::memcpy(&v, s, 2);
  return v;
#else
  return s[0] | (uint32_t(s[1]) << 8);
#endif
}

int32_t id_of(uint32_t best) { return static_cast<int32_t>(best << 8) >> 8; }  // the 24 bits, sign extended

}  // namespace

template <class Push>
size_t rwkv_matcher::run(const uint8_t* s, size_t n, size_t pos, size_t limit, Push&& push) const {
  // Below `safe` no walk reaches the end of the text (from pos, a walk reads at most the
  // bytes up to pos + max_depth_, and at least up to pos + 2), so the loop checks no bound.
  const size_t reach = std::max<size_t>(max_depth_, 2);
  const size_t safe = std::min(limit, n > reach ? n - reach : 0);
  while (pos < safe) {
    uint32_t r = pair_[two_bytes(s + pos)];
    for (size_t i = pos + 2; i <= pos + max_depth_ && step(r, s[i]); ++i) {  // (bounded: a cached table
    }                                                                          // could hold a loop)
    push(id_of(best_[r]), pos);
    pos += best_[r] >> 24;
  }
  while (pos < limit) {  // near the end: walks from the root, bounded
    uint32_t r = root_;
    for (size_t i = pos; i < n && step(r, s[i]); ++i) {
    }
    push(id_of(best_[r]), pos);
    pos += best_[r] >> 24;
  }
  return pos;
}

void rwkv_matcher::tokenize(std::string_view text, std::vector<int32_t>& out) const {
  const auto* s = reinterpret_cast<const uint8_t*>(text.data());
  const size_t n = text.size();
  id_sink sink(out);
  if (n < lanes_min_bytes || n >= (size_t(1) << 31)) {
    run(s, n, 0, n, sink);
    sink.flush();
    return;
  }
  // Lanes: the text cut in `lanes` parts, each matched greedily from its start, the
  // lanes interleaved step by step without a branch (one step: an edge followed, or a
  // token emitted and the next one started), so that their loads and the CPU's
  // pipeline overlap instead of waiting on one walk's unpredictable end. Where a lane
  // meets the next one, the match coming from the left is carried on until one of its
  // token starts is one of the next lane's (greedy from a position depends on the text
  // from there on only: the rest of the lane is then what the one pass would give).
  constexpr int lanes = 5;  // bench.txt, first call: 4 lanes 15.2 ms, 5: 13.9, 6: 14.3, 8: 17.2 (registers spill)
  constexpr uint32_t record = 64;  // token starts kept per lane, to meet the lane before
  const uint32_t lane_safe = static_cast<uint32_t>(n - max_depth_ - 2);  // a step reads up to next + max_depth_ - 1
  uint32_t start[lanes + 1], end[lanes];
  for (int k = 0; k <= lanes; ++k) start[k] = static_cast<uint32_t>(n * k / lanes);
  for (int k = 0; k < lanes; ++k) end[k] = k + 1 < lanes ? start[k + 1] : lane_safe;
  // Lane k writes its ids from start[k] + k: a lane emits at most one id per byte, and
  // writes one more slot (a step writes its id before knowing whether it emits it).
  // (Not zeroed: a mapping of its own once large, its pages faulted in only as far as the
  // ids are written.)
  struct id_buffer {
    table_allocator<int32_t> alloc;
    size_t size;
    int32_t* data = alloc.allocate(size);
    ~id_buffer() { alloc.deallocate(data, size); }
  } ids{{}, n + lanes};
  uint32_t pos[lanes], at[lanes], next[lanes];
  int32_t *dst[lanes], *w[lanes];
  const cell* cells = cells_.data();
  const uint32_t* pair = pair_.data();
  const uint32_t* bests = best_.data();
  for (int k = 0; k < lanes; ++k) {
    pos[k] = start[k];
    at[k] = pair[two_bytes(s + pos[k])];
    next[k] = pos[k] + 2;
    dst[k] = w[k] = ids.data + start[k] + k;
  }
  // A round moves a lane's next byte on by at most max_depth_ (one more edge, or the next
  // token started at most one token length past the current one's start, which is at
  // least 2 before next): `rounds` of them keep every lane's reads below its end, with no
  // check per step (whatever the cells hold: a cached table is not trusted to be a tree).
  const uint32_t stride = std::max<uint32_t>(max_depth_, 1);
  for (;;) {
    uint32_t room = UINT32_MAX;
    for (int k = 0; k < lanes; ++k) room = std::min(room, next[k] < end[k] ? end[k] - next[k] : 0u);
    const uint32_t rounds = room / stride;
    if (rounds == 0) break;
    for (uint32_t round = 0; round < rounds; ++round)
    for (int k = 0; k < lanes; ++k) {
      const uint32_t r = at[k];
      const cell& cr = cells[r];
      const uint32_t c = cr.base + s[next[k]];
      const bool follow = cells[c].check == r;
      const uint32_t best = bests[r];
      *w[k] = id_of(best);
      w[k] += !follow;
      const uint32_t p = pos[k] + (best >> 24);
      const uint32_t restart = pair[two_bytes(s + p)];
      // (Selected by masks: written as conditionals, the compiler turned some of them into
      // branches, mispredicted on about every token.)
      const uint32_t keep = 0u - uint32_t(follow);
      pos[k] = (pos[k] & keep) | (p & ~keep);
      at[k] = (c & keep) | (restart & ~keep);
      next[k] = ((next[k] + 1) & keep) | ((p + 2) & ~keep);
    }
  }
  // Each lane finished alone (from the start of the token it was in); then the starts
  // of each lane's first tokens, found again.
  uint32_t count[lanes], first[lanes][record], known[lanes];
  for (int k = 0; k < lanes; ++k) {
    const size_t limit = k + 1 < lanes ? start[k + 1] : n;
    pos[k] = static_cast<uint32_t>(run(s, n, pos[k], limit, [&](int32_t id, size_t) { *w[k]++ = id; }));
    count[k] = static_cast<uint32_t>(w[k] - dst[k]);
    known[k] = 0;
    for (size_t q = start[k]; known[k] < record && q < limit;) {
      first[k][known[k]++] = static_cast<uint32_t>(q);
      q = run(s, n, q, q + 1, [](int32_t, size_t) {});
    }
  }
  sink.append(dst[0], count[0]);
  size_t e = pos[0];  // where the ids so far end
  for (int k = 1; k < lanes; ++k) {
    uint32_t j = 0;
    for (;;) {
      while (j < known[k] && first[k][j] < e) ++j;
      if (j == known[k]) {  // never met: the rest of the text in one pass
        run(s, n, e, n, sink);
        sink.flush();
        return;
      }
      if (first[k][j] == e) break;
      e = run(s, n, e, e + 1, sink);  // one token more from the left
    }
    sink.append(dst[k] + j, count[k] - j);
    e = pos[k];
  }
  sink.flush();
}

}  // namespace gguf::vocab_detail
