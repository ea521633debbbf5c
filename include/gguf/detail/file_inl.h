// Inline parts of gguf/file.h. Not a public header on its own.
#pragma once

#include <cstring>

#pragma GCC visibility push(default)  // public API: exported from the shared library
namespace gguf {
namespace detail {
/// Reads the (already validated) string starting at absolute offset `pos` of `f` and
/// advances `pos` past it. Only for offsets produced by the reader's own walk.
std::string_view read_validated_string(const file_impl* f, uint64_t& pos) noexcept;
/// The first byte of `f` when its string lengths are 8-byte numbers in host byte order
/// (GGUF v2/v3 in host order, the common case: strings are then walked inline), else null.
const std::byte* host_order_strings(const file_impl* f) noexcept;
}  // namespace detail

template <class Fn>
result<void> array_ref::for_each_string(Fn&& fn) const {
  if (elem_ != value_type::string) {
    return make_error(errc::type_mismatch, data_, "array of " + std::string(value_type_name(elem_)) +
                                                      ", not of string");
  }
  if (const std::byte* base = detail::host_order_strings(f_)) {
    const char* p = reinterpret_cast<const char*>(base + data_);
    for (uint64_t i = 0; i < count_; ++i) {
      uint64_t len;
      std::memcpy(&len, p, 8);
      fn(i, std::string_view(p + 8, len));
      p += 8 + len;
    }
    return {};
  }
  uint64_t pos = data_;
  for (uint64_t i = 0; i < count_; ++i) fn(i, detail::read_validated_string(f_, pos));
  return {};
}

}  // namespace gguf
#pragma GCC visibility pop
