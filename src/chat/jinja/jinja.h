// gguf::jinja — a Jinja engine of our own for chat templates (internal API of src/chat).
//
// The whole API, in use:
//
//     auto prog = gguf::jinja::parse(source);             // result<program>; compile once
//     if (!prog) ...prog.error()...                       // errc::invalid_template, "line L, column C: ..."
//     auto ctx = gguf::jinja::value::from_json(json);     // a dict: messages, tools, bos_token, ...
//     ctx.set("raise_exception", ...)                     // optional: context entries shadow globals
//     auto out = gguf::jinja::render(*prog, ctx);         // result<std::string>; render many times
//     if (!out) ...out.error()...                         // errc::template_error / errc::limit_exceeded
//
// Semantics are jinja2's (3.1) as transformers' apply_chat_template sets it up:
// ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
// extensions=[loopcontrols, generation]); filters, tests and globals of jinja2 plus
// transformers' tojson (json.dumps, ensure_ascii=False), raise_exception(msg) and
// strftime_now(fmt) (which honours SOURCE_DATE_EPOCH here). Values have Python's
// semantics (value.h). The differences from jinja2 that remain are listed in
// docs/chat.md ("The engine").
//
// Limits (struct limits) end a runaway template with errc::limit_exceeded: output
// bytes, steps (fuel: one per evaluated node and loop iteration), recursion depth
// (macro calls and recursive loops), bytes allocated for strings and containers.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "chat/jinja/value.h"
#include "gguf/error.h"

namespace gguf::jinja {

/// Whose semantics a render follows where jinja2 and llama.cpp's engine differ.
enum class dialect : uint8_t {
  jinja2,     ///< jinja2 3.1 in transformers' sandbox (the default)
  llama_cpp,  ///< llama.cpp v0.5.0's common/jinja, where it is more lenient: select/map
              ///< results are lists (tojson, length work), `+`/`~` of a string and
              ///< none/undefined treat the null side as "", attributes of undefined are
              ///< undefined, list.append is allowed (it changes the list), the methods
              ///< of undefined/none that llama.cpp gives empty results (`.items()` -> [],
              ///< `.length()` -> 0, ...), `|safe` is plain text (no markup, so no escaping)
};

/// Lexer options, as jinja2.Environment spells them. The defaults are transformers'.
struct options {
  bool trim_blocks = true;            ///< drop the first newline after a block tag
  bool lstrip_blocks = true;          ///< strip spaces and tabs before a block tag on its line
  bool keep_trailing_newline = false; ///< keep a single newline at the end of the source
};

/// What a render may spend. Defaults let every real chat template through with room
/// and end a runaway one in well under a second.
struct limits {
  uint64_t max_output_bytes = 16u << 20;   ///< bytes the template may output
  uint64_t max_steps = 5'000'000;          ///< evaluation steps (fuel)
  uint32_t max_depth = 256;                ///< nested macro calls / recursive loop levels / expression depth
  uint64_t max_memory_bytes = 256u << 20;  ///< bytes allocated for strings and containers (cumulative)
  jinja::dialect dialect = jinja::dialect::jinja2;  ///< the semantics (not a limit, but chosen per render too)
};

struct program_impl;

/// A parsed template: immutable, shareable between threads, rendered many times.
class program {
 public:
  program() = default;
  explicit program(std::shared_ptr<const program_impl> p) : p_(std::move(p)) {}
  const program_impl* impl() const noexcept { return p_.get(); }

 private:
  std::shared_ptr<const program_impl> p_;
};

/// Which values of the context a render touched, as llama.cpp's engine records it
/// (common/jinja value stats, used by its caps probe): a value is "used" when a name
/// lookup, member or item access, filter, test, method or for loop reaches it, and
/// tojson marks a whole tree; `ops` names what was done to it ("test_is_string",
/// "selectattr", "array_access", "object_access", a filter or method name). Values are
/// identified by their shared storage (value::identity), so only strings and containers
/// are tracked.
struct usage {
  std::unordered_set<const void*> used;
  std::unordered_map<const void*, std::unordered_set<std::string>> ops;
  bool is_used(const value& v) const { return v.identity() && used.count(v.identity()); }
  bool has_op(const value& v, const std::string& op) const {
    auto it = ops.find(v.identity());
    return v.identity() && it != ops.end() && it->second.count(op);
  }
};

/// Parses a template. Errors: errc::invalid_template, detail "line L, column C: what".
result<program> parse(std::string_view source, const options& opts = {});

/// Renders `prog` with the variables of `context` (a dict; other kinds are an empty
/// context). Context entries shadow the globals (globals.h). Errors:
/// errc::template_error ("line L: what", raise_exception's message as given:
/// "line L: <message>"), errc::limit_exceeded ("line L: output limit of N bytes ...").
result<std::string> render(const program& prog, const value& context, const limits& lim = {});
/// The same, recording in `track` which context values the render used (caps probes).
result<std::string> render(const program& prog, const value& context, const limits& lim, usage* track);

}  // namespace gguf::jinja
