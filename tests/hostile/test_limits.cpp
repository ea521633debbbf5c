// reader_limits (include/gguf/file.h) are configurable bounds beyond "fits in the file".
// Each limit is tested at its boundary on a real file: the limit equal to what the file
// needs accepts it, one less rejects it with limit_exceeded. The defaults accept every
// valid file of the test data. Documented in docs/security.md.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "gguf/file.h"
#include "gguf/writer.h"
#include "hostile.h"
#include "test_support.h"

namespace gguf::hostile {
namespace {

struct needs {
  uint64_t longest_string = 0;
  uint64_t longest_array = 0;
  uint32_t deepest = 0;
};

void measure(const value_ref& v, needs& n, uint32_t depth) {
  if (v.type() == value_type::string) {
    n.longest_string = std::max<uint64_t>(n.longest_string, v.get<std::string_view>()->size());
  }
  if (v.type() != value_type::array) return;
  auto a = *v.array();
  n.longest_array = std::max(n.longest_array, a.size());
  n.deepest = std::max(n.deepest, depth + 1);
  if (a.element_type() == value_type::string) {
    (void)a.for_each_string([&](uint64_t, std::string_view s) {
      n.longest_string = std::max<uint64_t>(n.longest_string, s.size());
    });
  } else if (a.element_type() == value_type::array) {
    for (uint64_t i = 0; i < a.size(); ++i) measure(*a.at(i), n, depth + 1);
  }
}

needs measure(const file& f) {
  needs n;
  for (const auto& kv : f.kvs()) measure(kv.value, n, 0);
  return n;
}

void expect_limit(const std::vector<std::byte>& bytes, const reader_limits& ok_lim, const reader_limits& bad_lim,
                  const char* what) {
  auto ok = file::from_bytes(bytes, ok_lim);
  EXPECT_TRUE(ok.ok()) << what << ": " << (ok ? "" : ok.error().message());
  auto bad = file::from_bytes(bytes, bad_lim);
  ASSERT_FALSE(bad.ok()) << what << ": accepted above its limit";
  EXPECT_EQ(bad.error().code, errc::limit_exceeded) << what << ": " << bad.error().message();
  EXPECT_NE(bad.error().message().find("limit"), std::string::npos) << bad.error().message();
}

TEST(limits, defaults_accept_every_valid_test_file) {
  GGUF_REQUIRE_DATA();
  size_t opened = 0;
  for (const auto& p : data_files()) {
    if (p.filename().string().rfind("invalid-", 0) == 0) continue;
    auto f = file::open(p);
    EXPECT_TRUE(f.ok()) << p << ": " << (f ? "" : f.error().message());
    opened += f.ok();
  }
  EXPECT_GT(opened, 40u);
}

TEST(limits, each_limit_is_enforced_at_its_boundary_on_a_real_vocab) {
  GGUF_REQUIRE_DATA();
  auto bytes = gguf::test::read_bytes(gguf::test::data_file("vocab/ggml-vocab-llama-spm.gguf"));
  auto f = file::from_bytes(bytes);
  ASSERT_TRUE(f.ok());
  auto n = measure(*f);
  ASSERT_EQ(n.longest_array, 32000u);  // tokenizer.ggml.tokens of the llama SPM vocab
  ASSERT_GT(n.longest_string, 0u);

  reader_limits ok, bad;
  ok.max_kv_count = f->kv_count();
  bad.max_kv_count = f->kv_count() - 1;
  expect_limit(bytes, ok, bad, "max_kv_count");

  ok = bad = {};
  ok.max_string_length = n.longest_string;
  bad.max_string_length = n.longest_string - 1;
  expect_limit(bytes, ok, bad, "max_string_length");

  ok = bad = {};
  ok.max_array_length = n.longest_array;
  bad.max_array_length = n.longest_array - 1;
  expect_limit(bytes, ok, bad, "max_array_length");

  ok = bad = {};
  ok.max_metadata_bytes = f->metadata_end();
  bad.max_metadata_bytes = f->metadata_end() - 1;
  expect_limit(bytes, ok, bad, "max_metadata_bytes");
}

TEST(limits, tensor_count_limit_on_a_real_model) {
  GGUF_REQUIRE_DATA();
  auto bytes = gguf::test::read_bytes(gguf::test::data_file("models/stories260K.gguf"));
  auto f = file::from_bytes(bytes);
  ASSERT_TRUE(f.ok());
  ASSERT_GT(f->tensor_count(), 1u);
  reader_limits ok, bad;
  ok.max_tensor_count = f->tensor_count();
  bad.max_tensor_count = f->tensor_count() - 1;
  expect_limit(bytes, ok, bad, "max_tensor_count");
}

TEST(limits, array_nesting_limit) {
  // [[[1, 2], [3]]]: nesting 3.
  std::vector<uint32_t> a{1, 2}, b{3};
  std::vector<value> inner{value::array<uint32_t>(a), value::array<uint32_t>(b)};
  auto mid = value::array_of_arrays(inner);
  ASSERT_TRUE(mid.ok());
  std::vector<value> outer{*mid};
  auto top = value::array_of_arrays(outer);
  ASSERT_TRUE(top.ok());
  writer w;
  ASSERT_TRUE(w.set("test.nested", *top).ok());
  auto bytes = w.to_bytes();
  auto f = file::from_bytes(bytes);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->get_array("test.nested")->nesting(), 3u);
  reader_limits ok, bad;
  ok.max_array_nesting = 3;
  bad.max_array_nesting = 2;
  expect_limit(bytes, ok, bad, "max_array_nesting");
}

TEST(limits, a_hostile_count_is_rejected_before_any_allocation) {
  // 2^40 key/values in a 24-byte file: limit_exceeded under the default limit, and
  // truncated (cannot fit) under an unlimited one — never an allocation of 2^40 entries.
  std::vector<std::byte> bytes(24);
  const char head[] = "GGUF\x03\0\0\0";
  std::memcpy(bytes.data(), head, 8);
  uint64_t n = uint64_t{1} << 40;
  std::memcpy(bytes.data() + 16, &n, 8);
  auto f = file::from_bytes(bytes);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error().code, errc::limit_exceeded);
  reader_limits unlimited;
  unlimited.max_kv_count = ~uint64_t{0};
  auto g = file::from_bytes(bytes, unlimited);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.error().code, errc::truncated);
}

}  // namespace
}  // namespace gguf::hostile
