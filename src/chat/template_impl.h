// Internals of gguf::chat_template shared by the two renderings (template.cpp: loading and the
// transformers rendering; server.cpp: llama-server's).
#pragma once

#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "chat/builtin.h"
#include "chat/jinja/jinja.h"
#include "chat/server_format.h"
#include "gguf/chat.h"

namespace gguf {

namespace chat_detail {
/// What llama-server derives from a template once: its handler, the autoparser's reasoning
/// markers (for the autoparser format) and whether it supports thinking.
struct server_traits {
  server_format format = server_format::autoparser;
  reasoning_markers reasoning;
  bool supports_thinking = false;
};
}  // namespace chat_detail

struct chat_template_impl {
  std::string source;                          ///< Jinja source ("" for a built-in)
  std::string builtin;                         ///< built-in name, or ""
  std::string key;  ///< the GGUF key the source was read from (chat_template::load), or ""
  /// A file without a template: llama-server renders its Jinja chatml (source, program),
  /// transformers mode this built-in (transformers refuses such a file; the built-in takes
  /// null content and content parts, which the Jinja text cannot).
  std::string transformers_builtin;
  chat_tokens tokens;
  std::optional<jinja::program> program;       ///< parsed source (Jinja templates)
  /// llama-server renders two known templates with a patched check (common_chat_templates_init);
  /// the patched source parsed, when the patch applies.
  std::optional<jinja::program> server_program;
  std::shared_ptr<const chat_template_impl> tool_use;  ///< the file's "tool_use" variant, if any
  mutable std::once_flag caps_once;
  mutable chat_caps caps;
  mutable std::once_flag server_once;
  mutable chat_detail::server_traits server;
};

namespace chat_detail {

using ojson = nlohmann::ordered_json;

/// Parses a JSON text of the request ("" -> `empty`). Errors: errc::invalid_argument naming `what`.
result<ojson> parse_json(std::string_view text, std::string_view what, ojson empty);

/// A request's JSON texts parsed (parse_json): messages ([] when empty), tools (null when
/// empty) and the template kwargs ({} when empty; anything else than an object is an error).
struct request_json {
  ojson messages, tools, kwargs;
};
result<request_json> parse_request(const chat_request& req);

/// Flattens messages for a built-in template as llama-server's legacy path does: role and
/// content; text (and media-marker) parts joined by "\n"; null content as "".
result<std::vector<flat_message>> flatten_messages(const ojson& messages);

/// Renders `prog` with `context` (a JSON object). Errors of the engine as they are.
/// e with t's key as its subject when it names none: a render error names the key of the
/// template that raised, as a parse error does.
inline error named_by_key(error e, const chat_template_impl& t) {
  if (e.subject.empty() && !t.key.empty()) e.subject = t.key;
  return e;
}

result<std::string> render_jinja(const jinja::program& prog, const ojson& context,
                                 jinja::dialect dialect = jinja::dialect::jinja2);

/// The template's capabilities, computed once (caps.cpp of the engine).
const chat_caps& template_caps(const chat_template_impl& impl);

/// llama-server's patched source of `source` (common_chat_templates_init), or nullopt when no
/// patch applies.
std::optional<std::string> server_patched_source(std::string_view source);

/// The template's server traits, computed once (server.cpp).
const server_traits& template_server_traits(const chat_template_impl& impl);

/// llama-server's rendering (server.cpp).
result<std::string> apply_server(const chat_template_impl& impl, const chat_request& req);

/// The current time for templates: SOURCE_DATE_EPOCH when set, else now.
int64_t template_time();

}  // namespace chat_detail
}  // namespace gguf
