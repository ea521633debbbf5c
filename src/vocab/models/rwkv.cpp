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
        const std::string_view t = v.tokens.text(id);
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
  // The tables from the compiled cache (fast path only), or built and saved.
  void build(const vocab_data& v, bool fast) {
    load_or_build(
        fast ? v.cache : nullptr, "rwkv.match",
        [&](table_reader& r) {
          uint32_t kind = 0;
          if (!r.get_value(kind)) return false;
          use_matcher_ = kind == 1;
          return use_matcher_ ? matcher_.load(r) : trie_.load(r);
        },
        [&] { build_tables(v, fast); },
        [&](table_writer& w) {
          w.put_value(uint32_t(use_matcher_ ? 1 : 0));
          if (use_matcher_)
            matcher_.save(w);
          else
            trie_.save(w);
        });
  }

  void build_tables(const vocab_data& v, bool fast) {
    // The token texts unescaped, in id order as they are asked for: most have no escape and
    // are viewed where they are, the others are unescaped one after the other into `arena`
    // (room for every text: unescaping never lengthens one; not zeroed: only the pages of
    // the unescaped texts are touched, 28% of the escaped texts' bytes in rwkv-world).
    size_t all_bytes = 0;
    for (const token_data& t : v.tokens) all_bytes += t.text.size();
    const std::unique_ptr<char[]> arena(new char[all_bytes + 1]);
    char* w = arena.get();
    auto text = [&](size_t id) {
      const std::string_view t = v.tokens.text(id);
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
