// The token array of a vocabulary (internal): text, score and type of every id.
//
// Two forms behind one interface. Built (a load without the compiled cache, a cache
// miss, a hand-made vocabulary in tests): a vector of token_data the loader fills.
// Placed (a cache hit, tokens.text in vocab_load.cpp): no per-token array at all; each
// element is read where it lies, the text at base + starts[i] in the mapped file (its
// length up to the next start, less the length field), the score and type from the
// file's own arrays in place. A cached load then neither walks the strings again nor
// writes a 24-byte-a-token array into fresh pages (for 30k tokens, measured when that was
// a 2 MiB huge page cleared and filled: about 0.25 ms of a cached one-word CLI run on the
// development VM).
//
// Elements are returned by value (`const token_data`): a view of the mapped bytes that
// stays valid while the vocabulary lives. Only the built form can be changed (mut,
// push_back).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <span>
#include <stdexcept>
#include <string_view>

#include "gguf/tokenizer_models.h"
#include "vocab/runtime/table_memory.h"

namespace gguf::vocab_detail {

/// One token (24 bytes; its attributes are kept apart, in vocab_data::attrs, so that the
/// load's passes over them read 2 bytes a token instead of the whole array).
struct token_data {
  std::string_view text;  ///< view into the mapped file (or into vocab_data::owned_text)
  float score = 0.0f;
  gguf::token_type type = gguf::token_type::normal;  ///< as stored in the file
};

/// Where each token's text starts, by id: a copy stays valid when the table is moved (it
/// points at the built vector's elements or the mapped starts, never at the table).
struct text_locator {
  const token_data* built = nullptr;  // the built form's elements, or
  const char* base = nullptr;         // the placed form's texts
  const uint32_t* starts = nullptr;
  const char* operator()(size_t i) const noexcept { return built ? built[i].text.data() : base + starts[i]; }
};

class token_table {
 public:
  token_table() = default;
  token_table(const token_table&) = delete;
  token_table& operator=(const token_table&) = delete;
  token_table(token_table&&) noexcept = default;
  token_table& operator=(token_table&&) noexcept = default;

  size_t size() const noexcept { return placed_ ? n_ : own_.size(); }
  bool empty() const noexcept { return size() == 0; }
  /// Token i (i < size()).
  const token_data operator[](size_t i) const noexcept {
    if (!placed_) return own_[i];
    return from_columns(std::string_view(base_ + starts_[i], starts_[i + 1] - starts_[i] - width_), i, scores_,
                        scores_int_, types_);
  }
  /// Token i of a file's columns: `text`, and its score and type from `scores` (float32,
  /// or int32 when scores_int) and `types` (int32), host order, 4 bytes a token, or null.
  static token_data from_columns(std::string_view text, size_t i, const std::byte* scores, bool scores_int,
                                 const std::byte* types) noexcept {
    token_data t;
    t.text = text;
    if (scores) {
      if (scores_int) {
        int32_t x;
        std::memcpy(&x, scores + 4 * i, 4);
        t.score = float(x);
      } else {
        std::memcpy(&t.score, scores + 4 * i, 4);
      }
    }
    if (types) {
      int32_t y;
      std::memcpy(&y, types + 4 * i, 4);
      t.type = static_cast<gguf::token_type>(y);
    }
    return t;
  }
  /// The text of token i alone (i < size()): for the hot loops that read no score or type
  /// (a merge result's check, the token map's build).
  std::string_view text(size_t i) const noexcept {
    if (!placed_) return own_[i].text;
    return std::string_view(base_ + starts_[i], starts_[i + 1] - starts_[i] - width_);
  }
  /// Token i; std::out_of_range past the end.
  const token_data at(size_t i) const {
    if (i >= size()) throw std::out_of_range("token id out of range");
    return (*this)[i];
  }
  /// Where each token's text starts (the hot part of a token map lookup).
  text_locator locator() const noexcept {
    return placed_ ? text_locator{nullptr, base_, starts_} : text_locator{own_.data(), nullptr, nullptr};
  }

  class iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = token_data;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = const token_data;
    iterator() = default;
    iterator(const token_table* t, size_t i) : t_(t), i_(i) {}
    const token_data operator*() const noexcept { return (*t_)[i_]; }
    iterator& operator++() noexcept { return ++i_, *this; }
    iterator operator++(int) noexcept { return {t_, i_++}; }
    bool operator==(const iterator& o) const noexcept { return i_ == o.i_; }

   private:
    const token_table* t_ = nullptr;
    size_t i_ = 0;
  };
  iterator begin() const noexcept { return {this, 0}; }
  iterator end() const noexcept { return {this, size()}; }

  // The built form.
  /// The vector itself, for the loader's fill (drops a placed form).
  table_vector<token_data>& built() noexcept {
    placed_ = false;
    return own_;
  }
  token_data& mut(size_t i) noexcept { return own_[i]; }  ///< (built form only)
  void push_back(const token_data& t) { built().push_back(t); }
  void clear() noexcept { built().clear(); }
  void reserve(size_t n) { built().reserve(n); }
  void resize(size_t n) { built().resize(n); }
  void pop_back() { built().pop_back(); }

  // The placed form.
  /// n tokens whose texts start at base + starts[i] (starts: n + 1 entries, each past the
  /// `width`-byte length before it and ending where the next length starts); scores
  /// (float32, or int32 when scores_int) and types (int32) in host order, 4 bytes a token,
  /// or null. The caller has checked that every text lies in the mapped bytes.
  void place(size_t n, const char* base, const uint32_t* starts, uint32_t width, const std::byte* scores,
             bool scores_int, const std::byte* types) noexcept {
    own_ = {};
    placed_ = true;
    n_ = n, base_ = base, starts_ = starts, width_ = width;
    scores_ = scores, scores_int_ = scores_int, types_ = types;
  }
  bool placed() const noexcept { return placed_; }

 private:
  table_vector<token_data> own_;
  bool placed_ = false;
  bool scores_int_ = false;
  uint32_t width_ = 0;
  size_t n_ = 0;
  const char* base_ = nullptr;
  const uint32_t* starts_ = nullptr;
  const std::byte* scores_ = nullptr;
  const std::byte* types_ = nullptr;
};

}  // namespace gguf::vocab_detail
