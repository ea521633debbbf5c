// SIMD parts of the quantizers (quantize_avx2.cpp), used by the scalar code when the CPU
// has AVX2 (use_simd_quantizers()). Each gives bit-identical results to the scalar path.
#pragma once

#include <cstdint>

#include "quant/kernels.h"
#include "quant/quantize.h"

namespace gguf::detail {

/// True when the AVX2 parts run: the CPU has AVX2 + F16C and they are not switched off by
/// set_simd_quantizers(false) (the tests run both paths).
bool use_simd_quantizers() noexcept;
void set_simd_quantizers(bool on) noexcept;

/// The trial scales of make_qkx2/qkx3_quants (the `is` loop), n <= 32 values.
struct qkx_trials {
  int n, nmax;
  const float* x;
  const float* w;        ///< the weights (x^2 already filled in for qkx3 without weights)
  float min;             ///< the search's min (<= 0)
  float sum_w, sum_x;
  const float* iscales;  ///< ntrials inverse scales, readable up to a multiple of 8
  int ntrials;
  bool use_mad;
};
/// Per trial: D of the normal equations, the fitted scale and min (min clamped as ggml
/// does), the weighted error, and the levels.
struct qkx_trial_result {
  float D, scale, min, error;
  uint8_t L[32];
};

#if GGUF_QUANT_X86
void qkx_trials_avx2(const qkx_trials& in, qkx_trial_result* out);
/// make_qx_quants's trial inverse scales (n values, weights w): per trial the sums of
/// w * x * l and w * l * l with l = clamp(nearest_int(iscale * x), -nmax, nmax - 1).
void qx_trials_avx2(int n, int nmax, const float* x, const float* w, const float* iscales, int ntrials, float* sumlx,
                    float* suml2);
/// iq4's 2 * ntry + 1 trial inverse scales (itry + values[0]) / max over 32 values:
/// the sums of w * q * x and w * q * q per trial.
void iq4_trials_avx2(const float* xb, const float* weight, float max, int ntry, float* sumqx, float* sumq2);
void quantize_q8_0_avx2(const float* x, uint8_t* y, int64_t n);
#endif

}  // namespace gguf::detail
