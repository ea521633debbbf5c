// Reference kernels of the grid ("i-quant") types: iq2_xxs iq2_xs iq2_s iq3_xxs iq3_s
// iq1_s iq1_m. Groups of 8 (or 4) elements are an index into a lattice grid of
// magnitudes plus sign bits; semantics of ggml's dequantize_row_* (ggml-quants.c),
// with the float operations in ggml's order (scale, then * magnitude, then * ±1). The
// block walks are shared with the AVX2 variants (kernels_walk.inc).
#include "quant/blocks.h"
#include "quant/kernels.h"
#include "quant/tables.h"

namespace gguf::detail {

using namespace quant_tables;

namespace {
#define GGUF_WALK_TARGET
#include "quant/kernels_walk.inc"
#undef GGUF_WALK_TARGET

// The reference writer of 8 outputs (kernels_walk.inc), element by element.
struct scalar_out {
  static void signed8(float* y, float db, uint64_t entry, uint8_t signs) noexcept {
    const auto g = grid_bytes<uint8_t>(entry);
    for (int j = 0; j < 8; ++j) {
      const float v = db * static_cast<float>(g[j]);
      y[j] = v * (signs & kmask_iq2xs[j] ? -1.f : 1.f);
    }
  }
  static void signed4x2(float* y, float db, uint32_t e1, uint32_t e2, uint8_t signs) noexcept {
    const auto g1 = grid_bytes<uint8_t>(e1);
    const auto g2 = grid_bytes<uint8_t>(e2);
    for (int j = 0; j < 4; ++j) {
      y[j] = db * static_cast<float>(g1[j]) * (signs & kmask_iq2xs[j] ? -1.f : 1.f);
      y[j + 4] = db * static_cast<float>(g2[j]) * (signs & kmask_iq2xs[j + 4] ? -1.f : 1.f);
    }
  }
  static void shifted8(float* y, float dl, uint64_t entry, float shift) noexcept {
    const auto g = grid_bytes<int8_t>(entry);
    for (int j = 0; j < 8; ++j) y[j] = dl * (static_cast<float>(g[j]) + shift);
  }
};
}  // namespace

void dequant_iq2_xxs(const uint8_t* src, float* y, size_t nb) { walk_iq2_xxs(src, y, nb, scalar_out{}); }
void dequant_iq2_xs(const uint8_t* src, float* y, size_t nb) { walk_iq2_xs(src, y, nb, scalar_out{}); }
void dequant_iq2_s(const uint8_t* src, float* y, size_t nb) { walk_iq2_s(src, y, nb, scalar_out{}); }
void dequant_iq3_xxs(const uint8_t* src, float* y, size_t nb) { walk_iq3_xxs(src, y, nb, scalar_out{}); }
void dequant_iq3_s(const uint8_t* src, float* y, size_t nb) { walk_iq3_s(src, y, nb, scalar_out{}); }
void dequant_iq1_s(const uint8_t* src, float* y, size_t nb) { walk_iq1_s(src, y, nb, scalar_out{}); }
void dequant_iq1_m(const uint8_t* src, float* y, size_t nb) { walk_iq1_m(src, y, nb, scalar_out{}); }

}  // namespace gguf::detail
