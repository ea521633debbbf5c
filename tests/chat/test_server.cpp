// The llama-server rendering against llama.cpp v0.5.0's common_chat_templates_apply with
// llama-server's defaults (scripts/record-chat-llamacpp.sh -> server.jsonl.gz), and the caps it
// reported.
#include <gtest/gtest.h>

#include <cstdlib>

#include "open_template.h"
#include "recordings.h"

namespace tc = gguf::test::chat;

TEST(ChatServer, MatchesLlamaServer) {
  setenv("SOURCE_DATE_EPOCH", "1721995200", 1);  // the recording ran at this time, in UTC
  setenv("TZ", "UTC", 1);
  std::map<std::string, std::optional<gguf::result<gguf::chat_template>>> templates;
  for (const auto& t : tc::read_jsonl_gz("templates.jsonl.gz")) templates.emplace(t["name"], tc::open_template(t));
  ASSERT_GE(templates.size(), 70u);
  tc::replay("server", tc::read_jsonl_gz("server.jsonl.gz"),
             [&](const std::string& t, const tc::ojson& conv) -> std::optional<tc::rendered> {
               const auto& tmpl = templates.at(t);
               if (!tmpl) return std::nullopt;
               if (!*tmpl) return tc::rendered{false, tmpl->error().message()};
               auto out = (*tmpl)->apply(conv["messages"].dump(), conv.contains("tools") ? conv["tools"].dump() : "",
                                         conv.value("add_generation_prompt", false),
                                         conv.contains("chat_template_kwargs") ? conv["chat_template_kwargs"].dump() : "",
                                         gguf::chat_mode::server);
               return out ? tc::rendered{true, *out} : tc::rendered{false, out.error().message()};
             });
}
