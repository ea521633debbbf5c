// Built-in templates against llama.cpp v0.5.0's llama_chat_apply_template and
// llm_chat_detect_template (recorded by scripts/record-chat-llamacpp.sh in builtin.jsonl.gz).
#include <gtest/gtest.h>

#include "gguf/chat.h"
#include "recordings.h"

namespace tc = gguf::test::chat;

TEST(ChatBuiltin, NamesAreLlamaCpps) {
  std::set<std::string> recorded;
  for (const auto& r : tc::read_jsonl_gz("builtin.jsonl.gz"))
    if (r.contains("c")) recorded.insert(r["t"].get<std::string>());
  ASSERT_FALSE(recorded.empty());
  std::set<std::string> ours(gguf::chat_builtin_templates().begin(), gguf::chat_builtin_templates().end());
  EXPECT_EQ(ours, recorded);
}

TEST(ChatBuiltin, ApplyMatchesLlamaCpp) {
  tc::replay("builtin", tc::read_jsonl_gz("builtin.jsonl.gz"), [](const std::string& t, const tc::ojson& conv) {
    auto tmpl = gguf::chat_template::builtin(t);
    if (!tmpl) return std::optional<tc::rendered>(tc::rendered{false, tmpl.error().message()});
    auto out = tmpl->apply(conv["messages"].dump(), "", conv.value("add_generation_prompt", false));
    return std::optional<tc::rendered>(out ? tc::rendered{true, *out} : tc::rendered{false, out.error().message()});
  });
}

TEST(ChatBuiltin, DetectMatchesLlamaCpp) {
  std::map<std::string, std::string> sources;
  for (const auto& t : tc::read_jsonl_gz("templates.jsonl.gz")) sources[t["name"]] = t["source"];
  size_t n = 0;
  for (const auto& r : tc::read_jsonl_gz("builtin.jsonl.gz")) {
    if (!r.contains("detect")) continue;
    auto got = gguf::chat_detect_template(sources.at(r["detect"]));
    std::string want = r["as"].is_null() ? "" : r["as"].get<std::string>();
    EXPECT_EQ(std::string(got.value_or("")), want) << r["detect"];
    ++n;
  }
  EXPECT_EQ(n, sources.size());
  // every name detects as itself; an unknown text as nothing
  for (auto name : gguf::chat_builtin_templates()) EXPECT_EQ(gguf::chat_detect_template(name), name);
  EXPECT_FALSE(gguf::chat_detect_template("{{ messages[0].content }}"));
}

TEST(ChatBuiltin, UnknownNameIsAnError) {
  auto t = gguf::chat_template::builtin("no-such-template");
  ASSERT_FALSE(t);
  EXPECT_EQ(t.error().code, gguf::errc::invalid_argument);
  // a built-in name given as a template source selects the built-in
  auto s = gguf::chat_template::from_source("llama3");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->builtin_name(), "llama3");
}
