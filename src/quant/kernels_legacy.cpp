// Reference kernels of the 32/64/128-element block types: q4_0 q4_1 q5_0 q5_1 q8_0
// q1_0 q2_0 iq4_nl mxfp4 nvfp4. Semantics of ggml's dequantize_row_* (ggml-quants.c):
// an integer code times the block scale (plus the min for the _1 types), each as one
// float multiply (and one add), low nibbles to the first half of the block.
#include "quant/blocks.h"
#include "quant/kernels.h"
#include "quant/tables.h"

namespace gguf::detail {

using quant_tables::kvalues_fp4;
using quant_tables::kvalues_iq4nl;

void dequant_q4_0(const uint8_t* src, float* y, size_t nb) {
  const auto* x = blocks_at<block_q4_0>(src);
  for (size_t i = 0; i < nb; ++i, y += 32) {
    const float d = x[i].d.value();
    for (int j = 0; j < 16; ++j) {
      y[j] = static_cast<float>((x[i].qs[j] & 0xf) - 8) * d;
      y[j + 16] = static_cast<float>((x[i].qs[j] >> 4) - 8) * d;
    }
  }
}

void dequant_q4_1(const uint8_t* src, float* y, size_t nb) {
  const auto* x = blocks_at<block_q4_1>(src);
  for (size_t i = 0; i < nb; ++i, y += 32) {
    const float d = x[i].d.value();
    const float m = x[i].m.value();
    for (int j = 0; j < 16; ++j) {
      y[j] = static_cast<float>(x[i].qs[j] & 0xf) * d + m;
      y[j + 16] = static_cast<float>(x[i].qs[j] >> 4) * d + m;
    }
  }
}

// q5: bit j of the 32-bit qh is the fifth bit of element j.
void dequant_q5_0(const uint8_t* src, float* y, size_t nb) {
  const auto* x = blocks_at<block_q5_0>(src);
  for (size_t i = 0; i < nb; ++i, y += 32) {
    const float d = x[i].d.value();
    const uint32_t qh = le32(x[i].qh);
    for (int j = 0; j < 16; ++j) {
      const int h0 = static_cast<int>((qh >> j) & 1) << 4;
      const int h1 = static_cast<int>((qh >> (j + 16)) & 1) << 4;
      y[j] = static_cast<float>(((x[i].qs[j] & 0xf) | h0) - 16) * d;
      y[j + 16] = static_cast<float>(((x[i].qs[j] >> 4) | h1) - 16) * d;
    }
  }
}

void dequant_q5_1(const uint8_t* src, float* y, size_t nb) {
  const auto* x = blocks_at<block_q5_1>(src);
  for (size_t i = 0; i < nb; ++i, y += 32) {
    const float d = x[i].d.value();
    const float m = x[i].m.value();
    const uint32_t qh = le32(x[i].qh);
    for (int j = 0; j < 16; ++j) {
      const int h0 = static_cast<int>((qh >> j) & 1) << 4;
      const int h1 = static_cast<int>((qh >> (j + 16)) & 1) << 4;
      y[j] = static_cast<float>((x[i].qs[j] & 0xf) | h0) * d + m;
      y[j + 16] = static_cast<float>((x[i].qs[j] >> 4) | h1) * d + m;
    }
  }
}

void dequant_q8_0(const uint8_t* src, float* y, size_t nb) {
  const auto* x = blocks_at<block_q8_0>(src);
  for (size_t i = 0; i < nb; ++i, y += 32) {
    const float d = x[i].d.value();
    for (int j = 0; j < 32; ++j) y[j] = static_cast<float>(x[i].qs[j]) * d;
  }
}

// q1_0: one sign bit per element (LSB first): +d or -d.
void dequant_q1_0(const uint8_t* src, float* y, size_t nb) {
  const auto* x = blocks_at<block_q1_0>(src);
  for (size_t i = 0; i < nb; ++i, y += 128) {
    const float d = x[i].d.value();
    const float neg_d = -d;
    for (int j = 0; j < 128; ++j) y[j] = (x[i].qs[j / 8] >> (j % 8)) & 1 ? d : neg_d;
  }
}

// q2_0: 2-bit codes (LSB first), 0..3 meaning -1, 0, +1, +2 times d.
void dequant_q2_0(const uint8_t* src, float* y, size_t nb) {
  const auto* x = blocks_at<block_q2_0>(src);
  for (size_t i = 0; i < nb; ++i, y += 64) {
    const float d = x[i].d.value();
    for (int j = 0; j < 64; ++j) {
      const int q = (x[i].qs[j / 4] >> (2 * (j % 4))) & 3;
      y[j] = static_cast<float>(q - 1) * d;
    }
  }
}

void dequant_iq4_nl(const uint8_t* src, float* y, size_t nb) {
  const auto* x = blocks_at<block_iq4_nl>(src);
  for (size_t i = 0; i < nb; ++i, y += 32) {
    const float d = x[i].d.value();
    for (int j = 0; j < 16; ++j) {
      y[j] = d * static_cast<float>(kvalues_iq4nl[x[i].qs[j] & 0xf]);
      y[j + 16] = d * static_cast<float>(kvalues_iq4nl[x[i].qs[j] >> 4]);
    }
  }
}

void dequant_mxfp4(const uint8_t* src, float* y, size_t nb) {
  const auto* x = blocks_at<block_mxfp4>(src);
  for (size_t i = 0; i < nb; ++i, y += 32) {
    const float d = e8m0_to_fp32_half(x[i].e);
    for (int j = 0; j < 16; ++j) {
      y[j] = static_cast<float>(kvalues_fp4[x[i].qs[j] & 0xf]) * d;
      y[j + 16] = static_cast<float>(kvalues_fp4[x[i].qs[j] >> 4]) * d;
    }
  }
}

// nvfp4: four sub-blocks of 16, each with its own UE4M3 scale and 8 bytes of nibbles.
void dequant_nvfp4(const uint8_t* src, float* y, size_t nb) {
  const auto* x = blocks_at<block_nvfp4>(src);
  for (size_t i = 0; i < nb; ++i) {
    for (int s = 0; s < 4; ++s, y += 16) {
      const float d = ue4m3_to_fp32_half(x[i].d[s]);
      const uint8_t* qs = x[i].qs + 8 * s;
      for (int j = 0; j < 8; ++j) {
        y[j] = static_cast<float>(kvalues_fp4[qs[j] & 0xf]) * d;
        y[j + 8] = static_cast<float>(kvalues_fp4[qs[j] >> 4]) * d;
      }
    }
  }
}

}  // namespace gguf::detail
