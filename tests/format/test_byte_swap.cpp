// The byte-swap layout table (gguf/byte_swap.h) against the block structs: every field
// of every block is listed here from src/quant/blocks.h (offsetof / sizeof) with the width
// ggml reads it at; the fields must tile the block exactly, and the table's multi-byte
// fields must be exactly the fields wider than a byte.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <map>
#include <vector>

#include "gguf/byte_swap.h"
#include "quant/blocks.h"

namespace {

using gguf::ggml_type;
namespace d = gguf::detail;

struct field {
  size_t offset, size;
  unsigned width;  // bytes per number as ggml reads the field (1: bytes)
};

#define F(B, M, W) field{offsetof(d::B, M), sizeof(d::B::M), W}

// Every field of every block, in order.
std::map<ggml_type, std::vector<field>> all_fields() {
  std::map<ggml_type, std::vector<field>> m;
  m[ggml_type::f32] = {{0, 4, 4}};
  m[ggml_type::f16] = {{0, 2, 2}};
  m[ggml_type::bf16] = {{0, 2, 2}};
  m[ggml_type::f64] = {{0, 8, 8}};
  m[ggml_type::i8] = {{0, 1, 1}};
  m[ggml_type::i16] = {{0, 2, 2}};
  m[ggml_type::i32] = {{0, 4, 4}};
  m[ggml_type::i64] = {{0, 8, 8}};
  m[ggml_type::q4_0] = {F(block_q4_0, d, 2), F(block_q4_0, qs, 1)};
  m[ggml_type::q4_1] = {F(block_q4_1, d, 2), F(block_q4_1, m, 2), F(block_q4_1, qs, 1)};
  m[ggml_type::q5_0] = {F(block_q5_0, d, 2), F(block_q5_0, qh, 4), F(block_q5_0, qs, 1)};  // qh: memcpy'd uint32
  m[ggml_type::q5_1] = {F(block_q5_1, d, 2), F(block_q5_1, m, 2), F(block_q5_1, qh, 4), F(block_q5_1, qs, 1)};
  m[ggml_type::q8_0] = {F(block_q8_0, d, 2), F(block_q8_0, qs, 1)};
  // ggml-common.h block_q8_1 / block_q8_K (no struct here: not dequantized).
  m[ggml_type::q8_1] = {{0, 2, 2}, {2, 2, 2}, {4, 32, 1}};
  m[ggml_type::q8_K] = {{0, 4, 4}, {4, 256, 1}, {260, 32, 2}};
  m[ggml_type::q2_K] = {F(block_q2_K, scales, 1), F(block_q2_K, qs, 1), F(block_q2_K, d, 2), F(block_q2_K, dmin, 2)};
  m[ggml_type::q3_K] = {F(block_q3_K, hmask, 1), F(block_q3_K, qs, 1), F(block_q3_K, scales, 1),
                        F(block_q3_K, d, 2)};
  m[ggml_type::q4_K] = {F(block_q4_K, d, 2), F(block_q4_K, dmin, 2), F(block_q4_K, scales, 1), F(block_q4_K, qs, 1)};
  m[ggml_type::q5_K] = {F(block_q5_K, d, 2), F(block_q5_K, dmin, 2), F(block_q5_K, scales, 1), F(block_q5_K, qh, 1),
                        F(block_q5_K, qs, 1)};
  m[ggml_type::q6_K] = {F(block_q6_K, ql, 1), F(block_q6_K, qh, 1), F(block_q6_K, scales, 1), F(block_q6_K, d, 2)};
  m[ggml_type::iq2_xxs] = {F(block_iq2_xxs, d, 2), F(block_iq2_xxs, qs, 4)};  // qs: memcpy'd uint32 pairs
  m[ggml_type::iq2_xs] = {F(block_iq2_xs, d, 2), F(block_iq2_xs, qs, 2), F(block_iq2_xs, scales, 1)};
  m[ggml_type::iq2_s] = {F(block_iq2_s, d, 2), F(block_iq2_s, qs, 1), F(block_iq2_s, qh, 1), F(block_iq2_s, scales, 1)};
  // iq3_xxs: qs holds QK_K/4 grid bytes, then QK_K/32 uint32 scales-and-signs words.
  m[ggml_type::iq3_xxs] = {F(block_iq3_xxs, d, 2), {2, d::QK_K / 4, 1}, {2 + d::QK_K / 4, d::QK_K / 8, 4}};
  m[ggml_type::iq3_s] = {F(block_iq3_s, d, 2), F(block_iq3_s, qs, 1), F(block_iq3_s, qh, 1), F(block_iq3_s, signs, 1),
                         F(block_iq3_s, scales, 1)};
  m[ggml_type::iq1_s] = {F(block_iq1_s, d, 2), F(block_iq1_s, qs, 1), F(block_iq1_s, qh, 2)};
  m[ggml_type::iq1_m] = {F(block_iq1_m, qs, 1), F(block_iq1_m, qh, 1), F(block_iq1_m, scales, 2)};  // uint16 words
  m[ggml_type::iq4_nl] = {F(block_iq4_nl, d, 2), F(block_iq4_nl, qs, 1)};
  m[ggml_type::iq4_xs] = {F(block_iq4_xs, d, 2), F(block_iq4_xs, scales_h, 2), F(block_iq4_xs, scales_l, 1),
                          F(block_iq4_xs, qs, 1)};
  m[ggml_type::tq1_0] = {F(block_tq1_0, qs, 1), F(block_tq1_0, qh, 1), F(block_tq1_0, d, 2)};
  m[ggml_type::tq2_0] = {F(block_tq2_0, qs, 1), F(block_tq2_0, d, 2)};
  m[ggml_type::mxfp4] = {F(block_mxfp4, e, 1), F(block_mxfp4, qs, 1)};
  m[ggml_type::nvfp4] = {F(block_nvfp4, d, 1), F(block_nvfp4, qs, 1)};
  m[ggml_type::q1_0] = {F(block_q1_0, d, 2), F(block_q1_0, qs, 1)};
  m[ggml_type::q2_0] = {F(block_q2_0, d, 2), F(block_q2_0, qs, 1)};
  return m;
}
#undef F

}  // namespace

