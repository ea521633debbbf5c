// Test helper: writes small little-endian GGUF v3 files byte by byte, so that each
// handcrafted failure mode of the model layer is one short test.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace gguf::test {

class gguf_builder {
 public:
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

}  // namespace gguf::test
