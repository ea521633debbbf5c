// gguf::chat::template_caps — what a chat template supports, probed by rendering it.
//
// The nine capabilities are llama.cpp's (common/jinja/caps.h, caps_get in caps.cpp of
// v0.5.0), computed the same way: the template is rendered on small probe
// conversations and we look at which of the probe's values the render used (a system
// message's content, a tool's name, an assistant message's tool_calls, a tool call's
// object argument, a second parallel call, an older turn's reasoning_content, the
// reasoning_effort variable) and whether it raised. Whether the template supports
// enable_thinking is llama-server's, not a caps probe: chat_detail::server_traits.
#pragma once

#include <map>
#include <string>

#include "chat/jinja/jinja.h"

namespace gguf::chat {

struct template_caps {
  bool supports_system_role = true;
  bool supports_tools = true;
  bool supports_tool_calls = true;
  bool supports_parallel_tool_calls = true;
  bool supports_string_content = true;   ///< message content may be a string
  bool supports_typed_content = false;   ///< message content may be a list of typed parts
  bool supports_object_arguments = false;  ///< tool call arguments may be a JSON object
  bool supports_preserve_reasoning = false;  ///< reasoning_content of older turns is kept
  bool supports_reasoning_effort = false;    ///< the template reads reasoning_effort

  /// The nine llama.cpp capabilities by name (llama.cpp's caps::to_map keys).
  std::map<std::string, bool> to_map() const;
};

/// Probes `prog` (each probe renders under `lim`, in the llama_cpp dialect as llama.cpp's
/// own engine runs the probes; a probe that raises counts as llama.cpp counts it).
template_caps probe_caps(const jinja::program& prog, const jinja::limits& lim = {});

}  // namespace gguf::chat
