// AVX-512 variants (F, BW, VL) of the kernels where one core's throughput in cache
// decides: f16 bf16 q8_0 q4_K q5_K. 16 floats per store instead of 8. As the AVX2 ones
// (kernels_avx2.cpp), they perform exactly the float operations of the scalar kernels —
// an int-to-float conversion, then the same multiply and subtract, each rounded on its own
// (no FMA: the layer builds with -ffp-contract=off) — so their results are bit-identical;
// test_simd.cpp checks it. Called only when the CPU reports AVX-512 F/BW/VL (dispatch.cpp).
#include "quant/kernels.h"

#if GGUF_QUANT_X86

#include <immintrin.h>

#include <algorithm>
#include <cstdint>

#include "quant/blocks.h"
#include "quant/tables.h"

#define GGUF_AVX512_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx2,f16c")))

namespace gguf::detail {
namespace {

// 16 bytes -> 16 floats (signed or unsigned bytes).
GGUF_AVX512_TARGET inline __m512 i8x16_to_ps(__m128i q) { return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(q)); }
GGUF_AVX512_TARGET inline __m512 u8x16_to_ps(__m128i q) { return _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(q)); }

// q4_K / q5_K: 32 codes (bytes 0..31) -> d * q - m as two vectors of 16 floats.
GGUF_AVX512_TARGET inline void scaled_minus(__m256i q, float d, float m, __m512& lo, __m512& hi) {
  const __m512 dv = _mm512_set1_ps(d);
  const __m512 mv = _mm512_set1_ps(m);
  lo = _mm512_sub_ps(_mm512_mul_ps(dv, u8x16_to_ps(_mm256_castsi256_si128(q))), mv);
  hi = _mm512_sub_ps(_mm512_mul_ps(dv, u8x16_to_ps(_mm256_extracti128_si256(q, 1))), mv);
}

}  // namespace

namespace {
#define GGUF_WALK_TARGET GGUF_AVX512_TARGET
#include "quant/kernels_walk.inc"
#undef GGUF_WALK_TARGET

// 16 f16 / bf16 values to floats (walk_16bit's vector step).
GGUF_AVX512_TARGET inline void f16x16(const uint8_t* src, float* dst) {
  _mm512_storeu_ps(dst, _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src))));
}
GGUF_AVX512_TARGET inline void bf16x16(const uint8_t* src, float* dst) {
  const __m512i h = _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src)));
  _mm512_storeu_ps(dst, _mm512_castsi512_ps(_mm512_slli_epi32(h, 16)));
}
}  // namespace

GGUF_AVX512_TARGET void dequant_f16_avx512(const uint8_t* src, float* dst, size_t n) { walk_16bit<16, fp16_to_fp32, f16x16>(src, dst, n); }
GGUF_AVX512_TARGET void dequant_bf16_avx512(const uint8_t* src, float* dst, size_t n) { walk_16bit<16, bf16_to_fp32, bf16x16>(src, dst, n); }

// Stores a run of 16-float vectors to an output that is not 64-byte aligned with aligned
// stores only: each cache line of the output is made of the last k floats of the previous
// vector and the first 16 - k of the current one (k = the output's offset in floats into
// its line); the first and last lines are masked so nothing outside the output is written.
class line_writer {
 public:
  GGUF_AVX512_TARGET explicit line_writer(float* y)
      : k_(unsigned(reinterpret_cast<uintptr_t>(y) & 63) / 4), line_(y - k_) {
    alignas(64) int32_t idx[16];
    for (unsigned t = 0; t < 16; ++t) idx[t] = int32_t(t < k_ ? 16 - k_ + t : 16 + t - k_);
    idx_ = _mm512_load_si512(idx);
  }
  unsigned offset() const { return k_; }
  GGUF_AVX512_TARGET void put(__m512 v) {
    const __m512 line = _mm512_permutex2var_ps(prev_, idx_, v);
    if (first_) {
      _mm512_mask_store_ps(line_, __mmask16(0xFFFFu << k_), line);
      first_ = false;
    } else {
      _mm512_store_ps(line_, line);
    }
    line_ += 16;
    prev_ = v;
  }
  /// Writes the last k floats; call once after the last put.
  GGUF_AVX512_TARGET void finish() {
    if (!first_) _mm512_mask_store_ps(line_, __mmask16((1u << k_) - 1u), _mm512_permutex2var_ps(prev_, idx_, prev_));
  }

