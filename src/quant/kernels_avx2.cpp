// AVX2 + F16C variants of the kernels: f16 bf16 q4_0 q4_1 q5_0 q5_1 q8_0 iq4_nl iq4_xs
// mxfp4 nvfp4 q1_0 q2_0 tq2_0 q4_K q5_K q6_K and the grid types iq2_xxs iq2_xs iq2_s iq3_xxs iq3_s iq1_s iq1_m. Each is compiled for those ISAs through target attributes (the rest of the
// library stays baseline x86-64) and only called when the CPU reports both
// (dispatch.cpp). They perform exactly the float operations of the scalar kernels — an
// int-to-float conversion, then the same multiplies and adds in the same order, each
// rounded on its own (no FMA: "fma" is not among the targets and the layer builds with
// -ffp-contract=off) — so their results are bit-identical; test_simd.cpp checks it.
#include "quant/kernels.h"

#if GGUF_QUANT_X86

#include <immintrin.h>

#include <algorithm>
#include <cstdint>

#include "quant/blocks.h"
#include "quant/tables.h"

#define GGUF_AVX2_TARGET __attribute__((target("avx2,f16c")))

namespace gguf::detail {
namespace {

// 32 signed bytes -> 4 x 8 floats stored at y, each multiplied by `d`.
GGUF_AVX2_TARGET inline void store_i8x32_times(float* y, __m256i q, __m256 d) {
  const __m128i lo = _mm256_castsi256_si128(q);
  const __m128i hi = _mm256_extracti128_si256(q, 1);
  _mm256_storeu_ps(y + 0, _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(lo)), d));
  _mm256_storeu_ps(y + 8, _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(lo, 8))), d));
  _mm256_storeu_ps(y + 16, _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(hi)), d));
  _mm256_storeu_ps(y + 24, _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(hi, 8))), d));
}

// 8 signed bytes -> 8 floats: (float)q * d - m  (d * q - m for the k-quants: the
// product is commutative, the subtraction comes second as in the scalar code).
GGUF_AVX2_TARGET inline __m256 i8x8_to_ps(__m128i q8) { return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(q8)); }

// 32 bytes of q (0..31 here, read as signed) -> 32 floats (float)q * d + m, as the
// scalar q4_1 / q5_1 code: the product first, then the sum (never fused).
GGUF_AVX2_TARGET inline void store_i8x32_times_plus(float* y, __m256i q, __m256 d, __m256 m) {
  const __m128i lo = _mm256_castsi256_si128(q);
  const __m128i hi = _mm256_extracti128_si256(q, 1);
  const __m128i parts[4] = {lo, _mm_srli_si128(lo, 8), hi, _mm_srli_si128(hi, 8)};
  for (int k = 0; k < 4; ++k) {
    _mm256_storeu_ps(y + 8 * k, _mm256_add_ps(_mm256_mul_ps(i8x8_to_ps(parts[k]), d), m));
  }
}

// 16 bytes of packed nibbles -> 32 bytes: the 16 low nibbles, then the 16 high ones
// (the element order of every 32-element nibble block).
GGUF_AVX2_TARGET inline __m256i unpack_nibbles(const uint8_t* qs) {
  const __m128i q = _mm_loadu_si128(reinterpret_cast<const __m128i*>(qs));
  const __m128i m = _mm_set1_epi8(0x0f);
  const __m128i lo = _mm_and_si128(q, m);
  const __m128i hi = _mm_and_si128(_mm_srli_epi16(q, 4), m);
  return _mm256_set_m128i(hi, lo);
}

// Expands 32 bits to 32 bytes: byte j is 0xff when bit j is set.
GGUF_AVX2_TARGET inline __m256i bits_to_bytes(uint32_t bits) {
  const __m256i spread = _mm256_shuffle_epi8(
      _mm256_set1_epi32(static_cast<int>(bits)),
      _mm256_set_epi64x(0x0303030303030303, 0x0202020202020202, 0x0101010101010101, 0x0000000000000000));
  const __m256i mask = _mm256_set1_epi64x(static_cast<long long>(0x8040201008040201ull));
  return _mm256_cmpeq_epi8(_mm256_and_si256(spread, mask), mask);
}

// q4_K / q5_K: 32 codes (bytes 0..31) -> y = d1 * q - m1.
GGUF_AVX2_TARGET inline void store_scaled_minus(float* y, __m256i q, float d, float m) {
  const __m256 dv = _mm256_set1_ps(d);
  const __m256 mv = _mm256_set1_ps(m);
  const __m128i lo = _mm256_castsi256_si128(q);
  const __m128i hi = _mm256_extracti128_si256(q, 1);
  const __m128i parts[4] = {lo, _mm_srli_si128(lo, 8), hi, _mm_srli_si128(hi, 8)};
  for (int k = 0; k < 4; ++k) {
    _mm256_storeu_ps(y + 8 * k, _mm256_sub_ps(_mm256_mul_ps(dv, i8x8_to_ps(parts[k])), mv));
  }
}


