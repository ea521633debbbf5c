// llama-server's rendering (chat_mode::server): what llama.cpp v0.5.0 sends to the model for
// an OpenAI-style /v1/chat/completions request, with llama-server's default options. Follows
//  - tools/server/server-common.cpp oaicompat_chat_params_parse: messages checked, a trailing
//    assistant message continued (prefill_assistant) instead of a generation prompt,
//    enable_thinking from the kwarg (default on), the default kwarg preserve_reasoning=true;
//  - common/chat.cpp common_chat_msgs_parse_oaicompat (message shapes and their errors),
//    common_chat_msg::to_json_oaicompat (what a message looks like to the template: content
//    always present, tool-call arguments as strings), messages_inp_normalizer (string-only or
//    typed-only content), the workarounds (developer -> system, system merged into the next
//    message where the template has no system role, arguments parsed to objects where the
//    template takes objects), common_chat_template_direct_apply (the context: messages,
//    bos_token, eos_token, enable_thinking, tools, datetime, date_string, kwargs,
//    add_generation_prompt only when true, preserve_reasoning's flags; BOS / EOS text the
//    model adds itself removed from the ends);
//  - the per-format handlers and the autoparser (server_format.h, reasoning_markers.h): their
//    changes to the messages and the prompt, enable_thinking's default, and the text that
//    continues a trailing assistant message.
// The differences that remain are listed, with reasons, in docs/chat.md.
#include <algorithm>
#include <ctime>

#include "chat/server_format.h"
#include "chat/template_impl.h"

