// The llama-server rendering against llama.cpp v0.5.0's common_chat_templates_apply with
// llama-server's defaults (scripts/record-chat-llamacpp.sh -> server.jsonl.gz), and the caps it
// reported.
#include <gtest/gtest.h>

#include <cstdlib>

#include "chat/reasoning_markers.h"
#include "open_template.h"
#include "recordings.h"
#include "test_support.h"

namespace tc = gguf::test::chat;

TEST(ChatServer, MatchesLlamaServer) {
  setenv("SOURCE_DATE_EPOCH", "1721995200", 1);  // the recording ran at this time, in UTC
  setenv("TZ", "UTC", 1);
  tc::replay_rendering("server", "server.jsonl.gz", gguf::chat_mode::server);
}

// The marker diff the reasoning analysis reads markers off (llama.cpp's calculate_diff_split /
// segmentize_markers): the segmentation example of llama.cpp's header, and the cases the
// analysis meets (a middle between shared markers, one rendering extending the other).
TEST(ChatServer, MarkerDiff) {
  using gguf::chat_detail::text_segment;
  auto seg = gguf::chat_detail::segment_markers("<|tool_call|>[args]{ are here }[/args]<|tool_call_end|>");
  const std::vector<text_segment> want = {{true, "<|tool_call|>"}, {true, "[args]"}, {false, "{ are here }"},
                                          {true, "[/args]"}, {true, "<|tool_call_end|>"}};
  EXPECT_EQ(seg, want);
  auto d = gguf::chat_detail::diff_by_markers("<a>X one</a>", "<a>Y one</a>");
  EXPECT_EQ(d.prefix, "<a>");
  EXPECT_EQ(d.left, "X");
  EXPECT_EQ(d.right, "Y");
  EXPECT_EQ(d.suffix, " one</a>");
  // enable_thinking on adds "<think>\n" after the generation prompt
  d = gguf::chat_detail::diff_by_markers("<|im_start|>assistant\n", "<|im_start|>assistant\n<think>\n");
  EXPECT_EQ(d.prefix, "<|im_start|>assistant\n");
  EXPECT_EQ(d.left, "");
  EXPECT_EQ(d.right, "<think>\n");
  EXPECT_EQ(gguf::chat_detail::trim_ascii_space(" \t\n<think>\n\v"), "<think>");
}

// A vocabulary file without tokenizer.chat_template: llama-server renders its default, a Jinja
// chatml (CHATML_TEMPLATE_SRC), which continues a trailing assistant message and reports the caps
// of that text; we rendered the legacy built-in (closing the message) and reported no caps.
// Recorded for every such file of the test data, and for --chat-template chatml, which
// llama-server also replaces by that text (server-no-template.jsonl.gz).
TEST(ChatServer, AFileWithoutATemplateRendersAsLlamaServer) {
  GGUF_REQUIRE_DATA();
  setenv("SOURCE_DATE_EPOCH", "1721995200", 1);
  setenv("TZ", "UTC", 1);
  const auto records = tc::read_jsonl_gz("server-no-template.jsonl.gz");
  ASSERT_GE(records.size(), 16u * 10);
  std::map<std::string, std::optional<gguf::result<gguf::chat_template>>> templates;
  size_t caps_checked = 0;
  for (const auto& r : records) {
    const std::string t = r.contains("t") ? r["t"] : r["caps"];
    if (!templates.count(t)) {
      // a vocabulary file, or "name:chatml" (--chat-template chatml, the same Jinja chatml)
      templates.emplace(t, t.rfind("name:", 0) == 0
                               ? std::optional(gguf::chat_template::builtin(t.substr(5)))
                               : tc::open_template(tc::ojson{{"name", t}}));
    }
    auto& tmpl = templates.at(t);
    ASSERT_TRUE(tmpl && *tmpl) << t;
    if (r.contains("caps")) {
      auto caps = (*tmpl)->caps();
      EXPECT_EQ(caps.supports_enable_thinking, r["thinking"].get<bool>()) << t;
      for (const auto& [k, v] : r.items()) {
        if (k.rfind("supports_", 0) != 0) continue;
        bool have = false;
        for (const auto& f : gguf::chat_caps_fields)
          if (k == f.name) have = caps.*(f.member);
        EXPECT_EQ(have, v.get<bool>()) << t << " " << k;
      }
      ++caps_checked;
    }
  }
  EXPECT_EQ(caps_checked, templates.size());
  tc::replay("server-no-template", records, [&](const std::string& t, const tc::ojson& conv) -> std::optional<tc::rendered> {
    const auto& tmpl = *templates.at(t);
    auto out = tmpl->apply(conv["messages"].dump(), conv.contains("tools") ? conv["tools"].dump() : "",
                           conv.value("add_generation_prompt", false),
                           conv.contains("chat_template_kwargs") ? conv["chat_template_kwargs"].dump() : "",
                           gguf::chat_mode::server);
    return out ? tc::rendered{true, *out} : tc::rendered{false, out.error().message()};
  });
  // transformers mode (transformers refuses such a file) keeps the built-in chatml, which takes
  // null content and content parts
  const auto convs = tc::conversations();
  for (const auto& [name, conv] : convs) {
    auto out = (*templates.at("name:chatml"))->apply(conv["messages"].dump(), "", conv.value("add_generation_prompt", false));
    EXPECT_TRUE(out) << name << ": " << out.error().message();
  }
}