 private:
  unsigned k_;
  float* line_;
  __m512i idx_;
  __m512 prev_ = _mm512_setzero_ps();
  bool first_ = true;
};

// A q8_0 block: d * q as two vectors of 16 floats (d converted once).
GGUF_AVX512_TARGET inline void q8_0_block(const block_q8_0& b, __m512& lo, __m512& hi) {
  const __m512 d = _mm512_set1_ps(b.d.value());
  const __m256i q = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b.qs));
  lo = _mm512_mul_ps(i8x16_to_ps(_mm256_castsi256_si128(q)), d);
  hi = _mm512_mul_ps(i8x16_to_ps(_mm256_extracti128_si256(q, 1)), d);
}

GGUF_AVX512_TARGET void dequant_q8_0_avx512(const uint8_t* src, float* y, size_t nb) {
  const auto* x = blocks_at<block_q8_0>(src);
  __m512 lo, hi;
  if ((reinterpret_cast<uintptr_t>(y) & 63) == 0 || (reinterpret_cast<uintptr_t>(y) & 3) != 0) {
    for (size_t i = 0; i < nb; ++i, y += 32) {
      q8_0_block(x[i], lo, hi);
      _mm512_storeu_ps(y, lo);
      _mm512_storeu_ps(y + 16, hi);
    }
    return;
  }
  // Measured at 1 MiB of output 16 bytes into a line: 39.4-40.7 -> 45.2-48.9 GB/s.
  line_writer w(y);
  for (size_t i = 0; i < nb; ++i) {
    q8_0_block(x[i], lo, hi);
    w.put(lo);
    w.put(hi);
  }
  w.finish();
}

#define GGUF_K_WALK_TARGET GGUF_AVX512_TARGET
#define GGUF_K_WALK_NAME(f) f##_avx512
#include "quant/kernels_k_walk.inc"
#undef GGUF_K_WALK_NAME
#undef GGUF_K_WALK_TARGET

namespace {
// The q4_K / q5_K walks' 32 floats at a time, in turn from y: stored as they come
// (k_out), or rotated into aligned lines (k_line_out) when y is 4-byte but not 64-byte
// aligned, as for q8_0. Measured (64 MiB of output, medians of 15) with y 16 bytes into a
// line, as a std::vector's data usually is, against y 64-byte aligned: q4_K 8.8-11.5 vs
// 10.6-14.7 GB/s, q5_K 10.0-10.7 vs 12.2-13.3 GB/s before the rotation.
struct k_out {
  float* y;
  GGUF_AVX512_TARGET void put32(__m256i q, float d, float m) {
    __m512 lo, hi;
    scaled_minus(q, d, m, lo, hi);
    _mm512_storeu_ps(y, lo);
    _mm512_storeu_ps(y + 16, hi);
    y += 32;
  }
};
struct k_line_out {
  line_writer w;
  GGUF_AVX512_TARGET void put32(__m256i q, float d, float m) {
    __m512 lo, hi;
    scaled_minus(q, d, m, lo, hi);
    w.put(lo);
    w.put(hi);
  }
};
GGUF_AVX512_TARGET inline bool rotate_into_lines(const float* y) {
  const auto a = reinterpret_cast<uintptr_t>(y);
  return (a & 63) != 0 && (a & 3) == 0;
}
}  // namespace

// Runs walk(out) with the writer that suits y.
template <class Walk>
GGUF_AVX512_TARGET inline void walk_into(float* y, Walk&& walk) {
  if (!rotate_into_lines(y)) {
    k_out out{y};
    walk(out);
    return;
  }
  k_line_out out{line_writer(y)};
  walk(out);
  out.w.finish();
}

GGUF_AVX512_TARGET void dequant_q4_K_avx512(const uint8_t* src, float* y, size_t nb) {
  walk_into(y, [&](auto& out) GGUF_AVX512_TARGET { walk_q4_K_avx512(src, out, nb); });
}

GGUF_AVX512_TARGET void dequant_q5_K_avx512(const uint8_t* src, float* y, size_t nb) {
  walk_into(y, [&](auto& out) GGUF_AVX512_TARGET { walk_q5_K_avx512(src, out, nb); });
}

}  // namespace gguf::detail

#endif
