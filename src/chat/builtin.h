// Built-in chat templates: llama.cpp's llama_chat_apply_template formats (src/llama-chat.cpp of
// llama.cpp v0.5.0), for files without tokenizer.chat_template and for `--chat-template NAME`.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gguf::chat_detail {

/// One message as llama_chat_message carries it: a role and flat text content.
struct flat_message {
  std::string role;
  std::string content;
};

/// The built-in names, in llama_chat_builtin_templates' order (sorted, as its std::map).
const std::vector<std::string_view>& builtin_names();

/// llm_chat_detect_template: a built-in name given as is, else the format the Jinja source is
/// recognized as by llama.cpp's substring rules; nullopt when unknown.
std::optional<std::string_view> detect_builtin(std::string_view source);

/// llm_chat_apply_template for the built-in `name` (a name of builtin_names()); nullopt when
/// the name is unknown.
std::optional<std::string> apply_builtin(std::string_view name, const std::vector<flat_message>& chat,
                                         bool add_assistant);

}  // namespace gguf::chat_detail
