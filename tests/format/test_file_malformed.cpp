// One handcrafted file per reader error code, plus the 2024 ggml GGUF parser CVE classes.
// Each file is built field by field (gguf_builder) and must be rejected with the right
// code, byte offset and key or tensor name — never a crash or an oversized allocation.
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "gguf/file.h"
#include "gguf_builder.h"

using gguf::errc;
using gguf::test::gguf_builder;

namespace {

constexpr uint32_t T_U8 = 0, T_U32 = 4, T_F32 = 6, T_BOOL = 7, T_STR = 8, T_ARR = 9, T_U64 = 10;
constexpr uint32_t G_F32 = 0, G_Q4_0 = 2;

gguf::error open_err(const gguf_builder& b, const gguf::reader_limits& lim = {}) {
  auto f = gguf::file::from_bytes(b.bytes, lim);
  EXPECT_FALSE(f.ok()) << "expected the file to be rejected";
  if (f.ok()) return {};
  return f.error();
}

// The error is `code` about the tensor `name` (a tensor's, not a key's, as messages say).
void expect_tensor_error(const gguf::error& e, errc code, const std::string& name) {
  EXPECT_EQ(e.code, code) << e.message();
  EXPECT_EQ(e.subject, name) << e.message();
  EXPECT_TRUE(e.subject_is_tensor) << e.message();
}

// A valid file with one key, used as the base of several mutations.
gguf_builder one_key() {
  gguf_builder b;
  b.header(3, 0, 1).kv_str("general.architecture", "llama");
  return b;
}

TEST(Malformed, BadMagic) {
  gguf_builder b;
  b.raw("GGUX", 4).u32(3).u64(0).u64(0);
  auto e = open_err(b);
  EXPECT_EQ(e.code, errc::bad_magic);
  EXPECT_EQ(e.offset, 0u);
}

TEST(Malformed, ReversedMagicOfDraftWriter) {
  gguf_builder b;
  b.raw("FUGG", 4).u32(1).u32(0).u32(0);
  auto e = open_err(b);
  EXPECT_EQ(e.code, errc::bad_magic);
  EXPECT_NE(e.message().find("FUGG"), std::string::npos);
}

TEST(Malformed, UnsupportedVersion) {
  for (uint32_t v : {0u, 4u, 0x10000u}) {
    gguf_builder b;
    b.header(v, 0, 0);
    auto e = open_err(b);
    EXPECT_EQ(e.code, errc::unsupported_version) << v;
    EXPECT_EQ(e.offset, 4u);
  }
}

TEST(Malformed, TruncatedEverywhere) {
  // Every proper prefix of a valid file with a key, an array and a tensor is rejected
  // as truncated (never read past the end).
  gguf_builder b;
  b.header(3, 1, 2).kv_str("general.architecture", "llama");
  b.key("a.list", T_ARR).u32(T_STR).u64(2).str("x").str("yz");
  b.tensor("w", {8}, G_F32, 0).pad().zeros(32);
  auto full = gguf::file::from_bytes(b.bytes);
  ASSERT_TRUE(full.ok());
  for (size_t n = 0; n < b.bytes.size(); ++n) {
    auto f = gguf::file::from_bytes(std::span(b.bytes.data(), n));
    ASSERT_FALSE(f.ok()) << "prefix " << n;
    // Inside the metadata: truncated. Inside the padding or data: the tensor's data
    // lies outside the shortened file.
    errc want = n < full->metadata_end() ? errc::truncated : errc::tensor_out_of_bounds;
    EXPECT_EQ(f.error().code, want) << "prefix " << n << ": " << f.error().message();
    if (want == errc::truncated) {
      EXPECT_LE(f.error().offset, n) << "error offset past the prefix " << n;
    }
  }
}

TEST(Malformed, TruncatedStringReportsKeyAndOffset) {
  gguf_builder b;
  b.header(3, 0, 1).key("general.name", T_STR).u64(100).raw("abc", 3);
  auto e = open_err(b);
  EXPECT_EQ(e.code, errc::truncated);
  EXPECT_EQ(e.subject, "general.name");
  EXPECT_EQ(e.offset, 24u + 8 + 12 + 4 + 8);
  EXPECT_NE(e.message().find("key general.name"), std::string::npos);
}

TEST(Malformed, LimitsAreEnforced) {
  gguf_builder b;
  b.header(3, 0, 3).kv_u32("a.b", 1).kv_u32("a.c", 2).kv_u32("a.d", 3);
  gguf::reader_limits lim;
  lim.max_kv_count = 2;
  EXPECT_EQ(open_err(b, lim).code, errc::limit_exceeded);

  gguf_builder s = one_key();
  lim = {};
  lim.max_string_length = 3;
  EXPECT_EQ(open_err(s, lim).code, errc::limit_exceeded);

  gguf_builder a;
  a.header(3, 0, 1).key("a.arr", T_ARR).u32(T_U8).u64(10).zeros(10);
  lim = {};
  lim.max_array_length = 9;
  EXPECT_EQ(open_err(a, lim).code, errc::limit_exceeded);

  gguf_builder n;  // arrays nested 3 deep
  n.header(3, 0, 1).key("a.nest", T_ARR).u32(T_ARR).u64(1).u32(T_ARR).u64(1).u32(T_U8).u64(1).u8(7);
  lim = {};
  lim.max_array_nesting = 2;
  EXPECT_EQ(open_err(n, lim).code, errc::limit_exceeded);
  EXPECT_TRUE(gguf::file::from_bytes(n.bytes).ok());

  // However high the limit is set, nesting stops at the ceiling (the reader and every
  // consumer recurse per level): 64 levels open, 65 do not.
  auto nested = [](uint32_t depth) {
    gguf_builder d;
    d.header(3, 0, 1).key("a.deep", T_ARR);
    for (uint32_t i = 1; i < depth; ++i) d.u32(T_ARR).u64(1);
    d.u32(T_U8).u64(1).u8(7);
    return d;
  };
  lim = {};
  lim.max_array_nesting = UINT32_MAX;
  const auto at_ceiling = nested(gguf::max_array_nesting_ceiling);  // from_bytes borrows the bytes
  auto ok = gguf::file::from_bytes(at_ceiling.bytes, lim);
  ASSERT_TRUE(ok.ok()) << ok.error().message();
  EXPECT_EQ(ok->find("a.deep")->array()->nesting(), gguf::max_array_nesting_ceiling);
  auto deep = open_err(nested(gguf::max_array_nesting_ceiling + 1), lim);
  EXPECT_EQ(deep.code, errc::limit_exceeded);
  EXPECT_NE(deep.message().find("limit 64"), std::string::npos) << deep.message();
  EXPECT_EQ(open_err(nested(100000), lim).code, errc::limit_exceeded);

  gguf_builder t;
  t.header(3, 2, 0).tensor("a", {8}, G_F32, 0).tensor("b", {8}, G_F32, 32).pad().zeros(64);
  lim = {};
  lim.max_tensor_count = 1;
  EXPECT_EQ(open_err(t, lim).code, errc::limit_exceeded);
}

TEST(Malformed, InvalidKey) {
  gguf_builder empty;
  empty.header(3, 0, 1).key("", T_U32).u32(1);
  auto e = open_err(empty);
  EXPECT_EQ(e.code, errc::invalid_key);
  EXPECT_EQ(e.offset, 24u);

  gguf_builder utf8;
  utf8.header(3, 0, 1).key("general.n\xc3\xa4me", T_U32).u32(1);
  e = open_err(utf8);
  EXPECT_EQ(e.code, errc::invalid_key);
  EXPECT_EQ(e.offset, 24u + 8 + 9);

  gguf_builder ctrl;
  ctrl.header(3, 0, 1).key(std::string_view("a\0b", 3), T_U32).u32(1);
  EXPECT_EQ(open_err(ctrl).code, errc::invalid_key);
}

TEST(Malformed, KeyTooLong) {
  gguf_builder b;
  std::string key(65536, 'k');
  b.header(3, 0, 1).key(key, T_U32).u32(1);
  EXPECT_EQ(open_err(b).code, errc::key_too_long);
  gguf_builder ok;
  ok.header(3, 0, 1).key(std::string(65535, 'k'), T_U32).u32(1);
  EXPECT_TRUE(gguf::file::from_bytes(ok.bytes).ok());
}

TEST(Malformed, DuplicateKey) {
  gguf_builder b;
  b.header(3, 0, 2).kv_u32("a.b", 1).kv_u32("a.b", 2);
  auto e = open_err(b);
  EXPECT_EQ(e.code, errc::duplicate_key);
  EXPECT_EQ(e.subject, "a.b");
  EXPECT_EQ(e.offset, 24u + 8 + 3 + 4 + 4);
}

TEST(Malformed, InvalidValueType) {
  gguf_builder b;
  b.header(3, 0, 1).key("a.b", 13).u32(0);
  auto e = open_err(b);
  EXPECT_EQ(e.code, errc::invalid_value_type);
  EXPECT_EQ(e.offset, 24u + 8 + 3);
  gguf_builder arr;
  arr.header(3, 0, 1).key("a.b", T_ARR).u32(99).u64(0);
  EXPECT_EQ(open_err(arr).code, errc::invalid_value_type);
}

TEST(Malformed, InvalidBool) {
  gguf_builder b;
  b.header(3, 0, 1).key("a.flag", T_BOOL).u8(2);
  EXPECT_EQ(open_err(b).code, errc::invalid_bool);
  gguf_builder arr;
  arr.header(3, 0, 1).key("a.flags", T_ARR).u32(T_BOOL).u64(3).u8(1).u8(0).u8(255);
  auto e = open_err(arr);
  EXPECT_EQ(e.code, errc::invalid_bool);
  EXPECT_EQ(e.offset, arr.bytes.size() - 1);
}

TEST(Malformed, InvalidTensorName) {
  gguf_builder empty;
  empty.header(3, 1, 0).tensor("", {8}, G_F32, 0).pad().zeros(32);
  EXPECT_EQ(open_err(empty).code, errc::invalid_tensor_name);
  gguf_builder longname;
  longname.header(3, 1, 0).tensor(std::string(65, 't'), {8}, G_F32, 0).pad().zeros(32);
  EXPECT_EQ(open_err(longname).code, errc::invalid_tensor_name);
  gguf_builder ok;
  ok.header(3, 1, 0).tensor(std::string(64, 't'), {8}, G_F32, 0).pad().zeros(32);
  EXPECT_TRUE(gguf::file::from_bytes(ok.bytes).ok());
}

TEST(Malformed, DuplicateTensor) {
  gguf_builder b;
  b.header(3, 2, 0).tensor("w", {8}, G_F32, 0).tensor("w", {8}, G_F32, 32).pad().zeros(64);
  expect_tensor_error(open_err(b), errc::duplicate_tensor, "w");
}

TEST(Malformed, NDimsBeyondFour_CVE_2024_21802) {
  gguf_builder b;
  b.header(3, 1, 0).str("w").u32(5);
  for (int i = 0; i < 5; ++i) b.u64(1);
  b.u32(G_F32).u64(0).pad().zeros(32);
  expect_tensor_error(open_err(b), errc::too_many_dims, "w");
  gguf_builder huge;
  huge.header(3, 1, 0).str("w").u32(0xffffffffu).pad();
  EXPECT_EQ(open_err(huge).code, errc::too_many_dims);
}

TEST(Malformed, InvalidDimension) {
  gguf_builder zero;
  zero.header(3, 1, 0).tensor("w", {8, 0}, G_F32, 0).pad().zeros(32);
  EXPECT_EQ(open_err(zero).code, errc::invalid_dimension);
  gguf_builder negative;
  negative.header(3, 1, 0).tensor("w", {uint64_t{1} << 63}, G_F32, 0).pad().zeros(32);
  EXPECT_EQ(open_err(negative).code, errc::invalid_dimension);
}

TEST(Malformed, InvalidGgmlType) {
  for (uint32_t id : {4u, 5u, 31u, 33u, 36u, 38u, 43u, 1000u}) {
    gguf_builder b;
    b.header(3, 1, 0).tensor("w", {256}, id, 0).pad().zeros(1024);
    auto e = open_err(b);
    EXPECT_EQ(e.code, errc::invalid_ggml_type) << id;
    EXPECT_EQ(e.offset, 24u + 8 + 1 + 4 + 8) << id;
  }
}

TEST(Malformed, TensorSizeOverflow) {
  gguf_builder b;
  b.header(3, 1, 0).tensor("w", {uint64_t{1} << 40, uint64_t{1} << 40}, G_F32, 0).pad().zeros(32);
  EXPECT_EQ(open_err(b).code, errc::size_overflow);
  // Elements fit in 64 bits but not in INT64 (ggml's limit).
  gguf_builder c;
  c.header(3, 1, 0).tensor("w", {uint64_t{1} << 32, uint64_t{1} << 31, 2}, 24 /* i8 */, 0).pad().zeros(32);
  EXPECT_EQ(open_err(c).code, errc::size_overflow);
}

TEST(Malformed, ArrayCountTimesElementSizeWraps_CVE_2024_21825) {
  // 2^62 uint32 elements: 2^62 * 4 wraps to 0 in 64-bit arithmetic.
  gguf_builder b;
  b.header(3, 0, 1).key("a.arr", T_ARR).u32(T_U32).u64(uint64_t{1} << 62);
  gguf::reader_limits lim;
  lim.max_array_length = std::numeric_limits<uint64_t>::max();
  auto e = open_err(b, lim);
  EXPECT_EQ(e.code, errc::size_overflow);
  EXPECT_EQ(e.subject, "a.arr");
  // With the default limits the count is refused before any arithmetic.
  EXPECT_EQ(open_err(b).code, errc::limit_exceeded);
  // A count that does not wrap but exceeds the file is truncated.
  gguf_builder c;
  c.header(3, 0, 1).key("a.arr", T_ARR).u32(T_F32).u64(1000).zeros(16);
  EXPECT_EQ(open_err(c).code, errc::truncated);
}

TEST(Malformed, StringLengthPlusOneWraps_CVE_2024_23496) {
  for (uint64_t len : {std::numeric_limits<uint64_t>::max(), std::numeric_limits<uint64_t>::max() - 1}) {
    gguf_builder b;
    b.header(3, 0, 1).key("a.s", T_STR).u64(len).raw("abc", 3);
    gguf::reader_limits lim;
    lim.max_string_length = std::numeric_limits<uint64_t>::max();
    EXPECT_EQ(open_err(b, lim).code, errc::truncated);
    EXPECT_EQ(open_err(b).code, errc::limit_exceeded);
    // Same through a key length.
    gguf_builder k;
    k.header(3, 0, 1).u64(len).raw("abc", 3).zeros(16);
    EXPECT_EQ(open_err(k).code, errc::key_too_long);
  }
}

TEST(Malformed, TensorCountAllocationWrap_CVE_2024_21836) {
  for (uint64_t n : {uint64_t{1} << 61, std::numeric_limits<uint64_t>::max() / 8 + 1, uint64_t{1} << 40}) {
    gguf_builder b;
    b.header(3, n, 0).tensor("w", {8}, G_F32, 0);
    gguf::reader_limits lim;
    lim.max_tensor_count = std::numeric_limits<uint64_t>::max();
    EXPECT_EQ(open_err(b, lim).code, errc::truncated) << n;  // refused before reserve()
    EXPECT_EQ(open_err(b).code, errc::limit_exceeded) << n;
  }
}

TEST(Malformed, KvCountAllocationWrap_CVE_2024_23605) {
  for (uint64_t n : {uint64_t{1} << 60, std::numeric_limits<uint64_t>::max(), uint64_t{1} << 20}) {
    gguf_builder b;
    b.header(3, 0, n).kv_u32("a.b", 1);
    gguf::reader_limits lim;
    lim.max_kv_count = std::numeric_limits<uint64_t>::max();
    EXPECT_EQ(open_err(b, lim).code, errc::truncated) << n;
    EXPECT_EQ(open_err(b).code, n > (1u << 20) ? errc::limit_exceeded : errc::truncated) << n;
  }
}

TEST(Malformed, InvalidAlignment) {
  for (uint32_t a : {0u, 3u, 48u}) {
    gguf_builder b;
    b.header(3, 0, 1).kv_u32("general.alignment", a);
    auto e = open_err(b);
    EXPECT_EQ(e.code, errc::invalid_alignment) << a;
    EXPECT_EQ(e.subject, "general.alignment");
  }
  gguf_builder wrong_type;
  wrong_type.header(3, 0, 1).key("general.alignment", T_U64).u64(32);
  EXPECT_EQ(open_err(wrong_type).code, errc::invalid_alignment);
  gguf_builder ok;
  ok.header(3, 1, 1).kv_u32("general.alignment", 64).tensor("w", {16}, G_F32, 0).pad(64).zeros(64);
  auto f = gguf::file::from_bytes(ok.bytes);
  ASSERT_TRUE(f.ok()) << f.error().message();
  EXPECT_EQ(f->alignment(), 64u);
  EXPECT_EQ(f->data_offset() % 64, 0u);
}

TEST(Malformed, MisalignedTensor) {
  gguf_builder b;
  b.header(3, 1, 0).tensor("w", {8}, G_F32, 4).pad().zeros(64);
  auto e = open_err(b);
  expect_tensor_error(e, errc::misaligned_tensor, "w");
  EXPECT_EQ(e.offset, 24u + 8 + 1 + 4 + 8 + 4);
}

TEST(Malformed, TensorOutOfBounds) {
  gguf_builder b;
  b.header(3, 1, 0).tensor("w", {8}, G_F32, 32).pad().zeros(32);
  EXPECT_EQ(open_err(b).code, errc::tensor_out_of_bounds);
  gguf_builder wrap;
  wrap.header(3, 1, 0).tensor("w", {8}, G_F32, std::numeric_limits<uint64_t>::max() - 31).pad().zeros(32);
  EXPECT_EQ(open_err(wrap).code, errc::size_overflow);
}

TEST(Malformed, TensorOverlap) {
  gguf_builder b;
  b.header(3, 2, 0).tensor("a", {16}, G_F32, 0).tensor("b", {8}, G_F32, 32).pad().zeros(96);
  expect_tensor_error(open_err(b), errc::tensor_overlap, "b");
}

TEST(Malformed, PartialBlock) {
  gguf_builder b;
  b.header(3, 1, 0).tensor("w", {31, 2}, G_Q4_0, 0).pad().zeros(64);
  expect_tensor_error(open_err(b), errc::partial_block, "w");
}

TEST(Malformed, ErrorMessageNamesOffsetAndSubject) {
  gguf_builder b;
  b.header(3, 1, 0).tensor("blk.0.attn_q.weight", {8}, 77, 0).pad().zeros(32);
  auto e = open_err(b);
  EXPECT_EQ(e.message(), "ggml type 77 is unknown or retired (at byte 63, tensor blk.0.attn_q.weight)");
}

}  // namespace
