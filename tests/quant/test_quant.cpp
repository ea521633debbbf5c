// Dequantization against ggml itself: quant/quant-fixture.gguf holds, for 27 ggml types,
// q.<type> (a 512x24 matrix quantized by ggml) and deq.<type> (ggml's to_float of it).
// Every float we produce must have the same bits as ggml's.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "gguf/file.h"
#include "gguf/quant.h"
#include "test_support.h"

namespace {

using gguf::ggml_type;

// The 27 types of the fixture (data/README.md), by ggml name.
const std::vector<std::string> fixture_types = {
    "f16",    "q4_0",  "q4_1",   "q5_0",  "q5_1",  "q8_0",  "q2_K",   "q3_K",    "q4_K",
    "q5_K",   "q6_K",  "iq2_xxs", "iq2_xs", "iq3_xxs", "iq1_s", "iq4_nl", "iq3_s", "iq2_s",
    "iq4_xs", "iq1_m", "bf16",   "tq1_0", "tq2_0", "mxfp4", "nvfp4",  "q1_0",    "q2_0"};

gguf::file open_fixture() {
  auto f = gguf::file::open(gguf::test::data_file("quant/quant-fixture.gguf"));
  if (!f) throw std::runtime_error(f.error().message());
  return std::move(f).value();
}

// Distance in units in the last place between two finite floats of the same sign class.
int64_t ulp_distance(float a, float b) {
  auto key = [](float x) {
    const auto u = static_cast<int64_t>(std::bit_cast<uint32_t>(x));
    return u & 0x80000000 ? 0x80000000 - u : u;  // monotone integer order
  };
  return std::llabs(key(a) - key(b));
}

// Counts floats whose bits differ; reports the first few and the largest distance.
size_t count_bit_mismatches(std::span<const float> got, std::span<const float> want, const std::string& what) {
  size_t bad = 0;
  int64_t max_ulp = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::bit_cast<uint32_t>(got[i]) == std::bit_cast<uint32_t>(want[i])) continue;
    if (++bad <= 3) ADD_FAILURE() << what << "[" << i << "]: got " << got[i] << ", ggml " << want[i];
    max_ulp = std::max(max_ulp, ulp_distance(got[i], want[i]));
  }
  if (bad) ADD_FAILURE() << what << ": " << bad << " of " << got.size() << " floats differ, max " << max_ulp << " ulp";
  return bad;
}

std::span<const float> as_floats(const gguf::tensor_info& t) {
  return {reinterpret_cast<const float*>(t.data.data()), t.data.size() / sizeof(float)};
}

class Fixture : public ::testing::TestWithParam<std::string> {};

TEST_P(Fixture, WholeTensorMatchesGgmlBitForBit) {
  GGUF_REQUIRE_DATA();
  auto f = open_fixture();
  const auto* q = f.find_tensor("q." + GetParam());
  const auto* deq = f.find_tensor("deq." + GetParam());
  ASSERT_NE(q, nullptr);
  ASSERT_NE(deq, nullptr);
  ASSERT_EQ(ggml_type_name(q->type), GetParam());
  ASSERT_EQ(deq->type, ggml_type::f32);
  ASSERT_EQ(q->nelements(), deq->nelements());
  ASSERT_TRUE(gguf::can_dequantize(q->type));

  auto out = gguf::dequantize_tensor(f, *q);
  ASSERT_TRUE(out) << out.error().message();
  EXPECT_EQ(count_bit_mismatches(*out, as_floats(*deq), GetParam()), 0u);
}

