// The reader on every real file of ../shared/data.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <fstream>
#include <set>

#include "gguf/file.h"
#include "compare_files.h"
#include "test_support.h"

namespace fs = std::filesystem;
using gguf::test::data_file;

namespace {

std::vector<fs::path> gguf_files(const std::vector<std::string>& dirs) {
  std::vector<fs::path> out;
  for (const auto& d : dirs) {
    auto dir = data_file(d);
    if (dir.empty() || !fs::is_directory(dir)) continue;
    for (const auto& e : fs::directory_iterator(dir)) {
      if (e.path().extension() == ".gguf") out.push_back(e.path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST(RealFiles, EveryValidFileOpensAndEveryValueReads) {
  GGUF_REQUIRE_DATA();
  auto files = gguf_files({"vocab", "models", "quant", "compat"});
  ASSERT_GE(files.size(), 40u);
  int opened = 0;
  for (const auto& p : files) {
    bool invalid = p.filename().string().rfind("invalid-", 0) == 0;
    auto f = gguf::file::open(p);
    if (invalid) {
      EXPECT_FALSE(f.ok()) << p;
      continue;
    }
    ASSERT_TRUE(f.ok()) << p << ": " << f.error().message();
    ++opened;
    for (const auto& kv : f->kvs()) {
      if (kv.value.type() == gguf::value_type::array) {
        auto a = *kv.value.array();
        if (a.size() > 0) {
          EXPECT_TRUE(a.at(a.size() - 1).ok()) << p << " " << kv.key;
        }
      }
    }
    uint64_t end = 0;
    for (const auto& t : f->tensors()) {
      EXPECT_EQ(t.data.size(), t.nbytes);
      end = std::max(end, f->data_offset() + t.offset + t.nbytes);
    }
    EXPECT_LE(end, f->size()) << p;
  }
  EXPECT_EQ(opened, static_cast<int>(files.size()) - 3);
}

TEST(RealFiles, InvalidCompatFilesAreRejectedClearly) {
  GGUF_REQUIRE_DATA();
  struct row { const char* file; gguf::errc code; const char* key; };
  const row rows[] = {
      {"compat/invalid-draft-format.gguf", gguf::errc::bad_magic, ""},
      {"compat/invalid-reversed-magic-v1.gguf", gguf::errc::bad_magic, ""},
      {"compat/invalid-value-type-13.gguf", gguf::errc::invalid_value_type, "dict1"},
  };
  for (const auto& r : rows) {
    auto f = gguf::file::open(data_file(r.file));
    ASSERT_FALSE(f.ok()) << r.file;
    EXPECT_EQ(f.error().code, r.code) << r.file << ": " << f.error().message();
    EXPECT_EQ(f.error().subject, r.key) << r.file;
    EXPECT_NE(f.error().offset, gguf::no_offset) << r.file;
  }
}

TEST(RealFiles, VersionOneFilesRead) {
  GGUF_REQUIRE_DATA();
  for (const char* name : {"compat/vocab-llama-v1-a.gguf", "compat/vocab-llama-v1-b.gguf", "compat/stories260K-v1.gguf"}) {
    auto f = gguf::file::open(data_file(name));
    ASSERT_TRUE(f.ok()) << name << ": " << f.error().message();
    EXPECT_EQ(f->version(), 1u);
    auto tokens = f->get_array("tokenizer.ggml.tokens");
    ASSERT_TRUE(tokens.ok()) << name;
    EXPECT_GT(tokens->size(), 0u);
  }
}

// vocab-llama-v1-b.gguf and its v3 re-save (llama.cpp PR #3901) hold the same vocabulary;
// the re-save also changed two hparams and added general.name and three special ids.
TEST(RealFiles, VersionOneAgreesWithItsV3Resave) {
  GGUF_REQUIRE_DATA();
  auto v1 = gguf::file::open(data_file("compat/vocab-llama-v1-b.gguf"));
  auto v3 = gguf::file::open(data_file("compat/vocab-llama-v1-b-resaved-v3.gguf"));
  ASSERT_TRUE(v1.ok()) << v1.error().message();
  ASSERT_TRUE(v3.ok()) << v3.error().message();
  EXPECT_EQ(v1->version(), 1u);
  EXPECT_EQ(v3->version(), 3u);
  const std::set<std::string_view> changed = {"llama.context_length", "llama.attention.layer_norm_rms_epsilon"};
  for (const auto& kv : v1->kvs()) {
    auto other = v3->find(kv.key);
    ASSERT_TRUE(other.has_value()) << kv.key;
    if (changed.count(kv.key)) {
      EXPECT_EQ(kv.value.type(), other->type()) << kv.key;
      continue;
    }
    gguf::test::expect_same_value(kv.value, *other, std::string(kv.key));
  }
  EXPECT_EQ(v3->kv_count(), v1->kv_count() + 4);
  EXPECT_EQ(v1->get_array("tokenizer.ggml.tokens")->size(), 32000u);
}

TEST(RealFiles, BigEndianFilesAgreeWithTheirOriginals) {
  GGUF_REQUIRE_DATA();
  const std::pair<const char*, const char*> pairs[] = {
      {"compat/vocab-llama-spm-be.gguf", "vocab/ggml-vocab-llama-spm.gguf"},
      {"compat/stories260K-be.gguf", "models/stories260K.gguf"},
      {"compat/stories260K-Q8_0-be.gguf", "models/stories260K-Q8_0.gguf"},
  };
  for (const auto& [be_name, le_name] : pairs) {
    auto be = gguf::file::open(data_file(be_name));
    auto le = gguf::file::open(data_file(le_name));
    ASSERT_TRUE(be.ok()) << be_name << ": " << be.error().message();
    ASSERT_TRUE(le.ok()) << le_name;
    EXPECT_EQ(be->byte_order(), gguf::byte_order::big);
    EXPECT_EQ(le->byte_order(), gguf::byte_order::little);
    gguf::test::expect_same_content(*be, *le);
  }
}

TEST(RealFiles, AlignmentAndDataOffsetMatchExpected) {
  GGUF_REQUIRE_DATA();
  auto dir = data_file("expected");
  int checked = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    std::ifstream in(e.path());
    auto j = nlohmann::json::parse(in);
    auto f = gguf::file::open(data_file(j["file"].get<std::string>()));
    ASSERT_TRUE(f.ok()) << e.path();
    EXPECT_EQ(f->version(), j["version"].get<uint32_t>()) << e.path();
    EXPECT_EQ(f->alignment(), j["alignment"].get<uint32_t>()) << e.path();
    EXPECT_EQ(f->data_offset(), j["data_offset"].get<uint64_t>()) << e.path();
    EXPECT_EQ(f->kv_count(), j["kv_count"].get<size_t>()) << e.path();
    EXPECT_EQ(f->tensor_count(), j["tensor_count"].get<size_t>()) << e.path();
    ++checked;
  }
  EXPECT_GE(checked, 37);
}

TEST(RealFiles, TypedAccessors) {
  GGUF_REQUIRE_DATA();
  auto f = gguf::file::open(data_file("models/stories260K.gguf"));
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(*f->get_string("general.architecture"), "llama");
  EXPECT_EQ(*f->get_uint("llama.block_count"), 5u);
  // Stored as uint32 4294967295: "no token".
  EXPECT_EQ(*f->get_uint("tokenizer.ggml.padding_token_id"), 4294967295u);
  EXPECT_EQ(f->get_string("llama.block_count").error().code, gguf::errc::type_mismatch);
  EXPECT_EQ(f->get_uint("general.architecture").error().code, gguf::errc::type_mismatch);
  EXPECT_EQ(f->get("no.such.key").error().code, gguf::errc::key_not_found);
  EXPECT_EQ(f->get_tensor("no.such.tensor").error().code, gguf::errc::tensor_not_found);
  auto tokens = *f->get_array("tokenizer.ggml.tokens");
  EXPECT_EQ(tokens.size(), 512u);
  EXPECT_EQ(*tokens.get<std::string_view>(1), "<s>");
  EXPECT_EQ(tokens.get<std::string_view>(512).error().code, gguf::errc::out_of_range);
  EXPECT_EQ(tokens.get<float>(0).error().code, gguf::errc::type_mismatch);
  auto scores = *f->get_array("tokenizer.ggml.scores");
  auto v = scores.to_vector<float>();
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->size(), 512u);
  EXPECT_EQ(v->back(), *scores.get<float>(511));
  std::vector<int32_t> wrong(512);
  EXPECT_EQ(scores.copy_to(std::span<int32_t>(wrong)).error().code, gguf::errc::type_mismatch);
  uint64_t seen = 0;
  ASSERT_TRUE(tokens.for_each_string([&](uint64_t i, std::string_view s) {
                EXPECT_EQ(s, *tokens.get<std::string_view>(i));
                ++seen;
              }).ok());
  EXPECT_EQ(seen, 512u);
}

TEST(RealFiles, BigEndianValuesAreSwapped) {
  GGUF_REQUIRE_DATA();
  auto be = gguf::file::open(data_file("compat/vocab-llama-spm-be.gguf"));
  ASSERT_TRUE(be.ok());
  EXPECT_EQ(*be->get_uint("llama.context_length"), 4096u);
  auto scores = *be->get_array("tokenizer.ggml.scores");
  EXPECT_EQ(*scores.get<float>(scores.size() - 1), -31740.0f);
  auto v = *scores.to_vector<float>();
  EXPECT_EQ(v.back(), -31740.0f);
}
