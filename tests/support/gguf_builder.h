// The one GGUF builder of the tests, two ways to use it:
//  - field by field (raw, num, str, header, key, kv_*, tensor(name, ne, type, offset),
//    pad, zeros into `bytes`): handcrafted bytes, so that a test can put any value
//    (wrong, huge, truncated) anywhere. Little-endian unless `big` is set; counts and
//    lengths are 64-bit unless `v1` is set.
//  - key by key (str/u32/i32/u64/f32/boolean/arr_* with a key, tensor(name, ne, fill),
//    without, build()): a valid little-endian v3 file with f32 tensors, so that each
//    handcrafted failure mode of a layer above the format is one short test.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gguf::test {

class gguf_builder {
 public:
  // ---- field by field ----
  bool big = false;
  bool v1 = false;
  std::vector<std::byte> bytes;

  gguf_builder& raw(const void* p, size_t n) {
    auto* b = static_cast<const std::byte*>(p);
    bytes.insert(bytes.end(), b, b + n);
    return *this;
  }
  template <class T>
  gguf_builder& num(T v) {
    unsigned char buf[sizeof(T)];
    std::memcpy(buf, &v, sizeof(T));
    if (big) {
      for (size_t i = 0; i < sizeof(T) / 2; ++i) std::swap(buf[i], buf[sizeof(T) - 1 - i]);
    }
    return raw(buf, sizeof(T));
  }
  gguf_builder& u8(uint8_t v) { return num(v); }
  gguf_builder& u32(uint32_t v) { return num(v); }
  gguf_builder& u64(uint64_t v) { return num(v); }
  /// A count or length: uint32 in v1, uint64 otherwise.
  gguf_builder& len(uint64_t v) { return v1 ? num(static_cast<uint32_t>(v)) : num(v); }
  gguf_builder& str(std::string_view s) {
    len(s.size());
    return raw(s.data(), s.size());
  }
  /// "GGUF", version, tensor count, kv count.
  gguf_builder& header(uint32_t version, uint64_t n_tensors, uint64_t n_kv) {
    raw("GGUF", 4);
    u32(version);
    len(n_tensors);
    return len(n_kv);
  }
  /// key + type id (value follows).
  gguf_builder& key(std::string_view k, uint32_t type) { return str(k).u32(type); }
  gguf_builder& kv_u32(std::string_view k, uint32_t v) { return key(k, 4).u32(v); }
  gguf_builder& kv_str(std::string_view k, std::string_view v) { return key(k, 8).str(v); }
  /// Tensor info: name, n_dims, ne..., type, offset.
  gguf_builder& tensor(std::string_view name, std::initializer_list<uint64_t> ne, uint32_t type, uint64_t offset) {
    str(name);
    u32(static_cast<uint32_t>(ne.size()));
    for (uint64_t d : ne) len(d);
    u32(type);
    return u64(offset);
  }
  /// Zero bytes up to a multiple of `align`.
  gguf_builder& pad(size_t align = 32) {
    while (bytes.size() % align) bytes.push_back(std::byte{0});
    return *this;
  }
  gguf_builder& zeros(size_t n) {
    bytes.insert(bytes.end(), n, std::byte{0});
    return *this;
  }

  // ---- key by key ----
  gguf_builder& str(const std::string& key, const std::string& v) { return kv(key, 8, [&] { put_str(v); }); }
  gguf_builder& u32(const std::string& key, uint32_t v) { return kv(key, 4, [&] { put(v); }); }
  gguf_builder& i32(const std::string& key, int32_t v) { return kv(key, 5, [&] { put(v); }); }
  gguf_builder& u64(const std::string& key, uint64_t v) { return kv(key, 10, [&] { put(v); }); }
  gguf_builder& f32(const std::string& key, float v) { return kv(key, 6, [&] { put(v); }); }
  gguf_builder& boolean(const std::string& key, bool v) { return kv(key, 7, [&] { put(uint8_t(v)); }); }
  gguf_builder& arr_i32(const std::string& key, const std::vector<int32_t>& v) {
    return kv(key, 9, [&] {
      put(uint32_t{5});
      put(uint64_t(v.size()));
      for (auto x : v) put(x);
    });
  }
  gguf_builder& arr_bool(const std::string& key, const std::vector<bool>& v) {
    return kv(key, 9, [&] {
      put(uint32_t{7});
      put(uint64_t(v.size()));
      for (bool x : v) put(uint8_t(x));
    });
  }
  gguf_builder& arr_str(const std::string& key, const std::vector<std::string>& v) {
    return kv(key, 9, [&] {
      put(uint32_t{8});
      put(uint64_t(v.size()));
      for (const auto& x : v) put_str(x);
    });
  }
  /// An f32 tensor of shape ne (ne[0] contiguous) whose data is `fill` for every element.
  gguf_builder& tensor(const std::string& name, std::vector<uint64_t> ne, float fill = 0.0f) {
    tensors_.push_back({name, std::move(ne), fill});
    return *this;
  }
  /// Drops the key/value pair `key` (to make "missing key" files from a valid one).
  gguf_builder& without(const std::string& key) {
    std::erase_if(kvs_, [&](const entry& e) { return e.key == key; });
    return *this;
  }

