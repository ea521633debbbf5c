// The GGUF parser: one pass over header, metadata and tensor infos that checks every
// count, length and dimension against the bytes remaining before it is used.
// Format: GGUF specification (ggml docs/gguf.md); v1 widths from the v1 specification.
#include <algorithm>
#include <bit>
#include <cinttypes>
#include <cstdio>

#include "format/file_impl.h"

namespace gguf::detail {
namespace {

std::string hex_bytes(const std::byte* p, size_t n) {
  std::string out;
  char buf[4];
  for (size_t i = 0; i < n; ++i) {
    std::snprintf(buf, sizeof buf, i ? " %02x" : "%02x", static_cast<unsigned>(p[i]));
    out += buf;
  }
  return out;
}

class parser {
 public:
  parser(file_impl& f, const reader_limits& lim)
      : f_(f), lim_(lim), size_(f.bytes.size()), avail_(f.source ? f.source->prefix() : size_) {}

  bool run() { return header() && metadata() && tensor_infos() && layout(); }
  gguf::error err;

 private:
  file_impl& f_;
  const reader_limits& lim_;
  uint64_t size_;
  uint64_t avail_;  // bytes [0, avail_) are readable (all of them, unless the file is remote)
  uint64_t pos_ = 0;
  // What is left of the metadata, for sizing a remote file's next request.
  uint64_t kv_i_ = 0, t_i_ = 0, tensors_at_ = 0, array_rest_ = 0;
  std::string subject_;
  bool subject_is_tensor_ = false;

  bool fail(errc code, uint64_t off, std::string detail) {
    err = make_error(code, off, std::move(detail), subject_, subject_is_tensor_);
    return false;
  }
  uint64_t left() const { return size_ - pos_; }
  // The vocabulary seen so far, for rest_hint: llama.cpp's converters write
  // tokenizer.ggml.tokens, then scores (SPM, UGM, gemma4) and token_type (float32 / int32
  // per token), then merges (BPE, gemma4: about one per token, each about twice a token's
  // text and a space).
  std::string_view tok_model_;
  uint64_t vocab_n_ = 0, tok_bytes_ = 0;  // tokens, and the average bytes of one (length included)
  bool seen_scores_ = false, seen_types_ = false, seen_merges_ = false;

  void note_key(std::string_view key, uint64_t value_at) {
    if (key == "tokenizer.ggml.scores") seen_scores_ = true;
    else if (key == "tokenizer.ggml.token_type") seen_types_ = true;
    else if (key == "tokenizer.ggml.merges") seen_merges_ = true;
    else if (key == "tokenizer.ggml.tokens" && value_at <= avail_ && avail_ - value_at >= 4 + f_.len_width()) {
      vocab_n_ = f_.load_len(value_at + 4);
      tok_bytes_ = f_.len_width() + 8;
    }
  }

