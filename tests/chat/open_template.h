// Opens a template of the recording (shared by the transformers and server replays).
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <optional>

#include "gguf/chat.h"
#include "gguf/file.h"
#include "gguf/vocab.h"
#include "recordings.h"
#include "test_support.h"

namespace gguf::test::chat {

// A template of the recording: models/* from its source and tokens; vocab/FILE[:NAME] loaded
// from the file in the test data (nullopt when the data is absent).
inline std::optional<gguf::result<gguf::chat_template>> open_template(const ojson& t) {
  const std::string name = t["name"];
  if (name.rfind("vocab/", 0) == 0) {
    auto colon = name.find(':');
    auto path = gguf::test::data_file(name.substr(0, colon));
    if (path.empty() || !std::filesystem::exists(path)) return std::nullopt;
    auto f = gguf::file::open(path);
    if (!f) return gguf::result<gguf::chat_template>(f.error());
    auto v = gguf::vocab::load(*f);
    if (!v) return gguf::result<gguf::chat_template>(v.error());
    return gguf::chat_template::load(*f, *v, colon == std::string::npos ? "" : name.substr(colon + 1));
  }
  gguf::chat_tokens tk;
  for (const auto& [k, v] : t["tokens"].items()) {
    if (k == "bos_token") tk.bos_token = v;
    if (k == "eos_token") tk.eos_token = v;
    if (k == "unk_token") tk.unk_token = v;
    if (k == "pad_token") tk.pad_token = v;
  }
  return gguf::chat_template::from_source(t["source"], tk);
}

// Replays a recording of rendered conversations (`label` names it in messages): every
// template of templates.jsonl.gz, opened as above, renders each conversation in `mode`.
inline void replay_rendering(const std::string& label, const std::string& recording, gguf::chat_mode mode) {
  std::map<std::string, std::optional<gguf::result<gguf::chat_template>>> templates;
  for (const auto& t : read_jsonl_gz("templates.jsonl.gz")) templates.emplace(t["name"], open_template(t));
  ASSERT_GE(templates.size(), 70u);
  replay(label, read_jsonl_gz(recording), [&](const std::string& t, const ojson& conv) -> std::optional<rendered> {
    const auto& tmpl = templates.at(t);
    if (!tmpl) return std::nullopt;
    if (!*tmpl) return rendered{false, tmpl->error().message()};
    auto out = (*tmpl)->apply(conv["messages"].dump(), conv.contains("tools") ? conv["tools"].dump() : "",
                              conv.value("add_generation_prompt", false),
                              conv.contains("chat_template_kwargs") ? conv["chat_template_kwargs"].dump() : "", mode);
    return out ? rendered{true, *out} : rendered{false, out.error().message()};
  });
}

}  // namespace gguf::test::chat
