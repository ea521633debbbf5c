// AVX2 + F16C variants of the hottest kernels: f16 bf16 q4_0 q4_1 q5_0 q8_0 iq4_nl q4_K
// q5_K q6_K. Each is compiled for those ISAs through target attributes (the rest of the
// library stays baseline x86-64) and only called when the CPU reports both
// (dispatch.cpp). They perform exactly the float operations of the scalar kernels — an
// int-to-float conversion, then the same multiplies and adds in the same order, each
// rounded on its own (no FMA: "fma" is not among the targets and the layer builds with
// -ffp-contract=off) — so their results are bit-identical; test_simd.cpp checks it.
#include "quant/kernels.h"

#if GGUF_QUANT_X86

#include <immintrin.h>

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

}  // namespace

GGUF_AVX2_TARGET void dequant_f16_avx2(const uint8_t* src, float* dst, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 2 * i));
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(h));
  }
  for (; i < n; ++i) dst[i] = fp16_to_fp32(le16(src + 2 * i));
}

GGUF_AVX2_TARGET void dequant_bf16_avx2(const uint8_t* src, float* dst, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 2 * i));
    _mm256_storeu_ps(dst + i, _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16)));
  }
  for (; i < n; ++i) dst[i] = bf16_to_fp32(le16(src + 2 * i));
}

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
    const __m256 d = _mm256_set1_ps(x[i].d.value());
    const __m256 m = _mm256_set1_ps(x[i].m.value());
    const __m128i lo = _mm256_castsi256_si128(q);
    const __m128i hi = _mm256_extracti128_si256(q, 1);
    const __m128i parts[4] = {lo, _mm_srli_si128(lo, 8), hi, _mm_srli_si128(hi, 8)};
    for (int k = 0; k < 4; ++k) {
      _mm256_storeu_ps(y + 8 * k, _mm256_add_ps(_mm256_mul_ps(i8x8_to_ps(parts[k]), d), m));
    }
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

GGUF_AVX2_TARGET void dequant_iq4_nl_avx2(const uint8_t* src, float* y, size_t nb) {
  const auto* x = blocks_at<block_iq4_nl>(src);
  const __m128i book = _mm_loadu_si128(reinterpret_cast<const __m128i*>(quant_tables::kvalues_iq4nl));
  const __m256i book2 = _mm256_set_m128i(book, book);
  for (size_t i = 0; i < nb; ++i, y += 32) {
    const __m256i q = _mm256_shuffle_epi8(book2, unpack_nibbles(x[i].qs));
    store_i8x32_times(y, q, _mm256_set1_ps(x[i].d.value()));
  }
}

GGUF_AVX2_TARGET void dequant_q4_K_avx2(const uint8_t* src, float* y, size_t nb) {
  const auto* x = blocks_at<block_q4_K>(src);
  const __m256i m4 = _mm256_set1_epi8(0x0f);
  for (size_t i = 0; i < nb; ++i) {
    const float d = x[i].d.value();
    const float min = x[i].dmin.value();
    const uint8_t* q = x[i].qs;
    for (int is = 0; is < 8; is += 2, q += 32, y += 64) {
      uint8_t sc = 0, m = 0;
      scale_min_k4(is, x[i].scales, sc, m);
      const float d1 = d * static_cast<float>(sc), m1 = min * static_cast<float>(m);
      scale_min_k4(is + 1, x[i].scales, sc, m);
      const float d2 = d * static_cast<float>(sc), m2 = min * static_cast<float>(m);
      const __m256i bytes = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q));
      store_scaled_minus(y, _mm256_and_si256(bytes, m4), d1, m1);
      store_scaled_minus(y + 32, _mm256_and_si256(_mm256_srli_epi16(bytes, 4), m4), d2, m2);
    }
  }
}

GGUF_AVX2_TARGET void dequant_q5_K_avx2(const uint8_t* src, float* y, size_t nb) {
  const auto* x = blocks_at<block_q5_K>(src);
  const __m256i m4 = _mm256_set1_epi8(0x0f);
  const __m256i sixteen = _mm256_set1_epi8(16);
  for (size_t i = 0; i < nb; ++i) {
    const float d = x[i].d.value();
    const float min = x[i].dmin.value();
    const uint8_t* ql = x[i].qs;
    const __m256i qh = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x[i].qh));
    for (int is = 0; is < 8; is += 2, ql += 32, y += 64) {
      uint8_t sc = 0, m = 0;
      scale_min_k4(is, x[i].scales, sc, m);
      const float d1 = d * static_cast<float>(sc), m1 = min * static_cast<float>(m);
      scale_min_k4(is + 1, x[i].scales, sc, m);
      const float d2 = d * static_cast<float>(sc), m2 = min * static_cast<float>(m);
      const __m256i u1 = _mm256_set1_epi8(static_cast<char>(1 << is));
      const __m256i u2 = _mm256_set1_epi8(static_cast<char>(2 << is));
      const __m256i h1 = _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(qh, u1), u1), sixteen);
      const __m256i h2 = _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(qh, u2), u2), sixteen);
      const __m256i bytes = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ql));
      store_scaled_minus(y, _mm256_or_si256(_mm256_and_si256(bytes, m4), h1), d1, m1);
      store_scaled_minus(y + 32, _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(bytes, 4), m4), h2), d2, m2);
    }
  }
}

GGUF_AVX2_TARGET void dequant_q6_K_avx2(const uint8_t* src, float* y, size_t nb) {
  const auto* x = blocks_at<block_q6_K>(src);
  const __m256i m4 = _mm256_set1_epi8(0x0f);
  const __m256i m2 = _mm256_set1_epi8(0x03);
  const __m256i bias = _mm256_set1_epi8(32);
  for (size_t i = 0; i < nb; ++i) {
    const float d = x[i].d.value();
    const uint8_t* ql = x[i].ql;
    const uint8_t* qh = x[i].qh;
    const int8_t* sc = x[i].scales;
    for (int n = 0; n < QK_K; n += 128, y += 128, ql += 64, qh += 32, sc += 8) {
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
  }
}

}  // namespace gguf::detail

#endif  // GGUF_QUANT_X86
