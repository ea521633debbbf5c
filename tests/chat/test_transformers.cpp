// The transformers rendering against Debian's python3-jinja2 in transformers' environment
// (scripts/record_chat_transformers.py -> transformers.jsonl.gz): every template of llama.cpp's
// models/templates and of the vocabularies in the test data, on every conversation.
#include <gtest/gtest.h>

#include <cstdlib>

#include "gguf/chat.h"
#include "gguf/file.h"
#include "gguf/vocab.h"
#include "open_template.h"
#include "recordings.h"
#include "test_support.h"

namespace tc = gguf::test::chat;

using gguf::test::chat::open_template;

TEST(ChatTransformers, MatchesJinja2) {
  setenv("SOURCE_DATE_EPOCH", "1721995200", 1);
  tc::replay_rendering("transformers", "transformers.jsonl.gz", gguf::chat_mode::transformers);
}

TEST(ChatTransformers, SpecialTokensFromTheVocabulary) {
  GGUF_REQUIRE_DATA();
  // the recording took them from the file's tokenizer.ggml.*_token_id keys
  for (const auto& t : tc::read_jsonl_gz("templates.jsonl.gz")) {
    const std::string name = t["name"];
    if (name.rfind("vocab/", 0) != 0) continue;
    auto tmpl = open_template(t);
    ASSERT_TRUE(tmpl && *tmpl) << name;
    const auto& tk = (**tmpl).tokens();
    auto want = [&](const char* k) { return t["tokens"].contains(k) ? std::optional<std::string>(t["tokens"][k]) : std::nullopt; };
    EXPECT_EQ(tk.bos_token, want("bos_token")) << name;
    EXPECT_EQ(tk.eos_token, want("eos_token")) << name;
    EXPECT_EQ(tk.pad_token, want("pad_token")) << name;
    EXPECT_EQ(tk.unk_token, want("unk_token")) << name;
  }
}
