// gguf/error.h — one error code enum, an error value with context, and result<T>.
//
// Input errors are values, never aborts: every function that reads an untrusted file
// returns a result<T> (usable without exceptions: `if (!r) r.error()`, or with them:
// `r.value()` throws gguf::exception). Bugs in the caller are asserts.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#pragma GCC visibility push(default)  // public API: exported from the shared library
namespace gguf {

/// Every way an operation can fail. Stable: new codes are appended.
enum class errc : int {
  ok = 0,
  io_error,              ///< the file could not be opened, mapped, read, written or renamed
  bad_magic,             ///< the first 4 bytes are not "GGUF"
  unsupported_version,   ///< version other than 1, 2, 3
  truncated,             ///< a read ran past the end of the file
  limit_exceeded,        ///< a count or length above the configured reader limit
  invalid_key,           ///< empty key, or a byte outside printable ASCII
  key_too_long,          ///< key longer than 65535 bytes (spec)
  duplicate_key,         ///< the same key twice
  invalid_value_type,    ///< value type id not in 0..12
  invalid_bool,          ///< a bool byte other than 0 or 1
  invalid_tensor_name,   ///< empty tensor name, or longer than 64 bytes (ggml's GGML_MAX_NAME)
  duplicate_tensor,      ///< the same tensor name twice
  too_many_dims,         ///< n_dims of 0 or more than 4
  invalid_dimension,     ///< a dimension of zero or below, or above INT64_MAX
  invalid_ggml_type,     ///< ggml type id unknown or retired
  size_overflow,         ///< a size computation overflowed 64 bits
  invalid_alignment,     ///< general.alignment zero, not a power of two, or not uint32
  misaligned_tensor,     ///< tensor offset not a multiple of the alignment
  tensor_out_of_bounds,  ///< tensor data past the end of the file
  tensor_overlap,        ///< two tensors' data overlap
  partial_block,         ///< ne[0] not a multiple of the type's block size
  key_not_found,         ///< lookup of a key that is not there
  type_mismatch,         ///< a typed accessor asked for another type than stored
  tensor_not_found,      ///< lookup of a tensor that is not there
  out_of_range,          ///< an index or value outside the allowed range
  invalid_argument,      ///< the caller passed something unusable (e.g. bad CLI value)
  unsupported,           ///< valid input this library does not handle (yet); says what
  invalid_vocab,         ///< the tokenizer keys are inconsistent
  invalid_model,         ///< the architecture keys or tensors are inconsistent
  invalid_template,      ///< a chat template (Jinja) does not parse; detail names line and column
  template_error,        ///< a chat template raised while rendering (raise_exception, undefined, type error)
};

/// Short English description of a code, e.g. "bad magic".
std::string_view error_message(errc code) noexcept;

/// Stable snake_case name of a code, e.g. "bad_magic" (for JSON output and docs).
std::string_view error_name(errc code) noexcept;

inline constexpr uint64_t no_offset = ~uint64_t{0};

/// An error with its context: where in the file (byte offset), which key or tensor.
struct error {
  errc code = errc::ok;
  uint64_t offset = no_offset;  ///< byte offset in the file, or no_offset
  std::string subject;          ///< key or tensor name, if any
  std::string detail;           ///< what exactly is wrong, e.g. "length 2^63 > 1048576 bytes left"
  bool subject_is_tensor = false;

  /// "detail (at byte N, key K)" — the message part of the CLI's one-line error.
  std::string message() const;  ///< (the subject as printable_name gives it)
};

/// Thrown only by result<T>::value() and by the throwing convenience wrappers.
class exception : public std::runtime_error {
 public:
  explicit exception(gguf::error e) : std::runtime_error(e.message()), err_(std::move(e)) {}
  const gguf::error& error() const noexcept { return err_; }

 private:
  gguf::error err_;
};

/// Either a T or an error. `ok()` / `operator bool` tell which.
template <class T>
class [[nodiscard]] result {
 public:
  result(T v) : v_(std::in_place_index<0>, std::move(v)) {}  // NOLINT: implicit by design
  result(gguf::error e) : v_(std::in_place_index<1>, std::move(e)) {}  // NOLINT

  bool ok() const noexcept { return v_.index() == 0; }
  explicit operator bool() const noexcept { return ok(); }

  /// The error; only valid when !ok().
  const gguf::error& error() const& { return std::get<1>(v_); }
  gguf::error&& error() && { return std::get<1>(std::move(v_)); }

  /// The value; throws gguf::exception when !ok().
  T& value() & {
    if (!ok()) throw exception(std::get<1>(v_));
    return std::get<0>(v_);
  }
  const T& value() const& {
    if (!ok()) throw exception(std::get<1>(v_));
    return std::get<0>(v_);
  }
  T&& value() && {
    if (!ok()) throw exception(std::get<1>(v_));
    return std::get<0>(std::move(v_));
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  /// simdjson style: `T x; if (auto ec = r.get(x); ec != errc::ok) ...`
  errc get(T& out) && {
    if (!ok()) return std::get<1>(v_).code;
    out = std::get<0>(std::move(v_));
    return errc::ok;
  }
  T value_or(T fallback) const& { return ok() ? std::get<0>(v_) : std::move(fallback); }

 private:
  std::variant<T, gguf::error> v_;
};

template <>
class [[nodiscard]] result<void> {
 public:
  result() = default;
  result(gguf::error e) : err_(std::move(e)) {}  // NOLINT
  bool ok() const noexcept { return err_.code == errc::ok; }
  explicit operator bool() const noexcept { return ok(); }
  const gguf::error& error() const& { return err_; }
  void value() const {
    if (!ok()) throw exception(err_);
  }

 private:
  gguf::error err_;
};

/// Builds an error value; `subject` is a key name unless `is_tensor`.
inline gguf::error make_error(errc code, uint64_t offset, std::string detail,
                              std::string subject = {}, bool is_tensor = false) {
  return gguf::error{code, offset, std::move(subject), std::move(detail), is_tensor};
}

/// A key or tensor name from a file, for a line of text: as it is when every byte is
/// printable (0x20..0x7e, or part of a UTF-8 sequence), else in double quotes with C/JSON
/// escapes (\n, \x1b, ...), so that a hostile name cannot break a line or drive a terminal.
std::string printable_name(std::string_view name);

}  // namespace gguf
#pragma GCC visibility pop
