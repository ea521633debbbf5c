// Per-call cache of the ids of a word (internal), for the SPM and BPE models: a word's ids
// depend only on its bytes, so within one tokenize call each distinct word is merged
// once and later copies reuse its ids. Owns copies of the words; bounded in size.
// `Extra` is a small value kept beside each word's ids (UGM: the word's Viterbi score).
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "vocab/runtime/table_memory.h"
#include "vocab/runtime/id_writer.h"
#include "vocab/models/tokenizer_model.h"

namespace gguf::vocab_detail {

struct no_extra {};

/// The bytes of a word of 1..16 bytes as two 8-byte words, zero past its end (loaded in
/// the machine's byte order): two words compare and hash without a branch on the length.
struct short_key {
  static constexpr size_t max_len = 16;
  uint64_t lo = 0, hi = 0;
  bool operator==(const short_key&) const = default;
};

/// short_key of text[a, a + len), 1 <= len <= 16. Reads the 16 bytes from a when the text
/// has them (then masks), else copies the word.
inline short_key short_key_of(std::string_view text, size_t a, size_t len) noexcept {
  short_key k;
  if (std::endian::native == std::endian::little && a + short_key::max_len <= text.size()) {
    // masks[len]: the low len bytes of the two words
    static constexpr auto masks = [] {
      std::array<short_key, short_key::max_len + 1> m{};
      for (size_t n = 0; n <= short_key::max_len; ++n) {
        m[n].lo = n >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * n)) - 1;
        m[n].hi = n >= 16 ? ~uint64_t{0} : n <= 8 ? 0 : (uint64_t{1} << (8 * (n - 8))) - 1;
      }
      return m;
    }();
    std::memcpy(&k.lo, text.data() + a, 8);
    std::memcpy(&k.hi, text.data() + a + 8, 8);
    k.lo &= masks[len].lo;
    k.hi &= masks[len].hi;
    return k;
  }
  char buf[short_key::max_len] = {};
  std::memcpy(buf, text.data() + a, len);
  std::memcpy(&k.lo, buf, 8);
  std::memcpy(&k.hi, buf + 8, 8);
  return k;
}

/// 64-bit hash of a short word from its short_key and length (not text_hash's value).
inline uint64_t short_key_hash(const short_key& k, size_t len) noexcept {
  uint64_t h = (k.lo ^ (0x9E3779B97F4A7C15ull * (len + 1))) * 0xBF58476D1CE4E5B9ull;
  h ^= (h >> 31) ^ k.hi;
  h *= 0x94D049BB133111EBull;
  return h ^ (h >> 29);
}

template <class Extra = no_extra, bool ShortKeys = false>
class basic_word_cache {
  static_assert(std::is_trivially_copyable_v<Extra>);

 public:
  static constexpr size_t max_slots = size_t(1) << 18;  ///< at most half of them used (4 MiB)
  static constexpr size_t max_word = 64;                ///< longer words are not cached

