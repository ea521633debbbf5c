// Naming convention: the spec's examples (GGUF spec, "GGUF Naming Convention", both the
// bullet list and the test table of its Node.js example), shard rules, size labels
// (gguf-py's model_weight_count_rounded_notation), suggest_name on real files.
#include <gtest/gtest.h>

#include "gguf/keys.h"
#include "gguf/naming.h"
#include "test_support.h"

namespace gguf {
namespace {

struct expected {
  const char* file;
  const char* sidecar;
  const char* base;
  const char* size;
  const char* fine_tune;
  const char* version;
  const char* encoding;
  const char* type;
  uint32_t shard, shard_count;
};

// The spec's test table (expected values copied from it).
const expected spec_table[] = {
    {"Mixtral-8x7B-v0.1-KQ2.gguf", "", "Mixtral", "8x7B", "", "v0.1", "KQ2", "", 0, 0},
    {"Grok-100B-v1.0-Q4_0-00003-of-00009.gguf", "", "Grok", "100B", "", "v1.0", "Q4_0", "", 3, 9},
    {"Hermes-2-Pro-Llama-3-8B-v1.0-F16.gguf", "", "Hermes-2-Pro-Llama-3", "8B", "", "v1.0", "F16", "", 0, 0},
    {"Phi-3-mini-3.8B-ContextLength4k-instruct-v1.0.gguf", "", "Phi-3-mini", "3.8B-ContextLength4k", "instruct",
     "v1.0", "", "", 0, 0},
    {"mtp-Qwen3-27B-v1.0-Q4_K_M.gguf", "mtp", "Qwen3", "27B", "", "v1.0", "Q4_K_M", "", 0, 0},
    {"mmproj-Qwen2-VL-7B-v1.0-F16.gguf", "mmproj", "Qwen2-VL", "7B", "", "v1.0", "F16", "", 0, 0},
};

TEST(Naming, SpecTestTable) {
  for (const auto& e : spec_table) {
    auto c = parse_name(e.file);
    EXPECT_TRUE(c.conforms) << e.file;
    ASSERT_TRUE(c.parts) << e.file;
    const auto& p = *c.parts;
    EXPECT_EQ(p.sidecar, e.sidecar) << e.file;
    EXPECT_EQ(p.base_name, e.base) << e.file;
    EXPECT_EQ(p.size_label, e.size) << e.file;
    EXPECT_EQ(p.fine_tune, e.fine_tune) << e.file;
    EXPECT_EQ(p.version, e.version) << e.file;
    EXPECT_EQ(p.encoding, e.encoding) << e.file;
    EXPECT_EQ(p.type, e.type) << e.file;
    EXPECT_EQ(p.shard, e.shard) << e.file;
    EXPECT_EQ(p.shard_count, e.shard_count) << e.file;
  }
  auto bad = parse_name("not-a-known-arrangement.gguf");  // expected: null
  EXPECT_FALSE(bad.conforms);
  EXPECT_FALSE(bad.parts);
  EXPECT_FALSE(bad.problems.empty());
}

TEST(Naming, SpecBulletExamples) {
  // Mixtral-8x7B-v0.1-KQ2: expert count 8, parameter count 7B, v0.1, KQ2.
  auto m = parse_name("Mixtral-8x7B-v0.1-KQ2.gguf");
  ASSERT_TRUE(m.parts);
  EXPECT_EQ(m.parts->expert_count, 8u);
  EXPECT_EQ(m.parts->parameter_count, "7B");
  // Hermes-2-Pro-Llama-3-8B-F16: model name "Hermes 2 Pro Llama 3", expert count 0, 8B,
  // version v1.0 (assumed: the name has none, so it does not pass the regex), F16.
  auto h = parse_name("Hermes-2-Pro-Llama-3-8B-F16.gguf");
  EXPECT_FALSE(h.conforms);
  ASSERT_TRUE(h.parts);
  EXPECT_EQ(h.parts->base_name, "Hermes-2-Pro-Llama-3");
  EXPECT_EQ(h.parts->expert_count, 0u);
  EXPECT_EQ(h.parts->parameter_count, "8B");
  EXPECT_EQ(h.parts->version, "v1.0");
  EXPECT_FALSE(h.parts->version_given);
  EXPECT_EQ(h.parts->encoding, "F16");
  EXPECT_EQ(h.parts->shard_count, 0u);
  // Grok-100B-v1.0-Q4_0-00003-of-00009: shard 3 out of 9.
  auto g = parse_name("Grok-100B-v1.0-Q4_0-00003-of-00009.gguf");
  ASSERT_TRUE(g.parts);
  EXPECT_EQ(g.parts->expert_count, 0u);
  EXPECT_EQ(g.parts->parameter_count, "100B");
  EXPECT_EQ(g.parts->shard, 3u);
  EXPECT_EQ(g.parts->shard_count, 9u);
}

TEST(Naming, TypeComponent) {
  auto l = parse_name("Llama-3-8B-v1.0-F16-LoRA.gguf");
  ASSERT_TRUE(l.conforms);
  EXPECT_EQ(l.parts->type, "LoRA");
  EXPECT_EQ(l.parts->encoding, "F16");
  auto v = parse_name("Llama-3-8B-v1.0-vocab.gguf");
  ASSERT_TRUE(v.conforms);
  EXPECT_EQ(v.parts->type, "vocab");
  EXPECT_EQ(v.parts->encoding, "");
}

TEST(Naming, ShardRules) {
  auto zero = parse_name("Grok-100B-v1.0-Q4_0-00000-of-00009.gguf");
  EXPECT_FALSE(zero.conforms);
  ASSERT_FALSE(zero.problems.empty());
  EXPECT_NE(zero.problems[0].find("00001"), std::string::npos);
  auto over = parse_name("Grok-100B-v1.0-Q4_0-00010-of-00009.gguf");
  EXPECT_FALSE(over.conforms);
  // Found by fuzz_name: a ShardTotal of 00000 passed as "not sharded" although the name
  // has a Shard component (tests/hostile/regressions/fuzz_name-shard-total-zero).
  auto none = parse_name("Grok-0B-v1.0-Q4_-00003-of-00000.gguf");
  EXPECT_FALSE(none.conforms);
  ASSERT_TRUE(none.parts);
  EXPECT_TRUE(none.parts->sharded);
  EXPECT_EQ(none.parts->shard, 3u);
  EXPECT_EQ(none.parts->shard_count, 0u);
  ASSERT_FALSE(none.problems.empty());
  EXPECT_NE(none.problems[0].find("ShardTotal is at least 00001"), std::string::npos) << none.problems[0];
  auto zeros = parse_name("Grok-100B-v1.0-Q4_0-00000-of-00000.gguf");
  EXPECT_FALSE(zeros.conforms);
  EXPECT_TRUE(zeros.parts && zeros.parts->sharded);
  auto plain = parse_name("Grok-100B-v1.0-Q4_0.gguf");
  EXPECT_TRUE(plain.conforms);
  EXPECT_FALSE(plain.parts->sharded);
  auto short_digits = parse_name("Grok-100B-v1.0-Q4_0-3-of-9.gguf");
  EXPECT_FALSE(short_digits.conforms);
  ASSERT_TRUE(short_digits.parts);
  EXPECT_EQ(short_digits.parts->shard, 3u);
  EXPECT_NE(short_digits.problems[0].find("5 digits"), std::string::npos);
}

TEST(Naming, NonConformingNamesSayWhy) {
  auto ext = parse_name("Mixtral-8x7B-v0.1-KQ2.bin");
  EXPECT_FALSE(ext.conforms);
  EXPECT_NE(ext.problems[0].find(".gguf"), std::string::npos);
  auto nosize = parse_name("llama-v1.0.gguf");
  EXPECT_FALSE(nosize.conforms);
  bool mentions = false;
  for (const auto& p : nosize.problems) mentions |= p.find("SizeLabel") != std::string::npos;
  EXPECT_TRUE(mentions);
  EXPECT_TRUE(parse_name("/some/dir/Mixtral-8x7B-v0.1-KQ2.gguf").conforms);
}

TEST(Naming, SizeLabelRounding) {
  // gguf-py model_weight_count_rounded_notation (min_digits = 2).
  EXPECT_EQ(size_label_for(3'800'000'000ull), "3.8B");
  EXPECT_EQ(size_label_for(8'030'261'248ull), "8.0B");
  EXPECT_EQ(size_label_for(70'553'706'496ull), "71B");
  EXPECT_EQ(size_label_for(260'000ull), "260K");
  EXPECT_EQ(size_label_for(1'500'000ull), "1.5M");
  EXPECT_EQ(size_label_for(2'000'000'000'000'000ull), "2.0Q");
  EXPECT_EQ(size_label_for(7'241'732'096ull, 8), "8x7.2B");
}

TEST(Naming, SuggestFromRealFiles) {
  GGUF_REQUIRE_DATA();
  // stories260K-Q8_0: general.name "llama", no size_label (the tensors are counted),
  // general.file_type 7 = MOSTLY_Q8_0.
  auto f = file::open(test::data_file("models/stories260K-Q8_0.gguf"));
  ASSERT_TRUE(f);
  uint64_t params = 0;
  for (const auto& t : f->tensors()) params += t.nelements();
  std::vector<std::string> problems;
  std::string n = suggest_name(*f, &problems);
  EXPECT_EQ(n, "llama-" + size_label_for(params) + "-v1.0-Q8_0.gguf");
  EXPECT_TRUE(problems.empty());
  EXPECT_TRUE(parse_name(n).conforms);

  // A vocabulary-only file: Type vocab; no parameters, so no SizeLabel (the spec's
  // regular expression makes it optional): conforming.
  auto v = file::open(test::data_file("vocab/ggml-vocab-nomic-bert-moe.gguf"));
  ASSERT_TRUE(v);
  problems.clear();
  n = suggest_name(*v, &problems);
  EXPECT_EQ(n, "nomic-xlm-v2048-vocab.gguf");  // general.basename, general.version "2048"
  EXPECT_TRUE(problems.empty()) << problems[0];
  // The name suggested for a vocabulary-only file conforms to the check (it had no
  // SizeLabel and was rejected): every vocab file of the test data.
  for (const auto& e : std::filesystem::directory_iterator(test::data_file("vocab"))) {
    if (e.path().extension() != ".gguf") continue;
    auto vf = file::open(e.path());
    ASSERT_TRUE(vf) << e.path();
    auto suggested = suggest_name(*vf);
    auto check = parse_name(suggested);
    EXPECT_TRUE(check.conforms) << suggested << ": " << (check.problems.empty() ? "" : check.problems[0]);
    EXPECT_EQ(check.parts->type, "vocab") << suggested;
  }
  EXPECT_FALSE(parse_name("Llama-v1.0.gguf").conforms);  // a model file still needs its SizeLabel
}

TEST(Keys, FileTypeNames) {
  // llama.cpp include/llama.h enum llama_ftype.
  EXPECT_EQ(file_type_name(0), "ALL_F32");
  EXPECT_EQ(file_type_name(1), "MOSTLY_F16");
  EXPECT_EQ(file_type_name(2), "MOSTLY_Q4_0");
  EXPECT_EQ(file_type_name(7), "MOSTLY_Q8_0");
  EXPECT_EQ(file_type_name(15), "MOSTLY_Q4_K_M");
  EXPECT_EQ(file_type_name(32), "MOSTLY_BF16");
  EXPECT_EQ(file_type_name(4), "");   // removed MOSTLY_Q4_1_SOME_F16
  EXPECT_EQ(file_type_name(33), "");  // removed Q4_0_4_4
  EXPECT_EQ(file_type_name(1024), "");
}

TEST(Keys, FileTypesOfRealModelsMatchTheirTensors) {
  GGUF_REQUIRE_DATA();
  // README: stories260K-<T>.gguf were made by llama-quantize ... <T>.
  struct c {
    const char* file;
    const char* label;
  } cases[] = {{"models/stories260K-F16.gguf", "F16"},     {"models/stories260K-BF16.gguf", "BF16"},
               {"models/stories260K-Q4_0.gguf", "Q4_0"},   {"models/stories260K-Q5_1.gguf", "Q5_1"},
               {"models/stories260K-IQ4_NL.gguf", "IQ4_NL"}, {"models/synth-llama-256-Q4_K_M.gguf", "Q4_K_M"}};
  for (const auto& k : cases) {
    auto f = file::open(test::data_file(k.file));
    ASSERT_TRUE(f) << k.file;
    auto id = f->get_uint("general.file_type");
    ASSERT_TRUE(id) << k.file;
    const auto* info = find_file_type(static_cast<uint32_t>(*id));
    ASSERT_NE(info, nullptr) << k.file;
    EXPECT_EQ(info->label, k.label) << k.file;
  }
}

TEST(Keys, StandardKeyLookup) {
  const auto* k = find_standard_key("llama.context_length", "llama");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->name, "[llm].context_length");
  EXPECT_EQ(find_standard_key("llama.context_length", "falcon"), nullptr);
  EXPECT_NE(find_standard_key("general.alignment", ""), nullptr);
  EXPECT_EQ(renamed_key_for("llama.hidden_size", "llama"), "llama.embedding_length");
  EXPECT_EQ(renamed_key_for("llama.embedding_length", "llama"), "");
  ASSERT_NE(find_architecture("llama"), nullptr);
  EXPECT_TRUE(find_architecture("llama")->in_spec);
  EXPECT_TRUE(is_standard_tensor_name("blk.12.ffn_down.weight"));
  EXPECT_TRUE(is_standard_tensor_name("token_embd.weight"));
  EXPECT_FALSE(is_standard_tensor_name("blk.x.ffn_down.weight"));
  EXPECT_FALSE(is_standard_tensor_name("l0_weights"));
}

}  // namespace
}  // namespace gguf
