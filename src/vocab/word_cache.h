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
#include <vector>

#include "vocab/huge_pages.h"
#include "vocab/tokenizer_model.h"

namespace gguf::vocab_detail {

struct no_extra {};

template <class Extra = no_extra>
class basic_word_cache {
 public:
  static constexpr size_t max_slots = size_t(1) << 18;  ///< at most half of them used (6 MiB)
  static constexpr size_t max_word = 64;                ///< longer words are not cached

  /// Appends the cached ids of `w` (hash `h` = text_hash(w)) and returns true, or false.
  /// With `extra`, also copies the word's Extra there.
  bool find(std::string_view w, uint64_t h, std::vector<int32_t>& out, Extra* extra = nullptr) const {
    if (slots_.empty()) return false;
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      const slot& s = slots_[i];
      if (s.len == 0) return false;
      if (s.hash == h && s.len == w.size() && same_bytes(keys_.data() + s.off, w.data(), w.size())) {
        const int32_t* ids = ids_.data() + s.ids_off;
        if (s.ids_n <= 8) {  // most words: no call
          for (uint32_t k = 0; k < s.ids_n; ++k) out.push_back(ids[k]);
        } else {
          out.insert(out.end(), ids, ids + s.ids_n);
        }
        if (extra) *extra = s.extra;
        return true;
      }
    }
  }
  /// Starts loading the slot of hash `h` into the cache (a lookup a few words ahead).
  void prefetch_slot(uint64_t h) const noexcept {
    if (!slots_.empty()) __builtin_prefetch(&slots_[h & mask_]);
  }
  /// Starts loading the key and ids of the entry in the home slot of `h` (after
  /// prefetch_slot(h) had time to land).
  void prefetch_entry(uint64_t h) const noexcept {
    if (slots_.empty()) return;
    const slot& s = slots_[h & mask_];
    if (s.hash != h || s.len == 0) return;
    __builtin_prefetch(keys_.data() + s.off);
    __builtin_prefetch(ids_.data() + s.ids_off);
  }
  /// Makes room for about `words` entries at once (up to max_slots / 2), so that a long
  /// text's words do not rehash the cache again and again as they fill it.
  void reserve(size_t words) {
    size_t want = slots_.empty() ? 256 : slots_.size();
    while (want < 2 * words && want < max_slots) want *= 2;
    if (want > slots_.size()) grow(want);
    keys_.reserve(std::min(words, max_slots / 2) * 16);
    ids_.reserve(std::min(words, max_slots / 2) * 8);
  }
  /// Remembers ids[0, n) for `w` (not present yet); ignored once the cache is full.
  void insert(std::string_view w, uint64_t h, const int32_t* ids, size_t n, Extra extra = {}) {
    if (w.empty() || w.size() > max_word) return;
    if ((used_ + 1) * 2 > slots_.size()) {
      if (slots_.size() >= max_slots) return;
      grow();
    }
    size_t i = h & mask_;
    while (slots_[i].len) i = (i + 1) & mask_;
    slots_[i] = {h, uint32_t(keys_.size()), uint32_t(w.size()), uint32_t(ids_.size()), uint32_t(n), extra};
    keys_.insert(keys_.end(), w.begin(), w.end());
    ids_.insert(ids_.end(), ids, ids + n);
    ++used_;
  }

 private:
  struct slot {
    uint64_t hash = 0;
    uint32_t off = 0, len = 0;  // len 0 = empty slot (cached words are never empty)
    uint32_t ids_off = 0, ids_n = 0;
    [[no_unique_address]] Extra extra{};
  };
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
  table_vector<char> keys_;
  table_vector<int32_t> ids_;
  size_t mask_ = 0, used_ = 0;
};

using word_cache = basic_word_cache<>;

}  // namespace gguf::vocab_detail
