// The llama-server rendering against llama.cpp v0.5.0's common_chat_templates_apply with
// llama-server's defaults (scripts/record-chat-llamacpp.sh -> server.jsonl.gz), and the caps it
// reported.
#include <gtest/gtest.h>

#include <cstdlib>

#include "chat/reasoning_markers.h"
#include "open_template.h"
#include "recordings.h"

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