  // Bytes the metadata probably still holds after pos_: the rest of the string array the
  // reader is in, the vocabulary arrays still to come, the key/values to come (small,
  // most of them) and the tensor infos.
  uint64_t rest_hint() const {
    uint64_t kvs_left = n_kv_ > kv_i_ ? n_kv_ - kv_i_ - 1 : 0;
    if (tensors_at_ == 0) {
      uint64_t vocab = 0;
      if (vocab_n_ && kvs_left) {
        const bool scores = tok_model_ == "llama" || tok_model_ == "t5" || tok_model_ == "gemma4";
        const bool merges = tok_model_ == "gpt2" || tok_model_ == "gemma4";
        if (scores && !seen_scores_) vocab += vocab_n_ * 4;
        if (!seen_types_) vocab += vocab_n_ * 4;
        if (merges && !seen_merges_) vocab += vocab_n_ * (2 * (tok_bytes_ - f_.len_width()) + 1 + f_.len_width());
      }
      return array_rest_ + vocab + kvs_left * 64 + n_tensors_ * 96;
    }
    uint64_t avg = t_i_ ? (pos_ - tensors_at_) / t_i_ : 96;
    return (n_tensors_ - t_i_) * avg;
  }
  bool need(uint64_t n, const char* what) {
    if (avail_ - pos_ >= n) return true;
    if (left() >= n) {
      if (auto r = f_.source->grow_prefix(pos_ + n, rest_hint()); !r) {
        err = r.error();
        return false;
      }
      avail_ = f_.source->prefix();
      if (avail_ - pos_ >= n) return true;
      err = make_error(errc::io_error, pos_, "the remote bytes up to " + std::to_string(pos_ + n) + " could not be read");
      return false;
    }
    return fail(errc::truncated, pos_,
                std::string("file ends inside ") + what + ": " + std::to_string(n) + " bytes needed, " +
                    std::to_string(left()) + " left");
  }
  bool read_u32(uint32_t& v, const char* what) {
    if (!need(4, what)) return false;
    v = f_.load<uint32_t>(pos_);
    pos_ += 4;
    return true;
  }
  bool read_u64(uint64_t& v, const char* what) {
    if (!need(8, what)) return false;
    v = f_.load<uint64_t>(pos_);
    pos_ += 8;
    return true;
  }
  /// A count or length: uint32 in v1, uint64 after.
  bool read_len(uint64_t& v, const char* what) {
    if (f_.version == 1) {
      uint32_t v32 = 0;
      if (!read_u32(v32, what)) return false;
      v = v32;
      return true;
    }
    return read_u64(v, what);
  }

  bool header() {
    if (!need(8 <= size_ ? 8 : 4, "the magic")) return false;
    const std::byte* p = f_.at(0);
    auto magic = std::string_view(reinterpret_cast<const char*>(p), 4);
    if (magic != "GGUF") {
      if (magic == "FUGG") {
        return fail(errc::bad_magic, 0, "bad magic 'FUGG': byte-reversed magic of a 2023 draft writer, not GGUF");
      }
      return fail(errc::bad_magic, 0, "bad magic " + hex_bytes(p, 4) + ", expected 47 47 55 46 (\"GGUF\")");
    }
    pos_ = 4;
    if (!need(4, "the version")) return false;
    uint32_t raw = load_raw<uint32_t>(f_.at(4), false);
    constexpr bool host_little = std::endian::native == std::endian::little;
    uint32_t as_le = host_little ? raw : __builtin_bswap32(raw);
    uint32_t as_be = __builtin_bswap32(as_le);
    if (as_le >= 1 && as_le <= 3) {
      f_.order = byte_order::little;
      f_.version = as_le;
    } else if (as_be >= 1 && as_be <= 3) {
      f_.order = byte_order::big;
      f_.version = as_be;
    } else {
      return fail(errc::unsupported_version, 4,
                  "unsupported GGUF version " + std::to_string(as_le) + " (supported: 1, 2, 3)");
    }
    f_.swap = (f_.order == byte_order::little) != host_little;
    pos_ = 8;
    return true;
  }

  // Smallest encodings, for "could this count possibly fit" checks before allocating.
  uint64_t min_kv_bytes() const { return f_.len_width() + 1 + 4 + 1; }
  uint64_t min_tensor_bytes() const { return f_.len_width() + 1 + 4 + 4 + 8; }

  /// A uint32 type id of the file: what reading it is called, and what a bad one is.
  struct type_id_kind {
    const char* what;                 ///< "a value type"
    bool (*valid)(uint32_t) noexcept;
    errc bad;                         ///< the error code of an id `valid` refuses
    const char* name;                 ///< "value type" N ...
    const char* problem;              ///< ... "is not a GGUF type (0..12)"
  };
  static constexpr type_id_kind kv_value_type{"a value type", is_valid_value_type, errc::invalid_value_type,
                                              "value type", "is not a GGUF type (0..12)"};
  static constexpr type_id_kind array_element_type{"an array element type", is_valid_value_type,
                                                   errc::invalid_value_type, "array element type",
                                                   "is not a GGUF type (0..12)"};
  static constexpr type_id_kind tensor_type{"a tensor type", is_valid_ggml_type, errc::invalid_ggml_type,
                                            "ggml type", "is unknown or retired"};

