// Capabilities probe: llama.cpp v0.5.0's caps_get (common/jinja/caps.cpp) on our engine.
#include "chat/caps.h"

#include <functional>

#include <nlohmann/json.hpp>

namespace gguf::chat {

namespace {

using ojson = nlohmann::ordered_json;
namespace gj = jinja;

struct probe_result {
  bool ok = false;
  std::string output;
  gj::value ctx;
  gj::usage use;
};

// Renders with llama.cpp's probe context: messages, tools ([] when none), empty BOS/EOS,
// add_generation_prompt; `extra` adds variables.
probe_result run(const gj::program& prog, const gj::limits& lim, ojson messages, ojson tools,
                 const std::function<void(gj::value&)>& extra = nullptr) {
  probe_result r;
  ojson ctx = {{"messages", std::move(messages)},
               {"tools", tools.is_null() ? ojson::array() : std::move(tools)},
               {"bos_token", ""},
               {"eos_token", ""},
               {"add_generation_prompt", true}};
  r.ctx = gj::value::from_json(ctx);
  if (extra) extra(r.ctx);
  auto out = gj::render(prog, r.ctx, lim, &r.use);
  r.ok = out.ok();
  if (out) r.output = std::move(*out);
  return r;
}

const gj::value& nth(const gj::value& v, size_t i) {
  static const gj::value undef;
  return i < v.items().size() ? v.items()[i] : undef;
}
const gj::value& at(const gj::value& v, const char* key) {
  static const gj::value undef;
  const gj::value* p = v.find(std::string_view(key));
  return p ? *p : undef;
}

ojson tools_probe() {
  return ojson::array({{{"name", "tool"},
                        {"type", "function"},
                        {"function",
                         {{"name", "tool1"},
                          {"description", "Tool description"},
                          {"parameters",
                           {{"type", "object"},
                            {"properties", {{"arg", {{"type", "string"}, {"description", "Arg description"}}}}},
                            {"required", ojson::array({"arg"})}}}}}}});
}

ojson tool_call(const char* id, const ojson& args) {
  return {{"id", id}, {"type", "function"}, {"function", {{"name", "tool1"}, {"arguments", args}}}};
}

ojson tool_conversation(ojson calls) {
  return ojson::array({{{"role", "user"}, {"content", "User message"}},
                       {{"role", "assistant"}, {"content", ""}, {"tool_calls", std::move(calls)}},
                       {{"role", "tool"}, {"content", "Tool response"}, {"tool_call_id", "call00001"}},
                       {{"role", "assistant"}, {"content", "The tool response was 'tool response'"}},
                       {{"role", "user"}, {"content", "User message"}}});
}

}  // namespace

std::map<std::string, bool> template_caps::to_map() const {
  return {{"supports_string_content", supports_string_content},
          {"supports_typed_content", supports_typed_content},
          {"supports_tools", supports_tools},
          {"supports_tool_calls", supports_tool_calls},
          {"supports_parallel_tool_calls", supports_parallel_tool_calls},
          {"supports_system_role", supports_system_role},
          {"supports_preserve_reasoning", supports_preserve_reasoning},
          {"supports_reasoning_effort", supports_reasoning_effort},
          {"supports_object_arguments", supports_object_arguments}};
}

template_caps probe_caps(const gj::program& prog, const gj::limits& limits) {
  template_caps c;
  gj::limits lim = limits;
  lim.dialect = gj::dialect::llama_cpp;  // llama.cpp probes with its own engine
  const std::string marker = "STRING_MARKER";

  // content as a string: checked with `is string`? used as a list?
  bool checks_for_string = false;
  {
    auto r = run(prog, lim, ojson::array({{{"role", "user"}, {"content", marker}}}), nullptr);
    const gj::value& content = at(nth(at(r.ctx, "messages"), 0), "content");
    checks_for_string = r.use.has_op(content, "test_is_string");
    bool as_array = r.use.has_op(content, "selectattr") || r.use.has_op(content, "array_access");
    if (as_array) c.supports_typed_content = true;
    if (!r.ok) c.supports_string_content = false;
    else if (as_array && r.output.find(marker) == std::string::npos) c.supports_string_content = false;
  }
  if (checks_for_string) {
    auto r = run(prog, lim, ojson::array({{{"role", "user"}, {"content", ojson::array()}}}), nullptr);
    const gj::value& content = at(nth(at(r.ctx, "messages"), 0), "content");
    bool as_array = r.use.has_op(content, "selectattr") || r.use.has_op(content, "array_access");
    if (as_array && r.ok) c.supports_typed_content = true;
  }

  // system role: is the system message's content used?
  {
    auto r = run(prog, lim,
                 ojson::array({{{"role", "system"}, {"content", "System message"}},
                               {{"role", "user"}, {"content", "User message"}}}),
                 nullptr);
    if (!r.use.is_used(at(nth(at(r.ctx, "messages"), 0), "content"))) c.supports_system_role = false;
  }

  // one tool call with object arguments
  {
    auto r = run(prog, lim, tool_conversation(ojson::array({tool_call("call00001", {{"arg", "value"}})})),
                 tools_probe());
    if (r.ok) {
      const gj::value& msgs = at(r.ctx, "messages");
      if (!r.use.is_used(at(at(nth(at(r.ctx, "tools"), 0), "function"), "name"))) c.supports_tools = false;
      const gj::value& calls = at(nth(msgs, 1), "tool_calls");
      if (!r.use.is_used(calls)) {
        c.supports_tool_calls = false;
      } else if (r.use.is_used(at(at(at(nth(calls, 0), "function"), "arguments"), "arg"))) {
        c.supports_object_arguments = true;
      }
    }
  }
  // ... else with string arguments
  if (!c.supports_object_arguments) {
    auto r = run(prog, lim, tool_conversation(ojson::array({tool_call("call00001", R"({"arg": "value"})")})),
                 tools_probe());
    if (!r.ok) {
      c.supports_tool_calls = false;
      c.supports_tools = false;
    } else {
      if (!r.use.is_used(at(at(nth(at(r.ctx, "tools"), 0), "function"), "name"))) c.supports_tools = false;
      if (!r.use.is_used(at(nth(at(r.ctx, "messages"), 1), "tool_calls"))) c.supports_tool_calls = false;
    }
  }

  // parallel calls: is the second call's function used?
  {
    ojson args = c.supports_object_arguments ? ojson{{"arg", "value"}} : ojson(R"({"arg": "value"})");
    auto r = run(prog, lim,
                 tool_conversation(ojson::array({tool_call("call00001", args), tool_call("call00002", args)})),
                 tools_probe());
    if (!r.ok) {
      c.supports_parallel_tool_calls = false;
    } else {
      const gj::value& calls = at(nth(at(r.ctx, "messages"), 1), "tool_calls");
      if (!r.use.is_used(at(nth(calls, 1), "function"))) c.supports_parallel_tool_calls = false;
    }
  }

  // reasoning_content of an older assistant turn in the output
  {
    const std::string placeholder = "<REASONING_CONTENT_PLACEHOLDER>";
    auto r = run(prog, lim,
                 ojson::array({{{"role", "user"}, {"content", "User message"}},
                               {{"role", "assistant"}, {"content", "Assistant message"}, {"reasoning_content", placeholder}},
                               {{"role", "user"}, {"content", "User message"}},
                               {{"role", "assistant"}, {"content", "Assistant message"}, {"reasoning_content", "Reasoning content"}},
                               {{"role", "user"}, {"content", "User message"}}}),
                 nullptr, [](gj::value& ctx) {
                   ctx.set(gj::value("enable_thinking"), gj::value(true));
                   ctx.set(gj::value("preserve_thinking"), gj::value(true));
                   ctx.set(gj::value("clear_thinking"), gj::value(false));
                   ctx.set(gj::value("truncate_history_thinking"), gj::value(false));
                   ctx.set(gj::value("drop_thinking"), gj::value(false));
                 });
    if (r.output.find(placeholder) != std::string::npos) c.supports_preserve_reasoning = true;
  }

  // reasoning_effort (and its alias reasoning_strength: the same value) read?
  {
    auto r = run(prog, lim, ojson::array({{{"role", "user"}, {"content", "User message"}}}), nullptr,
                 [](gj::value& ctx) {
                   ctx.set(gj::value("enable_thinking"), gj::value(true));
                   gj::value effort("low");
                   ctx.set(gj::value("reasoning_effort"), effort);
                   ctx.set(gj::value("reasoning_strength"), effort);
                 });
    c.supports_reasoning_effort = r.use.is_used(at(r.ctx, "reasoning_effort"));
  }

  return c;
}

}  // namespace gguf::chat