namespace gguf::chat_detail {
namespace {

error bad_request(std::string what) { return error{errc::invalid_argument, no_offset, {}, std::move(what)}; }

bool contains(std::string_view s, std::string_view what) { return s.find(what) != std::string_view::npos; }

bool ends_with(std::string_view s, std::string_view end) {
  return s.size() >= end.size() && s.substr(s.size() - end.size()) == end;
}

// common_chat_msg: the fields llama.cpp keeps of a message.
struct server_msg {
  std::string role, content, reasoning_content, tool_name, tool_call_id;
  std::vector<std::pair<std::string, std::string>> parts;  // (type, text)
  struct call {
    std::string name, arguments, id;
  };
  std::vector<call> tool_calls;
};

std::string str_field(const ojson& j, const char* key, std::string_view what) {
  const auto& v = j.at(key);
  if (!v.is_string()) throw std::invalid_argument(std::string(what) + " must be a string: " + j.dump());
  return v.get<std::string>();
}

// common_chat_msgs_parse_oaicompat, with its error texts.
std::vector<server_msg> parse_messages(const ojson& messages) {
  if (!messages.is_array()) throw std::invalid_argument("Expected 'messages' to be an array, got " + messages.dump());
  std::vector<server_msg> out;
  for (const auto& m : messages) {
    if (!m.is_object()) throw std::invalid_argument("Expected 'message' to be an object, got " + m.dump());
    if (!m.contains("role")) throw std::invalid_argument("Missing 'role' in message: " + m.dump());
    server_msg msg;
    msg.role = str_field(m, "role", "role");
    bool has_content = m.contains("content"), has_calls = m.contains("tool_calls");
    if (has_content) {
      const auto& c = m["content"];
      if (c.is_string()) {
        msg.content = c.get<std::string>();
      } else if (c.is_array()) {
        for (const auto& part : c) {
          if (!part.is_object() || !part.contains("type")) throw std::invalid_argument("Missing content part type: " + part.dump());
          const auto& type = part["type"];
          if (type != "text" && type != "media_marker")
            throw std::invalid_argument("Unsupported content part type: " + type.dump());
          if (!part.contains("text")) throw std::invalid_argument("Missing content part text: " + part.dump());
          msg.parts.emplace_back(type.get<std::string>(), str_field(part, "text", "text"));
        }
      } else if (!c.is_null()) {
        throw std::invalid_argument("Invalid 'content' type: expected string or array, got " + c.dump());
      }
    }
    if (has_calls) {
      for (const auto& tc : m["tool_calls"]) {
        if (!tc.is_object() || !tc.contains("type")) throw std::invalid_argument("Missing tool call type: " + tc.dump());
        if (tc["type"] != "function") throw std::invalid_argument("Unsupported tool call type: " + tc.dump());
        if (!tc.contains("function")) throw std::invalid_argument("Missing tool call function: " + tc.dump());
        const auto& fc = tc["function"];
        if (!fc.is_object() || !fc.contains("name")) throw std::invalid_argument("Missing tool call name: " + tc.dump());
        server_msg::call call;
        call.name = str_field(fc, "name", "tool call name");
        if (!fc.contains("arguments")) throw std::invalid_argument("Missing tool call arguments: " + tc.dump());
        const auto& args = fc["arguments"];
        call.arguments = args.is_string() ? args.get<std::string>() : args.dump();
        if (tc.contains("id")) call.id = str_field(tc, "id", "tool call id");
        msg.tool_calls.push_back(std::move(call));
      }
    }
    if (!has_content && !has_calls) throw std::invalid_argument("Expected 'content' or 'tool_calls'");
    if (m.contains("reasoning_content")) msg.reasoning_content = str_field(m, "reasoning_content", "reasoning_content");
    if (m.contains("name")) msg.tool_name = str_field(m, "name", "name");
    if (m.contains("tool_call_id")) msg.tool_call_id = str_field(m, "tool_call_id", "tool_call_id");
    out.push_back(std::move(msg));
  }
  return out;
}

// Text parts joined by "\n", no newline around media markers (messages_inp_normalizer).
std::string concat_parts(const std::vector<std::pair<std::string, std::string>>& parts) {
  std::string text;
  bool last_media = false;
  for (const auto& [type, t] : parts) {
    bool newline = true;
    if (type == "text") {
      newline = !last_media && !text.empty();
      last_media = false;
    } else {
      newline = false;
      last_media = true;
    }
    if (newline) text += '\n';
    text += t;
  }
  return text;
}

// common_chat_msg::to_json_oaicompat, then the normalizer for string-only / typed-only templates.
ojson message_json(const server_msg& m, const chat_caps& caps) {
  ojson j;
  j["role"] = m.role;
  bool only_string = caps.supports_string_content && !caps.supports_typed_content;
  bool only_typed = !caps.supports_string_content && caps.supports_typed_content;
  if (!m.content.empty()) {
    if (only_typed) j["content"] = ojson::array({ojson{{"type", "text"}, {"text", m.content}}});
    else j["content"] = m.content;
  } else if (!m.parts.empty()) {
    bool media = std::any_of(m.parts.begin(), m.parts.end(), [](const auto& p) { return p.first == "media_marker"; });
    if (media || only_string) {
      j["content"] = concat_parts(m.parts);
    } else {
      auto a = ojson::array();
      for (const auto& [type, t] : m.parts) a.push_back(ojson{{"type", type}, {"text", t}});
      j["content"] = std::move(a);
    }
  } else {
    j["content"] = only_typed ? ojson::array({ojson{{"type", "text"}, {"text", ""}}}) : ojson("");
  }
  if (!m.reasoning_content.empty()) j["reasoning_content"] = m.reasoning_content;
  if (!m.tool_name.empty()) j["name"] = m.tool_name;
  if (!m.tool_call_id.empty()) j["tool_call_id"] = m.tool_call_id;
  if (!m.tool_calls.empty()) {
    auto calls = ojson::array();
    for (const auto& c : m.tool_calls) {
      ojson tc;
      tc["type"] = "function";
      tc["function"] = ojson{{"name", c.name}, {"arguments", c.arguments}};
      if (!c.id.empty()) tc["id"] = c.id;
      calls.push_back(std::move(tc));
    }
    j["tool_calls"] = std::move(calls);
  }
  return j;
}

// common_chat_tools_parse_oaicompat + common_chat_tools_to_json_oaicompat.
ojson parse_tools(const ojson& tools) {
  if (tools.is_null()) return ojson();
  if (!tools.is_array()) throw std::invalid_argument("Expected 'tools' to be an array, got " + tools.dump());
  if (tools.empty()) return ojson();
  auto out = ojson::array();
  for (const auto& t : tools) {
    if (!t.is_object() || !t.contains("type")) throw std::invalid_argument("Missing tool type: " + t.dump());
    if (t["type"] != "function") throw std::invalid_argument("Unsupported tool type: " + t.dump());
    if (!t.contains("function")) throw std::invalid_argument("Missing tool function: " + t.dump());
    const auto& f = t["function"];
    if (!f.is_object() || !f.contains("name")) throw std::invalid_argument("Missing tool function name: " + t.dump());
    ojson fn;
    fn["name"] = f["name"];
    fn["description"] = f.contains("description") ? f["description"] : ojson("");
    fn["parameters"] = f.contains("parameters") ? f["parameters"] : ojson::object();
    out.push_back(ojson{{"type", "function"}, {"function", std::move(fn)}});
  }
  return out;
}

std::string format_time(int64_t t, const char* fmt) {
  std::time_t tt = static_cast<std::time_t>(t);
  std::tm tm{};
  localtime_r(&tt, &tm);
  char buf[64];
  size_t n = std::strftime(buf, sizeof buf, fmt, &tm);
  return std::string(buf, n);
}

bool replace_all(std::string& s, std::string_view from, std::string_view to) {
  bool any = false;
  for (size_t p = 0; (p = s.find(from, p)) != std::string::npos; p += to.size()) s.replace(p, from.size(), to), any = true;
  return any;
}

// messages_inp_normalizer: string content wrapped as one text part for typed-only templates
// (typed content of string-only templates is joined by message_json already).
ojson normalized(const ojson& messages, const chat_caps& caps) {
  if (!(caps.supports_typed_content && !caps.supports_string_content)) return messages;
  ojson out = messages;
  for (auto& m : out)
    if (m.contains("content") && m["content"].is_string())
      m["content"] = ojson::array({ojson{{"type", "text"}, {"text", m["content"]}}});
  return out;
}

// common_chat_template_direct_apply_impl: the context (messages, bos_token, eos_token,
// enable_thinking, tools, the extra variables, add_generation_prompt only when true,
// preserve_reasoning's flags), rendered with llama.cpp's engine semantics; with `strip`
// (add_bos / add_eos), BOS / EOS text the model adds itself removed from the ends.
result<std::string> direct_apply(const chat_template_impl& t, const ojson& messages, const ojson& tools, bool gen,
                                 bool enable_thinking, const ojson& extra, bool strip) {
  ojson ctx = ojson::object();
  if (auto it = extra.find("preserve_reasoning"); it != extra.end() && it->is_boolean()) {
    bool on = it->get<bool>();  // caps_apply_preserve_reasoning, overridable by the variables
    ctx["preserve_thinking"] = on, ctx["clear_thinking"] = !on, ctx["truncate_history_thinking"] = !on,
    ctx["drop_thinking"] = !on;
  }
  if (auto it = extra.find("reasoning_effort"); it != extra.end() && it->is_string() && !it->get<std::string>().empty())
    ctx["reasoning_strength"] = *it;
  ctx["messages"] = messages;
  ctx["bos_token"] = t.tokens.bos_token.value_or("");
  ctx["eos_token"] = t.tokens.eos_token.value_or("");
  ctx["enable_thinking"] = enable_thinking;
  if (tools.is_array() && !tools.empty()) ctx["tools"] = tools;
  for (const auto& [k, v] : extra.items()) ctx[k] = v;
  if (gen) ctx["add_generation_prompt"] = true;
  const jinja::program& prog = t.server_program ? *t.server_program : *t.program;
  auto out = render_jinja(prog, ctx, jinja::dialect::llama_cpp);
  if (!out) return named_by_key(std::move(out).error(), t);
  if (!strip) return out;
  std::string s = std::move(*out);
  const std::string bos = t.tokens.bos_token.value_or(""), eos = t.tokens.eos_token.value_or("");
  if (t.tokens.add_bos && s.compare(0, bos.size(), bos) == 0) s.erase(0, bos.size());
  if (t.tokens.add_eos && ends_with(s, eos)) s.resize(s.size() - eos.size());
  return s;
}

}  // namespace

const server_traits& template_server_traits(const chat_template_impl& t) {
  std::call_once(t.server_once, [&] {
    server_traits tr;
    if (t.program) {
      tr.format = detect_server_format(t.source);
      if (tr.format == server_format::autoparser) {
        const chat_caps& caps = template_caps(t);
        auto render = [&](const ojson& messages, const ojson& tools, bool gen, bool thinking) -> std::optional<std::string> {
          auto out = direct_apply(t, normalized(messages, caps), tools, gen, thinking, ojson{{"enable_thinking", thinking}}, false);
          if (!out) return std::nullopt;
          return std::move(*out);
        };
        tr.reasoning = analyze_reasoning_markers(render, caps.supports_tool_calls, t.source);
        tr.supports_thinking = tr.reasoning.mode != reasoning_mode::none;
      } else {
        tr.supports_thinking = format_supports_thinking(tr.format, t.source);
      }
    }
    t.server = std::move(tr);
  });
  return t.server;
}

namespace {

}  // namespace

std::optional<std::string> server_patched_source(std::string_view source) {
  // common_chat_templates_init: GPT-OSS's check for channel markers in content and Mistral's
  // check for an empty assistant message are turned off ("{%- if false %}").
  std::string s(source);
  bool patched = false;
  if (contains(s, "<|channel|>") && contains(s, "in message.content or"))
    patched |= replace_all(s,
                           "{%- if \"<|channel|>analysis<|message|>\" in message.content or "
                           "\"<|channel|>final<|message|>\" in message.content %}",
                           "{%- if false %}");
  if (contains(s, "[TOOL_CALLS]") && contains(s, "if (message['content'] is none or"))
    patched |= replace_all(s,
                           "{%- if (message['content'] is none or message['content'] == '' or "
                           "message['content']|length == 0) and (message['tool_calls'] is not defined or "
                           "message['tool_calls'] is none or message['tool_calls']|length == 0) %}",
                           "{%- if false %}");
  if (!patched) return std::nullopt;
  return s;
}

result<std::string> apply_server(const chat_template_impl& root, const chat_request& req) {
  auto parsed = parse_request(req);
  if (!parsed) return parsed.error();
  const auto& [messages_j, tools_j, kwargs] = *parsed;

  std::vector<server_msg> msgs;
  ojson tools;
  try {
    if (messages_j.is_array()) {
      for (const auto& m : messages_j) {
        std::string role = m.is_object() && m.contains("role") && m["role"].is_string() ? m["role"].get<std::string>() : "";
        if (role != "assistant" && m.is_object() && !m.contains("content"))
          return bad_request("All non-assistant messages must contain 'content'");
      }
    }
    msgs = parse_messages(messages_j);
    tools = parse_tools(tools_j);
  } catch (const std::exception& e) {
    return bad_request(std::string("Failed to parse messages or tools: ") + e.what());
  }

  // oaicompat_chat_params_parse
  bool add_gen = req.add_generation_prompt;
  std::optional<server_msg> cont;  // the message continued (prefill_assistant)
  if (!msgs.empty() && msgs.back().role == "assistant") {
    if (msgs.size() >= 2 && msgs[msgs.size() - 2].role == "assistant")
      return bad_request("Cannot have 2 or more assistant messages at the end of the list.");
    if (!msgs.back().tool_calls.empty()) return bad_request("Cannot continue an assistant message that contains tool calls.");
    add_gen = false;
    cont = msgs.back();
    msgs.pop_back();
  }
  const chat_template_impl& t = (tools.is_array() && root.tool_use) ? *root.tool_use : root;
  bool enable_thinking = root.builtin.empty() && template_server_traits(root).supports_thinking;
  if (auto it = kwargs.find("enable_thinking"); it != kwargs.end()) {
    if (it->is_boolean()) enable_thinking = it->get<bool>();
    else if (it->is_string()) return bad_request("invalid type for \"enable_thinking\" (expected boolean, got string)");
  }
  ojson extra = ojson::object();
  int64_t now = template_time();
  extra["datetime"] = format_time(now, "%b %d %Y");
  extra["date_string"] = format_time(now, "%d %b %Y");
  extra["preserve_reasoning"] = true;
  for (const auto& [k, v] : kwargs.items()) extra[k] = v;

  if (!t.builtin.empty()) {  // llama-server --chat-template NAME: the legacy path
    std::vector<flat_message> flat;
    for (const auto& m : msgs) {
      std::string c = m.content;
      for (const auto& [type, text] : m.parts) {
        if (!c.empty()) c += "\n";
        c += text;
      }
      flat.push_back({m.role, c});
    }
    if (cont) flat.push_back({cont->role, cont->content.empty() ? concat_parts(cont->parts) : cont->content});
    return *apply_builtin(t.builtin, flat, add_gen);
  }
  const std::string& src = t.source;
  const chat_caps& caps = template_caps(t);
  const server_traits& traits = template_server_traits(t);

  if (contains(src, "You have access to the following functions in JSONSchema format")) {
    // StepFun: message contents trimmed (llama.cpp issue #24181)
    auto trim = [](std::string& s) { s = trim_ascii_space(s); };
    for (auto& m : msgs) {
      trim(m.content), trim(m.reasoning_content);
      for (auto& [type, text] : m.parts)
        if (type == "text") trim(text);
    }
  }
  ojson messages = ojson::array();
  for (const auto& m : msgs) messages.push_back(message_json(m, caps));

  if (traits.format != server_format::gpt_oss) {
    for (auto& m : messages)
      if (m["role"] == "developer") m["role"] = "system";
  }
  if (!caps.supports_system_role && !messages.empty() && messages[0]["role"] == "system") {
    if (messages.size() > 1) {
      if (!messages[0]["content"].is_string() || !messages[1]["content"].is_string())
        return bad_request("cannot merge a system message with typed content into the next message");
      messages[1]["content"] = messages[0]["content"].get<std::string>() + "\n" + messages[1]["content"].get<std::string>();
    }
    messages.erase(messages.begin());
  }
  if (caps.supports_object_arguments) {
    for (auto& m : messages) {
      if (!m.contains("tool_calls")) continue;
      for (auto& tc : m["tool_calls"]) {
        auto& args = tc["function"]["arguments"];
        if (!args.is_string()) continue;
        try {
          args = ojson::parse(args.get<std::string>());
        } catch (const std::exception& e) {
          return bad_request(std::string("Failed to parse tool call arguments as JSON: ") + e.what());
        }
      }
    }
  }
  adjust_server_messages(traits.format, src, messages);

  auto prompt = direct_apply(t, messages, tools, add_gen, enable_thinking, extra, true);
  if (!prompt) return prompt;
  std::string p = std::move(*prompt);
  if (traits.format == server_format::gpt_oss && !add_gen) {  // llama.cpp issue #15417: the last <|return|> becomes <|end|>
    if (size_t pos = p.rfind("<|return|>"); pos != std::string::npos) p.replace(pos, 10, "<|end|>");
  }
  if (traits.format == server_format::gemma4 && add_gen && ends_with(p, "<turn|>\n")) p += "<|turn>model\n";
  if (cont) {
    // common_chat_msg::render_content: the content, else its text parts joined by "\n\n"
    continued_message c;
    c.reasoning = cont->reasoning_content;
    c.content = cont->content;
    if (c.content.empty()) {
      for (const auto& [type, text] : cont->parts) {
        if (type != "text") continue;
        if (!c.content.empty()) c.content += "\n\n";
        c.content += text;
      }
    }
    c.content_mode = !(!cont->reasoning_content.empty() && cont->content.empty() && cont->parts.empty());
    std::string gen_prompt;  // common_chat_template_generation_prompt: what add_generation_prompt adds
    if (traits.format == server_format::autoparser || traits.format == server_format::minimax_m3) {
      auto without = direct_apply(t, messages, tools, false, enable_thinking, extra, true);
      if (!without) return without;
      auto with = direct_apply(t, messages, tools, true, enable_thinking, extra, true);
      if (!with) return with;
      size_t k = 0;
      while (k < without->size() && k < with->size() && (*without)[k] == (*with)[k]) ++k;
      gen_prompt = with->substr(k);
    }
    p += continuation_text(traits.format, src, p, gen_prompt, traits.reasoning, c);
  }
  return p;
}

}  // namespace gguf::chat_detail
