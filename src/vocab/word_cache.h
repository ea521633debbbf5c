// Per-call cache of the ids of a word (internal), for the SPM and BPE models: a word's ids
// depend only on its bytes, so within one tokenize call each distinct word is merged
// once and later copies reuse its ids. Owns copies of the words; bounded in size.
// `Extra` is a small value kept beside each word's ids (UGM: the word's Viterbi score).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "vocab/huge_pages.h"
#include "vocab/tokenizer_model.h"

namespace gguf::vocab_detail {

struct no_extra {};

template <class Extra = no_extra>
class basic_word_cache {
  static_assert(std::is_trivially_copyable_v<Extra>);

 public:
  static constexpr size_t max_slots = size_t(1) << 18;  ///< at most half of them used (4 MiB)
  static constexpr size_t max_word = 64;                ///< longer words are not cached

  /// Appends the cached ids of `w` (hash `h` = text_hash(w)) and returns true, or false.
  /// With `extra`, also copies the word's Extra there.
  bool find(std::string_view w, uint64_t h, std::vector<int32_t>& out, Extra* extra = nullptr) const {
    if (slots_.empty()) return false;
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      const slot& s = slots_[i];
      if (s.len == 0) return false;
      if (s.hash != h || s.len != w.size()) continue;
      const char* e = arena_.data() + s.off;
      const char* ids = e + extra_size;
      if (!same_bytes(ids + 4 * size_t(s.ids_n), w.data(), w.size())) continue;
      if (s.ids_n <= 8) {  // most words: no call
        for (size_t k = 0; k < s.ids_n; ++k) {
          int32_t id;
          std::memcpy(&id, ids + 4 * k, 4);
          out.push_back(id);
        }
      } else {
        const size_t first = out.size();
        out.resize(first + s.ids_n);
        std::memcpy(out.data() + first, ids, 4 * size_t(s.ids_n));
      }
      if constexpr (extra_size > 0) {
        if (extra) std::memcpy(extra, e, sizeof(Extra));
      }
      return true;
    }
  }
  /// Starts loading the slot of hash `h` into the cache (a lookup a few words ahead).
  void prefetch_slot(uint64_t h) const noexcept {
    if (!slots_.empty()) __builtin_prefetch(&slots_[h & mask_]);
  }
  /// Starts loading the entry (Extra, ids and key, one run of bytes) in the home slot of
  /// `h` (after prefetch_slot(h) had time to land).
  void prefetch_entry(uint64_t h) const noexcept {
    if (slots_.empty()) return;
    const slot& s = slots_[h & mask_];
    if (s.hash != h || s.len == 0) return;
    const char* e = arena_.data() + s.off;
    __builtin_prefetch(e);
    __builtin_prefetch(e + entry_size(s) - 1);
  }
  /// Makes room for about `words` entries at once (up to max_slots / 2), so that a long
  /// text's words do not rehash the cache again and again as they fill it.
  void reserve(size_t words) {
    size_t want = slots_.empty() ? 256 : slots_.size();
    while (want < 2 * words && want < max_slots) want *= 2;
    if (want > slots_.size()) grow(want);
    arena_.reserve(std::min(words, max_slots / 2) * (extra_size + 40));
  }
  /// Remembers ids[0, n) for `w` (not present yet); ignored once the cache is full.
  void insert(std::string_view w, uint64_t h, const int32_t* ids, size_t n, Extra extra = {}) {
    if (w.empty() || w.size() > max_word || n > UINT16_MAX) return;
    if ((used_ + 1) * 2 > slots_.size()) {
      if (slots_.size() >= max_slots) return;
      grow();
    }
    const size_t off = arena_.size();
    if (off > UINT32_MAX - (extra_size + 4 * n + w.size())) return;
    size_t i = h & mask_;
    while (slots_[i].len) i = (i + 1) & mask_;
    slots_[i] = {h, uint32_t(off), uint16_t(w.size()), uint16_t(n)};
    arena_.resize(off + extra_size + 4 * n + w.size());
    char* e = arena_.data() + off;
    if constexpr (extra_size > 0) std::memcpy(e, &extra, sizeof(Extra));
    if (n) std::memcpy(e + extra_size, ids, 4 * n);
    std::memcpy(e + extra_size + 4 * n, w.data(), w.size());
    ++used_;
  }

 private:
  // 16 bytes: four to a cache line. The entry at arena_[off] holds the Extra, the ids and
  // the word's bytes in turn, so that a hit reads one run of bytes.
  struct slot {
    uint64_t hash = 0;
    uint32_t off = 0;
    uint16_t len = 0;  // 0 = empty slot (cached words are never empty)
    uint16_t ids_n = 0;
  };
  static constexpr size_t extra_size = std::is_empty_v<Extra> ? 0 : sizeof(Extra);
  static size_t entry_size(const slot& s) noexcept { return extra_size + 4 * size_t(s.ids_n) + s.len; }
  void grow(size_t size = 0) {
    table_vector<slot> old = std::move(slots_);
    slots_.assign(size ? size : old.empty() ? 256 : old.size() * 2, slot{});
    mask_ = slots_.size() - 1;
    for (const slot& s : old) {
      if (!s.len) continue;
      size_t i = s.hash & mask_;
      while (slots_[i].len) i = (i + 1) & mask_;
      slots_[i] = s;
    }
  }
  // In huge pages once large (huge_pages.h): a long text's lookups land at random in
  // several MiB of them.
  table_vector<slot> slots_;
  table_vector<char> arena_;
  size_t mask_ = 0, used_ = 0;
};

using word_cache = basic_word_cache<>;

}  // namespace gguf::vocab_detail
