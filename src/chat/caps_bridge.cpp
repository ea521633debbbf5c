// template_caps: a template's capabilities for chat_template::caps() and the server rendering.
// PROVISIONAL: until the engine's probe (src/chat/caps.*, llama.cpp's common/jinja/caps
// semantics) is merged, only what the source text shows is reported; every field but
// supports_system_role, supports_string_content, supports_tool_calls and supports_tools is false.
#include "chat/template_impl.h"

namespace gguf::chat_detail {

const chat_caps& template_caps(const chat_template_impl& impl) {
  std::call_once(impl.caps_once, [&] {
    const std::string& s = impl.source;
    auto has = [&](const char* w) { return s.find(w) != std::string::npos; };
    chat_caps c;
    c.supports_string_content = !impl.source.empty();
    c.supports_system_role = has("system");
    c.supports_tools = has("tools");
    c.supports_tool_calls = has("tool_calls");
    impl.caps = c;
  });
  return impl.caps;
}

}  // namespace gguf::chat_detail
