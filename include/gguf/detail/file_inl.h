// Inline parts of gguf/file.h. Not a public header on its own.
#pragma once

#pragma GCC visibility push(default)  // public API: exported from the shared library
namespace gguf {
namespace detail {
/// Reads the (already validated) string starting at absolute offset `pos` of `f` and
/// advances `pos` past it. Only for offsets produced by the reader's own walk.
std::string_view read_validated_string(const file_impl* f, uint64_t& pos) noexcept;
}  // namespace detail

template <class Fn>
result<void> array_ref::for_each_string(Fn&& fn) const {
  if (elem_ != value_type::string) {
    return make_error(errc::type_mismatch, data_, "array of " + std::string(value_type_name(elem_)) +
                                                      ", not of string");
  }
  uint64_t pos = data_;
  for (uint64_t i = 0; i < count_; ++i) fn(i, detail::read_validated_string(f_, pos));
  return {};
}

}  // namespace gguf
#pragma GCC visibility pop
