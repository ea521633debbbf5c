// Fuzz target: the Jinja engine (chat layer: gguf::jinja::parse and render).
// Input: a template, optionally followed by a NUL byte and a JSON context (an object
// whose entries become the template's variables; without one, a small conversation).
// Properties: parse either succeeds or fails with errc::invalid_template and a
// "line L, column C: ..." detail; a render ends (small fuel, output and memory limits)
// with the output or with errc::template_error / errc::limit_exceeded and a message;
// the output never exceeds the output limit; rendering is deterministic (a second render
// of a fresh context gives the same result).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "chat/jinja/jinja.h"
#include "fuzz_check.h"

namespace gj = gguf::jinja;

namespace {
const char* kDefaultContext =
    R"({"messages": [{"role": "system", "content": "sys"}, {"role": "user", "content": "hi"},)"
    R"( {"role": "assistant", "content": "ok", "tool_calls": [{"type": "function", "function":)"
    R"( {"name": "f", "arguments": {"a": 1}}}]}, {"role": "tool", "content": "r"}],)"
    R"( "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}],)"
    R"( "add_generation_prompt": true, "bos_token": "<s>", "eos_token": "</s>"})";

gj::value context_of(std::string_view json) {
  auto j = nlohmann::ordered_json::parse(json, nullptr, false);
  if (j.is_discarded() || !j.is_object()) j = nlohmann::ordered_json::parse(kDefaultContext);
  return gj::value::from_json(j);
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  size_t nul = in.find('\0');
  std::string_view tmpl = in.substr(0, nul);
  std::string_view ctx = nul == std::string_view::npos ? std::string_view(kDefaultContext) : in.substr(nul + 1);

  auto prog = gj::parse(tmpl);
  if (!prog) {
    FUZZ_CHECK(prog.error().code == gguf::errc::invalid_template);
    FUZZ_CHECK(prog.error().detail.rfind("line ", 0) == 0);
    return 0;
  }
  gj::limits lim;
  lim.max_steps = 200'000;
  lim.max_output_bytes = 1 << 20;
  lim.max_memory_bytes = 32u << 20;
  lim.max_depth = 64;
  auto a = gj::render(*prog, context_of(ctx), lim);
  auto b = gj::render(*prog, context_of(ctx), lim);
  FUZZ_CHECK(a.ok() == b.ok());
  if (a) {
    FUZZ_CHECK(a->size() <= lim.max_output_bytes);
    FUZZ_CHECK(*a == *b);
  } else {
    FUZZ_CHECK(a.error().code == gguf::errc::template_error || a.error().code == gguf::errc::limit_exceeded);
    FUZZ_CHECK(a.error().detail == b.error().detail);
  }
  return 0;
}
