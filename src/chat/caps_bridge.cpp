// template_caps: a template's capabilities for chat_template::caps() and the server rendering,
// from the engine's probe (caps.h: llama.cpp's caps_get, computed once per template).
#include "chat/caps.h"
#include "chat/template_impl.h"

namespace gguf::chat_detail {

const chat_caps& template_caps(const chat_template_impl& impl) {
  std::call_once(impl.caps_once, [&] {
    chat_caps c;  // built-ins: all false
    if (impl.program) {
      // llama.cpp probes the source it renders (with common_chat_templates_init's patches)
      const auto p = chat::probe_caps(impl.server_program ? *impl.server_program : *impl.program);
      c.supports_system_role = p.supports_system_role;
      c.supports_tools = p.supports_tools;
      c.supports_tool_calls = p.supports_tool_calls;
      c.supports_parallel_tool_calls = p.supports_parallel_tool_calls;
      c.supports_string_content = p.supports_string_content;
      c.supports_typed_content = p.supports_typed_content;
      c.supports_object_arguments = p.supports_object_arguments;
      c.supports_preserve_reasoning = p.supports_preserve_reasoning;
      c.supports_reasoning_effort = p.supports_reasoning_effort;
    }
    impl.caps = c;
  });
  return impl.caps;
}

}  // namespace gguf::chat_detail