  /// Reads a type id of `kind` into `out` (value_type or ggml_type).
  template <class T>
  bool read_type_id(T& out, const type_id_kind& kind) {
    uint64_t at = pos_;
    uint32_t id = 0;
    if (!read_u32(id, kind.what)) return false;
    if (!kind.valid(id)) {
      return fail(kind.bad, at, std::string(kind.name) + " " + std::to_string(id) + " " + kind.problem);
    }
    out = static_cast<T>(id);
    return true;
  }

  /// limit_exceeded at `at` when n > limit: "<what> <n><unit> exceeds the limit <limit>".
  bool within_limit(uint64_t n, uint64_t limit, uint64_t at, std::string_view what, std::string_view unit = {}) {
    if (n <= limit) return true;
    return fail(errc::limit_exceeded, at,
                std::string(what) + " " + std::to_string(n) + std::string(unit) + " exceeds the limit " +
                    std::to_string(limit));
  }

  bool check_count(uint64_t n, uint64_t limit, uint64_t min_each, uint64_t at, const char* what) {
    if (!within_limit(n, limit, at, what)) return false;
    uint64_t bytes = 0;
    if (!checked_mul(n, min_each, bytes) || bytes > left()) {
      return fail(errc::truncated, at,
                  std::string(what) + " " + std::to_string(n) + " cannot fit in the " + std::to_string(left()) +
                      " bytes left");
    }
    return true;
  }

  uint64_t n_tensors_ = 0;
  uint64_t n_kv_ = 0;

  bool metadata() {
    uint64_t at = pos_;
    if (!read_len(n_tensors_, "the tensor count")) return false;
    uint64_t at_kv = pos_;
    if (!read_len(n_kv_, "the metadata key/value count")) return false;
    if (!check_count(n_kv_, lim_.max_kv_count, min_kv_bytes(), at_kv, "metadata key/value count")) return false;
    if (!within_limit(n_tensors_, lim_.max_tensor_count, at, "tensor count")) return false;
    f_.kvs.reserve(n_kv_);
    f_.kv_index.reserve(n_kv_);
    for (uint64_t i = 0; i < n_kv_; ++i) {
      kv_i_ = i;
      subject_.clear();
      subject_is_tensor_ = false;
      uint64_t key_off = pos_;
      uint64_t len = 0;
      if (!read_len(len, "a key length")) return false;
      if (len == 0) return fail(errc::invalid_key, key_off, "empty key (metadata pair " + std::to_string(i) + ")");
      if (len > max_key_length) {
        return fail(errc::key_too_long, key_off,
                    "key of " + std::to_string(len) + " bytes, the spec allows at most 65535");
      }
      if (!need(len, "a key")) return false;
      std::string_view key(reinterpret_cast<const char*>(f_.at(pos_)), len);
      for (size_t c = 0; c < key.size(); ++c) {
        auto ch = static_cast<unsigned char>(key[c]);
        if (ch < 0x20 || ch > 0x7e) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "0x%02x", ch);
          return fail(errc::invalid_key, pos_ + c,
                      std::string("key byte ") + buf + " at position " + std::to_string(c) +
                          " is not printable ASCII (metadata pair " + std::to_string(i) + ")");
        }
      }
      pos_ += len;
      subject_ = std::string(key);
      if (key.starts_with("tokenizer.ggml.")) note_key(key, pos_ + 4);
      value_type type{};
      if (!read_type_id(type, kv_value_type)) return false;
      kv_ref kv;
      kv.key = key;
      kv.offset = key_off;
      kv.value = value_ref(&f_, type, pos_);
      if (!skip_value(kv.value.type(), 0)) return false;
      if (!f_.kv_index.emplace(key, static_cast<uint32_t>(f_.kvs.size())).second) {
        return fail(errc::duplicate_key, key_off, "duplicate key");
      }
      if (key == "general.alignment" && !alignment(kv)) return false;
      if (key == "tokenizer.ggml.model" && kv.value.type() == value_type::string) {
        tok_model_ = std::string_view(reinterpret_cast<const char*>(f_.at(kv.value.offset() + f_.len_width())),
                                      f_.load_len(kv.value.offset()));
      } else if (key == "tokenizer.ggml.tokens" && vocab_n_) {
        tok_bytes_ = (pos_ - kv.value.offset() - 4 - f_.len_width()) / vocab_n_;
      }
      f_.kvs.push_back(kv);
    }
    subject_.clear();
    return true;
  }

