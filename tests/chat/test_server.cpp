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
  tc::replay_rendering("server", "server.jsonl.gz", gguf::chat_mode::server);
}
