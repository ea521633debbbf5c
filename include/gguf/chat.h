// gguf/chat.h — chat templates: from a conversation to the prompt a model expects.
//
//   auto f = gguf::file::open("model.gguf");
//   auto v = gguf::vocab::load(*f);
//   auto t = gguf::chat_template::load(*f, *v);               // tokenizer.chat_template
//   auto p = t->apply(R"([{"role":"user","content":"Hi"}])", "", true);   // result<std::string>
//   auto s = t->apply(messages, tools, true, R"({"enable_thinking":false})", gguf::chat_mode::server);
//
// Two renderings, named after what users compare with (docs/chat.md):
//  - chat_mode::transformers (default): transformers' `tokenizer.apply_chat_template(messages,
//    tools=..., add_generation_prompt=..., tokenize=False, **kwargs)`: jinja2's
//    ImmutableSandboxedEnvironment with trim_blocks and lstrip_blocks, the context `messages`,
//    `tools` (none when empty), `add_generation_prompt`, the vocabulary's `bos_token`, `eos_token`,
//    `unk_token`, `pad_token` (as text; those the vocabulary has), then the kwargs. A file with a
//    "tool_use" template renders that one when tools are given, as transformers does.
//  - chat_mode::server: the prompt llama-server v0.5.0 builds for an OpenAI-style
//    /v1/chat/completions request (common_chat_templates_apply of llama.cpp's common/chat.cpp,
//    with llama-server's defaults): message normalization, the polyfills for templates without
//    a system role or tool support, tool-call arguments as objects or strings as the template
//    takes them, `enable_thinking` (default: on where the template honours it; the kwarg
//    overrides), a trailing assistant message continued (prefill), the BOS / EOS text a model
//    adds itself removed from the ends of the prompt.
// Built-in templates (llama.cpp's llama_chat_apply_template formats: chatml, llama3, ...) render
// the same in both modes.
//
// JSON goes in and out as text (messages: an array of OpenAI-style messages; tools: an array of
// {"type":"function","function":{...}}; kwargs: an object).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gguf/error.h"

#pragma GCC visibility push(default)  // public API: exported from the shared library
namespace gguf {

class file;
class vocab;

/// Which rendering apply() produces (see the header comment).
enum class chat_mode { transformers, server };

/// The special tokens a template sees as text, and whether the model adds BOS / EOS itself
/// (server mode strips them from the prompt's ends, as llama-server does).
struct chat_tokens {
  std::optional<std::string> bos_token, eos_token, unk_token, pad_token;
  bool add_bos = false;
  bool add_eos = false;
};

/// What a template supports, as llama.cpp's common/jinja/caps computes it (by rendering it on
/// probe conversations), plus `supports_enable_thinking`: llama.cpp v0.5.0's
/// common_chat_templates_support_enable_thinking (the format handler's supports_thinking, or for
/// templates without one whether its autoparser finds reasoning markers), which llama-server
/// uses as enable_thinking's default.
struct chat_caps {
  bool supports_system_role = false;
  bool supports_tools = false;
  bool supports_tool_calls = false;
  bool supports_parallel_tool_calls = false;
  bool supports_string_content = false;
  bool supports_typed_content = false;
  bool supports_object_arguments = false;
  bool supports_preserve_reasoning = false;
  bool supports_reasoning_effort = false;
  bool supports_enable_thinking = false;
};

/// Each capability by its name (the field's name, as `gguf chat --caps` and Python's
/// Vocab.chat_template_caps print it), in the order of chat_caps.
struct chat_caps_field {
  const char* name;
  bool chat_caps::*member;
};
inline constexpr chat_caps_field chat_caps_fields[] = {
    {"supports_system_role", &chat_caps::supports_system_role},
    {"supports_tools", &chat_caps::supports_tools},
    {"supports_tool_calls", &chat_caps::supports_tool_calls},
    {"supports_parallel_tool_calls", &chat_caps::supports_parallel_tool_calls},
    {"supports_string_content", &chat_caps::supports_string_content},
    {"supports_typed_content", &chat_caps::supports_typed_content},
    {"supports_object_arguments", &chat_caps::supports_object_arguments},
    {"supports_preserve_reasoning", &chat_caps::supports_preserve_reasoning},
    {"supports_reasoning_effort", &chat_caps::supports_reasoning_effort},
    {"supports_enable_thinking", &chat_caps::supports_enable_thinking},
};

/// One request of apply(): the same fields as `gguf chat --jsonl` takes.
struct chat_request {
  std::string messages_json;           ///< JSON array of messages
  std::string tools_json;              ///< JSON array of tools, or "" or null (none); else errc::invalid_argument
  bool add_generation_prompt = false;  ///< end with the assistant's turn header
  std::string kwargs_json;             ///< JSON object of extra template variables, or ""
};

struct chat_template_impl;

/// A parsed chat template (Jinja or built-in): immutable, cheap to copy, thread-safe.
class chat_template {
 public:
  /// The file's template: `tokenizer.chat_template` (name empty) or
  /// `tokenizer.chat_template.NAME`; special tokens from `v`. A file whose default template is
  /// absent uses its "tool_use" variant if any, else the built-in chatml (llama-server's
  /// default). Errors: errc::key_not_found (a named variant that is not there),
  /// errc::type_mismatch (not a string), errc::invalid_template (does not parse: line, column).
  static result<chat_template> load(const file& f, const vocab& v, std::string_view name = {});
  /// A Jinja template from its source, with the given special tokens. A built-in name given
  /// as source ("chatml", "llama3", ...) selects that built-in, as llama.cpp does.
  /// Errors: errc::invalid_template.
  static result<chat_template> from_source(std::string source, chat_tokens tokens = {});
  /// A built-in template by llama.cpp's name (chat_builtin_templates()). "chatml" is
  /// llama-server's: its Jinja chatml (CHATML_TEMPLATE_SRC) in the server mode and for caps(),
  /// the built-in in the transformers mode. Errors: errc::invalid_argument for an unknown name.
  static result<chat_template> builtin(std::string_view name, chat_tokens tokens = {});