  bool alignment(const kv_ref& kv) {
    if (kv.value.type() != value_type::uint32) {
      return fail(errc::invalid_alignment, kv.value.offset(),
                  "general.alignment has type " + std::string(value_type_name(kv.value.type())) + ", must be uint32");
    }
    uint32_t a = f_.load<uint32_t>(kv.value.offset());
    if (a == 0 || (a & (a - 1)) != 0) {
      return fail(errc::invalid_alignment, kv.value.offset(),
                  "general.alignment " + std::to_string(a) + " is not a non-zero power of two");
    }
    f_.alignment = a;
    return true;
  }

  bool skip_value(value_type t, uint32_t depth) {
    switch (t) {
      case value_type::string: {
        uint64_t at = pos_;
        uint64_t len = 0;
        if (!read_len(len, "a string length")) return false;
        if (!within_limit(len, lim_.max_string_length, at, "string of", " bytes")) return false;
        if (!need(len, "a string")) return false;
        pos_ += len;
        return true;
      }
      case value_type::array:
        return skip_array(depth);
      default: {
        uint64_t sz = value_type_size(t);
        if (!need(sz, "a value")) return false;
        if (t == value_type::boolean) {
          auto b = static_cast<uint8_t>(*f_.at(pos_));
          if (b > 1) return fail(errc::invalid_bool, pos_, "bool byte " + std::to_string(b) + " (must be 0 or 1)");
        }
        pos_ += sz;
        return true;
      }
    }
  }

  bool skip_array(uint32_t depth) {
    uint64_t at = pos_;
    value_type elem{};
    if (!read_type_id(elem, array_element_type)) return false;
    uint64_t count_at = pos_;
    uint64_t count = 0;
    if (!read_len(count, "an array length")) return false;
    if (!within_limit(count, lim_.max_array_length, count_at, "array of", " elements")) return false;
    if (uint64_t sz = value_type_size(elem); sz != 0) {
      uint64_t bytes = 0;
      if (!checked_mul(count, sz, bytes)) {
        return fail(errc::size_overflow, count_at,
                    "array of " + std::to_string(count) + " x " + std::to_string(sz) + "-byte elements overflows");
      }
      if (!need(bytes, "an array")) return false;
      if (elem == value_type::boolean) {
        for (uint64_t i = 0; i < count; ++i) {
          auto b = static_cast<uint8_t>(*f_.at(pos_ + i));
          if (b > 1) {
            return fail(errc::invalid_bool, pos_ + i,
                        "bool byte " + std::to_string(b) + " at array index " + std::to_string(i) + " (must be 0 or 1)");
          }
        }
      }
      pos_ += bytes;
      return true;
    }
    if (const uint32_t limit = std::min(lim_.max_array_nesting, max_array_nesting_ceiling);
        elem == value_type::array && depth + 1 >= limit) {
      return fail(errc::limit_exceeded, at, "arrays nested deeper than the limit " + std::to_string(limit));
    }
    uint64_t min_each = elem == value_type::string ? f_.len_width() : 4 + f_.len_width();
    uint64_t min_bytes = 0;
    if (!checked_mul(count, min_each, min_bytes) || min_bytes > left()) {
      return fail(errc::truncated, count_at,
                  "array of " + std::to_string(count) + " " + std::string(value_type_name(elem)) +
                      " elements cannot fit in the " + std::to_string(left()) + " bytes left");
    }
    if (elem == value_type::string) return skip_strings(count);
    for (uint64_t i = 0; i < count; ++i) {
      if (!skip_value(elem, depth + 1)) return false;
    }
    return true;
  }

