// Reference kernels of the 256-element super-block types: q2_K q3_K q4_K q5_K q6_K,
// the ternary tq1_0 tq2_0, and iq4_xs. Semantics of ggml's dequantize_row_*
// (ggml-quants.c): a sub-block scale is the super-block scale times a small integer
// (one float multiply), an element is that scale times its code, minus the sub-block min
// where there is one — each operation rounded on its own, in ggml's order.
#include <type_traits>

#include "quant/blocks.h"
#include "quant/kernels.h"
#include "quant/tables.h"

namespace gguf::detail {

// q2_K: 16 sub-blocks of 16; scale byte = 4-bit scale | 4-bit min << 4. Codes are
// 2-bit fields of qs: in each half (128 elements, 32 bytes), shift 2*k selects the
// k-th group of 32 elements.
void dequant_q2_K(const uint8_t* __restrict src, float* __restrict y, size_t nb) {
  const auto* __restrict x = blocks_at<block_q2_K>(src);
  for (size_t i = 0; i < nb; ++i) {
    const float d = x[i].d.value();
    const float min = x[i].dmin.value();
    const uint8_t* q = x[i].qs;
    int is = 0;
    for (int n = 0; n < QK_K; n += 128, q += 32) {
      for (int shift = 0; shift < 8; shift += 2) {
        for (int half = 0; half < 2; ++half) {
          const uint8_t sc = x[i].scales[is++];
          const float dl = d * static_cast<float>(sc & 0xf);
          const float ml = min * static_cast<float>(sc >> 4);
          for (int l = 0; l < 16; ++l) *y++ = dl * static_cast<float>((q[l + 16 * half] >> shift) & 3) - ml;
        }
      }
    }
  }
}

// q3_K: 16 signed 6-bit scales (bias 32) packed in 12 bytes: low nibbles in bytes 0..7,
// the top 2 bits in bytes 8..11. Code = 2 low bits from qs, minus 4 unless the hmask bit
// is set.
void dequant_q3_K(const uint8_t* src, float* y, size_t nb) {
  const auto* x = blocks_at<block_q3_K>(src);
  for (size_t i = 0; i < nb; ++i) {
    const float d_all = x[i].d.value();
    const uint8_t* sb = x[i].scales;
    int scales[16];
    for (int k = 0; k < 16; ++k) {
      const int low = k < 8 ? sb[k] & 0xf : sb[k - 8] >> 4;
      const int high = (sb[8 + k % 4] >> (2 * (k / 4))) & 3;
      scales[k] = (low | high << 4) - 32;
    }
    const uint8_t* q = x[i].qs;
    const uint8_t* hm = x[i].hmask;
    uint8_t m = 1;
    int is = 0;
    for (int n = 0; n < QK_K; n += 128, q += 32) {
      for (int shift = 0; shift < 8; shift += 2, m = static_cast<uint8_t>(m << 1)) {
        for (int half = 0; half < 2; ++half) {
          const float dl = d_all * static_cast<float>(scales[is++]);
          for (int l = 16 * half; l < 16 * half + 16; ++l) {
            const int code = ((q[l] >> shift) & 3) - ((hm[l] & m) ? 0 : 4);
            *y++ = dl * static_cast<float>(code);
          }
        }
      }
    }
  }
}

namespace {
// q4_K and q5_K: 8 sub-blocks of 32 with 6-bit scales and mins; per 64 elements, the low
// nibbles of 32 bytes then their high nibbles. q5_K adds a fifth bit per element from qh
// (bit 2k for the low nibbles of pair k, bit 2k+1 for the high nibbles).
template <class Block>
void dequant_nibbles_k(const uint8_t* src, float* y, size_t nb) {
  constexpr bool fifth_bit = std::is_same_v<Block, block_q5_K>;
  const auto* x = blocks_at<Block>(src);
  for (size_t i = 0; i < nb; ++i) {
    const float d = x[i].d.value();
    const float min = x[i].dmin.value();
    const uint8_t* q = x[i].qs;
    for (int is = 0; is < 8; is += 2, q += 32) {
      uint8_t sc = 0, m = 0;
      scale_min_k4(is, x[i].scales, sc, m);
      const float d1 = d * static_cast<float>(sc), m1 = min * static_cast<float>(m);
      scale_min_k4(is + 1, x[i].scales, sc, m);
      const float d2 = d * static_cast<float>(sc), m2 = min * static_cast<float>(m);
      auto high = [&](int l, int bit) {
        if constexpr (fifth_bit) return x[i].qh[l] & bit ? 16 : 0;
        return 0;
      };
      for (int l = 0; l < 32; ++l) *y++ = d1 * static_cast<float>((q[l] & 0xf) + high(l, 1 << is)) - m1;
      for (int l = 0; l < 32; ++l) *y++ = d2 * static_cast<float>((q[l] >> 4) + high(l, 2 << is)) - m2;
    }
  }
}
}  // namespace

void dequant_q4_K(const uint8_t* src, float* y, size_t nb) { dequant_nibbles_k<block_q4_K>(src, y, nb); }
void dequant_q5_K(const uint8_t* src, float* y, size_t nb) { dequant_nibbles_k<block_q5_K>(src, y, nb); }

namespace {
#define GGUF_WALK_TARGET
#include "quant/kernels_walk.inc"
#undef GGUF_WALK_TARGET

// q6_K's reference writer (kernels_walk.inc): element = (d * scale) * code, code = 4 bits
// of ql | 2 bits of qh << 4, minus 32.
struct q6_out {
  static void q6_128(float* y, float d, const uint8_t* ql, const uint8_t* qh, const int8_t* sc) noexcept {
    for (int l = 0; l < 32; ++l) {
      const int is = l / 16;
      const int q1 = ((ql[l] & 0xf) | ((qh[l] >> 0) & 3) << 4) - 32;
      const int q2 = ((ql[l + 32] & 0xf) | ((qh[l] >> 2) & 3) << 4) - 32;
      const int q3 = ((ql[l] >> 4) | ((qh[l] >> 4) & 3) << 4) - 32;
      const int q4 = ((ql[l + 32] >> 4) | ((qh[l] >> 6) & 3) << 4) - 32;
      y[l] = d * static_cast<float>(sc[is]) * static_cast<float>(q1);
      y[l + 32] = d * static_cast<float>(sc[is + 2]) * static_cast<float>(q2);
      y[l + 64] = d * static_cast<float>(sc[is + 4]) * static_cast<float>(q3);
      y[l + 96] = d * static_cast<float>(sc[is + 6]) * static_cast<float>(q4);
    }
  }
};
}  // namespace

void dequant_q6_K(const uint8_t* src, float* y, size_t nb) { walk_q6_K(src, y, nb, q6_out{}); }

// tq1_0: qs[48] with 5 trits per byte (first 32 bytes: 5 groups of 32; next 16 bytes:
// 5 groups of 16), then qh[4] with 4 trits per byte. A byte holds its trits as a
// base-3 fixed-point fraction: trit n is the top trit of byte * 3^n (mod 256), i.e.
// ((byte * 3^n mod 256) * 3) >> 8; element = (trit - 1) * d.
namespace {
template <int N>
inline void trits(const uint8_t* __restrict bytes, int n, float d, float* __restrict y) noexcept {
  static constexpr uint8_t pow3[5] = {1, 3, 9, 27, 81};
  for (int m = 0; m < N; ++m) {
    const uint8_t q = static_cast<uint8_t>(bytes[m] * pow3[n]);
    const int16_t xi = static_cast<int16_t>((static_cast<uint16_t>(q) * 3) >> 8);
    y[m] = static_cast<float>(xi - 1) * d;
  }
}
}  // namespace

void dequant_tq1_0(const uint8_t* __restrict src, float* __restrict y, size_t nb) {
  const auto* __restrict x = blocks_at<block_tq1_0>(src);
  for (size_t i = 0; i < nb; ++i) {
    const float d = x[i].d.value();
    for (int n = 0; n < 5; ++n, y += 32) trits<32>(x[i].qs, n, d, y);
    for (int n = 0; n < 5; ++n, y += 16) trits<16>(x[i].qs + 32, n, d, y);
    for (int n = 0; n < 4; ++n, y += 4) trits<4>(x[i].qh, n, d, y);
  }
}

// tq2_0: 2-bit codes 0..2 meaning -1, 0, +1; per 32 bytes, 4 groups of 32 by shift.
void dequant_tq2_0(const uint8_t* src, float* y, size_t nb) {
  const auto* x = blocks_at<block_tq2_0>(src);
  for (size_t i = 0; i < nb; ++i) {
    const float d = x[i].d.value();
    for (int j = 0; j < QK_K / 4; j += 32)
      for (int l = 0; l < 4; ++l)
        for (int m = 0; m < 32; ++m) *y++ = static_cast<float>(((x[i].qs[j + m] >> (2 * l)) & 3) - 1) * d;
  }
}

// iq4_xs's reference writer (kernels_walk.inc): codes index the iq4_nl code book.
namespace {
struct iq4_out {
  static void iq4_32(float* y, float dl, const uint8_t* qs) noexcept {
    using quant_tables::kvalues_iq4nl;
    for (int j = 0; j < 16; ++j) {
      y[j] = dl * static_cast<float>(kvalues_iq4nl[qs[j] & 0xf]);
      y[j + 16] = dl * static_cast<float>(kvalues_iq4nl[qs[j] >> 4]);
    }
  }
};
}  // namespace

void dequant_iq4_xs(const uint8_t* src, float* y, size_t nb) { walk_iq4_xs(src, y, nb, iq4_out{}); }

}  // namespace gguf::detail
