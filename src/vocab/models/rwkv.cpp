// RWKV tokenizer model: greedy longest match over the unescaped token texts.
//
// Follows llama.cpp's llm_tokenizer_rwkv / llm_tokenizer_rwkv_session (src/llama-vocab.cpp):
// the GGUF stores each RWKV "world" token as an escaped string (\t \n \r \xHH and \c for
// a literal c); the model matches raw bytes against the unescaped texts of every token,
// always taking the longest token that starts at the current byte. A byte that starts no
// token becomes the unknown token. The match runs over the double array of
// rwkv_matcher.h, built here from the token texts and kept in the compiled cache; the
// plain path (make_rwkv(v, false), and vocabularies beyond the array's fields) walks a
// byte trie (ugm_trie.h) per token.
#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <memory>
#include <mutex>

#include "vocab/models/rwkv_matcher.h"
#include "vocab/models/rwkv_unescape.h"
#include "vocab/runtime/swar.h"
#include "vocab/models/tokenizer_model.h"
#include "vocab/models/ugm_trie.h"

namespace gguf::vocab_detail {

std::string rwkv_unescape(std::string_view escaped) {
  std::string out(escaped.size(), '\0');  // unescaping never lengthens a text
  out.resize(size_t(rwkv_unescape_to(escaped, out.data()) - out.data()));
  return out;
}

char* rwkv_unescape_to(std::string_view escaped, char* out) {
  const char* p = escaped.data();
  const char* const end = p + escaped.size();
  while (p != end) {
    const char c = *p++;
    if (c != '\\') {
      *out++ = c;
      continue;
    }
    if (p == end) break;  // a dangling escape is dropped
    switch (*p++) {
      case 't': *out++ = '\t'; break;
      case 'n': *out++ = '\n'; break;
      case 'r': *out++ = '\r'; break;
      case 'x': {
        if (end - p < 2) return out;  // an unfinished \x escape is dropped
        // llama_unescape_rwkv_token's digit rule: 'a'..'f' (and above) count from 10,
        // everything else from '0', in 8-bit arithmetic.
        uint8_t acc = 0;
        for (int k = 0; k < 2; ++k) {
          const auto d = static_cast<uint8_t>(*p++);
          acc = static_cast<uint8_t>((acc << 4) + (d >= 'a' ? d - 'a' + 10 : d - '0'));
        }
        *out++ = static_cast<char>(acc);
        break;
      }
      default: *out++ = p[-1]; break;
    }
  }
  return out;
}

bool rwkv_has_escape(std::string_view text, std::span<const std::byte> readable) noexcept {
  const size_t n = text.size();
  const size_t words = (n + 7) / 8;
  const auto at = reinterpret_cast<uintptr_t>(text.data()), lo = reinterpret_cast<uintptr_t>(readable.data());
  if constexpr (std::endian::native == std::endian::little) {
    if (at >= lo && at - lo <= readable.size() && readable.size() - (at - lo) >= words * 8) {
      constexpr uint64_t backslashes = 0x0101010101010101ull * '\\';
      uint64_t found = 0;
      for (size_t k = 0; k < words; ++k) {
        uint64_t w;
        std::memcpy(&w, text.data() + 8 * k, 8);
        uint64_t x = w ^ backslashes;  // a zero byte where a backslash is
        if (k + 1 == words && n % 8) x |= ~uint64_t{0} << (8 * (n % 8));  // the bytes past the text: not zero
        found |= zero_byte_bits(x);
      }
      return found != 0;
    }
  }
  return n && std::memchr(text.data(), '\\', n) != nullptr;
}

namespace {
// A 256-bit set of bytes held in four words, which stay in registers: add() selects the
// word without a branch or an indexed store (an array indexed by b >> 6 would go through
// memory on every byte).
struct byte_set_regs {
  uint64_t w0 = 0, w1 = 0, w2 = 0, w3 = 0;
  void add(uint32_t b) noexcept {
    const uint64_t bit = uint64_t{1} << (b & 63);
    w0 |= (b >> 6) == 0 ? bit : 0;
    w1 |= (b >> 6) == 1 ? bit : 0;
    w2 |= (b >> 6) == 2 ? bit : 0;
    w3 |= (b >> 6) == 3 ? bit : 0;
  }
  std::array<uint64_t, 4> words() const noexcept { return {w0, w1, w2, w3}; }
};
}  // namespace

template <class Text>
bool rwkv_matcher::build(size_t n_keys, Text&& text, int32_t unk) {
  // Level by level, without a trie or a sort: at depth d every key longer than d is at the
  // cell of its first d bytes (cur); the bytes that follow a cell, gathered over the keys
  // as a 256-bit set, are its children, placed together; then each key moves to its child,
  // and a key that ends there gives the cell its id (keys in id order: a later equal key
  // wins, as in byte_trie).
  if (unk < -1 || unk >= id_limit) return false;
  const uint32_t none = (uint32_t(unk) & id_mask) | (1u << 24);  // no token: unk, one byte
  constexpr uint32_t free_cell = UINT32_MAX, root = 256;
  size_t total = 0;
  struct key {
    const uint8_t* bytes;
    uint32_t id_size;  // id << 8 | size
    uint32_t cur;      // the cell of its first d bytes
  };
  table_vector<key> active;  // the keys still longer than the depth, in id order
  prefaulted_reserve(active, n_keys);
  if (n_keys > size_t(id_limit)) return false;
  for (uint32_t id = 0; id < n_keys; ++id) {
    const std::string_view t = text(id);
    if (t.empty()) continue;
    if (t.size() > 255) return false;
    active.push_back({reinterpret_cast<const uint8_t*>(t.data()), id << 8 | uint32_t(t.size()), root});
    total += t.size();
  }
  // Cells 0..255 stay free: the base of a node without edges is 0, so its steps fail.
  table_vector<cell> cells = prefaulted_table(total / 3 + 2048, cell{0, free_cell});
  table_vector<uint32_t> best = prefaulted_table(cells.size(), none);
  // used: a bit per cell, set where check != free_cell (cells 0..256 taken), for next_free
  // and the fit tests (16 KiB for rwkv-world: it stays in the L1 cache, where a byte per
  // cell did not).
  std::vector<uint64_t> used(cells.size() / 64 + 2, 0);
  used[0] = used[1] = used[2] = used[3] = ~uint64_t{0};
  used[4] = 1;
  auto is_used = [&](size_t c) { return (used[c >> 6] >> (c & 63)) & 1; };
  auto grow = [&](size_t need) {
    if (need <= cells.size()) return;
    const size_t size = std::max(need, cells.size() + cells.size() / 2);
    cells.resize(size, cell{0, free_cell});
    best.resize(size, none);
    used.resize(size / 64 + 2, 0);
  };
  cells[root].check = root;  // its own parent (never reached as a child: no byte leads to it)
  // The first free cell from p on (p <= high, and every cell from high on is free).
  auto next_free = [&](size_t p) {
    size_t w = p >> 6;
    uint64_t free = ~used[w] & (~uint64_t{0} << (p & 63));
    while (free == 0) free = ~used[++w];
    return w * 64 + size_t(std::countr_zero(free));
  };
  size_t first_free = 257, high = 257;  // high: every cell from here on is free
  uint32_t max_depth = 0;
  // Places the children of `parent`, the bytes in the set `follow`; false past max_cells.
  auto place = [&](uint32_t parent, const std::array<uint64_t, 4>& follow) {
    uint8_t bytes[256];
    uint32_t count = 0;
    for (uint32_t word = 0; word < 4; ++word)
      for (uint64_t m = follow[word]; m != 0; m &= m - 1)
        bytes[count++] = static_cast<uint8_t>(word * 64 + uint32_t(__builtin_ctzll(m)));
    // The first base at which every child's cell is free: candidates from the first
    // free cell on, a few of them (the array still comes out nearly full: 116,869 cells
    // for rwkv-world's 116,100 nodes), then past the highest used cell.
    const uint32_t c0 = bytes[0];
    first_free = next_free(first_free);
    size_t base = count == 1 ? first_free - c0 : 0;  // one child: the first free cell (> 256 > c0)
    size_t p = first_free;
    for (int tries = 0; tries < 4 && p < high && base == 0; ++tries) {
      if (p >= c0 + 256) {
        bool fits = true;
        for (uint32_t k = 1; k < count && fits; ++k) fits = !is_used(p - c0 + bytes[k]);
        if (fits) {
          base = p - c0;
          break;
        }
      }
      p = next_free(p + 1);
    }
    if (base == 0) base = std::max<size_t>(high, c0 + 256) - c0;
    if (base + 512 >= max_cells) return false;
    grow(base + 512);
    cells[parent].base = static_cast<uint32_t>(base);
    for (uint32_t k = 0; k < count; ++k) {
      const size_t c = base + bytes[k];
      cells[c].check = parent;
      best[c] = best[parent];
      used[c >> 6] |= uint64_t{1} << (c & 63);
    }
    high = std::max<size_t>(high, base + bytes[count - 1] + 1);
    return true;
  };
  // Per parent of a level (at most one per key, plus the slot a key fills in before it is
  // known to be new): its cell, and the bytes after it. Not initialized: only the slots a
  // level fills are read.
  const std::unique_ptr<uint32_t[]> parents(new uint32_t[active.size() + 1]);
  const std::unique_ptr<std::array<uint64_t, 4>[]> follow(new std::array<uint64_t, 4>[active.size() + 1]);
  size_t runs = 0;
  uint32_t d = 0;
  if (!active.empty()) {
    // The first two levels straight from the keys' first two bytes, in two passes over
    // them instead of four (a third of rwkv-world's key steps are there): the root's
    // bytes; the last id of each one-byte text; the byte pairs present, and the first
    // bytes of the longer keys in order of appearance (the order the level-by-level
    // gather would place their children in).
    byte_set_regs first;
    uint32_t id1[256], order[256], listed = 0;
    std::fill(std::begin(id1), std::end(id1), free_cell);
    std::array<uint8_t, 256> in_order{};
    std::vector<uint8_t> pairs(65536, 0);  // by b0 << 8 | b1: 1 where a key starts so
    for (const key& k : active) {
      const uint32_t b0 = k.bytes[0];
      first.add(b0);
      if ((k.id_size & 0xFF) == 1) {
        id1[b0] = k.id_size >> 8;
        continue;
      }
      if (!in_order[b0]) {
        in_order[b0] = 1;
        order[listed++] = b0;
      }
      pairs[b0 << 8 | k.bytes[1]] = 1;
    }
    if (!place(root, first.words())) return false;
    const uint32_t base1 = cells[root].base;
    for (uint32_t b0 = 0; b0 < 256; ++b0)
      if (id1[b0] != free_cell) {
        best[base1 + b0] = id1[b0] | (1u << 24);
        max_depth = 1;
      }
    for (uint32_t i = 0; i < listed; ++i) {
      const uint32_t b0 = order[i];
      std::array<uint64_t, 4> second{};
      for (uint32_t b1 = 0; b1 < 256; b1 += 8) {  // 8 flags (0 or 1 each) to 8 bits
        uint64_t w;
        std::memcpy(&w, pairs.data() + (b0 << 8) + b1, 8);
        if constexpr (std::endian::native != std::endian::little) w = __builtin_bswap64(w);
        second[b1 >> 6] |= ((w * 0x0102040810204080ull) >> 56) << (b1 & 63);
      }
      if (!place(base1 + b0, second)) return false;
    }
    // Each key to its depth-2 cell; the ones that end at depth 2 give it their id.
    size_t kept = 0;
    uint32_t last = free_cell;
    for (const key& k : active) {
      const uint32_t size = k.id_size & 0xFF;
      if (size == 1) continue;
      const uint32_t c = cells[base1 + k.bytes[0]].base + k.bytes[1];
      if (size == 2) {
        best[c] = (k.id_size >> 8) | (2u << 24);
        max_depth = 2;
        continue;
      }
      runs += c != last;
      last = c;
      active[kept++] = {k.bytes, k.id_size, c};
    }
    active.resize(kept);
    d = 2;
  }
  for (; !active.empty(); ++d) {
    // The parents of this level and the bytes after each (a parent's base holds its slot + 1
    // until its children are placed), in one of two ways.
    size_t n = 0;
    auto parent_slot = [&](uint32_t c) -> std::array<uint64_t, 4>& {
      uint32_t& slot = cells[c].base;
      if (slot == 0) {
        parents[n] = c;
        follow[n] = {0, 0, 0, 0};
        slot = static_cast<uint32_t>(++n);
      }
      return follow[slot - 1];
    };
    if (runs * 4 <= active.size()) {
      // Long runs of keys with one parent (the first levels: a vocabulary in length, then
      // byte order): each run's bytes gathered in registers, its parent looked up once.
      // (Per key, a parent's set in memory would be a chain of dependent loads and stores.)
      uint32_t run = active[0].cur;
      byte_set_regs bytes;
      auto flush = [&] {
        auto& f = parent_slot(run);
        f[0] |= bytes.w0, f[1] |= bytes.w1, f[2] |= bytes.w2, f[3] |= bytes.w3;
      };
      for (const key& k : active) {
        if (k.cur != run) {
          flush();
          run = k.cur;
          bytes = {};
        }
        bytes.add(k.bytes[d]);
      }
      flush();
    } else {
      // Short runs: without a branch on whether the key's parent is new (a fifth of the
      // keys, in no predictable order), every key writes the next slot's parent and clears
      // its bytes, which count only when the parent is new.
      for (const key& k : active) {
        const uint32_t c = k.cur, b = k.bytes[d];
        uint32_t slot = cells[c].base;
        const bool fresh = slot == 0;
        parents[n] = c;
        auto& f = follow[n];
        f[0] = f[1] = f[2] = f[3] = 0;
        n += fresh;
        slot = fresh ? static_cast<uint32_t>(n) : slot;
        cells[c].base = slot;
        follow[slot - 1][b >> 6] |= uint64_t{1} << (b & 63);
      }
    }
    for (size_t slot = 0; slot < n; ++slot)
      if (!place(parents[slot], follow[slot])) return false;
    // Each key to its child; the ones that end there give it their id.
    size_t kept = 0;
    uint32_t last = free_cell;
    runs = 0;  // of keys with one cell, for the next level
    for (const key& k : active) {
      const uint32_t c = cells[k.cur].base + k.bytes[d];
      if ((k.id_size & 0xFF) == d + 1) {
        best[c] = (k.id_size >> 8) | ((d + 1) << 24);
        max_depth = d + 1;
        continue;
      }
      runs += c != last;
      last = c;
      active[kept++] = {k.bytes, k.id_size, c};
    }
    active.resize(kept);
  }
  // The answer cells (no edges, never a child): of each depth-1 node, for a second byte
  // that does not follow it, and the root's.
  const uint32_t answers = static_cast<uint32_t>(high);
  grow(size_t(answers) + 257 + 256);
  cells.resize(size_t(answers) + 257 + 256);  // + 256: base + byte stays inside
  best.resize(cells.size());
  best[answers + 256] = none;
  // Per first byte: its depth-1 node (or a parent no cell has, its base 0: every second
  // byte misses), and the answer cell of a miss; then the table row by row of second bytes.
  uint32_t node1[256], base1[256], miss[256];
  for (uint32_t b0 = 0; b0 < 256; ++b0) {
    const uint32_t n1 = cells[root].base + b0;
    const bool has1 = cells[n1].check == root;
    node1[b0] = has1 ? n1 : free_cell - 1;
    base1[b0] = has1 ? cells[n1].base : 0;
    miss[b0] = has1 ? answers + b0 : answers + 256;
    if (has1) best[answers + b0] = best[n1];
  }
  table_vector<uint32_t> pair = prefaulted_table(65536, 0u);
  for (uint32_t b1 = 0; b1 < 256; ++b1)
    for (uint32_t b0 = 0; b0 < 256; ++b0) {
      const uint32_t c = base1[b0] + b1;
      pair[b0 | (b1 << 8)] = cells[c].check == node1[b0] ? c : miss[b0];
    }
  cells_.adopt(std::move(cells));
  best_.adopt(std::move(best));
  pair_.adopt(std::move(pair));
  root_ = root;
  max_depth_ = max_depth;
  return true;
}

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
  // (Not zeroed, and in huge pages where the kernel allows: a few page faults, not one
  // per 4 KiB of ids.)
  struct id_buffer {
    huge_page_allocator<int32_t> alloc;
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

namespace {

class rwkv_model final : public tokenizer_model {
 public:
  // lazy (with fast, without the compiled cache): the tables are built by the first call
  // that tokenizes more than one byte; a one-byte text, such as the "\n" the loader
  // tokenizes for the newline token, is answered from single_, made here in one pass over
  // the texts. `v` must then outlive the model, as the loader's does.
  rwkv_model(const vocab_data& v, bool fast, bool lazy) : unk_(v.unk) {
    if (fast && lazy && !v.cache) {
      lazy_ = &v;
      single_.fill(unk_);
      for (size_t id = 0; id < v.tokens.size(); ++id) {
        // one byte unescaped: at most 4 bytes for it and 3 of an unfinished escape
        const std::string_view t = v.tokens[id].text;
        if (t.empty() || t.size() > 7) continue;
        char buf[8];
        if (rwkv_unescape_to(t, buf) == buf + 1) single_[static_cast<uint8_t>(buf[0])] = static_cast<int32_t>(id);
      }
      return;
    }
    build(v, fast);
  }