  // The hot loop of opening a vocabulary: walk `count` strings, checking each length
  // against the bytes left and the limit. An element that does not fit in the readable
  // bytes goes through skip_value: the detailed error, or (remote file) the next request.
  bool skip_strings(uint64_t count) {
    const uint64_t w = f_.len_width();
    const uint64_t max_len = lim_.max_string_length;
    const uint64_t start = pos_;
    uint64_t i = 0;
    while (i < count) {
      uint64_t pos = pos_;
      const uint64_t end = avail_;
      if (w == 8 && !f_.swap) {
        // v2/v3 in host order: the common case, without per-element width or swap tests.
        const std::byte* base = f_.at(0);
        for (; i < count; ++i) {
          if (end - pos < 8) break;
          // Each length's place depends on the one before, so the walk waits for every
          // load: a line a few ahead is pulled into L1 meanwhile (the hardware prefetcher
          // stops at L2).
          __builtin_prefetch(base + std::min(pos + 512, end - 1));
          uint64_t len;
          std::memcpy(&len, base + pos, 8);
          if (len > max_len || end - pos - 8 < len) break;
          pos += 8 + len;
        }
      } else {
        for (; i < count; ++i) {
          if (end - pos < w) break;
          uint64_t len = f_.load_len(pos);
          if (len > max_len || end - pos - w < len) break;
          pos += w + len;
        }
      }
      pos_ = pos;
      if (i == count) break;
      // Later elements are longer (tokens and merges are ordered by rank: rarer, longer):
      // the average so far plus an eighth.
      array_rest_ = i ? (count - i - 1) * ((pos_ - start) / i) * 9 / 8 : 0;
      if (i && count == vocab_n_ && subject_ == "tokenizer.ggml.tokens") tok_bytes_ = (pos_ - start) / i;
      if (!skip_value(value_type::string, 1)) return false;  // reports the failing element, or fetches
      ++i;
    }
    array_rest_ = 0;
    return true;
  }

