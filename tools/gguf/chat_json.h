// JSON of a chat template's capabilities (gguf chat --caps, gguf info).
#pragma once

#include <nlohmann/json.hpp>

#include "gguf/chat.h"

namespace gguf::cli {

inline nlohmann::ordered_json chat_caps_json(const chat_caps& c) {
  nlohmann::ordered_json j;
  j["supports_system_role"] = c.supports_system_role;
  j["supports_tools"] = c.supports_tools;
  j["supports_tool_calls"] = c.supports_tool_calls;
  j["supports_parallel_tool_calls"] = c.supports_parallel_tool_calls;
  j["supports_string_content"] = c.supports_string_content;
  j["supports_typed_content"] = c.supports_typed_content;
  j["supports_object_arguments"] = c.supports_object_arguments;
  j["supports_preserve_reasoning"] = c.supports_preserve_reasoning;
  j["supports_reasoning_effort"] = c.supports_reasoning_effort;
  j["supports_enable_thinking"] = c.supports_enable_thinking;
  return j;
}

}  // namespace gguf::cli
