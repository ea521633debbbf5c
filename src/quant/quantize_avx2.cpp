// AVX2 parts of the quantizers (quant/quantize_simd.h). The trial searches evaluate one
// trial scale per lane: every lane runs exactly the scalar code's operations for its
// trial, in the scalar order over the elements (each product and sum rounded on its own:
// no FMA among the targets, and the layer builds with -ffp-contract=off), so the sums are
// bit-identical; the caller then picks the winner in trial order as the scalar loop does.
// q8_0 rounds half away from zero as roundf does. test_quantize_simd.cpp checks every
// kernel against the scalar path.
#include "quant/quantize_simd.h"

#if GGUF_QUANT_X86

#include <immintrin.h>

#include <algorithm>
#include <cmath>

#include "quant/blocks.h"
#include "quant/tables.h"

#define GGUF_AVX2_TARGET __attribute__((target("avx2,f16c")))

namespace gguf::detail {
namespace {

// ggml's nearest_int on 8 lanes: the integer in the low mantissa bits of v + 1.5 * 2^23.
GGUF_AVX2_TARGET inline __m256i nearest_int8(__m256 v) {
  const __m256i bits = _mm256_castps_si256(_mm256_add_ps(v, _mm256_set1_ps(12582912.f)));
  return _mm256_sub_epi32(_mm256_and_si256(bits, _mm256_set1_epi32(0x007fffff)), _mm256_set1_epi32(0x00400000));
}

GGUF_AVX2_TARGET inline __m256 abs8(__m256 v) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), v); }

}  // namespace

GGUF_AVX2_TARGET void qkx_trials_avx2(const qkx_trials& in, qkx_trial_result* out) {
  const int n = in.n;
  const __m256i vmax = _mm256_set1_epi32(in.nmax), zero = _mm256_setzero_si256();
  const __m256 sum_w = _mm256_set1_ps(in.sum_w), sum_x = _mm256_set1_ps(in.sum_x);
  alignas(32) float lanes[4][8];
  alignas(32) int32_t lv[32][8];
  for (int t0 = 0; t0 < in.ntrials; t0 += 8) {
    const __m256 iscale = _mm256_loadu_ps(in.iscales + t0);  // the caller pads to a multiple of 8
    __m256 sum_l = _mm256_setzero_ps(), sum_l2 = sum_l, sum_xl = sum_l;
    for (int i = 0; i < n; ++i) {
      const __m256i l = _mm256_max_epi32(zero, _mm256_min_epi32(vmax, nearest_int8(_mm256_mul_ps(iscale, _mm256_set1_ps(in.x[i] - in.min)))));
      _mm256_store_si256(reinterpret_cast<__m256i*>(lv[i]), l);
      const __m256 lf = _mm256_cvtepi32_ps(l);
      const __m256 wl = _mm256_mul_ps(_mm256_set1_ps(in.w[i]), lf);
      sum_l = _mm256_add_ps(sum_l, wl);
      sum_l2 = _mm256_add_ps(sum_l2, _mm256_mul_ps(wl, lf));
      sum_xl = _mm256_add_ps(sum_xl, _mm256_mul_ps(wl, _mm256_set1_ps(in.x[i])));
    }
    const __m256 D = _mm256_sub_ps(_mm256_mul_ps(sum_w, sum_l2), _mm256_mul_ps(sum_l, sum_l));
    __m256 scale = _mm256_div_ps(_mm256_sub_ps(_mm256_mul_ps(sum_w, sum_xl), _mm256_mul_ps(sum_x, sum_l)), D);
    __m256 mn = _mm256_div_ps(_mm256_sub_ps(_mm256_mul_ps(sum_l2, sum_x), _mm256_mul_ps(sum_l, sum_xl)), D);
    const __m256 pos = _mm256_cmp_ps(mn, _mm256_setzero_ps(), _CMP_GT_OQ);
    scale = _mm256_blendv_ps(scale, _mm256_div_ps(sum_xl, sum_l2), pos);
    mn = _mm256_blendv_ps(mn, _mm256_setzero_ps(), pos);
    __m256 err = _mm256_setzero_ps();
    for (int i = 0; i < n; ++i) {
      const __m256 lf = _mm256_cvtepi32_ps(_mm256_load_si256(reinterpret_cast<const __m256i*>(lv[i])));
      __m256 diff = _mm256_sub_ps(_mm256_add_ps(_mm256_mul_ps(scale, lf), mn), _mm256_set1_ps(in.x[i]));
      diff = in.use_mad ? abs8(diff) : _mm256_mul_ps(diff, diff);
      err = _mm256_add_ps(err, _mm256_mul_ps(_mm256_set1_ps(in.w[i]), diff));
    }
    _mm256_store_ps(lanes[0], D);
    _mm256_store_ps(lanes[1], scale);
    _mm256_store_ps(lanes[2], mn);
    _mm256_store_ps(lanes[3], err);
    for (int k = 0; k < 8 && t0 + k < in.ntrials; ++k) {
      qkx_trial_result& r = out[t0 + k];
      r.D = lanes[0][k];
      r.scale = lanes[1][k];
      r.min = lanes[2][k];
      r.error = lanes[3][k];
      for (int i = 0; i < n; ++i) r.L[i] = static_cast<uint8_t>(lv[i][k]);
    }
  }
}