// Signs of 8 elements as floats: -1.f where bit j of `signs` is set, else +1.f.
GGUF_AVX2_TARGET inline __m256 sign_ps(uint8_t signs) {
  const __m256i bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
  const __m256i set = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(signs), bit), bit);
  return _mm256_blendv_ps(_mm256_set1_ps(1.f), _mm256_set1_ps(-1.f), _mm256_castsi256_ps(set));
}

// 8 grid magnitudes (unsigned bytes of a packed entry, byte j = bits 8j) with a sign
// byte: y[j] = (db * g[j]) * ±1, the scalar kernels' order.
GGUF_AVX2_TARGET inline void put8_signed(float* y, __m256 db, __m128i g8, uint8_t signs) {
  const __m256 g = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(g8));
  _mm256_storeu_ps(y, _mm256_mul_ps(_mm256_mul_ps(db, g), sign_ps(signs)));
}

// iq1 grids: 8 int8 values in {-1, 0, 1}; y[j] = dl * (g[j] + shift).
GGUF_AVX2_TARGET inline void put8_shifted(float* y, __m256 dl, uint64_t entry, __m256 shift) {
  const __m256 g = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_cvtsi64_si128(static_cast<long long>(entry))));
  _mm256_storeu_ps(y, _mm256_mul_ps(dl, _mm256_add_ps(g, shift)));
}

#define GGUF_WALK_TARGET GGUF_AVX2_TARGET
#include "quant/kernels_walk.inc"
#undef GGUF_WALK_TARGET
}  // namespace

namespace {
// 8 f16 / bf16 values to floats (walk_16bit's vector step).
GGUF_AVX2_TARGET inline void f16x8(const uint8_t* src, float* dst) {
  _mm256_storeu_ps(dst, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src))));
}
GGUF_AVX2_TARGET inline void bf16x8(const uint8_t* src, float* dst) {
  const __m256i h = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src)));
  _mm256_storeu_ps(dst, _mm256_castsi256_ps(_mm256_slli_epi32(h, 16)));
}
}  // namespace

GGUF_AVX2_TARGET void dequant_f16_avx2(const uint8_t* src, float* dst, size_t n) { walk_16bit<8, fp16_to_fp32, f16x8>(src, dst, n); }
GGUF_AVX2_TARGET void dequant_bf16_avx2(const uint8_t* src, float* dst, size_t n) { walk_16bit<8, bf16_to_fp32, bf16x8>(src, dst, n); }

GGUF_AVX2_TARGET void dequant_q4_0_avx2(const uint8_t* src, float* y, size_t nb) {
  const auto* x = blocks_at<block_q4_0>(src);
  const __m256i eight = _mm256_set1_epi8(8);
  for (size_t i = 0; i < nb; ++i, y += 32) {
    const __m256i q = _mm256_sub_epi8(unpack_nibbles(x[i].qs), eight);
    store_i8x32_times(y, q, _mm256_set1_ps(x[i].d.value()));
  }
}

GGUF_AVX2_TARGET void dequant_q4_1_avx2(const uint8_t* src, float* y, size_t nb) {
  const auto* x = blocks_at<block_q4_1>(src);
  for (size_t i = 0; i < nb; ++i, y += 32) {
    const __m256i q = unpack_nibbles(x[i].qs);
    store_i8x32_times_plus(y, q, _mm256_set1_ps(x[i].d.value()), _mm256_set1_ps(x[i].m.value()));
  }
}

GGUF_AVX2_TARGET void dequant_q5_0_avx2(const uint8_t* src, float* y, size_t nb) {
  const auto* x = blocks_at<block_q5_0>(src);
  const __m256i sixteen = _mm256_set1_epi8(16);
  for (size_t i = 0; i < nb; ++i, y += 32) {
    const __m256i high = _mm256_and_si256(bits_to_bytes(le32(x[i].qh)), sixteen);
    const __m256i q = _mm256_sub_epi8(_mm256_or_si256(unpack_nibbles(x[i].qs), high), sixteen);
    store_i8x32_times(y, q, _mm256_set1_ps(x[i].d.value()));
  }
}

