// Handcrafted GGUF bytes for tests: writes fields one by one, so that a test can put any
// value (wrong, huge, truncated) anywhere. Little-endian unless `big` is set; counts and
// lengths are 64-bit unless `v1` is set.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

namespace gguf::test {

class gguf_builder {
 public:
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
};

}  // namespace gguf::test