  bool tensor_infos() {
    if (!check_count(n_tensors_, lim_.max_tensor_count, min_tensor_bytes(), pos_, "tensor count")) return false;
    f_.tensors.reserve(n_tensors_);
    f_.tensor_index.reserve(n_tensors_);
    tensors_at_ = pos_;
    for (uint64_t i = 0; i < n_tensors_; ++i) {
      t_i_ = i;
      subject_.clear();
      subject_is_tensor_ = true;
      tensor_info t;
      t.info_offset = pos_;
      uint64_t len = 0;
      if (!read_len(len, "a tensor name length")) return false;
      if (len == 0) return fail(errc::invalid_tensor_name, t.info_offset, "empty tensor name (tensor " + std::to_string(i) + ")");
      if (len > max_tensor_name) {
        return fail(errc::invalid_tensor_name, t.info_offset,
                    "tensor name of " + std::to_string(len) + " bytes, the spec allows at most 64 (tensor " +
                        std::to_string(i) + ")");
      }
      if (!need(len, "a tensor name")) return false;
      t.name = std::string_view(reinterpret_cast<const char*>(f_.at(pos_)), len);
      pos_ += len;
      subject_ = std::string(t.name);
      uint64_t dims_at = pos_;
      if (!read_u32(t.n_dims, "n_dims")) return false;
      if (t.n_dims > max_dims) {
        return fail(errc::too_many_dims, dims_at, "n_dims " + std::to_string(t.n_dims) + " > 4");
      }
      for (uint32_t d = 0; d < t.n_dims; ++d) {
        uint64_t ne_at = pos_;
        if (!read_len(t.ne[d], "a tensor dimension")) return false;
        if (t.ne[d] == 0 || t.ne[d] > static_cast<uint64_t>(INT64_MAX)) {
          return fail(errc::invalid_dimension, ne_at,
                      "ne[" + std::to_string(d) + "] = " + std::to_string(t.ne[d]) + " (must be 1..INT64_MAX)");
        }
      }
      if (!read_type_id(t.type, tensor_type)) return false;
      if (!read_u64(t.offset, "a tensor offset")) return false;
      auto nbytes = ggml_nbytes(t.type, t.ne.data(), t.n_dims);
      if (!nbytes) return fail(nbytes.error().code, dims_at, nbytes.error().detail);
      t.nbytes = *nbytes;
      if (!f_.tensor_index.emplace(t.name, static_cast<uint32_t>(f_.tensors.size())).second) {
        return fail(errc::duplicate_tensor, t.info_offset, "duplicate tensor name");
      }
      f_.tensors.push_back(t);
    }
    subject_.clear();
    subject_is_tensor_ = false;
    f_.metadata_end = pos_;
    return within_limit(pos_, lim_.max_metadata_bytes, pos_, "metadata of", " bytes");
  }

  bool layout() {
    if (!checked_align(pos_, f_.alignment, f_.data_offset)) {
      return fail(errc::size_overflow, pos_, "data section offset overflows");
    }
    subject_is_tensor_ = true;
    for (auto& t : f_.tensors) {
      subject_ = std::string(t.name);
      uint64_t off_at = t.info_offset + f_.len_width() + t.name.size() + 4 + t.n_dims * f_.len_width() + 4;
      if (t.offset % f_.alignment != 0) {
        return fail(errc::misaligned_tensor, off_at,
                    "offset " + std::to_string(t.offset) + " is not a multiple of the alignment " +
                        std::to_string(f_.alignment));
      }
      uint64_t start = 0, end = 0;
      if (!checked_add(f_.data_offset, t.offset, start) || !checked_add(start, t.nbytes, end)) {
        return fail(errc::size_overflow, off_at, "data offset + tensor offset + size overflows");
      }
      if (end > size_) {
        return fail(errc::tensor_out_of_bounds, off_at,
                    "data [" + std::to_string(start) + ", " + std::to_string(end) + ") ends past the file end " +
                        std::to_string(size_));
      }
      t.data = f_.bytes.subspan(start, t.nbytes);
    }
    std::vector<const tensor_info*> by_offset;
    by_offset.reserve(f_.tensors.size());
    for (const auto& t : f_.tensors) by_offset.push_back(&t);
    std::sort(by_offset.begin(), by_offset.end(),
              [](const tensor_info* a, const tensor_info* b) { return a->offset < b->offset; });
    for (size_t i = 1; i < by_offset.size(); ++i) {
      const auto* prev = by_offset[i - 1];
      const auto* cur = by_offset[i];
      if (prev->offset + prev->nbytes > cur->offset) {
        subject_ = std::string(cur->name);
        return fail(errc::tensor_overlap, cur->info_offset,
                    "data at offset " + std::to_string(cur->offset) + " overlaps tensor " + std::string(prev->name) +
                        " [" + std::to_string(prev->offset) + ", " + std::to_string(prev->offset + prev->nbytes) + ")");
      }
    }
    return true;
  }
};

}  // namespace

result<std::shared_ptr<file_impl>> parse(std::shared_ptr<file_impl> impl, const reader_limits& limits) {
  parser p(*impl, limits);
  if (!p.run()) return std::move(p.err);
  return impl;
}

}  // namespace gguf::detail
