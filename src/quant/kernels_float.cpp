// Kernels of the one-element-per-block types: f32, f16, bf16, f64 and the integer types
// i8 i16 i32 i64 (converted to the nearest float, as a C cast does). Input little-endian.
#include <bit>
#include <cstring>
#include <type_traits>

#include "quant/blocks.h"
#include "quant/kernels.h"

namespace gguf::detail {
namespace {

constexpr bool host_le = std::endian::native == std::endian::little;

template <class U>
U load_le(const uint8_t* p) noexcept {
  U v;
  std::memcpy(&v, p, sizeof v);
  if constexpr (!host_le) {
    if constexpr (sizeof(U) == 2) v = static_cast<U>(__builtin_bswap16(static_cast<uint16_t>(v)));
    if constexpr (sizeof(U) == 4) v = static_cast<U>(__builtin_bswap32(static_cast<uint32_t>(v)));
    if constexpr (sizeof(U) == 8) v = static_cast<U>(__builtin_bswap64(static_cast<uint64_t>(v)));
  }
  return v;
}

template <class Int>
void int_to_float(const uint8_t* src, float* dst, size_t n) {
  using U = std::make_unsigned_t<Int>;
  for (size_t i = 0; i < n; ++i) dst[i] = static_cast<float>(static_cast<Int>(load_le<U>(src + i * sizeof(Int))));
}

}  // namespace

void dequant_f32(const uint8_t* src, float* dst, size_t n) {
  if constexpr (host_le) {
    std::memcpy(dst, src, n * sizeof(float));
  } else {
    for (size_t i = 0; i < n; ++i) dst[i] = std::bit_cast<float>(load_le<uint32_t>(src + 4 * i));
  }
}

void dequant_f16(const uint8_t* src, float* dst, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] = fp16_to_fp32(le16(src + 2 * i));
}

void dequant_bf16(const uint8_t* src, float* dst, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] = bf16_to_fp32(le16(src + 2 * i));
}

void dequant_f64(const uint8_t* src, float* dst, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] = static_cast<float>(std::bit_cast<double>(load_le<uint64_t>(src + 8 * i)));
}

void dequant_i8(const uint8_t* src, float* dst, size_t n) { int_to_float<int8_t>(src, dst, n); }
void dequant_i16(const uint8_t* src, float* dst, size_t n) { int_to_float<int16_t>(src, dst, n); }
void dequant_i32(const uint8_t* src, float* dst, size_t n) { int_to_float<int32_t>(src, dst, n); }
void dequant_i64(const uint8_t* src, float* dst, size_t n) { int_to_float<int64_t>(src, dst, n); }

}  // namespace gguf::detail
