// llama.cpp's own test pairs (tests/test-tokenizer-0 format): NAME.gguf.inp holds texts
// separated by "\n__ggml_vocab_test__\n", NAME.gguf.out one line of space-separated ids
// per text, tokenized with add_special = false and parse_special = false.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "gguf/vocab.h"
#include "test_support.h"

namespace {

class tokenizer_inp_out : public ::testing::TestWithParam<std::string> {};

TEST_P(tokenizer_inp_out, match_llama_cpp) {
  GGUF_REQUIRE_DATA();
  const std::string base = "vocab/ggml-vocab-" + GetParam() + ".gguf";
  auto f = gguf::file::open(gguf::test::data_file(base));
  ASSERT_TRUE(f) << f.error().message();
  auto v = gguf::vocab::load(*f);
  ASSERT_TRUE(v) << v.error().message();
  const std::string inp = gguf::test::read_text(gguf::test::data_file(base + ".inp"));
  const std::string out = gguf::test::read_text(gguf::test::data_file(base + ".out"));
  ASSERT_FALSE(inp.empty());
  const std::string sep = "\n__ggml_vocab_test__\n";
  std::vector<std::string> texts;
  for (size_t pos = 0;;) {
    const size_t next = inp.find(sep, pos);
    if (next == std::string::npos) {
      if (pos < inp.size()) texts.push_back(inp.substr(pos));  // gemma-4's file has no final separator
      break;
    }
    texts.push_back(inp.substr(pos, next - pos));
    pos = next + sep.size();
  }
  std::vector<std::vector<int32_t>> expected;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream ids(line);
    expected.emplace_back();
    for (int32_t id; ids >> id;) expected.back().push_back(id);
  }
  ASSERT_EQ(texts.size(), expected.size());
  size_t ok = 0;
  for (size_t i = 0; i < texts.size(); ++i) {
    const auto got = v->tokenize(texts[i], false, false).value();
    EXPECT_EQ(got, expected[i]) << GetParam() << " text #" << i;
    ok += got == expected[i];
  }
  std::printf("[ inp/out  ] %-16s %zu/%zu\n", GetParam().c_str(), ok, texts.size());
}

INSTANTIATE_TEST_SUITE_P(all, tokenizer_inp_out,
                         ::testing::Values("bert-bge", "command-r", "deepseek-coder", "deepseek-llm", "falcon",
                                           "gemma-4", "gpt-2", "llama-bpe", "llama-spm", "mpt", "nomic-bert-moe",
                                           "phi-3", "qwen2", "refact", "starcoder"),
                         [](const auto& info) { return gguf::test::test_name(info.param); });

}  // namespace