// Rows one at a time, in an odd order, and an odd-sized run of rows through
// dequantize_row on sub-spans of the tensor's bytes.
TEST_P(Fixture, SingleRowsAndOddRunsMatch) {
  GGUF_REQUIRE_DATA();
  auto f = open_fixture();
  const auto* q = f.find_tensor("q." + GetParam());
  const auto* deq = f.find_tensor("deq." + GetParam());
  ASSERT_TRUE(q && deq);
  const size_t ne0 = q->ne[0], ne1 = q->ne[1];
  const size_t row_bytes = q->nbytes / ne1;
  auto want = as_floats(*deq);

  for (size_t r : {size_t{23}, size_t{0}, size_t{7}, size_t{12}}) {
    std::vector<float> row(ne0);
    auto res = gguf::dequantize_row(q->type, q->data.subspan(r * row_bytes, row_bytes), row);
    ASSERT_TRUE(res) << res.error().message();
    EXPECT_EQ(count_bit_mismatches(row, want.subspan(r * ne0, ne0), GetParam() + " row " + std::to_string(r)), 0u);
  }
  // Rows 3..9 (7 rows) in one call, from a misaligned copy of the bytes.
  std::vector<std::byte> copy(7 * row_bytes + 1);
  std::memcpy(copy.data() + 1, q->data.data() + 3 * row_bytes, 7 * row_bytes);
  std::vector<float> rows(7 * ne0);
  auto res = gguf::dequantize_row(q->type, std::span<const std::byte>(copy).subspan(1), rows);
  ASSERT_TRUE(res) << res.error().message();
  EXPECT_EQ(count_bit_mismatches(rows, want.subspan(3 * ne0, 7 * ne0), GetParam() + " rows 3..9"), 0u);

  // A single block, when the type has several per row.
  const auto* tr = gguf::ggml_type_traits(q->type);
  std::vector<float> block(tr->blck_size);
  res = gguf::dequantize_row(q->type, q->data.subspan(5 * row_bytes, tr->type_size), block);
  ASSERT_TRUE(res) << res.error().message();
  EXPECT_EQ(count_bit_mismatches(block, want.subspan(5 * ne0, tr->blck_size), GetParam() + " block"), 0u);
}

// The fixture's source matrix has an all-zero row: it must come back as zeros, equal to ggml's.
TEST_P(Fixture, ZeroRowGivesZeros) {
  GGUF_REQUIRE_DATA();
  auto f = open_fixture();
  const auto* src = f.find_tensor("src");
  const auto* q = f.find_tensor("q." + GetParam());
  const auto* deq = f.find_tensor("deq." + GetParam());
  ASSERT_TRUE(src && q && deq);
  const size_t ne0 = src->ne[0], ne1 = src->ne[1];
  auto s = as_floats(*src);
  size_t zero_row = ne1;
  for (size_t r = 0; r < ne1 && zero_row == ne1; ++r) {
    bool all_zero = true;
    for (size_t j = 0; j < ne0; ++j) all_zero = all_zero && s[r * ne0 + j] == 0.0f;
    if (all_zero) zero_row = r;
  }
  ASSERT_LT(zero_row, ne1) << "the fixture's src has no zero row";
  const size_t row_bytes = q->nbytes / ne1;
  std::vector<float> row(ne0, 1.0f);
  ASSERT_TRUE(gguf::dequantize_row(q->type, q->data.subspan(zero_row * row_bytes, row_bytes), row));
  for (size_t j = 0; j < ne0; ++j) ASSERT_EQ(row[j], 0.0f) << GetParam() << " element " << j;
  EXPECT_EQ(count_bit_mismatches(row, as_floats(*deq).subspan(zero_row * ne0, ne0), GetParam() + " zero row"), 0u);
}

INSTANTIATE_TEST_SUITE_P(AllTypes, Fixture, ::testing::ValuesIn(fixture_types),
                         [](const auto& info) { return info.param; });

TEST(FixtureFile, HoldsExactlyTheListedTypes) {
  GGUF_REQUIRE_DATA();
  auto f = open_fixture();
  size_t q_tensors = 0;
  for (const auto& t : f.tensors()) q_tensors += t.name.starts_with("q.");
  EXPECT_EQ(q_tensors, fixture_types.size());
}

// Blocks of zero bytes: every scale is zero (or, for mxfp4, codes are the value 0), so
// every element is zero, for every type with a kernel.
TEST(Dequantize, AllZeroBytesGiveZeros) {
  for (uint32_t id = 0; id < gguf::ggml_type_count; ++id) {
    const auto* tr = gguf::ggml_type_traits(id);
    auto type = static_cast<ggml_type>(id);
    if (!tr || !gguf::can_dequantize(type)) continue;
    std::vector<std::byte> bytes(3 * tr->type_size);
    std::vector<float> out(3 * tr->blck_size, 1.0f);
    auto r = gguf::dequantize_row(type, bytes, out);
    ASSERT_TRUE(r) << tr->name << ": " << r.error().message();
    for (float v : out) ASSERT_EQ(v, 0.0f) << tr->name;
  }
}

}  // namespace
