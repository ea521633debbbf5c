// `gguf embed --jsonl` over shared/data/models/embeddings/texts.json gives, for every
// model with an expected file, the ids and the token_embd rows llama.cpp/ggml produced
// (models/embeddings/NAME.jsonl): same ids, same float32 values bit for bit.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "gguf/model.h"
#include "gguf/quant.h"
#include "test_support.h"

namespace {

using json = nlohmann::json;

uint32_t bits(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  return u;
}

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> v;
  std::istringstream in(s);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) v.push_back(line);
  }
  return v;
}

/// Compares one output line with one expected line; returns the number of floats checked.
size_t compare_line(const json& got, const json& want, const std::string& where) {
  EXPECT_EQ(got["ids"], want["ids"]) << where;
  const auto& ge = got["embeddings"];
  const auto& we = want["embeddings"];
  EXPECT_EQ(ge.size(), we.size()) << where;
  size_t n = 0;
  for (size_t i = 0; i < std::min(ge.size(), we.size()); ++i) {
    EXPECT_EQ(ge[i].size(), we[i].size()) << where << " token " << i;
    for (size_t j = 0; j < std::min(ge[i].size(), we[i].size()); ++j) {
      // Expected values were written as doubles of the float32 values; ours as the
      // shortest text of the float32. Both must read back to the same float32.
      float g = static_cast<float>(ge[i][j].get<double>());
      float w = static_cast<float>(we[i][j].get<double>());
      if (bits(g) != bits(w)) {
        ADD_FAILURE() << where << " token " << i << " element " << j << ": got " << g << ", expected " << w;
        return n;
      }
      ++n;
    }
  }
  return n;
}

TEST(ModelEmbedData, EmbedJsonlMatchesEveryExpectedModel) {
  GGUF_REQUIRE_DATA();
  auto dir = gguf::test::data_dir() / "models" / "embeddings";
  json texts = json::parse(std::ifstream(dir / "texts.json"));
  ASSERT_TRUE(texts.is_array());
  auto input = gguf::test::temp_dir() / "embed_texts.jsonl";
  {
    std::ofstream out(input);
    for (const auto& t : texts) out << t.dump() << "\n";
  }
  int models = 0;
  size_t floats = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".jsonl") continue;
    std::string name = e.path().stem().string();
    SCOPED_TRACE(name);
    auto model_path = gguf::test::data_dir() / "models" / (name + ".gguf");
    ASSERT_TRUE(std::filesystem::exists(model_path));
    auto want = lines_of(gguf::test::read_text(e.path()));
    ASSERT_EQ(want.size(), texts.size());

    for (const char* threads : {"1", "2"}) {  // --threads 2: lines on two workers, output in input order
      auto r = gguf::test::run_cli({"embed", "-m", model_path.string(), "--jsonl", "--threads", threads}, input.string());
      ASSERT_EQ(r.exit_code, 0) << r.err;
      auto got = lines_of(r.out);
      ASSERT_EQ(got.size(), want.size()) << r.err;
      for (size_t i = 0; i < want.size(); ++i) {
        floats += compare_line(json::parse(got[i]), json::parse(want[i]),
                               name + " text " + std::to_string(i) + ", " + threads + " threads");
      }
    }
    ++models;
  }
  EXPECT_EQ(models, 11);
  std::cout << "[ model    ] " << models << " models, " << floats << " embedding floats identical\n";
}

TEST(ModelEmbedCli, TextArgumentAndErrors) {
  GGUF_REQUIRE_DATA();
  auto model = gguf::test::data_file("models/stories260K.gguf").string();
  auto a = gguf::test::run_cli({"embed", "-m", model, "Hello world"});
  ASSERT_EQ(a.exit_code, 0) << a.err;
  auto j = json::parse(a.out);
  ASSERT_TRUE(j["ids"].is_array());
  EXPECT_EQ(j["ids"][0], 1);  // BOS added (add_special on)
  EXPECT_EQ(j["embeddings"].size(), j["ids"].size());
  EXPECT_EQ(j["embeddings"][0].size(), 64u);
  auto b = gguf::test::run_cli({"embed", "-m", model, "--no-add-special", "Hello world"});
  ASSERT_EQ(b.exit_code, 0) << b.err;
  auto jb = json::parse(b.out);
  EXPECT_EQ(jb["ids"].size() + 1, j["ids"].size());
  EXPECT_EQ(jb["embeddings"][0], j["embeddings"][1]);

  // A file that is not a language model: invalid input, one error line.
  auto c = gguf::test::run_cli({"embed", "-m", gguf::test::data_file("models/superpoint.gguf").string(), "x"});
  EXPECT_EQ(c.exit_code, 1);
  EXPECT_NE(c.err.find("unknown model architecture"), std::string::npos) << c.err;
  EXPECT_EQ(std::count(c.err.begin(), c.err.end(), '\n'), 1);
  // A vocab-only file has no token_embd.weight.
  auto d = gguf::test::run_cli({"embed", "-m", gguf::test::data_file("vocab/ggml-vocab-llama-spm.gguf").string(), "x"});
  EXPECT_EQ(d.exit_code, 1);
  EXPECT_NE(d.err.find("token_embd.weight"), std::string::npos) << d.err;
  // Unreadable file, missing -m, bad --jsonl line.
  EXPECT_EQ(gguf::test::run_cli({"embed", "-m", "/nonexistent.gguf", "x"}).exit_code, 2);
  EXPECT_EQ(gguf::test::run_cli({"embed", "x"}).exit_code, 2);
  auto bad = gguf::test::temp_dir() / "embed_bad.jsonl";
  std::ofstream(bad) << "{\"no_text\": 1}\n";
  auto e = gguf::test::run_cli({"embed", "-m", model, "--jsonl"}, bad.string());
  EXPECT_EQ(e.exit_code, 1);
  EXPECT_NE(e.err.find("line 1"), std::string::npos) << e.err;
}

}  // namespace
