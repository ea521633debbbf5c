// Pre-tokenizer table and engine: every preset compiles; every tokenizer.ggml.pre name
// resolves; the hand-written splitters agree with PCRE2 running the regex they stand for
// (differential, over the shared corpus and edge cases); llama.cpp regex semantics that
// a direct PCRE2 use would get wrong (empty matches, $, collapsed categories).
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "test_support.h"
#include "vocab/pre_tokenizer/pre_tokenizer.h"
#include "vocab/unicode/unicode.h"

namespace {

using namespace gguf::vocab_detail;

std::vector<std::string> split(const pre_preset& p, std::string_view text, bool generic = false) {
  pre_tokenizer t(p, generic);
  std::vector<std::string> out;
  t.split_text(text, out);
  return out;
}

const pre_preset& preset(std::string_view id) {
  for (const auto& p : all_presets())
    if (p.id == id) return p;
  throw std::runtime_error("no preset");
}

TEST(pre_tokenizer, every_preset_compiles) {
  for (const auto& p : all_presets()) {
    EXPECT_NO_THROW(pre_tokenizer(p, false)) << p.id;
    EXPECT_NO_THROW(pre_tokenizer(p, true)) << p.id;
  }
}

TEST(pre_tokenizer, names_resolve_and_are_unique) {
  std::set<std::string_view> seen;
  for (const auto& n : all_pre_names()) {
    EXPECT_TRUE(seen.insert(n.name).second) << n.name;
    ASSERT_NE(n.preset, nullptr);
    EXPECT_EQ(find_pre_name(n.name), &n);
  }
  for (std::string_view name : {"llama-bpe", "qwen2", "qwen35", "deepseek-llm", "deepseek-coder", "deepseek-v3",
                                "falcon", "mpt", "starcoder", "gpt-2", "refact", "command-r", "stablelm2", "olmo",
                                "dbrx", "smaug-bpe", "poro-chat", "chatglm-bpe", "viking", "jais", "tekken", "smollm",
                                "codeshell", "bloom", "gpt3-finnish", "exaone", "chameleon", "minerva-7b", "megrez",
                                "gpt-4o", "superbpe", "trillion", "bailingmoe", "llama4", "pixtral", "seed-coder",
                                "kimi-k2", "grok-2", "gemma4"})
    EXPECT_NE(find_pre_name(name), nullptr) << name;
  EXPECT_EQ(find_pre_name("no-such-pre"), nullptr);
}

TEST(pre_tokenizer, gpt2_pieces) {
  // expected pieces follow the regex 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)
  const auto got = split(preset("gpt2"), "Hello world's  42!!");
  const std::vector<std::string> want = {"Hello", "Ġworld", "'s", "Ġ", "Ġ42", "!!"};
  EXPECT_EQ(got, want);
}

TEST(pre_tokenizer, superbpe_empty_matches_split_digit_groups) {
  // (?=(\d{3})+(?!\d)) matches empty strings; std::regex_iterator semantics split a run
  // of 7 digits as 1 + 3 + 3 (the empty pieces carry no text).
  std::vector<std::string> got;
  for (auto& s : split(preset("superbpe"), "1234567"))
    if (!s.empty()) got.push_back(s);
  const std::vector<std::string> want = {"1", "234", "567"};
  EXPECT_EQ(got, want);
}

TEST(pre_tokenizer, dollar_only_at_end) {
  // deepseek-llm's \s+$ must not match before a final newline (ECMAScript $)
  const auto got = split(preset("deepseek-llm"), "a \n");
  std::string joined;
  for (auto& s : got) {
    joined += '|';
    joined += s;
  }
  EXPECT_EQ(joined, "|a|Ġ|Ċ");
}

std::string corpus() {
  std::string all;
  for (const char* name : {"corpus/multilingual.txt", "corpus/code.txt"}) {
    all += gguf::test::read_text(gguf::test::data_file(name)).substr(0, 400000);
  }
  all += " \t\r\n  x  \n\n 'S 'LL 'Ve ' s''' 123456789 ١٢٣ ½ 𝟘 \xC2\xA0\xC2\xA0" "a\xE3\x80\x80 \xFF\xFE abc\x80 end  ";
  return all;
}

TEST(pre_tokenizer, fast_paths_agree_with_pcre2) {
  GGUF_REQUIRE_DATA();
  const std::string text = corpus();
  for (const auto& p : all_presets()) {
    bool has_fast = false;
    for (const auto& r : p.rules)
      has_fast |= r.kind == split_kind::gpt2 || r.kind == split_kind::llama3 || r.kind == split_kind::qwen2 ||
                  r.kind == split_kind::newlines;
    if (!has_fast) continue;
    // compare line by line so that a difference is easy to read
    const pre_tokenizer fast_t(p, false), slow_t(p, true);
    std::istringstream lines(text);
    size_t n = 0, bad = 0;
    std::vector<std::string> fast, slow;
    for (std::string line; std::getline(lines, line);) {
      line += '\n';
      ++n;
      fast_t.split_text(line, fast);
      slow_t.split_text(line, slow);
      if (fast != slow && bad++ < 3) ADD_FAILURE() << p.id << " differs on: " << line;
    }
    EXPECT_EQ(bad, 0u) << p.id << " (" << n << " lines)";
  }
}

}  // namespace