namespace {
// The two sums of trials t0 .. t0 + 7 (one per lane) into out1 / out2, for those < ntrials.
GGUF_AVX2_TARGET inline void store_trials(__m256 s1, __m256 s2, int t0, int ntrials, float* out1, float* out2) {
  alignas(32) float a[8], b[8];
  _mm256_store_ps(a, s1);
  _mm256_store_ps(b, s2);
  for (int k = 0; k < 8 && t0 + k < ntrials; ++k) {
    out1[t0 + k] = a[k];
    out2[t0 + k] = b[k];
  }
}
}  // namespace

GGUF_AVX2_TARGET void qx_trials_avx2(int n, int nmax, const float* x, const float* w, const float* iscales, int ntrials,
                                     float* sumlx_out, float* suml2_out) {
  const __m256i lo = _mm256_set1_epi32(-nmax), hi = _mm256_set1_epi32(nmax - 1);
  for (int t0 = 0; t0 < ntrials; t0 += 8) {
    const __m256 iscale = _mm256_loadu_ps(iscales + t0);  // the caller pads to a multiple of 8
    __m256 sumlx = _mm256_setzero_ps(), suml2 = sumlx;
    for (int i = 0; i < n; ++i) {
      const __m256i l = _mm256_max_epi32(lo, _mm256_min_epi32(hi, nearest_int8(_mm256_mul_ps(iscale, _mm256_set1_ps(x[i])))));
      const __m256 lf = _mm256_cvtepi32_ps(l);
      const __m256 wv = _mm256_set1_ps(w[i]);
      sumlx = _mm256_add_ps(sumlx, _mm256_mul_ps(_mm256_set1_ps(w[i] * x[i]), lf));  // (w * x) * l
      suml2 = _mm256_add_ps(suml2, _mm256_mul_ps(_mm256_mul_ps(wv, lf), lf));      // (w * l) * l
    }
    store_trials(sumlx, suml2, t0, ntrials, sumlx_out, suml2_out);
  }
}

namespace {

// ggml's best_index_int8 over the 16 strictly increasing iq4 values, on 8 lanes: the
// index below is the count of values <= x minus one (what the bisection finds), then the
// nearer of it and the next one (the lower only when strictly nearer).
struct iq4_book {
  __m256 lo, hi;  // values 0..7, 8..15 as floats
};

GGUF_AVX2_TARGET inline __m256 value_at(const iq4_book& b, __m256i idx) {
  const __m256 a = _mm256_permutevar8x32_ps(b.lo, idx), c = _mm256_permutevar8x32_ps(b.hi, idx);
  return _mm256_blendv_ps(a, c, _mm256_castsi256_ps(_mm256_cmpgt_epi32(idx, _mm256_set1_epi32(7))));
}

GGUF_AVX2_TARGET inline __m256i best_index8(const iq4_book& b, const float* vals, __m256 x) {
  __m256i count = _mm256_setzero_si256();
  for (int k = 0; k < 16; ++k) {  // adds -1 per value <= x
    count = _mm256_add_epi32(count, _mm256_castps_si256(_mm256_cmp_ps(_mm256_set1_ps(vals[k]), x, _CMP_LE_OQ)));
  }
  const __m256i ml = _mm256_sub_epi32(_mm256_sub_epi32(_mm256_setzero_si256(), count), _mm256_set1_epi32(1));
  // inner case: ml in 0..14, mu = ml + 1
  const __m256i mlc = _mm256_max_epi32(_mm256_setzero_si256(), _mm256_min_epi32(ml, _mm256_set1_epi32(14)));
  const __m256i mu = _mm256_add_epi32(mlc, _mm256_set1_epi32(1));
  const __m256 below = _mm256_sub_ps(x, value_at(b, mlc)), above = _mm256_sub_ps(value_at(b, mu), x);
  __m256i idx = _mm256_blendv_epi8(mu, mlc, _mm256_castps_si256(_mm256_cmp_ps(below, above, _CMP_LT_OQ)));
  // the ends: x <= values[0] -> 0, x >= values[15] -> 15
  idx = _mm256_blendv_epi8(idx, _mm256_setzero_si256(),
                           _mm256_castps_si256(_mm256_cmp_ps(x, _mm256_set1_ps(vals[0]), _CMP_LE_OQ)));
  idx = _mm256_blendv_epi8(idx, _mm256_set1_epi32(15),
                           _mm256_castps_si256(_mm256_cmp_ps(x, _mm256_set1_ps(vals[15]), _CMP_GE_OQ)));
  return idx;
}

}  // namespace