  /// A cached word: its n ids at `ids` (4 bytes each, in the machine's order, unaligned;
  /// what id_writer::copy_ids reads is readable there, see arena_pad), valid until the
  /// next insert or clear, and its Extra.
  struct entry {
    const char* ids = nullptr;
    size_t n = 0;
    Extra extra{};
  };
  /// The entry of `w` (hash `h` = text_hash(w)) into `e` and true, or false.
  bool lookup(std::string_view w, uint64_t h, entry& e) const {
    if (slots_.empty()) return false;
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      const slot& s = slots_[i];
      if (s.gen != gen_) return false;
      if (s.hash != h || s.len != w.size()) continue;
      if (!same_bytes(key_of(s), w.data(), w.size())) continue;
      e = entry_of(s);
      return true;
    }
  }
  /// lookup() for a word of at most short_key::max_len bytes given as its short_key (`h`
  /// any hash of it, the same at insert): the key is compared as two words.
  bool lookup_short(const short_key& k, size_t len, uint64_t h, entry& e) const {
    static_assert(ShortKeys);
    if (slots_.empty()) return false;
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      const slot& s = slots_[i];
      if (s.gen != gen_) return false;
      if (s.hash != h || s.len != len) continue;
      short_key stored;  // (a short key is stored padded with zeros to max_len bytes)
      std::memcpy(&stored.lo, key_of(s), 8);
      std::memcpy(&stored.hi, key_of(s) + 8, 8);
      if (!(stored == k)) continue;
      e = entry_of(s);
      return true;
    }
  }
  /// Appends the cached ids of `w` (hash `h` = text_hash(w)) and returns true, or false.
  /// With `extra`, also copies the word's Extra there.
  bool find(std::string_view w, uint64_t h, std::vector<int32_t>& out, Extra* extra = nullptr) const {
    entry e;
    if (!lookup(w, h, e)) return false;
    append(e, out, extra);
    return true;
  }
  /// find() through lookup_short().
  bool find_short(const short_key& k, size_t len, uint64_t h, std::vector<int32_t>& out, Extra* extra = nullptr) const {
    entry e;
    if (!lookup_short(k, len, h, e)) return false;
    append(e, out, extra);
    return true;
  }
  /// Starts loading the slot of hash `h` into the cache (a lookup a few words ahead).
  /// Always inlined: GCC 12 finds a function whose only effect is __builtin_prefetch
  /// "pure" when it is not inlined early, and deletes its calls as dead. (That is what
  /// became of an entry prefetch this class had: absent from every build, and measured
  /// 1 ms slower on ugm-sp-test's first call once forced in, so removed.)
  [[gnu::always_inline]] void prefetch_slot(uint64_t h) const noexcept {
    if (!slots_.empty()) __builtin_prefetch(&slots_[h & mask_]);
  }
  /// Makes room for about `words` entries at once (up to max_slots / 2), so that a long
  /// text's words do not rehash the cache again and again as they fill it.
  void reserve(size_t words) {
    size_t want = slots_.empty() ? 256 : slots_.size();
    while (want < 2 * words && want < max_slots) want *= 2;
    if (want > slots_.size()) grow(want);
    arena_.reserve(std::min(words, max_slots / 2) * (extra_size + 40));
  }
  /// Forgets every word, in constant time: the slots of the words before are those of an
  /// older generation (slot::gen), empty from now on. The table is zeroed only once every
  /// 255 clears, when the generation number wraps. (Zeroing the table at each clear, or
  /// releasing it and faulting in a new one, cost a long text's first call after a
  /// vocabulary switch 1 ms for 4 MiB; and a thread switching vocabularies for short
  /// requests would pay it each time.) The arena's memory is kept for the next words
  /// (fresh pages cost a fault each; the arena is only written, never read before it
  /// is), unless past 64 MiB.
  void clear() noexcept {
    if (used_ > 0 && ++gen_ == 0) {
      std::fill(slots_.begin(), slots_.end(), slot{});
      gen_ = 1;
    }
    used_ = 0;
    if (arena_.capacity() > (size_t(64) << 20)) table_vector<char>().swap(arena_);
    else arena_.clear();
  }
  /// Remembers ids[0, n) for `w` (not present yet); ignored once the cache is full.
  void insert(std::string_view w, uint64_t h, const int32_t* ids, size_t n, Extra extra = {}) {
    if constexpr (ShortKeys) {
      if (!w.empty() && w.size() <= short_key::max_len) {
        insert_short(short_key_of(w, 0, w.size()), w.size(), h, ids, n, extra);
        return;
      }
    }
    if (char* key = place(w.size(), h, ids, n, extra, w.size())) std::memcpy(key, w.data(), w.size());
  }
  /// insert() for a word of 1..short_key::max_len bytes given as its short_key (ShortKeys).
  void insert_short(const short_key& k, size_t len, uint64_t h, const int32_t* ids, size_t n, Extra extra = {}) {
    static_assert(ShortKeys);
    if (char* key = place(len, h, ids, n, extra, short_key::max_len)) {
      std::memcpy(key, &k.lo, 8);
      std::memcpy(key + 8, &k.hi, 8);
    }
  }

 private:
  static void append(const entry& e, std::vector<int32_t>& out, Extra* extra) {
    if (e.n <= 8) {  // most words: no call
      for (size_t k = 0; k < e.n; ++k) {
        int32_t id;
        std::memcpy(&id, e.ids + 4 * k, 4);
        out.push_back(id);
      }
    } else {
      const size_t first = out.size();
      out.resize(first + e.n);
      std::memcpy(out.data() + first, e.ids, 4 * e.n);
    }
    if (extra) *extra = e.extra;
  }
  // Bytes a key takes in an entry: with ShortKeys a short one is padded with zeros to
  // short_key::max_len (find_short compares it as two words).
  static size_t key_bytes(size_t len) noexcept { return ShortKeys ? std::max(len, short_key::max_len) : len; }
  // Takes a slot and the arena bytes of a new entry for a word of `len` bytes, writes its
  // Extra and ids, and returns where its key_size bytes of key go; nullptr when the word
  // is not cached (too long, empty, or the cache is full).
  char* place(size_t len, uint64_t h, const int32_t* ids, size_t n, const Extra& extra, size_t key_size) {
    static_assert(max_word <= UINT8_MAX);
    if (len == 0 || len > max_word || n > UINT16_MAX) return nullptr;
    if ((used_ + 1) * 2 > slots_.size()) {
      if (slots_.size() >= max_slots) return nullptr;
      grow();
    }
    const size_t off = arena_end();
    if (off > UINT32_MAX - (extra_size + 4 * n + key_size)) return nullptr;
    size_t i = h & mask_;
    while (slots_[i].gen == gen_) i = (i + 1) & mask_;
    slots_[i] = {h, uint32_t(off), uint8_t(len), gen_, uint16_t(n)};
    arena_.resize(off + extra_size + 4 * n + key_size + arena_pad);
    char* e = arena_.data() + off;
    if constexpr (extra_size > 0) std::memcpy(e, &extra, sizeof(Extra));
    if (n) std::memcpy(e + extra_size, ids, 4 * n);
    ++used_;
    return e + extra_size + 4 * n;
  }
  // 16 bytes: four to a cache line. The entry at arena_[off] holds the Extra, the ids and
  // the word's bytes in turn, so that a hit reads one run of bytes.
  struct slot {
    uint64_t hash = 0;
    uint32_t off = 0;
    uint8_t len = 0;
    uint8_t gen = 0;  // the slot holds a word when gen == gen_ (never 0), else it is empty
    uint16_t ids_n = 0;
  };
  static constexpr size_t extra_size = std::is_empty_v<Extra> ? 0 : sizeof(Extra);
  static size_t entry_size(const slot& s) noexcept { return extra_size + 4 * size_t(s.ids_n) + key_bytes(s.len); }
  // An entry (at arena_[off]) holds the Extra, the ids, then the key.
  const char* key_of(const slot& s) const noexcept { return arena_.data() + s.off + extra_size + 4 * size_t(s.ids_n); }
  entry entry_of(const slot& s) const noexcept {
    entry e;
    const char* p = arena_.data() + s.off;
    if constexpr (extra_size > 0) std::memcpy(&e.extra, p, sizeof(Extra));
    e.ids = p + extra_size;
    e.n = s.ids_n;
    return e;
  }
  void grow(size_t size = 0) {
    table_vector<slot> old = std::move(slots_);
    slots_.assign(size ? size : old.empty() ? 256 : old.size() * 2, slot{});
    mask_ = slots_.size() - 1;
    for (const slot& s : old) {
      if (s.gen != gen_) continue;
      size_t i = s.hash & mask_;
      while (slots_[i].gen == gen_) i = (i + 1) & mask_;
      slots_[i] = s;
    }
  }
  // A mapping of its own once large (table_memory.h).
  table_vector<slot> slots_;
  // The entries, then arena_pad bytes (when there is one), so that the bytes
  // id_writer::copy_ids reads from any entry's ids are inside the arena.
  table_vector<char> arena_;
  static constexpr size_t arena_pad = 4 * id_writer::slack;
  size_t arena_end() const noexcept { return arena_.empty() ? 0 : arena_.size() - arena_pad; }
  size_t mask_ = 0, used_ = 0;
  uint8_t gen_ = 1;  // the generation of the words held (clear)
};

using word_cache = basic_word_cache<>;

}  // namespace gguf::vocab_detail
