// gguf/split.h through the library's API (the command line's split and merge, and their
// byte-for-byte agreement with llama.cpp's gguf-split, are in tests/cli/test_split_merge.cpp):
// a plan as gguf-split makes it, shards that read back as the model, and a merge that
// splits again into the same bytes.
#include <gtest/gtest.h>

#include <cstring>

#include "gguf/model_files.h"
#include "gguf/split.h"
#include "test_support.h"

namespace fs = std::filesystem;
using gguf::test::data_file;

namespace {

// Writes every shard of `plan` as PREFIX-0000i-of-0000n.gguf; returns their paths.
std::vector<fs::path> write_shards(const gguf::file& f, const gguf::split_plan& plan, const fs::path& prefix) {
  std::vector<fs::path> paths;
  for (size_t i = 0; i < plan.shards.size(); ++i) {
    paths.emplace_back(gguf::split_path(prefix.string(), uint32_t(i), uint32_t(plan.shards.size())));
    auto out = gguf::safe_output::create(paths.back());
    EXPECT_TRUE(out.ok()) << out.error().message();
    auto w = gguf::write_shard(f, plan, i, *out);
    EXPECT_TRUE(w.ok()) << w.error().message();
    EXPECT_EQ(out->size(), plan.shards[i].file_size) << "shard " << i;
    EXPECT_TRUE(out->commit().ok());
  }
  return paths;
}

}  // namespace

TEST(Split, ShardsReadBackAsTheModelAndMergeSplitsAgainToTheSameBytes) {
  GGUF_REQUIRE_DATA();
  const auto src = data_file("models/stories260K.gguf");
  auto f = gguf::file::open(src);
  ASSERT_TRUE(f.ok()) << f.error().message();
  const size_t n = f->tensors().size();

  gguf::split_options o;
  o.max_tensors = 7;
  auto plan = gguf::plan_split(*f, o);
  ASSERT_TRUE(plan.ok()) << plan.error().message();
  ASSERT_EQ(plan->shards.size(), (n + 6) / 7);  // a new shard every 7 tensors, as gguf-split
  EXPECT_EQ(plan->tensor_count, n);
  size_t planned = 0;
  for (const auto& s : plan->shards) {
    EXPECT_LE(s.tensors.size(), 7u);
    for (uint32_t t : s.tensors) EXPECT_EQ(t, planned++);  // the input's order
  }
  EXPECT_EQ(planned, n);

  const auto dir = gguf::test::fresh_dir("split");
  const auto shards = write_shards(*f, *plan, dir / "a");
  auto set = gguf::model_files::open(shards.front());
  ASSERT_TRUE(set.ok()) << set.error().message();
  const gguf::file& merged = set->merged();
  ASSERT_EQ(merged.tensors().size(), n);
  for (size_t i = 0; i < n; ++i) {
    const auto& a = f->tensors()[i];
    const auto& b = merged.tensors()[i];
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.type, b.type);
    ASSERT_EQ(a.data.size(), b.data.size()) << a.name;
    EXPECT_EQ(0, std::memcmp(a.data.data(), b.data.data(), a.data.size())) << a.name;
  }
  EXPECT_EQ(merged.get_string("general.architecture").value(), f->get_string("general.architecture").value());
  EXPECT_EQ(merged.get_uint("split.count").value_or(0), shards.size());  // the first shard's metadata

  const auto joined = dir / "merged.gguf";
  {
    auto out = gguf::safe_output::create(joined);
    ASSERT_TRUE(out.ok());
    ASSERT_TRUE(gguf::write_merged(*set, *out).ok());
    EXPECT_EQ(out->size(), gguf::merged_size(*set));
    ASSERT_TRUE(out->commit().ok());
  }
  auto again = gguf::file::open(joined);
  ASSERT_TRUE(again.ok()) << again.error().message();
  for (auto k : {"split.no", "split.count", "split.tensors.count"}) EXPECT_FALSE(again->find(k)) << k;
  auto plan2 = gguf::plan_split(*again, o);
  ASSERT_TRUE(plan2.ok());
  const auto shards2 = write_shards(*again, *plan2, dir / "b");
  ASSERT_EQ(shards2.size(), shards.size());
  for (size_t i = 0; i < shards.size(); ++i)
    EXPECT_EQ(gguf::test::read_bytes(shards[i]), gguf::test::read_bytes(shards2[i])) << "shard " << i;
}

TEST(Split, RefusesWhatGgufSplitRefuses) {
  GGUF_REQUIRE_DATA();
  const auto src = data_file("models/stories260K.gguf");
  auto f = gguf::file::open(src);
  ASSERT_TRUE(f.ok());
  gguf::split_options zero;
  zero.max_tensors = 0;
  auto r = gguf::plan_split(*f, zero);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, gguf::errc::invalid_argument);
}