GGUF_AVX2_TARGET void dequant_q8_0_avx2(const uint8_t* src, float* y, size_t nb) {
  const auto* x = blocks_at<block_q8_0>(src);
  for (size_t i = 0; i < nb; ++i, y += 32) {
    const __m256i q = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x[i].qs));
    store_i8x32_times(y, q, _mm256_set1_ps(x[i].d.value()));
  }
}

namespace {
// A 16-entry int8 code book in both 128-bit lanes (looked up by nibble with shuffle_epi8).
GGUF_AVX2_TARGET inline __m256i book_x2(const int8_t* kvalues) {
  const __m128i book = _mm_loadu_si128(reinterpret_cast<const __m128i*>(kvalues));
  return _mm256_set_m128i(book, book);
}

// iq4_nl / mxfp4: per block, 32 nibble codes of qs looked up in the code book, times the
// block's scale scale_of(block).
template <class Block, class Scale>
GGUF_AVX2_TARGET inline void dequant_book_blocks(const uint8_t* src, float* y, size_t nb, const int8_t* kvalues,
                                                 Scale scale_of) {
  const auto* x = blocks_at<Block>(src);
  const __m256i book = book_x2(kvalues);
  for (size_t i = 0; i < nb; ++i, y += 32) {
    store_i8x32_times(y, _mm256_shuffle_epi8(book, unpack_nibbles(x[i].qs)), _mm256_set1_ps(scale_of(x[i])));
  }
}
}  // namespace

GGUF_AVX2_TARGET void dequant_iq4_nl_avx2(const uint8_t* src, float* y, size_t nb) {
  dequant_book_blocks<block_iq4_nl>(src, y, nb, quant_tables::kvalues_iq4nl, [](const block_iq4_nl& b) { return b.d.value(); });
}

#define GGUF_K_WALK_TARGET GGUF_AVX2_TARGET
#define GGUF_K_WALK_NAME(f) f##_avx2
#include "quant/kernels_k_walk.inc"
#undef GGUF_K_WALK_NAME
#undef GGUF_K_WALK_TARGET

namespace {
struct k_out {  // the q4_K / q5_K walks' 32 floats at a time, in turn from y
  float* y;
  GGUF_AVX2_TARGET void put32(__m256i q, float d, float m) {
    store_scaled_minus(y, q, d, m);
    y += 32;
  }
};
}  // namespace

GGUF_AVX2_TARGET void dequant_q4_K_avx2(const uint8_t* src, float* y, size_t nb) {
  k_out out{y};
  walk_q4_K_avx2(src, out, nb);
}

GGUF_AVX2_TARGET void dequant_q5_K_avx2(const uint8_t* src, float* y, size_t nb) {
  k_out out{y};
  walk_q5_K_avx2(src, out, nb);
}

namespace {
// q6_K's AVX2 writer (kernels_walk.inc): 32 codes at a time, (d * sc) * code per 16.
struct q6_avx2_out {
  GGUF_AVX2_TARGET static void q6_128(float* y, float d, const uint8_t* ql, const uint8_t* qh, const int8_t* sc) {
    const __m256i m4 = _mm256_set1_epi8(0x0f);
    const __m256i m2 = _mm256_set1_epi8(0x03);
    const __m256i bias = _mm256_set1_epi8(32);
    const __m256i l0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ql));
    const __m256i l1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ql + 32));
    const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(qh));
    const __m256i lows[4] = {_mm256_and_si256(l0, m4), _mm256_and_si256(l1, m4),
                             _mm256_and_si256(_mm256_srli_epi16(l0, 4), m4),
                             _mm256_and_si256(_mm256_srli_epi16(l1, 4), m4)};
    for (int g = 0; g < 4; ++g) {  // y[32g .. 32g+31], high bits at qh >> 2g
      const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(h, 2 * g), m2);
      const __m256i q = _mm256_sub_epi8(_mm256_or_si256(lows[g], _mm256_slli_epi16(hi, 4)), bias);
      const __m128i qlo = _mm256_castsi256_si128(q);
      const __m128i qhi = _mm256_extracti128_si256(q, 1);
      // Elements 0..15 of the group use scale sc[2g], 16..31 use sc[2g + 1]: (d * sc) * q.
      const __m256 s0 = _mm256_set1_ps(d * static_cast<float>(sc[2 * g]));
      const __m256 s1 = _mm256_set1_ps(d * static_cast<float>(sc[2 * g + 1]));
      float* yg = y + 32 * g;
      _mm256_storeu_ps(yg + 0, _mm256_mul_ps(s0, i8x8_to_ps(qlo)));
      _mm256_storeu_ps(yg + 8, _mm256_mul_ps(s0, i8x8_to_ps(_mm_srli_si128(qlo, 8))));
      _mm256_storeu_ps(yg + 16, _mm256_mul_ps(s1, i8x8_to_ps(qhi)));
      _mm256_storeu_ps(yg + 24, _mm256_mul_ps(s1, i8x8_to_ps(_mm_srli_si128(qhi, 8))));
    }
  }
};
}  // namespace