TEST(SwapLayouts, EveryTypeHasARowAndEveryBlockFieldIsCovered) {
  const auto fields = all_fields();
  int types = 0;
  for (uint32_t id = 0; id < gguf::ggml_type_count; ++id) {
    const auto* tr = gguf::ggml_type_traits(id);
    const auto type = static_cast<ggml_type>(id);
    if (!tr) {
      EXPECT_EQ(gguf::ggml_swap_layout(type), nullptr) << id;
      continue;
    }
    ++types;
    const auto* layout = gguf::ggml_swap_layout(type);
    ASSERT_NE(layout, nullptr) << tr->name;
    EXPECT_EQ(layout->type, type) << tr->name;
    auto it = fields.find(type);
    ASSERT_NE(it, fields.end()) << tr->name << ": no field list in this test";
    // The fields tile the block.
    size_t pos = 0;
    std::vector<std::pair<size_t, unsigned>> wide;  // (offset, width) of every multi-byte number
    for (const auto& f : it->second) {
      EXPECT_EQ(f.offset, pos) << tr->name << ": gap or overlap at byte " << pos;
      ASSERT_EQ(f.size % f.width, 0u) << tr->name;
      if (f.width > 1) {
        for (size_t o = f.offset; o < f.offset + f.size; o += f.width) wide.emplace_back(o, f.width);
      }
      pos = f.offset + f.size;
    }
    EXPECT_EQ(pos, tr->type_size) << tr->name << ": fields do not fill the block";
    // The table's fields are exactly the wide numbers.
    std::vector<std::pair<size_t, unsigned>> table;
    for (const auto& f : layout->fields) {
      for (unsigned k = 0; k < f.count; ++k) table.emplace_back(f.offset + k * f.width, f.width);
    }
    if (tr->blck_size == 1 && !table.empty()) {
      EXPECT_EQ(table.size(), 1u) << tr->name;
    }
    EXPECT_EQ(table, wide) << tr->name;
  }
  EXPECT_EQ(types, 35);  // 43 ids, 8 retired
}

TEST(SwapLayouts, SwapIsItsOwnInverseAndTouchesOnlyWideFields) {
  for (uint32_t id = 0; id < gguf::ggml_type_count; ++id) {
    const auto* tr = gguf::ggml_type_traits(id);
    if (!tr) continue;
    const auto type = static_cast<ggml_type>(id);
    std::vector<std::byte> a(tr->type_size * 3);
    for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<std::byte>(i * 7 + 1);
    auto b = a;
    ASSERT_TRUE(gguf::swap_blocks(type, b)) << tr->name;
    std::vector<bool> wide(tr->type_size, false);
    for (const auto& f : gguf::ggml_swap_layout(type)->fields) {
      for (size_t k = 0; k < size_t{f.count} * f.width; ++k) wide[f.offset + k] = true;
    }
    for (size_t i = 0; i < a.size(); ++i) {
      if (!wide[i % tr->type_size]) EXPECT_EQ(a[i], b[i]) << tr->name << " byte " << i;
      else EXPECT_NE(a[i], b[i]) << tr->name << " byte " << i;
    }
    ASSERT_TRUE(gguf::swap_blocks(type, b));
    EXPECT_EQ(a, b) << tr->name;
  }
  std::vector<std::byte> odd(19);
  EXPECT_FALSE(gguf::swap_blocks(ggml_type::q4_0, odd));
  EXPECT_FALSE(gguf::swap_blocks(static_cast<ggml_type>(4), odd));
}
