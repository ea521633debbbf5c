// The split.* rules of validate(): one handcrafted shard per rule.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gguf/schema.h"
#include "gguf/writer.h"

namespace gguf {
namespace {

const diagnostic* find(const report& r, std::string_view rule) {
  for (const auto& d : r.diagnostics)
    if (d.rule == rule) return &d;
  return nullptr;
}

std::string dump(const report& r) {
  std::string s;
  for (const auto& d : r.diagnostics) s += std::string(severity_name(d.level)) + " " + d.rule + " " + d.message + "\n";
  return s;
}

// A shard: the three split keys (any may be replaced or left out), one f32 tensor.
report shard(std::vector<std::pair<std::string, value>> kvs) {
  writer w;
  for (auto& [k, v] : kvs) EXPECT_TRUE(w.set(k, v));
  std::vector<std::byte> data(16);
  const uint64_t ne[] = {4};
  EXPECT_TRUE(w.add_tensor("blk.0.ffn_up.weight", ggml_type::f32, ne, std::span<const std::byte>(data)));
  auto b = w.to_bytes();
  return validate_bytes(b, "model-00002-of-00002.gguf");
}

}  // namespace

TEST(ValidateSplit, LaterShardLeavesModelMetadataToTheFirst) {
  auto r = shard({{"split.no", value::u16(1)}, {"split.count", value::u16(2)}, {"split.tensors.count", value::i32(2)}});
  EXPECT_TRUE(find(r, "split.shard")) << dump(r);
  EXPECT_FALSE(find(r, "key.required")) << dump(r);
  EXPECT_FALSE(find(r, "split.name")) << dump(r);
  // The set cannot be opened from memory: the first shard is not there.
  EXPECT_TRUE(find(r, "split.set")) << dump(r);
}

TEST(ValidateSplit, KeyTypesAreGgufSplits) {
  auto r = shard({{"split.no", value::u16(1)}, {"split.count", value::u32(2)}, {"split.tensors.count", value::i32(2)}});
  const auto* d = find(r, "split.type");
  ASSERT_TRUE(d) << dump(r);
  EXPECT_EQ(d->subject, "split.count");
  EXPECT_EQ(d->level, severity::error);
  r = shard({{"split.no", value::u16(1)}, {"split.count", value::u16(2)}, {"split.tensors.count", value::u64(2)}});
  ASSERT_TRUE(find(r, "split.type")) << dump(r);
}

TEST(ValidateSplit, MissingKeyAndNumberOutOfPlace) {
  auto r = shard({{"split.no", value::u16(1)}, {"split.count", value::u16(2)}});
  ASSERT_TRUE(find(r, "split.missing_key")) << dump(r);
  EXPECT_EQ(find(r, "split.missing_key")->subject, "split.tensors.count");
  r = shard({{"split.no", value::u16(2)}, {"split.count", value::u16(2)}, {"split.tensors.count", value::i32(2)}});
  ASSERT_TRUE(find(r, "split.no")) << dump(r);
  EXPECT_FALSE(r.passes());
}

TEST(ValidateSplit, MetadataInALaterShardAndMergedCountZero) {
  auto r = shard({{"split.no", value::u16(1)},
                  {"split.count", value::u16(2)},
                  {"split.tensors.count", value::i32(2)},
                  {"general.name", value::string("x")}});
  ASSERT_TRUE(find(r, "split.metadata")) << dump(r);
  EXPECT_EQ(find(r, "split.metadata")->level, severity::warning);
  r = shard({{"split.no", value::u16(0)}, {"split.count", value::u16(0)}, {"split.tensors.count", value::i32(1)}});
  EXPECT_TRUE(find(r, "split.merged")) << dump(r);
  EXPECT_FALSE(find(r, "split.set")) << dump(r);
}

}  // namespace gguf
