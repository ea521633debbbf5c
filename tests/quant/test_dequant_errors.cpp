// Argument and type errors of dequantize_row, and the set of supported types.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <vector>

#include "gguf/quant.h"

namespace {

using gguf::errc;
using gguf::ggml_type;

TEST(DequantizeErrors, PartialBlock) {
  std::vector<std::byte> src(18);
  std::vector<float> dst(31);
  auto r = gguf::dequantize_row(ggml_type::q4_0, src, dst);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, errc::partial_block);
}

TEST(DequantizeErrors, SourceSizeMustMatch) {
  std::vector<float> dst(64);
  for (size_t n : {size_t{35}, size_t{37}, size_t{0}}) {
    std::vector<std::byte> src(n);
    auto r = gguf::dequantize_row(ggml_type::q4_0, src, dst);
    ASSERT_FALSE(r) << n;
    EXPECT_EQ(r.error().code, errc::invalid_argument);
  }
  std::vector<std::byte> src(36);
  EXPECT_TRUE(gguf::dequantize_row(ggml_type::q4_0, src, dst));
}

TEST(DequantizeErrors, UnknownAndRetiredIds) {
  std::vector<std::byte> src(18);
  std::vector<float> dst(32);
  for (uint32_t id : {4u, 5u, 31u, 36u, 43u, 1000u}) {
    auto r = gguf::dequantize_row(static_cast<ggml_type>(id), src, dst);
    ASSERT_FALSE(r) << id;
    EXPECT_EQ(r.error().code, errc::invalid_ggml_type) << id;
    EXPECT_FALSE(gguf::can_dequantize(static_cast<ggml_type>(id)));
  }
}

TEST(DequantizeErrors, DotProductTypesAreUnsupported) {
  for (auto t : {ggml_type::q8_1, ggml_type::q8_K}) {
    const auto* tr = gguf::ggml_type_traits(t);
    std::vector<std::byte> src(tr->type_size);
    std::vector<float> dst(tr->blck_size);
    auto r = gguf::dequantize_row(t, src, dst);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, errc::unsupported);
    EXPECT_FALSE(gguf::can_dequantize(t));
  }
}

TEST(DequantizeErrors, EmptyRowIsFine) {
  std::vector<float> dst;
  EXPECT_TRUE(gguf::dequantize_row(ggml_type::q6_K, {}, dst));
}

// Every storage type of the issue is supported, in either byte order (the layouts of
// gguf/byte_swap.h); q8_1 and q8_K in neither (ggml has no to_float for them).
TEST(DequantizeTypes, SupportedSets) {
  for (const char* name : {"f32", "f16", "bf16", "f64", "q4_0", "q4_1", "q5_0", "q5_1", "q8_0", "q2_K", "q3_K",
                           "q4_K", "q5_K", "q6_K", "iq2_xxs", "iq2_xs", "iq2_s", "iq3_xxs", "iq3_s", "iq1_s",
                           "iq1_m", "iq4_nl", "iq4_xs", "tq1_0", "tq2_0", "mxfp4", "nvfp4", "q1_0", "q2_0", "i8",
                           "i16", "i32", "i64"}) {
    auto t = gguf::ggml_type_from_name(name);
    ASSERT_TRUE(t) << name;
    EXPECT_TRUE(gguf::can_dequantize(*t)) << name;
    EXPECT_TRUE(gguf::can_dequantize_big_endian(*t)) << name;
  }
  for (const char* name : {"q8_1", "q8_K"}) {
    EXPECT_FALSE(gguf::can_dequantize_big_endian(*gguf::ggml_type_from_name(name))) << name;
  }
}

TEST(DequantizeErrors, BigEndianIntermediateTypeIsUnsupported) {
  std::vector<std::byte> src(36);
  std::vector<float> dst(32);
  auto r = gguf::dequantize_row(ggml_type::q8_1, src, dst, gguf::byte_order::big);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, errc::unsupported);
}

// Scalar formats from their specs: known bit patterns.
TEST(DequantizeFormats, HalfAndBfloatValues) {
  // f16: 1.0 = 0x3c00, -2.0 = 0xc000, smallest subnormal 2^-24 = 0x0001, 65504 = 0x7bff, inf = 0x7c00.
  const uint16_t halves[] = {0x3c00, 0xc000, 0x0001, 0x7bff, 0x7c00, 0x8000};
  const float want[] = {1.0f, -2.0f, 0x1p-24f, 65504.0f, INFINITY, -0.0f};
  std::vector<std::byte> src(sizeof halves);
  std::memcpy(src.data(), halves, sizeof halves);  // little-endian host
  std::vector<float> out(6);
  ASSERT_TRUE(gguf::dequantize_row(ggml_type::f16, src, out));
  for (int i = 0; i < 6; ++i) EXPECT_EQ(std::bit_cast<uint32_t>(out[i]), std::bit_cast<uint32_t>(want[i])) << i;
  // bf16: 1.0 = 0x3f80, -0.5 = 0xbf00.
  const uint16_t bf[] = {0x3f80, 0xbf00};
  src.resize(sizeof bf);
  std::memcpy(src.data(), bf, sizeof bf);
  out.resize(2);
  ASSERT_TRUE(gguf::dequantize_row(ggml_type::bf16, src, out));
  EXPECT_EQ(out[0], 1.0f);
  EXPECT_EQ(out[1], -0.5f);
}

TEST(DequantizeFormats, IntegersAndDoubles) {
  const int16_t v16[] = {-32768, 0, 7, 32767};
  std::vector<std::byte> src(sizeof v16);
  std::memcpy(src.data(), v16, sizeof v16);
  std::vector<float> out(4);
  ASSERT_TRUE(gguf::dequantize_row(ggml_type::i16, src, out));
  EXPECT_EQ(out, (std::vector<float>{-32768.f, 0.f, 7.f, 32767.f}));
  const double d[] = {0.1, -1e300};
  src.resize(sizeof d);
  std::memcpy(src.data(), d, sizeof d);
  out.resize(2);
  ASSERT_TRUE(gguf::dequantize_row(ggml_type::f64, src, out));
  EXPECT_EQ(out[0], 0.1f);
  EXPECT_EQ(out[1], -INFINITY);
}

}  // namespace