GGUF_AVX2_TARGET void dequant_q6_K_avx2(const uint8_t* src, float* y, size_t nb) { walk_q6_K(src, y, nb, q6_avx2_out{}); }

GGUF_AVX2_TARGET void dequant_q5_1_avx2(const uint8_t* src, float* y, size_t nb) {
  const auto* x = blocks_at<block_q5_1>(src);
  const __m256i sixteen = _mm256_set1_epi8(16);
  for (size_t i = 0; i < nb; ++i, y += 32) {
    const __m256i high = _mm256_and_si256(bits_to_bytes(le32(x[i].qh)), sixteen);
    const __m256i q = _mm256_or_si256(unpack_nibbles(x[i].qs), high);
    store_i8x32_times_plus(y, q, _mm256_set1_ps(x[i].d.value()), _mm256_set1_ps(x[i].m.value()));
  }
}

namespace {
// The AVX2 writer of 8 outputs of the grid types (kernels_walk.inc).
struct avx2_out {
  GGUF_AVX2_TARGET static void signed8(float* y, float db, uint64_t entry, uint8_t signs) {
    put8_signed(y, _mm256_set1_ps(db), _mm_cvtsi64_si128(static_cast<long long>(entry)), signs);
  }
  GGUF_AVX2_TARGET static void signed4x2(float* y, float db, uint32_t e1, uint32_t e2, uint8_t signs) {
    put8_signed(y, _mm256_set1_ps(db), _mm_setr_epi32(static_cast<int>(e1), static_cast<int>(e2), 0, 0), signs);
  }
  GGUF_AVX2_TARGET static void shifted8(float* y, float dl, uint64_t entry, float shift) {
    put8_shifted(y, _mm256_set1_ps(dl), entry, _mm256_set1_ps(shift));
  }
};
}  // namespace

GGUF_AVX2_TARGET void dequant_iq2_xxs_avx2(const uint8_t* src, float* y, size_t nb) { walk_iq2_xxs(src, y, nb, avx2_out{}); }
GGUF_AVX2_TARGET void dequant_iq2_xs_avx2(const uint8_t* src, float* y, size_t nb) { walk_iq2_xs(src, y, nb, avx2_out{}); }
GGUF_AVX2_TARGET void dequant_iq2_s_avx2(const uint8_t* src, float* y, size_t nb) { walk_iq2_s(src, y, nb, avx2_out{}); }
GGUF_AVX2_TARGET void dequant_iq3_xxs_avx2(const uint8_t* src, float* y, size_t nb) { walk_iq3_xxs(src, y, nb, avx2_out{}); }
GGUF_AVX2_TARGET void dequant_iq3_s_avx2(const uint8_t* src, float* y, size_t nb) { walk_iq3_s(src, y, nb, avx2_out{}); }
GGUF_AVX2_TARGET void dequant_iq1_s_avx2(const uint8_t* src, float* y, size_t nb) { walk_iq1_s(src, y, nb, avx2_out{}); }
GGUF_AVX2_TARGET void dequant_iq1_m_avx2(const uint8_t* src, float* y, size_t nb) { walk_iq1_m(src, y, nb, avx2_out{}); }

namespace {
// iq4_xs's AVX2 writer (kernels_walk.inc): 32 codes looked up in the lane-doubled book.
struct iq4_avx2_out {
  __m256i book;
  GGUF_AVX2_TARGET void iq4_32(float* y, float dl, const uint8_t* qs) const {
    store_i8x32_times(y, _mm256_shuffle_epi8(book, unpack_nibbles(qs)), _mm256_set1_ps(dl));
  }
};
}  // namespace

GGUF_AVX2_TARGET void dequant_iq4_xs_avx2(const uint8_t* src, float* y, size_t nb) {
  walk_iq4_xs(src, y, nb, iq4_avx2_out{book_x2(quant_tables::kvalues_iq4nl)});
}

GGUF_AVX2_TARGET void dequant_mxfp4_avx2(const uint8_t* src, float* y, size_t nb) {
  dequant_book_blocks<block_mxfp4>(src, y, nb, quant_tables::kvalues_fp4,
                                   [](const block_mxfp4& b) { return e8m0_to_fp32_half(b.e); });
}

