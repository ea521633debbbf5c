// gguf/format.h — the GGUF wire format's vocabulary: value types, ggml tensor types and
// their traits, and overflow-checked size arithmetic.
//
// The wire format (GGUF specification, ggml docs/gguf.md), in short:
//  1. magic "GGUF" (bytes 47 47 55 46), then uint32 version (1, 2 or 3). A file written on
//     a big-endian machine stores every number big-endian; the version field tells which
//     (a byte-swapped version is < 65536 only in the other order).
//  2. tensor_count and metadata_kv_count: uint64 (uint32 in v1).
//  3. metadata_kv_count pairs: key (gguf string), uint32 value type, value.
//     A gguf string is a uint64 length (uint32 in v1) and that many bytes, no NUL.
//     An array is uint32 element type, uint64 count (uint32 in v1), then the elements;
//     elements may themselves be arrays.
//  4. tensor_count tensor infos: name (gguf string), uint32 n_dims (<= 4),
//     n_dims x uint64 ne (uint32 in v1), uint32 ggml type, uint64 offset relative to the
//     data section (a multiple of the alignment).
//  5. padding to general.alignment (uint32, default 32), then the data section.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>

#include "gguf/error.h"

#pragma GCC visibility push(default)  // public API: exported from the shared library
namespace gguf {

/// GGUF metadata value type ids (spec: gguf_metadata_value_type).
enum class value_type : uint32_t {
  uint8 = 0,
  int8 = 1,
  uint16 = 2,
  int16 = 3,
  uint32 = 4,
  int32 = 5,
  float32 = 6,
  boolean = 7,  ///< "bool" in the spec
  string = 8,
  array = 9,
  uint64 = 10,
  int64 = 11,
  float64 = 12,
};
inline constexpr uint32_t value_type_count = 13;

/// Spec name of a value type: "uint8" … "bool", "string", "array" … "float64".
std::string_view value_type_name(value_type t) noexcept;
/// Inverse of value_type_name; nullopt for an unknown name.
std::optional<value_type> value_type_from_name(std::string_view name) noexcept;
/// Size in bytes of a scalar value type; 0 for string and array.
size_t value_type_size(value_type t) noexcept;
/// True for ids 0..12.
constexpr bool is_valid_value_type(uint32_t id) noexcept { return id < value_type_count; }
/// uint8 int8 uint16 int16 uint32 int32 uint64 int64 (not bool, not the floats).
constexpr bool is_integer_type(value_type t) noexcept {
  switch (t) {
    case value_type::uint8: case value_type::int8: case value_type::uint16: case value_type::int16:
    case value_type::uint32: case value_type::int32: case value_type::uint64: case value_type::int64:
      return true;
    default:
      return false;
  }
}

/// The GGUF value type of a C++ type: uint8_t … double, bool, std::string_view.
template <class T>
constexpr value_type value_type_of() noexcept {
  if constexpr (std::is_same_v<T, uint8_t>) return value_type::uint8;
  else if constexpr (std::is_same_v<T, int8_t>) return value_type::int8;
  else if constexpr (std::is_same_v<T, uint16_t>) return value_type::uint16;
  else if constexpr (std::is_same_v<T, int16_t>) return value_type::int16;
  else if constexpr (std::is_same_v<T, uint32_t>) return value_type::uint32;
  else if constexpr (std::is_same_v<T, int32_t>) return value_type::int32;
  else if constexpr (std::is_same_v<T, float>) return value_type::float32;
  else if constexpr (std::is_same_v<T, bool>) return value_type::boolean;
  else if constexpr (std::is_same_v<T, std::string_view>) return value_type::string;
  else if constexpr (std::is_same_v<T, uint64_t>) return value_type::uint64;
  else if constexpr (std::is_same_v<T, int64_t>) return value_type::int64;
  else if constexpr (std::is_same_v<T, double>) return value_type::float64;
  else static_assert(sizeof(T) == 0, "not a GGUF value type");
}

/// ggml tensor type ids (ggml.h enum ggml_type), with ggml's spelling.
enum class ggml_type : uint32_t {
  f32 = 0, f16 = 1, q4_0 = 2, q4_1 = 3,
  // 4, 5: q4_2, q4_3 (retired)
  q5_0 = 6, q5_1 = 7, q8_0 = 8, q8_1 = 9,
  q2_K = 10, q3_K = 11, q4_K = 12, q5_K = 13, q6_K = 14, q8_K = 15,
  iq2_xxs = 16, iq2_xs = 17, iq3_xxs = 18, iq1_s = 19, iq4_nl = 20, iq3_s = 21, iq2_s = 22,
  iq4_xs = 23, i8 = 24, i16 = 25, i32 = 26, i64 = 27, f64 = 28, iq1_m = 29, bf16 = 30,
  // 31, 32, 33: q4_0_4_4, q4_0_4_8, q4_0_8_8 (retired)
  tq1_0 = 34, tq2_0 = 35,
  // 36, 37, 38: iq4_nl_4_4, iq4_nl_4_8, iq4_nl_8_8 (retired)
  mxfp4 = 39, nvfp4 = 40, q1_0 = 41, q2_0 = 42,
};
inline constexpr uint32_t ggml_type_count = 43;

/// One row of the ggml type table (ggml.c type_traits): a block of blck_size elements
/// is stored in type_size bytes.
struct type_traits {
  std::string_view name;   ///< ggml spelling, e.g. "q4_K"
  uint32_t blck_size = 0;  ///< elements per block
  uint32_t type_size = 0;  ///< bytes per block
  bool quantized = false;  ///< block-quantized (blck_size > 1)
};

/// Traits of a type id; nullptr for an id that is unknown or retired.
const type_traits* ggml_type_traits(uint32_t id) noexcept;
inline const type_traits* ggml_type_traits(ggml_type t) noexcept {
  return ggml_type_traits(static_cast<uint32_t>(t));
}
/// ggml name of a type ("q4_K"), or "unknown(N)"-free empty view for an invalid id.
std::string_view ggml_type_name(ggml_type t) noexcept;
/// Inverse of ggml_type_name (case-insensitive: "Q4_K" and "q4_k" are accepted).
std::optional<ggml_type> ggml_type_from_name(std::string_view name) noexcept;
/// True for a known, non-retired id.
inline bool is_valid_ggml_type(uint32_t id) noexcept { return ggml_type_traits(id) != nullptr; }

/// Checked arithmetic on sizes read from files: false on overflow.
constexpr bool checked_mul(uint64_t a, uint64_t b, uint64_t& out) noexcept {
  return !__builtin_mul_overflow(a, b, &out);
}
constexpr bool checked_add(uint64_t a, uint64_t b, uint64_t& out) noexcept {
  return !__builtin_add_overflow(a, b, &out);
}
/// Round up to a multiple of `align` (a power of two); false on overflow.
constexpr bool checked_align(uint64_t x, uint64_t align, uint64_t& out) noexcept {
  uint64_t t = 0;
  if (!checked_add(x, align - 1, t)) return false;
  out = t & ~(align - 1);
  return true;
}

/// Bytes of a row of `ne0` elements of `type` (ggml_row_size).
/// Errors: invalid_ggml_type, partial_block (ne0 not a multiple of blck_size), size_overflow.
result<uint64_t> ggml_row_size(ggml_type type, uint64_t ne0);

/// Bytes of a tensor of shape ne[0..n_dims) (ggml_nbytes for a contiguous tensor):
/// rows of ne[0] elements, ne[1]*ne[2]*ne[3] of them, every product overflow-checked.
/// Errors: invalid_ggml_type, partial_block, size_overflow, invalid_dimension.
result<uint64_t> ggml_nbytes(ggml_type type, const uint64_t* ne, uint32_t n_dims);

/// Byte order of a file's numbers.
enum class byte_order : uint8_t { little, big };
inline constexpr std::string_view byte_order_name(byte_order o) noexcept {
  return o == byte_order::little ? "little" : "big";
}

inline constexpr uint32_t default_alignment = 32;  ///< spec: general.alignment default
inline constexpr uint64_t max_key_length = 65535;   ///< spec: keys at most 2^16-1 bytes
inline constexpr uint64_t max_tensor_name = 64;     ///< spec: tensor names at most 64 bytes
inline constexpr uint32_t max_dims = 4;             ///< spec / GGML_MAX_DIMS

}  // namespace gguf
#pragma GCC visibility pop
