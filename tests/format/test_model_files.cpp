// gguf::model_files: a split model's shards found from any shard, read as one file, and
// every inconsistency of a set an error naming the shard (llama.cpp's loader checks).
#include <gtest/gtest.h>

#include <cstring>

#include "gguf/model_files.h"
#include "gguf/writer.h"
#include "test_support.h"

namespace fs = std::filesystem;
using gguf::errc;
using gguf::value;

namespace {

struct shard_spec {
  std::vector<std::string> tensors;
  gguf::value no, count, total;
  std::string arch;  // general.architecture in this shard ("" : none)
};

// Writes shards PREFIX-0000i-of-0000n.gguf; tensor data is one f32 per tensor.
void write_set(const fs::path& prefix, const std::vector<shard_spec>& shards) {
  for (size_t i = 0; i < shards.size(); ++i) {
    gguf::writer w;
    if (!shards[i].arch.empty()) {
      ASSERT_TRUE(w.set("general.architecture", value::string(shards[i].arch)));
    }
    ASSERT_TRUE(w.set("split.no", shards[i].no));
    ASSERT_TRUE(w.set("split.count", shards[i].count));
    ASSERT_TRUE(w.set("split.tensors.count", shards[i].total));
    for (const auto& t : shards[i].tensors) {
      float x = static_cast<float>(t.size());
      std::vector<std::byte> b(4);
      std::memcpy(b.data(), &x, 4);
      const uint64_t ne[] = {1};
      ASSERT_TRUE(w.add_tensor(t, gguf::ggml_type::f32, ne, std::move(b)));
    }
    ASSERT_TRUE(w.write_file(gguf::split_path(prefix.string(), static_cast<uint32_t>(i),
                                              static_cast<uint32_t>(shards.size()))));
  }
}

std::vector<shard_spec> good_set() {
  return {{{"a", "b"}, value::u16(0), value::u16(3), value::i32(5), "llama"},
          {{"c"}, value::u16(1), value::u16(3), value::i32(5), ""},
          {{"d", "e"}, value::u16(2), value::u16(3), value::i32(5), ""}};
}

fs::path fresh(const std::string& name) {
  auto d = gguf::test::temp_dir() / "model_files" / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d / "m";
}

}  // namespace

TEST(ModelFiles, NamesFollowLlamaSplitPath) {
  EXPECT_EQ(gguf::split_path("dir/m", 0, 3), "dir/m-00001-of-00003.gguf");
  EXPECT_EQ(gguf::split_prefix("dir/m-00002-of-00003.gguf", 1, 3), "dir/m");
  EXPECT_FALSE(gguf::split_prefix("dir/m-00002-of-00003.gguf", 0, 3));
  EXPECT_FALSE(gguf::split_prefix("-00001-of-00001.gguf", 0, 1));
}

TEST(ModelFiles, AnyShardOpensTheWholeSet) {
  const auto prefix = fresh("good");
  write_set(prefix, good_set());
  for (uint32_t i = 0; i < 3; ++i) {
    auto m = gguf::model_files::open(gguf::split_path(prefix.string(), i, 3));
    ASSERT_TRUE(m) << m.error().message();
    EXPECT_EQ(m->shard_count(), 3u);
    EXPECT_TRUE(m->is_split());
    const auto& f = m->merged();
    EXPECT_EQ(f.tensor_count(), 5u);
    EXPECT_EQ(*f.get_string("general.architecture"), "llama");
    std::string names;
    for (const auto& t : f.tensors()) names += t.name;
    EXPECT_EQ(names, "abcde");
    const auto* d = m->find_tensor("d");
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->shard, 2u);
    ASSERT_NE(f.find_tensor("d"), nullptr);
    float x = 0;
    std::memcpy(&x, f.find_tensor("d")->data.data(), 4);
    EXPECT_EQ(x, 1.0f);
  }
}

TEST(ModelFiles, OneFileIsAModelOfOneFile) {
  GGUF_REQUIRE_DATA();
  auto m = gguf::model_files::open(gguf::test::data_file("models/stories260K.gguf"));
  ASSERT_TRUE(m);
  EXPECT_FALSE(m->is_split());
  EXPECT_EQ(m->merged().tensor_count(), 48u);
  EXPECT_EQ(m->tensors().size(), 48u);
}

TEST(ModelFiles, EveryBrokenSetIsAnErrorNamingTheShard) {
  struct case_t {
    const char* name;
    void (*mutate)(std::vector<shard_spec>&);
    errc code;
    const char* says;
  };
  const case_t cases[] = {
      {"wrong-no", [](auto& s) { s[2].no = value::u16(1); }, errc::invalid_model, "m-00003-of-00003.gguf: split.no is 1"},
      {"wrong-count", [](auto& s) { s[1].count = value::u16(4); }, errc::invalid_model, "split.count is 4"},
      {"wrong-total", [](auto& s) { s[1].total = value::i32(6); }, errc::invalid_model, "split.tensors.count is 6"},
      {"total-mismatch", [](auto& s) { for (auto& x : s) x.total = value::i32(4); }, errc::invalid_model,
       "hold 5 tensors"},
      {"duplicate", [](auto& s) { s[2].tensors[0].assign(1, 'a'); }, errc::duplicate_tensor, "also in shard 1"},
      {"type", [](auto& s) { s[1].count = value::u32(3); }, errc::type_mismatch, "m-00002-of-00003.gguf"},
      {"arch", [](auto& s) { s[2].arch = "gpt2"; }, errc::invalid_model, "general.architecture is 'gpt2'"},
  };
  for (const auto& c : cases) {
    const auto prefix = fresh(c.name);
    auto set = good_set();
    c.mutate(set);
    write_set(prefix, set);
    auto m = gguf::model_files::open(gguf::split_path(prefix.string(), 0, 3));
    ASSERT_FALSE(m) << c.name;
    EXPECT_EQ(m.error().code, c.code) << c.name << ": " << m.error().message();
    EXPECT_NE(m.error().message().find(c.says), std::string::npos) << c.name << ": " << m.error().message();
  }
  // A missing shard: io_error naming the file.
  const auto prefix = fresh("missing");
  write_set(prefix, good_set());
  fs::remove(gguf::split_path(prefix.string(), 1, 3));
  auto m = gguf::model_files::open(gguf::split_path(prefix.string(), 2, 3));
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().code, errc::io_error);
  EXPECT_NE(m.error().message().find("m-00002-of-00003.gguf: shard 2 of 3 is missing"), std::string::npos)
      << m.error().message();
  // A shard not named by the pattern cannot find its set.
  const auto odd = prefix.parent_path() / "renamed.gguf";
  fs::copy_file(gguf::split_path(prefix.string(), 0, 3), odd);
  auto r = gguf::model_files::open(odd);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("is not named PREFIX-00001-of-00003.gguf"), std::string::npos)
      << r.error().message();
}
