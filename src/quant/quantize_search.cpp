// The scale searches ggml's k-quants and weighted legacy quantizers share
// (ggml-quants.c v0.5.0: make_qx_quants, make_q3_quants, make_qkx2_quants,
// make_qkx3_quants, make_qp_quants). Same float operations in the same order: every
// sum is accumulated left to right, every product grouped as written there.
#include <algorithm>

#include "quant/quantize.h"
#include "quant/quantize_simd.h"

namespace gguf::detail {

float make_qx_quants(int n, int nmax, const float* x, int8_t* L, int rmse_type, const float* qw) {
  float max = 0;
  const float amax = abs_max_signed(x, n, max);
  if (amax < group_max_eps) {
    std::fill(L, L + n, int8_t{0});
    return 0.f;
  }
  float iscale = -nmax / max;
  if (rmse_type == 0) {
    for (int i = 0; i < n; ++i) {
      const int l = nearest_int(iscale * x[i]);
      L[i] = static_cast<int8_t>(nmax + std::max(-nmax, std::min(nmax - 1, l)));
    }
    return 1 / iscale;
  }
  bool return_early = false;
  if (rmse_type < 0) {
    rmse_type = -rmse_type;
    return_early = true;
  }
  auto weight = [&](int i) -> float {
    if (qw) return qw[i];
    switch (rmse_type) {
      case 1: return x[i] * x[i];
      case 2: return 1;
      case 3: return std::fabs(x[i]);
      default: return std::sqrt(std::fabs(x[i]));
    }
  };
  float sumlx = 0, suml2 = 0;
  for (int i = 0; i < n; ++i) {
    int l = nearest_int(iscale * x[i]);
    l = std::max(-nmax, std::min(nmax - 1, l));
    L[i] = static_cast<int8_t>(l + nmax);
    const float w = weight(i);
    sumlx += w * x[i] * l;
    suml2 += w * l * l;
  }
  float scale = suml2 ? sumlx / suml2 : 0.0f;
  if (return_early) return suml2 > 0 ? 0.5f * (scale + 1 / iscale) : 1 / iscale;
  float best = scale * sumlx;
#if GGUF_QUANT_X86
  if (n <= 32 && use_simd_quantizers()) {
    // The 18 trials are independent (only `best` carries over, in the comparison): their
    // sums on 8 lanes at once, then the scalar loop's choice in trial order.
    float iscales[24] = {}, w[32], tx[24], t2[24];
    int trial_is[24], nt = 0;
    for (int is = -9; is <= 9; ++is) {
      if (is == 0) continue;
      trial_is[nt] = is;
      iscales[nt++] = -(nmax + 0.1f * is) / max;
    }
    for (int i = 0; i < n; ++i) w[i] = weight(i);
    qx_trials_avx2(n, nmax, x, w, iscales, nt, tx, t2);
    int chosen = -1;
    for (int k = 0; k < nt; ++k) {
      if (t2[k] > 0 && tx[k] * tx[k] > best * t2[k]) {
        scale = tx[k] / t2[k];
        best = scale * tx[k];
        chosen = k;
      }
    }
    if (chosen >= 0) {
      iscale = -(nmax + 0.1f * trial_is[chosen]) / max;
      for (int i = 0; i < n; ++i) {
        const int l = nearest_int(iscale * x[i]);
        L[i] = static_cast<int8_t>(nmax + std::max(-nmax, std::min(nmax - 1, l)));
      }
    }
    return scale;
  }
#endif
  for (int is = -9; is <= 9; ++is) {
    if (is == 0) continue;
    iscale = -(nmax + 0.1f * is) / max;
    sumlx = suml2 = 0;
    for (int i = 0; i < n; ++i) {
      int l = nearest_int(iscale * x[i]);
      l = std::max(-nmax, std::min(nmax - 1, l));
      const float w = weight(i);
      sumlx += w * x[i] * l;
      suml2 += w * l * l;
    }
    if (suml2 > 0 && sumlx * sumlx > best * suml2) {
      for (int i = 0; i < n; ++i) {
        const int l = nearest_int(iscale * x[i]);
        L[i] = static_cast<int8_t>(nmax + std::max(-nmax, std::min(nmax - 1, l)));
      }
      scale = sumlx / suml2;
      best = scale * sumlx;
    }
  }
  return scale;
}

float make_q3_quants(int n, int nmax, const float* x, int8_t* L, bool do_rmse) {
  float max = 0;
  const float amax = abs_max_signed(x, n, max);
  if (amax < group_max_eps) {
    std::fill(L, L + n, int8_t{0});
    return 0.f;
  }
  const float iscale = -nmax / max;
  if (do_rmse) {
    float sumlx = 0, suml2 = 0;
    for (int i = 0; i < n; ++i) {
      int l = nearest_int(iscale * x[i]);
      l = std::max(-nmax, std::min(nmax - 1, l));
      L[i] = static_cast<int8_t>(l);
      const float w = x[i] * x[i];
      sumlx += w * x[i] * l;
      suml2 += w * l * l;
    }
    for (int itry = 0; itry < 5; ++itry) {
      int n_changed = 0;
      for (int i = 0; i < n; ++i) {
        const float w = x[i] * x[i];
        float slx = sumlx - w * x[i] * L[i];
        if (slx > 0) {
          float sl2 = suml2 - w * L[i] * L[i];
          int new_l = nearest_int(x[i] * sl2 / slx);
          new_l = std::max(-nmax, std::min(nmax - 1, new_l));
          if (new_l != L[i]) {
            slx += w * x[i] * new_l;
            sl2 += w * new_l * new_l;
            if (sl2 > 0 && slx * slx * suml2 > sumlx * sumlx * sl2) {
              L[i] = static_cast<int8_t>(new_l);
              sumlx = slx;
              suml2 = sl2;
              ++n_changed;
            }
          }
        }
      }
      if (!n_changed) break;
    }
    for (int i = 0; i < n; ++i) L[i] = static_cast<int8_t>(L[i] + nmax);
    return suml2 > 0.0f ? sumlx / suml2 : 0.0f;
  }
  for (int i = 0; i < n; ++i) {
    int l = nearest_int(iscale * x[i]);
    l = std::max(-nmax, std::min(nmax - 1, l));
    L[i] = static_cast<int8_t>(l + nmax);
  }
  return 1 / iscale;
}

namespace {

// The common body of make_qkx2_quants and make_qkx3_quants: they differ only in the
// weights (qkx3: x^2 when none) and in how a flat row is detected.
template <bool qkx3>
float make_qkx_quants(int n, int nmax, const float* x, const float* weights, uint8_t* L, float* the_min,
                      uint8_t* Laux, float rmin, float rdelta, int nstep, bool use_mad) {
  auto weight = [&](int i) -> float { return qkx3 && !weights ? x[i] * x[i] : weights[i]; };
  float min = x[0], max = x[0];
  float sum_w = weight(0);
  float sum_x = sum_w * x[0];
  for (int i = 1; i < n; ++i) {
    if (x[i] < min) min = x[i];
    if (x[i] > max) max = x[i];
    const float w = weight(i);
    sum_w += w;
    sum_x += w * x[i];
  }
  if (min > 0) min = 0;
  if (qkx3 ? max <= min : max == min) {
    std::fill(L, L + n, uint8_t{0});
    *the_min = -min;
    return 0.f;
  }
  float iscale = nmax / (max - min);
  float scale = 1 / iscale;
  float best_error = 0;
  for (int i = 0; i < n; ++i) {
    const int l = nearest_int(iscale * (x[i] - min));
    L[i] = static_cast<uint8_t>(std::max(0, std::min(nmax, l)));
    float diff = scale * L[i] + min - x[i];
    diff = use_mad ? std::fabs(diff) : diff * diff;
    best_error += weight(i) * diff;
  }
  if (nstep < 1) {
    *the_min = -min;
    return scale;
  }
#if GGUF_QUANT_X86
  if (n <= 32 && nstep + 1 <= 40 && use_simd_quantizers()) {
    // Trials on 8 lanes at once. A trial that wins changes `min`, which the later trials
    // use (in x - min and max - min): they are evaluated again from there with the new min,
    // so every trial sees what it sees in the scalar loop.
    float iscales[48] = {}, w[32];
    qkx_trial_result res[48];
    for (int i = 0; i < n; ++i) w[i] = weight(i);
    for (int from = 0; from <= nstep;) {
      const int ntrials = std::min(8, nstep + 1 - from);  // one vector: a win restarts from the next
      for (int k = 0; k < ntrials; ++k) iscales[k] = (rmin + rdelta * (from + k) + nmax) / (max - min);
      qkx_trials_avx2({n, nmax, x, w, min, sum_w, sum_x, iscales, ntrials, use_mad}, res);
      int chosen = -1;
      for (int k = 0; k < ntrials; ++k) {
        if (res[k].D > 0 && res[k].error < best_error) {
          chosen = k;
          break;
        }
      }
      if (chosen < 0) {
        from += ntrials;
        continue;
      }
      std::copy(res[chosen].L, res[chosen].L + n, L);
      best_error = res[chosen].error;
      scale = res[chosen].scale;
      min = res[chosen].min;
      from += chosen + 1;
    }
    *the_min = -min;
    return scale;
  }
#endif
  for (int is = 0; is <= nstep; ++is) {
    iscale = (rmin + rdelta * is + nmax) / (max - min);
    float sum_l = 0, sum_l2 = 0, sum_xl = 0;
    for (int i = 0; i < n; ++i) {
      int l = nearest_int(iscale * (x[i] - min));
      l = std::max(0, std::min(nmax, l));
      Laux[i] = static_cast<uint8_t>(l);
      const float w = weight(i);
      sum_l += w * l;
      sum_l2 += w * l * l;
      sum_xl += w * l * x[i];
    }
    const float D = sum_w * sum_l2 - sum_l * sum_l;
    if (D > 0) {
      float this_scale = (sum_w * sum_xl - sum_x * sum_l) / D;
      float this_min = (sum_l2 * sum_x - sum_l * sum_xl) / D;
      if (this_min > 0) {
        this_min = 0;
        this_scale = sum_xl / sum_l2;
      }
      float cur_error = 0;
      for (int i = 0; i < n; ++i) {
        float diff = this_scale * Laux[i] + this_min - x[i];
        diff = use_mad ? std::fabs(diff) : diff * diff;
        cur_error += weight(i) * diff;
      }
      if (cur_error < best_error) {
        std::copy(Laux, Laux + n, L);
        best_error = cur_error;
        scale = this_scale;
        min = this_min;
      }
    }
  }
  *the_min = -min;
  return scale;
}

}  // namespace

float make_qkx2_quants(int n, int nmax, const float* x, const float* weights, uint8_t* L, float* the_min,
                       uint8_t* Laux, float rmin, float rdelta, int nstep, bool use_mad) {
  return make_qkx_quants<false>(n, nmax, x, weights, L, the_min, Laux, rmin, rdelta, nstep, use_mad);
}

float make_qkx3_quants(int n, int nmax, const float* x, const float* weights, uint8_t* L, float* the_min,
                       uint8_t* Laux, float rmin, float rdelta, int nstep, bool use_mad) {
  return make_qkx_quants<true>(n, nmax, x, weights, L, the_min, Laux, rmin, rdelta, nstep, use_mad);
}

float make_qp_quants(int n, int nmax, const float* x, uint8_t* L, const float* quant_weights) {
  float max = 0;
  for (int i = 0; i < n; ++i) max = std::max(max, x[i]);
  if (max < group_max_eps) {
    std::fill(L, L + n, uint8_t{0});
    return 0.f;
  }
  float iscale = nmax / max;
  for (int i = 0; i < n; ++i) L[i] = static_cast<uint8_t>(nearest_int(iscale * x[i]));
  const float scale = 1 / iscale;
  float best_mse = 0;
  for (int i = 0; i < n; ++i) {
    const float diff = x[i] - scale * L[i];
    best_mse += quant_weights[i] * diff * diff;
  }
  for (int is = -4; is <= 4; ++is) {
    if (is == 0) continue;
    const float iscale_is = (0.1f * is + nmax) / max;
    const float scale_is = 1 / iscale_is;
    float mse = 0;
    for (int i = 0; i < n; ++i) {
      const int l = std::min(nmax, nearest_int(iscale_is * x[i]));
      const float diff = x[i] - scale_is * l;
      mse += quant_weights[i] * diff * diff;
    }
    if (mse < best_mse) {
      best_mse = mse;
      iscale = iscale_is;
    }
  }
  float sumlx = 0, suml2 = 0;
  for (int i = 0; i < n; ++i) {
    const int l = std::min(nmax, nearest_int(iscale * x[i]));
    L[i] = static_cast<uint8_t>(l);
    const float w = quant_weights[i];
    sumlx += w * x[i] * l;
    suml2 += w * l * l;
  }
  for (int itry = 0; itry < 5; ++itry) {
    int n_changed = 0;
    for (int i = 0; i < n; ++i) {
      const float w = quant_weights[i];
      float slx = sumlx - w * x[i] * L[i];
      float sl2 = suml2 - w * L[i] * L[i];
      if (slx > 0 && sl2 > 0) {
        const int new_l = std::min(nmax, nearest_int(x[i] * sl2 / slx));
        if (new_l != L[i]) {
          slx += w * x[i] * new_l;
          sl2 += w * new_l * new_l;
          if (slx * slx * suml2 > sumlx * sumlx * sl2) {
            L[i] = static_cast<uint8_t>(new_l);
            sumlx = slx;
            suml2 = sl2;
            ++n_changed;
          }
        }
      }
    }
    if (!n_changed) break;
  }
  return suml2 > 0.0f ? sumlx / suml2 : 0.0f;
}

}  // namespace gguf::detail
