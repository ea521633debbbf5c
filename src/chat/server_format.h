// llama-server's per-format handlers (llama.cpp v0.5.0 common/chat.cpp
// common_chat_try_specialized_template and common/parsers/*.cpp): which handler a template
// gets, how it changes the messages before rendering, whether the format "supports thinking",
// and the text it appends for a continued (prefilled) assistant message. Templates no handler
// claims go through the differential autoparser (reasoning_markers.h).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "chat/reasoning_markers.h"

namespace gguf::chat_detail {

enum class server_format {
  autoparser,  ///< no handler: the autoparser's reasoning markers apply
  ministral3,
  gpt_oss,
  muse_glimmer,
  functionary_v3_2,
  kimi_k2,
  kimi_k3,
  ling3,
  cohere2moe,
  lfm2,  ///< LFM2 and LFM2.5
  gigachat_v3,
  minimax_m3,
  deepseek_v3_2,  ///< DeepSeek V3.2 and V4
  gemma4,
  minicpm5,
  qwen3_coder,
};

/// The handler llama-server picks for a template source (the checks in its order).
server_format detect_server_format(std::string_view source);

/// data.supports_thinking of the handler (not for autoparser: that is the markers' mode).
bool format_supports_thinking(server_format f, std::string_view source);

/// The handler's changes to the messages as the template sees them (reasoning moved to the
/// field the template reads, Ministral's content blocks, Gemma 4's tool_responses for the older
/// templates, DeepSeek V4's tool-result order).
void adjust_server_messages(server_format f, std::string_view source, nlohmann::ordered_json& messages);

/// The assistant message llama-server continues (common_chat_continuation): its reasoning, its
/// content (render_content: text parts joined by "\n\n"), and whether the content is continued
/// (CONTENT) or only the reasoning (REASONING: reasoning given, no content).
struct continued_message {
  std::string reasoning, content;
  bool content_mode = true;
};

/// The text llama-server appends to the prompt of the earlier messages (rendered without a
/// generation prompt) to continue `msg`; `generation_prompt` is the template's own (the
/// difference add_generation_prompt makes).
std::string continuation_text(server_format f, std::string_view source, const std::string& prompt,
                              const std::string& generation_prompt, const reasoning_markers& markers,
                              const continued_message& msg);

}  // namespace gguf::chat_detail
