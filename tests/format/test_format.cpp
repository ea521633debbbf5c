// ggml type traits and size arithmetic.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include "gguf/format.h"

using gguf::ggml_type;

TEST(Types, EveryIdHasTraitsOrIsRetired) {
  const uint32_t retired[] = {4, 5, 31, 32, 33, 36, 37, 38};
  for (uint32_t id = 0; id < 60; ++id) {
    bool is_retired = std::find(std::begin(retired), std::end(retired), id) != std::end(retired);
    const auto* tr = gguf::ggml_type_traits(id);
    if (id >= gguf::ggml_type_count || is_retired) {
      EXPECT_EQ(tr, nullptr) << id;
      continue;
    }
    ASSERT_NE(tr, nullptr) << id;
    EXPECT_GT(tr->blck_size, 0u);
    EXPECT_GT(tr->type_size, 0u);
    EXPECT_EQ(tr->quantized, tr->blck_size > 1) << tr->name;
    auto back = gguf::ggml_type_from_name(tr->name);
    ASSERT_TRUE(back.has_value()) << tr->name;
    EXPECT_EQ(static_cast<uint32_t>(*back), id);
  }
}

TEST(Types, BlockLayoutsMatchGgml) {
  // Bits per weight of the block layouts in ggml-common.h.
  struct row { ggml_type t; uint32_t blck, size; };
  const row rows[] = {
      {ggml_type::q4_0, 32, 18},     {ggml_type::q8_0, 32, 34},    {ggml_type::q2_K, 256, 84},
      {ggml_type::q4_K, 256, 144},   {ggml_type::q6_K, 256, 210},  {ggml_type::iq2_xxs, 256, 66},
      {ggml_type::iq1_m, 256, 56},   {ggml_type::bf16, 1, 2},      {ggml_type::tq1_0, 256, 54},
      {ggml_type::mxfp4, 32, 17},    {ggml_type::nvfp4, 64, 36},   {ggml_type::q1_0, 128, 18},
      {ggml_type::q2_0, 64, 18},     {ggml_type::q8_K, 256, 292},  {ggml_type::iq4_xs, 256, 136},
  };
  for (const auto& r : rows) {
    const auto* tr = gguf::ggml_type_traits(r.t);
    ASSERT_NE(tr, nullptr);
    EXPECT_EQ(tr->blck_size, r.blck) << tr->name;
    EXPECT_EQ(tr->type_size, r.size) << tr->name;
  }
}

TEST(Types, NamesAreCaseInsensitiveOnInput) {
  EXPECT_EQ(gguf::ggml_type_from_name("Q4_K"), ggml_type::q4_K);
  EXPECT_EQ(gguf::ggml_type_from_name("q4_k"), ggml_type::q4_K);
  EXPECT_EQ(gguf::ggml_type_name(ggml_type::q4_K), "q4_K");
  EXPECT_FALSE(gguf::ggml_type_from_name("q4_2").has_value());
}

TEST(Types, NbytesChecksBlocksAndOverflow) {
  uint64_t ne[4] = {512, 24, 1, 1};
  EXPECT_EQ(*gguf::ggml_nbytes(ggml_type::q4_0, ne, 2), 512u / 32 * 18 * 24);
  EXPECT_EQ(*gguf::ggml_nbytes(ggml_type::f32, ne, 2), 512u * 24 * 4);
  uint64_t odd[1] = {100};
  EXPECT_EQ(gguf::ggml_nbytes(ggml_type::q4_K, odd, 1).error().code, gguf::errc::partial_block);
  uint64_t big[2] = {uint64_t{1} << 62, 8};
  EXPECT_EQ(gguf::ggml_nbytes(ggml_type::f32, big, 2).error().code, gguf::errc::size_overflow);
  EXPECT_EQ(gguf::ggml_row_size(static_cast<ggml_type>(4), 32).error().code, gguf::errc::invalid_ggml_type);
}

TEST(Types, ValueTypeNames) {
  const char* names[] = {"uint8", "int8", "uint16", "int16", "uint32", "int32", "float32",
                         "bool", "string", "array", "uint64", "int64", "float64"};
  for (uint32_t i = 0; i < gguf::value_type_count; ++i) {
    EXPECT_EQ(gguf::value_type_name(static_cast<gguf::value_type>(i)), names[i]);
    EXPECT_EQ(gguf::value_type_from_name(names[i]), static_cast<gguf::value_type>(i));
  }
  EXPECT_FALSE(gguf::is_valid_value_type(13));
}