GGUF_AVX2_TARGET void dequant_nvfp4_avx2(const uint8_t* src, float* y, size_t nb) {
  const auto* x = blocks_at<block_nvfp4>(src);
  const __m128i book = _mm_loadu_si128(reinterpret_cast<const __m128i*>(quant_tables::kvalues_fp4));
  const __m128i m4 = _mm_set1_epi8(0x0f);
  for (size_t i = 0; i < nb; ++i) {
    for (int s = 0; s < 4; s += 2, y += 32) {  // two 16-element sub-blocks per 16 bytes
      const __m128i q = _mm_loadu_si128(reinterpret_cast<const __m128i*>(x[i].qs + 8 * s));
      const __m128i lo = _mm_shuffle_epi8(book, _mm_and_si128(q, m4));
      const __m128i hi = _mm_shuffle_epi8(book, _mm_and_si128(_mm_srli_epi16(q, 4), m4));
      // Sub-block s: low nibbles of bytes 0..7 then their high nibbles; s+1: bytes 8..15.
      const __m256 d0 = _mm256_set1_ps(ue4m3_to_fp32_half(x[i].d[s]));
      const __m256 d1 = _mm256_set1_ps(ue4m3_to_fp32_half(x[i].d[s + 1]));
      _mm256_storeu_ps(y + 0, _mm256_mul_ps(i8x8_to_ps(lo), d0));
      _mm256_storeu_ps(y + 8, _mm256_mul_ps(i8x8_to_ps(hi), d0));
      _mm256_storeu_ps(y + 16, _mm256_mul_ps(i8x8_to_ps(_mm_srli_si128(lo, 8)), d1));
      _mm256_storeu_ps(y + 24, _mm256_mul_ps(i8x8_to_ps(_mm_srli_si128(hi, 8)), d1));
    }
  }
}

GGUF_AVX2_TARGET void dequant_q1_0_avx2(const uint8_t* src, float* y, size_t nb) {
  const auto* x = blocks_at<block_q1_0>(src);
  for (size_t i = 0; i < nb; ++i) {
    const float d = x[i].d.value();
    const __m256 pos = _mm256_set1_ps(d), neg = _mm256_set1_ps(-d);
    for (int k = 0; k < 4; ++k, y += 32) {  // 32 sign bits per 4 bytes, LSB first
      const __m256i set = bits_to_bytes(le32(x[i].qs + 4 * k));
      const __m128i lo = _mm256_castsi256_si128(set), hi = _mm256_extracti128_si256(set, 1);
      const __m128i parts[4] = {lo, _mm_srli_si128(lo, 8), hi, _mm_srli_si128(hi, 8)};
      for (int g = 0; g < 4; ++g) {
        const __m256 m = _mm256_castsi256_ps(_mm256_cvtepi8_epi32(parts[g]));
        _mm256_storeu_ps(y + 8 * g, _mm256_blendv_ps(neg, pos, m));
      }
    }
  }
}

GGUF_AVX2_TARGET void dequant_q2_0_avx2(const uint8_t* src, float* y, size_t nb) {
  const auto* x = blocks_at<block_q2_0>(src);
  const __m256i shifts = _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14);
  const __m256i three = _mm256_set1_epi32(3), one = _mm256_set1_epi32(1);
  for (size_t i = 0; i < nb; ++i) {
    const __m256 d = _mm256_set1_ps(x[i].d.value());
    for (int k = 0; k < 8; ++k, y += 8) {  // 8 codes per 2 bytes, LSB first
      const __m256i bits = _mm256_set1_epi32(le16(x[i].qs + 2 * k));
      const __m256i q = _mm256_sub_epi32(_mm256_and_si256(_mm256_srlv_epi32(bits, shifts), three), one);
      _mm256_storeu_ps(y, _mm256_mul_ps(_mm256_cvtepi32_ps(q), d));
    }
  }
}

GGUF_AVX2_TARGET void dequant_tq2_0_avx2(const uint8_t* src, float* y, size_t nb) {
  const auto* x = blocks_at<block_tq2_0>(src);
  const __m256i three = _mm256_set1_epi8(3), one = _mm256_set1_epi8(1);
  for (size_t i = 0; i < nb; ++i) {
    const __m256 d = _mm256_set1_ps(x[i].d.value());
    for (int j = 0; j < QK_K / 4; j += 32) {
      const __m256i bytes = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x[i].qs + j));
      for (int l = 0; l < 4; ++l, y += 32) {
        const __m256i q = _mm256_sub_epi8(_mm256_and_si256(_mm256_srli_epi16(bytes, 2 * l), three), one);
        store_i8x32_times(y, q, d);
      }
    }
  }
}

}  // namespace gguf::detail

#endif  // GGUF_QUANT_X86
