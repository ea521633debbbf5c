// Reference kernels of the grid ("i-quant") types: iq2_xxs iq2_xs iq2_s iq3_xxs iq3_s
// iq1_s iq1_m. Groups of 8 (or 4) elements are an index into a lattice grid of
// magnitudes plus sign bits; semantics of ggml's dequantize_row_* (ggml-quants.c),
// with the float operations in ggml's order (scale, then * magnitude, then * ±1).
#include "quant/blocks.h"
#include "quant/kernels.h"
#include "quant/tables.h"

namespace gguf::detail {

using namespace quant_tables;

namespace {
// 8 elements of one grid entry with its sign byte: y[j] = (db * grid[j]) * ±1.
inline void put8(float* y, float db, uint64_t entry, uint8_t signs) noexcept {
  const auto g = grid_bytes<uint8_t>(entry);
  for (int j = 0; j < 8; ++j) {
    const float v = db * static_cast<float>(g[j]);
    y[j] = v * (signs & kmask_iq2xs[j] ? -1.f : 1.f);
  }
}
// Two 4-element entries (iq3 grids) sharing one sign byte.
inline void put4x2(float* y, float db, uint32_t e1, uint32_t e2, uint8_t signs) noexcept {
  const auto g1 = grid_bytes<uint8_t>(e1);
  const auto g2 = grid_bytes<uint8_t>(e2);
  for (int j = 0; j < 4; ++j) {
    y[j] = db * static_cast<float>(g1[j]) * (signs & kmask_iq2xs[j] ? -1.f : 1.f);
    y[j + 4] = db * static_cast<float>(g2[j]) * (signs & kmask_iq2xs[j + 4] ? -1.f : 1.f);
  }
}
}  // namespace

// iq2_xxs: per 32 elements, two uint32: 4 grid indices (bytes) and 4 x 7 sign bits + a
// 4-bit scale in the top bits.
void dequant_iq2_xxs(const uint8_t* src, float* y, size_t nb) {
  const auto* x = blocks_at<block_iq2_xxs>(src);
  for (size_t i = 0; i < nb; ++i) {
    const float d = x[i].d.value();
    for (int ib32 = 0; ib32 < QK_K / 32; ++ib32) {
      const uint8_t* idx = x[i].qs + 8 * ib32;
      const uint32_t aux = le32(idx + 4);
      const float db = d * (0.5f + static_cast<float>(aux >> 28)) * 0.25f;
      for (int l = 0; l < 4; ++l, y += 8) put8(y, db, iq2xxs_grid[idx[l]], ksigns_iq2xs[(aux >> (7 * l)) & 127]);
    }
  }
}

// iq2_xs: 16-bit entries, 9-bit grid index + 7 sign bits; two 4-bit scales per 32.
void dequant_iq2_xs(const uint8_t* src, float* y, size_t nb) {
  const auto* x = blocks_at<block_iq2_xs>(src);
  for (size_t i = 0; i < nb; ++i) {
    const float d = x[i].d.value();
    for (int ib32 = 0; ib32 < QK_K / 32; ++ib32) {
      const float db[2] = {d * (0.5f + static_cast<float>(x[i].scales[ib32] & 0xf)) * 0.25f,
                           d * (0.5f + static_cast<float>(x[i].scales[ib32] >> 4)) * 0.25f};
      for (int l = 0; l < 4; ++l, y += 8) {
        const uint16_t q = le16(x[i].qs + 2 * (4 * ib32 + l));
        put8(y, db[l / 2], iq2xs_grid[q & 511], ksigns_iq2xs[q >> 9]);
      }
    }
  }
}

// iq2_s: 10-bit grid index (8 bits in qs, 2 in qh), explicit sign bytes after the indices.
void dequant_iq2_s(const uint8_t* src, float* y, size_t nb) {
  const auto* x = blocks_at<block_iq2_s>(src);
  for (size_t i = 0; i < nb; ++i) {
    const float d = x[i].d.value();
    const uint8_t* qs = x[i].qs;
    const uint8_t* signs = qs + QK_K / 8;
    for (int ib32 = 0; ib32 < QK_K / 32; ++ib32, qs += 4, signs += 4) {
      const float db[2] = {d * (0.5f + static_cast<float>(x[i].scales[ib32] & 0xf)) * 0.25f,
                           d * (0.5f + static_cast<float>(x[i].scales[ib32] >> 4)) * 0.25f};
      for (int l = 0; l < 4; ++l, y += 8) {
        const int index = qs[l] | ((x[i].qh[ib32] << (8 - 2 * l)) & 0x300);
        put8(y, db[l / 2], iq2s_grid[index], signs[l]);
      }
    }
  }
}

// iq3_xxs: 8 byte indices into a 4-wide grid per 32 elements, then per 32 a uint32 of
// 4 x 7 sign bits and a 4-bit scale.
void dequant_iq3_xxs(const uint8_t* src, float* y, size_t nb) {
  const auto* x = blocks_at<block_iq3_xxs>(src);
  for (size_t i = 0; i < nb; ++i) {
    const float d = x[i].d.value();
    const uint8_t* qs = x[i].qs;
    const uint8_t* scales_and_signs = qs + QK_K / 4;
    for (int ib32 = 0; ib32 < QK_K / 32; ++ib32, qs += 8) {
      const uint32_t aux = le32(scales_and_signs + 4 * ib32);
      const float db = d * (0.5f + static_cast<float>(aux >> 28)) * 0.5f;
      for (int l = 0; l < 4; ++l, y += 8) {
        put4x2(y, db, iq3xxs_grid[qs[2 * l]], iq3xxs_grid[qs[2 * l + 1]], ksigns_iq2xs[(aux >> (7 * l)) & 127]);
      }
    }
  }
}

// iq3_s: 9-bit grid index (8 in qs, 1 in qh), explicit signs, odd 4-bit scales 1..31.
void dequant_iq3_s(const uint8_t* src, float* y, size_t nb) {
  const auto* x = blocks_at<block_iq3_s>(src);
  for (size_t i = 0; i < nb; ++i) {
    const float d = x[i].d.value();
    const uint8_t* qs = x[i].qs;
    const uint8_t* qh = x[i].qh;
    const uint8_t* signs = x[i].signs;
    for (int ib32 = 0; ib32 < QK_K / 32; ib32 += 2) {
      for (int part = 0; part < 2; ++part, qs += 8, signs += 4) {
        const int sc = part == 0 ? x[i].scales[ib32 / 2] & 0xf : x[i].scales[ib32 / 2] >> 4;
        const float db = d * static_cast<float>(1 + 2 * sc);
        const int h = qh[part];
        for (int l = 0; l < 4; ++l, y += 8) {
          const int i1 = qs[2 * l] | ((h << (8 - 2 * l)) & 256);
          const int i2 = qs[2 * l + 1] | ((h << (7 - 2 * l)) & 256);
          put4x2(y, db, iq3s_grid[i1], iq3s_grid[i2], signs[l]);
        }
      }
      qh += 2;
    }
  }
}

// iq1_s: 11-bit index into a grid of {-1,0,1}^8; per 32 elements a 16-bit qh with
// 4 x 3 high index bits, a 3-bit scale and the sign of the ±1/8 shift.
void dequant_iq1_s(const uint8_t* src, float* y, size_t nb) {
  constexpr float delta = 0.125f;  // IQ1S_DELTA
  const auto* x = blocks_at<block_iq1_s>(src);
  for (size_t i = 0; i < nb; ++i) {
    const float d = x[i].d.value();
    const uint8_t* qs = x[i].qs;
    for (int ib = 0; ib < QK_K / 32; ++ib, qs += 4) {
      const uint16_t qh = le16(x[i].qh + 2 * ib);
      const float dl = d * static_cast<float>(2 * ((qh >> 12) & 7) + 1);
      const float shift = qh & 0x8000 ? -delta : delta;
      for (int l = 0; l < 4; ++l, y += 8) {
        const auto g = grid_bytes<int8_t>(iq1s_grid[qs[l] | (((qh >> (3 * l)) & 7) << 8)]);
        for (int j = 0; j < 8; ++j) {
          y[j] = dl * (static_cast<float>(g[j]) + shift);
        }
      }
    }
  }
}

// iq1_m: iq1_s's grid with per-8 shift signs in qh and 3-bit scales per 16; the f16
// super-block scale is spread over the top nibbles of the four 16-bit scale words.
void dequant_iq1_m(const uint8_t* src, float* y, size_t nb) {
  constexpr float delta = 0.125f;  // IQ1M_DELTA
  const auto* x = blocks_at<block_iq1_m>(src);
  for (size_t i = 0; i < nb; ++i) {
    uint16_t sc[4];
    for (int k = 0; k < 4; ++k) sc[k] = le16(x[i].scales + 2 * k);
    const uint16_t scale_bits = static_cast<uint16_t>((sc[0] >> 12) | ((sc[1] >> 8) & 0x00f0) |
                                                      ((sc[2] >> 4) & 0x0f00) | (sc[3] & 0xf000));
    const float d = fp16_to_fp32(scale_bits);
    const uint8_t* qs = x[i].qs;
    const uint8_t* qh = x[i].qh;
    for (int ib = 0; ib < QK_K / 32; ++ib, qs += 4, qh += 2) {
      const float dl1 = d * static_cast<float>(2 * ((sc[ib / 2] >> (6 * (ib % 2) + 0)) & 7) + 1);
      const float dl2 = d * static_cast<float>(2 * ((sc[ib / 2] >> (6 * (ib % 2) + 3)) & 7) + 1);
      const int idx[4] = {qs[0] | ((qh[0] << 8) & 0x700), qs[1] | ((qh[0] << 4) & 0x700),
                          qs[2] | ((qh[1] << 8) & 0x700), qs[3] | ((qh[1] << 4) & 0x700)};
      const float shift[4] = {qh[0] & 0x08 ? -delta : delta, qh[0] & 0x80 ? -delta : delta,
                              qh[1] & 0x08 ? -delta : delta, qh[1] & 0x80 ? -delta : delta};
      for (int l = 0; l < 4; ++l, y += 8) {
        const float dl = l < 2 ? dl1 : dl2;
        const auto g = grid_bytes<int8_t>(iq1s_grid[idx[l]]);
        for (int j = 0; j < 8; ++j) {
          y[j] = dl * (static_cast<float>(g[j]) + shift[l]);
        }
      }
    }
  }
}

}  // namespace gguf::detail
