// Real vocabularies loaded with another tokenizer.ggml.pre (or special-token keys) written
// over theirs, the way llama.cpp v0.5.0 was checked preset by preset: the expected ids are
// what that llama.cpp printed (tests/vocab/data/reference holds all of them; these few pin
// the cases that once differed).
#include <gtest/gtest.h>

#include "gguf/file.h"
#include "gguf/vocab.h"
#include "gguf/writer.h"
#include "test_support.h"
#include "tokenize_failure.h"

namespace {

struct override_kv {
  std::string key;
  std::string value;  // string value; "" removes the key
};

// The vocabulary file `path` (under the test data) with string keys replaced.
gguf::result<gguf::vocab> load_file_with(const std::string& path, const std::vector<override_kv>& kvs,
                                         std::vector<std::pair<std::string, bool>> bools = {}) {
  auto f = gguf::file::open(gguf::test::data_file(path));
  EXPECT_TRUE(f.ok());
  auto w = gguf::writer::from_file(*f);
  for (const auto& kv : kvs) {
    if (kv.value.empty()) w.remove(kv.key);
    else EXPECT_TRUE(w.set(kv.key, gguf::value::string(kv.value)).ok());
  }
  for (const auto& [k, b] : bools) EXPECT_TRUE(w.set(k, gguf::value::boolean(b)).ok());
  auto copy = gguf::file::from_buffer(w.to_bytes());
  EXPECT_TRUE(copy.ok());
  return gguf::vocab::load(*copy);
}

// `name` (vocab/ggml-vocab-NAME.gguf) with string keys replaced.
gguf::result<gguf::vocab> load_with(const std::string& name, const std::vector<override_kv>& kvs,
                                    std::vector<std::pair<std::string, bool>> bools = {}) {
  return load_file_with("vocab/ggml-vocab-" + name + ".gguf", kvs, std::move(bools));
}

std::vector<int32_t> ids(const gguf::vocab& v, std::string_view text) {
  auto r = v.tokenize(text, false, false);
  EXPECT_TRUE(r.ok()) << text;
  return r ? *r : std::vector<int32_t>{};
}

// llama.cpp's collapsed \p{S} has '~' among its ASCII members ($+<=>^`|~, src/unicode.cpp):
// the presets whose regex names \p{S} split '~' as a symbol.
TEST(pre_override, tilde_is_a_collapsed_symbol) {
  GGUF_REQUIRE_DATA();
  for (const char* pre : {"deepseek-v3", "hunyuan-dense", "hy_v4", "joyai-llm", "spark2_5", "afmoe"}) {
    auto v = load_with("llama-bpe", {{"tokenizer.ggml.pre", pre}});
    ASSERT_TRUE(v.ok()) << pre << ": " << v.error().message();
    EXPECT_EQ(ids(*v, " ~"), (std::vector<int32_t>{4056})) << pre;
  }
  auto v = load_with("llama-bpe", {{"tokenizer.ggml.pre", "deepseek-v3"}});
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(ids(*v, "~_H"), (std::vector<int32_t>{93, 62, 39}));
}

// jina-v1-en, jina-v2-code and roberta-bpe turn add_sep on; a vocabulary without a
// separator id loads (llama.cpp's does) and tokenizes, add_special included: BPE adds no SEP.
TEST(pre_override, add_sep_without_separator_loads) {
  GGUF_REQUIRE_DATA();
  for (const char* pre : {"jina-v1-en", "jina-v2-code", "roberta-bpe"}) {
    auto v = load_with("gpt-2", {{"tokenizer.ggml.pre", pre}, {"tokenizer.ggml.seperator_token_id", ""}});
    ASSERT_TRUE(v.ok()) << pre << ": " << v.error().message();
    EXPECT_TRUE(v->add_sep());
    EXPECT_EQ(v->sep(), gguf::token_null);
    EXPECT_EQ(ids(*v, "Hello world"), (std::vector<int32_t>{15496, 995})) << pre;
    auto with_special = v->tokenize("Hello world", true, true);
    ASSERT_TRUE(with_special.ok()) << with_special.error().message();
  }
}

// add_bos on with no BOS id (chatglm-bpe clears it): llama.cpp loads and then aborts in
// llama_tokenize(add_special); we load, tokenize without add_special, and refuse with it.
TEST(pre_override, add_special_without_its_id_is_an_error) {
  GGUF_REQUIRE_DATA();
  auto v = load_with("llama-bpe", {{"tokenizer.ggml.pre", "chatglm-bpe"}, {"tokenizer.ggml.bos_token_id", ""}},
                     {{"tokenizer.ggml.add_bos_token", true}});
  ASSERT_TRUE(v.ok()) << v.error().message();
  EXPECT_EQ(v->bos(), gguf::token_null);
  EXPECT_TRUE(v->add_bos());
  EXPECT_FALSE(ids(*v, "Hello").empty());
  auto r = v->tokenize("Hello", true, true);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, gguf::errc::invalid_vocab);
  EXPECT_NE(r.error().message().find("tokenizer.ggml.bos_token_id is not set"), std::string::npos)
      << r.error().message();
  std::vector<int32_t> out{7};
  auto into = v->tokenize_into("Hello", out, true, true);
  ASSERT_FALSE(into.ok());
  EXPECT_EQ(out, (std::vector<int32_t>{7}));
  EXPECT_EQ(into.error().subject, "tokenizer.ggml.bos_token_id");  // the reason, with the failure
  EXPECT_EQ(into.error().message(), r.error().message());
}

// The same with a model that proves its own ids are tokens (UGM over its automaton:
// tokenizer_model::ids_in_range), where tokenize_into checks only the ids it adds.
TEST(pre_override, add_special_without_its_id_is_an_error_after_a_proven_model) {
  GGUF_REQUIRE_DATA();
  auto v = load_file_with("vocab/ugm-sp-test.gguf", {{"tokenizer.ggml.bos_token_id", ""}},
                          {{"tokenizer.ggml.add_bos_token", true}});
  ASSERT_TRUE(v.ok()) << v.error().message();
  EXPECT_EQ(v->bos(), gguf::token_null);
  EXPECT_FALSE(ids(*v, "Hello world").empty());
  auto r = v->tokenize("Hello world", true, false);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, gguf::errc::invalid_vocab);
  EXPECT_EQ(gguf::test::tokenize_into_fails(*v, "Hello world", true, false).subject, "tokenizer.ggml.bos_token_id");
}

// The whitespace pre-tokenizer (\S+, no byte encoding) hands BPE the whitespace between
// words; llama.cpp v0.5.0 drops a single whitespace character there ("a b" -> a, b) and
// aborts on a run of two or more (GGML_ASSERT in find_bpe_rank). We drop every run (see
// docs/tokenizers.md): "a  b" gives the ids llama.cpp gives "a b".
TEST(pre_override, whitespace_preset_drops_whitespace_runs) {
  GGUF_REQUIRE_DATA();
  auto v = load_with("gpt-2", {{"tokenizer.ggml.pre", "whitespace"}});
  ASSERT_TRUE(v.ok()) << v.error().message();
  EXPECT_EQ(ids(*v, "a b"), (std::vector<int32_t>{64, 65}));
  EXPECT_EQ(ids(*v, "a  b"), (std::vector<int32_t>{64, 65}));
  EXPECT_EQ(ids(*v, "x y"), (std::vector<int32_t>{87, 88}));
  EXPECT_EQ(ids(*v, "x \t y"), (std::vector<int32_t>{87, 88}));
}

}  // namespace
