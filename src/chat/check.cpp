// check_chat_templates: the chat-template rules of `gguf validate` (docs/validation-rules.md).
#include "chat/template_impl.h"
#include "gguf/file.h"

namespace gguf {
namespace {

// The text of the token tokenizer.ggml.<which>_token_id names, if the file has both.
std::optional<std::string> token_of(const file& f, std::string_view which) {
  auto id = f.find("tokenizer.ggml." + std::string(which) + "_token_id");
  auto toks = f.find("tokenizer.ggml.tokens");
  if (!id || !toks) return std::nullopt;
  auto n = id->to_uint64();
  auto arr = toks->array();
  if (!n || !arr) return std::nullopt;
  auto s = arr->get<std::string_view>(*n);
  if (!s) return std::nullopt;
  return std::string(*s);
}

constexpr std::string_view probe_messages =
    R"([{"role":"user","content":"Hello"},{"role":"assistant","content":"Hi there"},)"
    R"({"role":"user","content":"How are you?"}])";

}  // namespace

std::vector<chat_template_issue> check_chat_templates(const file& f) {
  std::vector<chat_template_issue> out;
  chat_tokens tokens;
  tokens.bos_token = token_of(f, "bos");
  tokens.eos_token = token_of(f, "eos");
  for (const auto& kv : f.kvs()) {
    if (kv.key != "tokenizer.chat_template" && kv.key.rfind("tokenizer.chat_template.", 0) != 0) continue;
    auto src = kv.value.get<std::string_view>();
    if (!src) continue;
    auto t = chat_template::from_source(std::string(*src), tokens);
    chat_template_issue issue;
    issue.key = std::string(kv.key);
    issue.offset = kv.value.offset();
    if (!t) {
      issue.is_error = true;
      issue.rule = "chat_template.parse";
      issue.message = "the chat template does not parse: " + t.error().detail;
      out.push_back(std::move(issue));
      continue;
    }
    auto r = t->apply(probe_messages, "", true);
    if (!r) {
      issue.rule = "chat_template.render";
      issue.message = "the chat template raises on a plain user/assistant exchange: " + r.error().detail;
      out.push_back(std::move(issue));
    }
  }
  return out;
}

}  // namespace gguf
