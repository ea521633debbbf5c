// gguf::chat_template: loading (file, source, built-in) and the transformers rendering.
#include <algorithm>
#include <cstdlib>
#include <ctime>

#include "chat/template_impl.h"
#include "gguf/file.h"
#include "gguf/vocab.h"

namespace gguf {
namespace chat_detail {

result<ojson> parse_json(std::string_view text, std::string_view what, ojson empty) {
  size_t b = text.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return empty;
  if (json_nesting_depth(text) > chat_max_json_depth)
    return error{errc::invalid_argument, no_offset, {},
                 std::string(what) + " is nested deeper than " + std::to_string(chat_max_json_depth) + " levels"};
  try {
    return ojson::parse(text);
  } catch (const std::exception& e) {
    return error{errc::invalid_argument, no_offset, {}, std::string(what) + " is not valid JSON: " + e.what()};
  }
}

result<request_json> parse_request(const chat_request& req) {
  auto messages = parse_json(req.messages_json, "messages", ojson::array());
  if (!messages) return messages.error();
  auto tools = parse_json(req.tools_json, "tools", ojson());
  if (!tools) return tools.error();
  // as llama-server ("Expected 'tools' to be an array") and transformers (which iterates them)
  if (!tools->is_null() && !tools->is_array())
    return error{errc::invalid_argument, no_offset, {}, "tools must be a JSON array, not " + std::string(tools->type_name())};
  auto kwargs = parse_json(req.kwargs_json, "chat template kwargs", ojson::object());
  if (!kwargs) return kwargs.error();
  if (!kwargs->is_object()) return error{errc::invalid_argument, no_offset, {}, "chat template kwargs must be a JSON object"};
  return request_json{std::move(*messages), std::move(*tools), std::move(*kwargs)};
}

result<std::vector<flat_message>> flatten_messages(const ojson& messages) {
  if (!messages.is_array()) return error{errc::invalid_argument, no_offset, {}, "messages must be a JSON array"};
  std::vector<flat_message> out;
  for (const auto& m : messages) {
    if (!m.is_object() || !m.contains("role") || !m["role"].is_string())
      return error{errc::invalid_argument, no_offset, {}, "a message needs a string \"role\": " + m.dump()};
    flat_message f{m["role"].get<std::string>(), {}};
    auto it = m.find("content");
    if (it != m.end() && it->is_string()) {
      f.content = it->get<std::string>();
    } else if (it != m.end() && it->is_array()) {
      for (const auto& part : *it) {
        std::string type = part.is_object() ? part.value("type", "") : "";
        if (type != "text" && type != "media_marker") continue;
        if (!f.content.empty()) f.content += "\n";
        if (part.contains("text") && part["text"].is_string()) f.content += part["text"].get<std::string>();
      }
    } else if (it != m.end() && !it->is_null()) {
      return error{errc::invalid_argument, no_offset, {}, "message content must be a string, an array or null"};
    }
    out.push_back(std::move(f));
  }
  return out;
}

int64_t template_time() {
  if (const char* s = std::getenv("SOURCE_DATE_EPOCH"); s && *s) {
    char* end = nullptr;
    long long v = std::strtoll(s, &end, 10);
    if (end && *end == '\0') return v;
  }
  return static_cast<int64_t>(std::time(nullptr));
}

result<std::string> render_jinja(const jinja::program& prog, const ojson& context, jinja::dialect dialect) {
  jinja::limits lim;
  lim.dialect = dialect;
  return jinja::render(prog, jinja::value::from_json(context), lim);
}

namespace {

// transformers' render_jinja_template context: messages, tools, documents, add_generation_prompt,
// the special tokens, then the caller's kwargs.
result<std::string> apply_transformers(const chat_template_impl& impl, const chat_request& req) {
  auto parsed = parse_request(req);
  if (!parsed) return parsed.error();
  auto& [messages, tools, kwargs] = *parsed;

  const chat_template_impl* t = &impl;
  if (!tools.is_null() && impl.tool_use) t = impl.tool_use.get();
  if (const std::string& b = t->builtin.empty() ? t->transformers_builtin : t->builtin; !b.empty()) {
    auto flat = flatten_messages(messages);
    if (!flat) return flat.error();
    return *apply_builtin(b, *flat, req.add_generation_prompt);
  }
  ojson ctx = ojson::object();
  ctx["messages"] = std::move(messages);
  ctx["tools"] = std::move(tools);
  ctx["documents"] = nullptr;
  ctx["add_generation_prompt"] = req.add_generation_prompt;
  const auto& tk = t->tokens;
  if (tk.bos_token) ctx["bos_token"] = *tk.bos_token;
  if (tk.eos_token) ctx["eos_token"] = *tk.eos_token;
  if (tk.unk_token) ctx["unk_token"] = *tk.unk_token;
  if (tk.pad_token) ctx["pad_token"] = *tk.pad_token;
  for (const auto& [k, v] : kwargs.items()) ctx[k] = v;
  auto out = render_jinja(*t->program, ctx);
  if (!out) return named_by_key(std::move(out).error(), *t);
  return out;
}

std::optional<std::string> token_text(const vocab& v, int32_t id) {
  if (id < 0 || static_cast<uint32_t>(id) >= v.n_tokens()) return std::nullopt;
  return std::string(v.token_text(id));
}

}  // namespace
}  // namespace chat_detail

size_t json_nesting_depth(std::string_view json) noexcept {
  size_t depth = 0, deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (in_string) {
      if (c == '\\') ++i;  // the escaped character
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

using namespace chat_detail;

namespace {

// A Jinja template's parts: the source parsed, and llama-server's patched parse if any.
result<std::shared_ptr<chat_template_impl>> jinja_impl(std::string source, chat_tokens tokens) {
  auto prog = jinja::parse(source);
  if (!prog) return prog.error();
  auto impl = std::make_shared<chat_template_impl>();
  impl->source = std::move(source);
  impl->tokens = std::move(tokens);
  impl->program = std::move(*prog);
  if (auto patched = server_patched_source(impl->source)) {
    auto sp = jinja::parse(*patched);
    if (sp) impl->server_program = std::move(*sp);
  }
  return impl;
}

// from_source of a GGUF key's text (key "": of none): its parse errors and its render
// errors name that key
result<chat_template> from_key(std::string source, chat_tokens tokens, std::string_view key) {
  for (auto name : builtin_names())
    if (source == name) return chat_template::builtin(name, std::move(tokens));
  auto impl = jinja_impl(std::move(source), std::move(tokens));
  if (!impl) {
    error e = std::move(impl).error();
    if (e.subject.empty()) e.subject = std::string(key);
    return e;
  }
  (*impl)->key = std::string(key);
  chat_template t;
  t.impl_ = std::move(*impl);
  return t;
}

}  // namespace

result<chat_template> chat_template::from_source(std::string source, chat_tokens tokens) {
  return from_key(std::move(source), std::move(tokens), {});
}

namespace {

// llama-server's chatml: common_chat_templates_init replaces an absent template (and the
// name "chatml") by a Jinja text (CHATML_TEMPLATE_SRC), not by the legacy built-in: it
// continues a trailing assistant message and has that text's caps (system role, string
// content). The transformers mode renders the built-in (chat_template_impl::transformers_builtin).
result<std::shared_ptr<chat_template_impl>> chatml_default(chat_tokens tokens) {
  static constexpr std::string_view source =
      "{%- for message in messages -%}\n"
      "  {{- '<|im_start|>' + message.role + '\n' + message.content + '<|im_end|>\n' -}}\n"
      "{%- endfor -%}\n"
      "{%- if add_generation_prompt -%}\n"
      "  {{- '<|im_start|>assistant\n' -}}\n"
      "{%- endif -%}";
  auto impl = jinja_impl(std::string(source), std::move(tokens));
  if (impl) (*impl)->transformers_builtin = "chatml";
  return impl;
}

}  // namespace

result<chat_template> chat_template::builtin(std::string_view name, chat_tokens tokens) {
  if (name == "chatml") {
    auto impl = chatml_default(std::move(tokens));
    if (!impl) return impl.error();
    chat_template t;
    t.impl_ = std::move(*impl);
    return t;
  }
  for (auto n : builtin_names()) {
    if (n == name) {
      auto impl = std::make_shared<chat_template_impl>();
      impl->builtin = std::string(n);
      impl->tokens = std::move(tokens);
      chat_template t;
      t.impl_ = std::move(impl);
      return t;
    }
  }
  return error{errc::invalid_argument, no_offset, {}, "unknown built-in chat template '" + std::string(name) + "'"};
}

result<chat_template> chat_template::load(const file& f, const vocab& v, std::string_view name) {
  chat_tokens tokens;
  tokens.bos_token = token_text(v, v.bos());
  tokens.eos_token = token_text(v, v.eos());
  tokens.unk_token = token_text(v, v.unk());
  tokens.pad_token = token_text(v, v.pad());
  tokens.add_bos = v.add_bos();
  tokens.add_eos = v.add_eos();

  auto read = [&](std::string_view key) -> result<std::optional<std::string>> {
    if (!f.find(key)) return std::optional<std::string>{};
    auto s = f.get_string(key);
    if (!s) return s.error();
    return std::optional<std::string>(std::string(*s));
  };
  if (!name.empty()) {
    std::string key = "tokenizer.chat_template." + std::string(name);
    auto src = read(key);
    if (!src) return src.error();
    if (!*src) return error{errc::key_not_found, no_offset, key, "no chat template named '" + std::string(name) + "'"};
    return from_key(std::move(**src), tokens, key);
  }
  auto main_src = read("tokenizer.chat_template");
  if (!main_src) return main_src.error();
  auto tool_src = read("tokenizer.chat_template.tool_use");
  if (!tool_src) return tool_src.error();
  std::shared_ptr<const chat_template_impl> tool_use;
  if (*tool_src) {
    auto t = from_key(std::move(**tool_src), tokens, "tokenizer.chat_template.tool_use");
    if (!t) return t.error();
    tool_use = t->impl_;
  }
  if (!*main_src) {  // llama-server: the tool_use variant, else chatml
    if (tool_use) {
      chat_template t;
      t.impl_ = tool_use;
      return t;
    }
    return builtin("chatml", tokens);  // llama-server's default (chatml_default)
  }
  auto t = from_key(std::move(**main_src), tokens, "tokenizer.chat_template");
  if (!t) return t.error();
  if (tool_use) {
    auto impl = std::make_shared<chat_template_impl>();
    impl->source = t->impl_->source;
    impl->builtin = t->impl_->builtin;
    impl->key = t->impl_->key;
    impl->tokens = t->impl_->tokens;
    impl->program = t->impl_->program;
    impl->server_program = t->impl_->server_program;
    impl->tool_use = std::move(tool_use);
    t->impl_ = std::move(impl);
  }
  return t;
}

result<std::string> chat_template::apply(const chat_request& req, chat_mode mode) const {
  return mode == chat_mode::server ? apply_server(*impl_, req) : apply_transformers(*impl_, req);
}

result<std::string> chat_template::apply(std::string_view messages_json, std::string_view tools_json,
                                         bool add_generation_prompt, std::string_view kwargs_json,
                                         chat_mode mode) const {
  chat_request req{std::string(messages_json), std::string(tools_json), add_generation_prompt,
                   std::string(kwargs_json)};
  return apply(req, mode);
}

chat_caps chat_template::caps() const {
  chat_caps c = template_caps(*impl_);
  // llama-server's common_chat_templates_support_enable_thinking (its handler's or autoparser's
  // supports_thinking); built-ins go through the legacy path, which has none
  c.supports_enable_thinking = impl_->builtin.empty() && template_server_traits(*impl_).supports_thinking;
  return c;
}

const std::string& chat_template::source() const { return impl_->source; }
std::string_view chat_template::builtin_name() const {
  return impl_->builtin.empty() ? impl_->transformers_builtin : impl_->builtin;
}
const chat_tokens& chat_template::tokens() const { return impl_->tokens; }

std::string_view chat_template::detected_builtin() const {
  if (!impl_->builtin.empty()) return impl_->builtin;
  return detect_builtin(impl_->source).value_or(std::string_view{});
}

const std::vector<std::string_view>& chat_builtin_templates() { return builtin_names(); }

std::optional<std::string_view> chat_detect_template(std::string_view source) { return detect_builtin(source); }

}  // namespace gguf
