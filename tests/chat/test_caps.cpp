// Template capabilities equal llama.cpp v0.5.0's (jinja::caps_get via
// common_chat_templates_get_caps), recorded by scripts/record_jinja_caps.py for the 70
// reference templates and the vocab files' templates (tests/chat/data/jinja-caps.jsonl.gz).
#include <gtest/gtest.h>
#include <zlib.h>

#include <nlohmann/json.hpp>

#include "chat/caps.h"
#include "gguf/chat.h"

namespace {

std::vector<nlohmann::ordered_json> read_records() {
  std::string path = std::string(GGUF_SOURCE_DIR) + "/tests/chat/data/jinja-caps.jsonl.gz";
  gzFile f = gzopen(path.c_str(), "rb");
  EXPECT_NE(f, nullptr) << path;
  std::string text;
  char buf[1 << 16];
  int n;
  while (f && (n = gzread(f, buf, sizeof buf)) > 0) text.append(buf, n);
  if (f) gzclose(f);
  std::vector<nlohmann::ordered_json> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t e = text.find('\n', pos);
    if (e == std::string::npos) e = text.size();
    if (e > pos) out.push_back(nlohmann::ordered_json::parse(text.substr(pos, e - pos)));
    pos = e + 1;
  }
  return out;
}

TEST(TemplateCaps, EqualLlamaCppForEveryRecordedTemplate) {
  auto records = read_records();
  ASSERT_GE(records.size(), 70u);
  size_t compared = 0;
  for (const auto& r : records) {
    const std::string name = r["name"].get<std::string>();
    if (!r.contains("caps")) continue;  // llama.cpp could not load it
    auto prog = gguf::jinja::parse(r["template"].get<std::string>());
    ASSERT_TRUE(prog) << name << ": " << prog.error().detail;
    auto caps = gguf::chat::probe_caps(*prog);
    for (const auto& [k, v] : caps.to_map()) {
      ASSERT_TRUE(r["caps"].contains(k)) << name << " " << k;
      EXPECT_EQ(v, r["caps"][k].get<bool>()) << name << ": " << k;
    }
    ++compared;
  }
  EXPECT_GE(compared, 70u);
}

// supports_enable_thinking equals common_chat_templates_support_enable_thinking (recorded with
// empty BOS / EOS tokens, as the driver initialises the templates).
TEST(TemplateCaps, EnableThinkingEqualsLlamaCppForEveryRecordedTemplate) {
  size_t compared = 0, on = 0;
  for (const auto& r : read_records()) {
    if (!r.contains("enable_thinking")) continue;
    const std::string name = r["name"].get<std::string>();
    auto t = gguf::chat_template::from_source(r["template"].get<std::string>(), {});
    ASSERT_TRUE(t) << name << ": " << t.error().message();
    bool want = r["enable_thinking"].get<bool>();
    EXPECT_EQ(t->caps().supports_enable_thinking, want) << name;
    ++compared, on += want;
  }
  EXPECT_GE(compared, 70u);
  EXPECT_GT(on, 20u);  // both answers occur in the recording
  EXPECT_LT(on, compared - 20);
}

}  // namespace