  std::vector<std::byte> build() const {
    out_.clear();
    put_raw("GGUF", 4);
    put(uint32_t{3});
    put(uint64_t(tensors_.size()));
    put(uint64_t(kvs_.size()));
    for (const auto& e : kvs_) out_.insert(out_.end(), e.bytes.begin(), e.bytes.end());
    uint64_t offset = 0;
    std::vector<uint64_t> offsets;
    for (const auto& t : tensors_) {
      put_str(t.name);
      put(uint32_t(t.ne.size()));
      uint64_t n = 1;
      for (auto d : t.ne) put(d), n *= d;
      put(uint32_t{0});  // f32
      put(offset);
      offsets.push_back(offset);
      offset += (n * 4 + 31) / 32 * 32;
    }
    while (out_.size() % 32) out_.push_back(std::byte{0});
    for (size_t i = 0; i < tensors_.size(); ++i) {
      const auto& t = tensors_[i];
      uint64_t n = 1;
      for (auto d : t.ne) n *= d;
      for (uint64_t j = 0; j < n; ++j) put(t.fill);
      while (out_.size() % 32) out_.push_back(std::byte{0});
    }
    return out_;
  }

 private:
  struct entry {
    std::string key;
    std::vector<std::byte> bytes;
  };
  struct tensor_def {
    std::string name;
    std::vector<uint64_t> ne;
    float fill;
  };

  template <class F>
  gguf_builder& kv(const std::string& key, uint32_t type, F&& value) {
    out_.clear();
    put_str(key);
    put(type);
    value();
    kvs_.push_back({key, out_});
    out_.clear();
    return *this;
  }
  template <class T>
  void put(T v) const {
    put_raw(&v, sizeof v);
  }
  void put_raw(const void* p, size_t n) const {
    size_t old = out_.size();
    out_.resize(old + n);
    if (n) std::memcpy(out_.data() + old, p, n);
  }
  void put_str(const std::string& s) const {
    put(uint64_t(s.size()));
    put_raw(s.data(), s.size());
  }

  std::vector<entry> kvs_;
  std::vector<tensor_def> tensors_;
  mutable std::vector<std::byte> out_;
};

/// The hyperparameters most model tests build a small model of architecture ARCH with
/// (arch_keys): each written as ARCH.KEY when set, so that an architecture that has no
/// such key (mamba2: no head count) leaves it out.
struct arch_dims {
  uint32_t n_ctx = 64;                  ///< context_length
  uint32_t n_embd = 8;                  ///< embedding_length
  uint32_t n_layer = 1;                 ///< block_count
  std::optional<uint32_t> n_ff = 16;    ///< feed_forward_length
  std::optional<uint32_t> n_head = 2;   ///< attention.head_count
  std::optional<uint32_t> n_head_kv = std::nullopt;  ///< attention.head_count_kv
  std::optional<float> rms_eps = std::nullopt;  ///< attention.layer_norm_rms_epsilon
  std::optional<float> ln_eps = std::nullopt;  ///< attention.layer_norm_epsilon
  uint32_t n_vocab = 3;                 ///< tokenizer.ggml.tokens: "a", "b", ...
};

/// general.architecture = ARCH, the keys of `d`, then tokenizer.ggml.tokens; the caller
/// adds its architecture's own keys and the tensors.
inline gguf_builder arch_keys(const std::string& arch, const arch_dims& d = {}) {
  gguf_builder b;
  b.str("general.architecture", arch)
      .u32(arch + ".context_length", d.n_ctx)
      .u32(arch + ".embedding_length", d.n_embd)
      .u32(arch + ".block_count", d.n_layer);
  if (d.n_ff) b.u32(arch + ".feed_forward_length", *d.n_ff);
  if (d.n_head) b.u32(arch + ".attention.head_count", *d.n_head);
  if (d.n_head_kv) b.u32(arch + ".attention.head_count_kv", *d.n_head_kv);
  if (d.rms_eps) b.f32(arch + ".attention.layer_norm_rms_epsilon", *d.rms_eps);
  if (d.ln_eps) b.f32(arch + ".attention.layer_norm_epsilon", *d.ln_eps);
  std::vector<std::string> tokens;
  for (uint32_t i = 0; i < d.n_vocab; ++i) tokens.push_back(std::string(1, char('a' + i)));
  return b.arr_str("tokenizer.ggml.tokens", tokens);
}

}  // namespace gguf::test
