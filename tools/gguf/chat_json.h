// JSON of a chat template's capabilities (gguf chat --caps, gguf info).
#pragma once

#include <nlohmann/json.hpp>

#include "gguf/chat.h"

namespace gguf::cli {

inline nlohmann::ordered_json chat_caps_json(const chat_caps& c) {
  nlohmann::ordered_json j;
  for (const auto& f : chat_caps_fields) j[f.name] = c.*f.member;
  return j;
}

}  // namespace gguf::cli