  void tokenize(std::string_view text, std::vector<int32_t>& out) const override {
    if (lazy_) {
      if (text.size() == 1) {  // the longest token at its byte: the one-byte one, else unk
        out.push_back(single_[static_cast<uint8_t>(text[0])]);
        return;
      }
      std::call_once(built_, [this] { const_cast<rwkv_model*>(this)->build(*lazy_, true); });
    }
    if (use_matcher_) {
      matcher_.tokenize(text, out);
      return;
    }
    // llama.cpp's loop: the longest token at each byte, unk for a byte that starts none.
    // (llama.cpp also lands on unk in a vocabulary where a byte starts tokens but none of
    // them matches; it would loop forever.)
    for (size_t pos = 0; pos < text.size();) {
      const auto [len, id] = trie_.longest_match(text, pos);
      out.push_back(len ? id : unk_);
      pos += len ? len : 1;
    }
  }

 private:
  void build(const vocab_data& v, bool fast) {
    table_cache* cache = fast ? v.cache : nullptr;
    if (cache && cache->load("rwkv.match", [&](table_reader& r) {
          uint32_t kind = 0;
          if (!r.get_value(kind)) return false;
          use_matcher_ = kind == 1;
          return use_matcher_ ? matcher_.load(r) : trie_.load(r);
        }))
      return;
    // The token texts unescaped, in id order as they are asked for: most have no escape and
    // are viewed where they are, the others are unescaped one after the other into `arena`
    // (room for every text: unescaping never lengthens one; not zeroed: only the pages of
    // the unescaped texts are touched, 28% of the escaped texts' bytes in rwkv-world).
    size_t all_bytes = 0;
    for (const token_data& t : v.tokens) all_bytes += t.text.size();
    const std::unique_ptr<char[]> arena(new char[all_bytes + 1]);
    char* w = arena.get();
    auto text = [&](size_t id) {
      const std::string_view t = v.tokens[id].text;
      if (!rwkv_has_escape(t, v.file_bytes)) return t;
      char* const start = w;
      w = rwkv_unescape_to(t, w);
      return std::string_view(start, size_t(w - start));
    };
    use_matcher_ = fast && matcher_.build(v.tokens.size(), text, unk_);
    if (!use_matcher_) {
      w = arena.get();
      std::vector<byte_trie::entry> entries(v.tokens.size());
      for (size_t id = 0; id < v.tokens.size(); ++id) entries[id] = {text(id), static_cast<int32_t>(id)};
      trie_ = byte_trie(std::move(entries));
    }
    if (cache)
      cache->save("rwkv.match", [&](table_writer& w) {
        w.put_value(uint32_t(use_matcher_ ? 1 : 0));
        if (use_matcher_)
          matcher_.save(w);
        else
          trie_.save(w);
      });
  }

  int32_t unk_;
  const vocab_data* lazy_ = nullptr;  // the vocabulary of a lazy model (tables built once, by tokenize)
  mutable std::once_flag built_;  // (only a lazy model's tokenize uses it)
  std::array<int32_t, 256> single_{};  // a lazy model's id of each one-byte text
  bool use_matcher_ = false;
  rwkv_matcher matcher_;  // the tables of the fast path
  byte_trie trie_;        // the plain path (the reference, and vocabularies beyond the tables)
};

}  // namespace

std::unique_ptr<tokenizer_model> make_rwkv(const vocab_data& v, bool fast, bool lazy) {
  return std::make_unique<rwkv_model>(v, fast, lazy);
}

}  // namespace gguf::vocab_detail
