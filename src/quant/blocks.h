// Block layouts of the ggml quantized types, and the scalar number formats they use.
//
// Layouts are ggml's (ggml-common.h: block_q4_0 … block_iq4_xs, block_mxfp4,
// block_nvfp4, block_q1_0, block_q2_0) with the field names kept. Every field here is
// a byte array, so a block struct has alignment 1 and may be read from any address of
// a mapped file; multi-byte fields are little-endian and read through le16().
// The static_asserts pin each size to ggml's type_size (format.h's table checks the same
// numbers at run time through ggml_type_traits).
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

namespace gguf::detail {

inline constexpr int QK_K = 256;  ///< elements of a super-block (k-quants, iq types)

inline uint16_t le16(const uint8_t* p) noexcept { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
inline uint32_t le32(const uint8_t* p) noexcept {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 | static_cast<uint32_t>(p[2]) << 16 |
         static_cast<uint32_t>(p[3]) << 24;
}

/// IEEE 754 binary16 to binary32, exact (every half is a float). A NaN keeps its
/// payload and comes out quiet, as F16C's vcvtph2ps and ggml's converter give it.
inline float fp16_to_fp32(uint16_t h) noexcept {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  const uint32_t man = h & 0x3ffu;
  uint32_t bits = 0;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (man << 13) | (man ? 0x00400000u : 0u);
  } else if (exp != 0) {
    bits = sign | ((exp + 112u) << 23) | (man << 13);
  } else if (man != 0) {  // subnormal half: man * 2^-24, a normal float
    bits = sign | std::bit_cast<uint32_t>(static_cast<float>(man) * 0x1p-24f);
  } else {
    bits = sign;
  }
  return std::bit_cast<float>(bits);
}

/// bfloat16 to binary32: the upper half of the float's bits.
inline float bf16_to_fp32(uint16_t h) noexcept { return std::bit_cast<float>(static_cast<uint32_t>(h) << 16); }

/// E8M0 scale (OCP MX spec: 2^(e-127)) halved, as ggml's GGML_E8M0_TO_FP32_HALF: the
/// fp4 code book holds doubled e2m1 values. e = 0 and 1 give the subnormals 2^-128, 2^-127.
inline float e8m0_to_fp32_half(uint8_t e) noexcept {
  const uint32_t bits = e < 2 ? 0x00200000u << e : static_cast<uint32_t>(e - 1) << 23;
  return std::bit_cast<float>(bits);
}

/// UE4M3 scale of nvfp4 (4 exponent bits, bias 7, 3 mantissa bits, bit 7 ignored) halved,
/// as ggml's ggml_ue4m3_to_fp32; 0x00 and the NaN code 0x7f give 0.
inline float ue4m3_to_fp32_half(uint8_t x) noexcept {
  if (x == 0 || x == 0x7f) return 0.0f;
  const int exp = (x >> 3) & 0xf;
  const int man = x & 0x7;
  // exp 0: man * 2^-9; else (8 + man) * 2^(exp - 10); then * 0.5. All exact.
  const float raw = exp == 0 ? static_cast<float>(man) * 0x1p-9f
                             : static_cast<float>(8 + man) * std::bit_cast<float>(static_cast<uint32_t>(exp - 10 + 127) << 23);
  return raw * 0.5f;
}

/// A little-endian binary16 field of a block.
struct f16_le {
  uint8_t b[2];
  uint16_t bits() const noexcept { return le16(b); }
  float value() const noexcept { return fp16_to_fp32(bits()); }
};
static_assert(sizeof(f16_le) == 2 && alignof(f16_le) == 1);

struct block_q1_0 { f16_le d; uint8_t qs[128 / 8]; };
struct block_q2_0 { f16_le d; uint8_t qs[64 / 4]; };
struct block_q4_0 { f16_le d; uint8_t qs[32 / 2]; };
struct block_q4_1 { f16_le d; f16_le m; uint8_t qs[32 / 2]; };
struct block_q5_0 { f16_le d; uint8_t qh[4]; uint8_t qs[32 / 2]; };
struct block_q5_1 { f16_le d; f16_le m; uint8_t qh[4]; uint8_t qs[32 / 2]; };
struct block_q8_0 { f16_le d; int8_t qs[32]; };
struct block_mxfp4 { uint8_t e; uint8_t qs[32 / 2]; };
struct block_nvfp4 { uint8_t d[64 / 16]; uint8_t qs[64 / 2]; };
struct block_iq4_nl { f16_le d; uint8_t qs[32 / 2]; };

struct block_tq1_0 { uint8_t qs[(QK_K - 4 * QK_K / 64) / 5]; uint8_t qh[QK_K / 64]; f16_le d; };
struct block_tq2_0 { uint8_t qs[QK_K / 4]; f16_le d; };

struct block_q2_K { uint8_t scales[QK_K / 16]; uint8_t qs[QK_K / 4]; f16_le d; f16_le dmin; };
struct block_q3_K { uint8_t hmask[QK_K / 8]; uint8_t qs[QK_K / 4]; uint8_t scales[12]; f16_le d; };
struct block_q4_K { f16_le d; f16_le dmin; uint8_t scales[12]; uint8_t qs[QK_K / 2]; };
struct block_q5_K { f16_le d; f16_le dmin; uint8_t scales[12]; uint8_t qh[QK_K / 8]; uint8_t qs[QK_K / 2]; };
struct block_q6_K { uint8_t ql[QK_K / 2]; uint8_t qh[QK_K / 4]; int8_t scales[QK_K / 16]; f16_le d; };

struct block_iq2_xxs { f16_le d; uint8_t qs[QK_K / 8 * 2]; };  // QK_K/8 uint16
struct block_iq2_xs { f16_le d; uint8_t qs[QK_K / 8 * 2]; uint8_t scales[QK_K / 32]; };
struct block_iq2_s { f16_le d; uint8_t qs[QK_K / 4]; uint8_t qh[QK_K / 32]; uint8_t scales[QK_K / 32]; };
struct block_iq3_xxs { f16_le d; uint8_t qs[3 * QK_K / 8]; };
struct block_iq3_s {
  f16_le d; uint8_t qs[QK_K / 4]; uint8_t qh[QK_K / 32]; uint8_t signs[QK_K / 8]; uint8_t scales[QK_K / 64];
};
struct block_iq1_s { f16_le d; uint8_t qs[QK_K / 8]; uint8_t qh[QK_K / 32 * 2]; };  // QK_K/32 uint16
struct block_iq1_m { uint8_t qs[QK_K / 8]; uint8_t qh[QK_K / 16]; uint8_t scales[QK_K / 32]; };
struct block_iq4_xs { f16_le d; uint8_t scales_h[2]; uint8_t scales_l[QK_K / 64]; uint8_t qs[QK_K / 2]; };

// ggml's type_size of each block (ggml-common.h static_asserts).
static_assert(sizeof(block_q1_0) == 18);
static_assert(sizeof(block_q2_0) == 18);
static_assert(sizeof(block_q4_0) == 18);
static_assert(sizeof(block_q4_1) == 20);
static_assert(sizeof(block_q5_0) == 22);
static_assert(sizeof(block_q5_1) == 24);
static_assert(sizeof(block_q8_0) == 34);
static_assert(sizeof(block_mxfp4) == 17);
static_assert(sizeof(block_nvfp4) == 36);
static_assert(sizeof(block_iq4_nl) == 18);
static_assert(sizeof(block_tq1_0) == 54);
static_assert(sizeof(block_tq2_0) == 66);
static_assert(sizeof(block_q2_K) == 84);
static_assert(sizeof(block_q3_K) == 110);
static_assert(sizeof(block_q4_K) == 144);
static_assert(sizeof(block_q5_K) == 176);
static_assert(sizeof(block_q6_K) == 210);
static_assert(sizeof(block_iq2_xxs) == 66);
static_assert(sizeof(block_iq2_xs) == 74);
static_assert(sizeof(block_iq2_s) == 82);
static_assert(sizeof(block_iq3_xxs) == 98);
static_assert(sizeof(block_iq3_s) == 110);
static_assert(sizeof(block_iq1_s) == 50);
static_assert(sizeof(block_iq1_m) == 56);
static_assert(sizeof(block_iq4_xs) == 136);

/// The blocks of a row as an array of T over raw bytes (alignment 1, so any address works).
template <class T>
inline const T* blocks_at(const uint8_t* p) noexcept {
  static_assert(alignof(T) == 1);
  return reinterpret_cast<const T*>(p);
}

/// 6-bit scale and min j (0..7) of the 12 packed scale bytes of q4_K and q5_K
/// (ggml's get_scale_min_k4 layout: j < 4 in the low 6 bits of bytes j and j+4; j >= 4
/// split between the nibbles of byte j+4 and the top 2 bits of bytes j-4 and j).
inline void scale_min_k4(int j, const uint8_t* q, uint8_t& sc, uint8_t& m) noexcept {
  if (j < 4) {
    sc = q[j] & 63;
    m = q[j + 4] & 63;
  } else {
    sc = static_cast<uint8_t>((q[j + 4] & 0xf) | ((q[j - 4] >> 6) << 4));
    m = static_cast<uint8_t>((q[j + 4] >> 4) | ((q[j] >> 6) << 4));
  }
}

}  // namespace gguf::detail