GGUF_AVX2_TARGET void iq4_trials_avx2(const float* xb, const float* weight, float max, int ntry, float* sumqx_out,
                                      float* sumq2_out) {
  const int8_t* kv = quant_tables::kvalues_iq4nl;
  alignas(32) float vals[16];
  for (int k = 0; k < 16; ++k) vals[k] = kv[k];
  const iq4_book b{_mm256_load_ps(vals), _mm256_load_ps(vals + 8)};
  const int ntrials = 2 * ntry + 1;
  for (int t0 = 0; t0 < ntrials; t0 += 8) {
    alignas(32) float id[8];
    for (int k = 0; k < 8; ++k) id[k] = static_cast<float>(-ntry + t0 + k + kv[0]) / max;  // (itry + values[0]) / max
    const __m256 vid = _mm256_load_ps(id);
    __m256 sumqx = _mm256_setzero_ps(), sumq2 = sumqx;
    for (int j = 0; j < 32; ++j) {
      const __m256 xj = _mm256_set1_ps(xb[j]);
      const __m256 q = value_at(b, best_index8(b, vals, _mm256_mul_ps(vid, xj)));
      const __m256 wq = _mm256_mul_ps(_mm256_set1_ps(weight[j]), q);
      sumqx = _mm256_add_ps(sumqx, _mm256_mul_ps(wq, xj));
      sumq2 = _mm256_add_ps(sumq2, _mm256_mul_ps(wq, q));
    }
    store_trials(sumqx, sumq2, t0, ntrials, sumqx_out, sumq2_out);
  }
}

GGUF_AVX2_TARGET void quantize_q8_0_avx2(const float* x, uint8_t* y, int64_t n) {
  for (int64_t i = 0; i < n / 32; ++i, x += 32, y += sizeof(block_q8_0)) {
    __m256 v[4];
    __m256 amax = _mm256_setzero_ps();
    for (int k = 0; k < 4; ++k) {
      v[k] = _mm256_loadu_ps(x + 8 * k);
      amax = _mm256_max_ps(amax, abs8(v[k]));
    }
    __m128 m4 = _mm_max_ps(_mm256_castps256_ps128(amax), _mm256_extractf128_ps(amax, 1));
    m4 = _mm_max_ps(m4, _mm_movehl_ps(m4, m4));
    m4 = _mm_max_ss(m4, _mm_shuffle_ps(m4, m4, 1));
    const float d = _mm_cvtss_f32(m4) / ((1 << 7) - 1);
    const float idf = d ? 1.0f / d : 0.0f;
    put_fp16(y, d);
    const __m256 id = _mm256_set1_ps(idf), half = _mm256_set1_ps(0.5f), sign = _mm256_set1_ps(-0.0f);
    __m256i q[4];
    for (int k = 0; k < 4; ++k) {
      // roundf: truncate, then one more away from zero when the dropped part is >= 0.5
      // (exact: |x * id| < 2^23, so x - trunc(x) has no rounding)
      const __m256 p = _mm256_mul_ps(v[k], id);
      const __m256 t = _mm256_round_ps(p, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
      const __m256 up = _mm256_cmp_ps(abs8(_mm256_sub_ps(p, t)), half, _CMP_GE_OQ);
      const __m256 one = _mm256_or_ps(_mm256_and_ps(p, sign), _mm256_set1_ps(1.0f));
      q[k] = _mm256_cvttps_epi32(_mm256_add_ps(t, _mm256_and_ps(up, one)));
    }
    const __m256i p01 = _mm256_packs_epi32(q[0], q[1]), p23 = _mm256_packs_epi32(q[2], q[3]);
    __m256i b = _mm256_packs_epi16(p01, p23);
    b = _mm256_permutevar8x32_epi32(b, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + 2), b);
  }
}

}  // namespace gguf::detail

#endif  // GGUF_QUANT_X86