  /// Renders a conversation. Errors: errc::invalid_argument (malformed JSON or a message
  /// llama-server refuses, in server mode), errc::template_error (the template raised:
  /// raise_exception's message, an undefined value, a type error; "line L: what"),
  /// errc::limit_exceeded (a runaway template: output, steps, depth or memory limit).
  result<std::string> apply(const chat_request& req, chat_mode mode = chat_mode::transformers) const;
  result<std::string> apply(std::string_view messages_json, std::string_view tools_json = {},
                            bool add_generation_prompt = false, std::string_view kwargs_json = {},
                            chat_mode mode = chat_mode::transformers) const;

  /// The Jinja source ("" for a built-in).
  const std::string& source() const;
  /// The built-in's name when this is one, else "".
  std::string_view builtin_name() const;
  /// The special tokens the template sees.
  const chat_tokens& tokens() const;
  /// llama.cpp's llm_chat_detect_template of the source: the built-in format llama.cpp's
  /// legacy path would use for it, or "" when none.
  std::string_view detected_builtin() const;
  /// The template's capabilities (computed once, on first call; built-ins: all false).
  chat_caps caps() const;

  std::shared_ptr<const chat_template_impl> impl_;
};

/// llama.cpp's built-in template names (llama_chat_builtin_templates), sorted.
const std::vector<std::string_view>& chat_builtin_templates();

/// The deepest nesting of JSON arrays and objects a chat request may have (messages, tools
/// and kwargs each): deeper requests are refused with errc::invalid_argument, as Python's
/// json module refuses them near its recursion limit (1000), before any code that takes a
/// stack frame per level (serializing, converting to template values) sees them.
inline constexpr size_t chat_max_json_depth = 512;
/// The deepest nesting of `[` and `{` in JSON text (0 for a scalar), brackets inside
/// strings skipped, escapes honoured. Not a validator: malformed text gives some count.
/// Linear in the text, no allocation.
size_t json_nesting_depth(std::string_view json) noexcept;

/// llm_chat_detect_template: the built-in a name or Jinja source is recognized as, or nullopt.
std::optional<std::string_view> chat_detect_template(std::string_view source);

}  // namespace gguf
#pragma GCC visibility pop

#pragma GCC visibility push(default)
namespace gguf {

/// One finding of check_chat_templates.
struct chat_template_issue {
  bool is_error = false;  ///< error: does not parse; warning: raises on the probe conversation
  std::string rule;       ///< "chat_template.parse" or "chat_template.render" (docs/validation-rules.md)
  std::string key;        ///< tokenizer.chat_template or tokenizer.chat_template.NAME
  uint64_t offset = no_offset;  ///< byte offset of the key's value
  std::string message;
};

/// Checks every string tokenizer.chat_template[.NAME] of `f`: it must parse (else an error),
/// and should render a plain exchange (user, assistant, user; add_generation_prompt) in
/// transformers mode with the file's BOS / EOS text (else a warning with the template's
/// message). Keys of another type are schema's business and skipped here.
std::vector<chat_template_issue> check_chat_templates(const file& f);

}  // namespace gguf
#pragma GCC visibility pop
