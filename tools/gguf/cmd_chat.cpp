// gguf chat -m FILE (--messages F.json | --jsonl) [--tools F.json] [--add-generation-prompt]
//           [--chat-template-kwargs JSON] [--chat-template NAME | --chat-template-file T]
//           [--server] [--tokenize] [--count] [--caps] [--threads N]
// The prompt a conversation becomes under the file's chat template (gguf/chat.h): as
// transformers' apply_chat_template renders it (default) or as llama-server builds it
// (--server). --jsonl: one request per input line, one output line each, in order.
#include <atomic>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "commands.h"
#include "gguf/chat.h"
#include "gguf/vocab.h"
#include "chat_json.h"
#include "jsonl.h"

namespace gguf::cli::cmd_chat {
namespace {

using ojson = nlohmann::ordered_json;

std::string dump(const ojson& j) { return j.dump(-1, ' ', false, ojson::error_handler_t::replace); }

result<std::string> read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(errc::io_error, no_offset, "cannot read " + path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}


// A request from a JSON value: an array of messages, or an object with "messages" and the
// optional "tools", "add_generation_prompt", "chat_template_kwargs" (absent: the defaults).
bool to_request(const ojson& j, const chat_request& defaults, chat_request& out) {
  out = defaults;
  if (j.is_array()) {
    out.messages_json = dump(j);
    return true;
  }
  if (!j.is_object() || !j.contains("messages") || !j["messages"].is_array()) return false;
  out.messages_json = dump(j["messages"]);
  if (auto it = j.find("tools"); it != j.end()) {
    if (!it->is_array() && !it->is_null()) return false;
    out.tools_json = it->is_null() ? "" : dump(*it);
  }
  if (auto it = j.find("add_generation_prompt"); it != j.end()) {
    if (!it->is_boolean()) return false;
    out.add_generation_prompt = it->get<bool>();
  }
  if (auto it = j.find("chat_template_kwargs"); it != j.end()) {
    if (!it->is_object()) return false;
    out.kwargs_json = dump(*it);
  }
  return true;
}

int run(int argc, char** argv) {
  CLI::App app{"The prompt a conversation becomes under a GGUF file's chat template (transformers' or llama-server's rendering).",
               "chat"};
  text_options opts;
  add_text_options(app, opts, "GGUF file (tokenizer.chat_template and the vocabulary)",
                   "read requests from standard input, one JSON object per line "
                   "({\"messages\", \"tools\", \"add_generation_prompt\", \"chat_template_kwargs\"}); "
                   "print one JSON object per line",
                   "render");
  // (references, not a structured binding: lambdas below capture them, which clang before 16 refuses)
  std::string& model = opts.model;
  bool& jsonl = opts.jsonl;
  unsigned& threads = opts.threads;
  CLI::Option*& jsonl_flag = opts.jsonl_flag;
  std::string messages_file, tools_file, kwargs, template_name, template_file;
  bool add_gen = false, server = false, tokenize = false, count = false, caps = false;
  auto* msg_opt = app.add_option("--messages", messages_file,
                                 "JSON file: an array of OpenAI-style messages (or a request object as a --jsonl line)");
  msg_opt->excludes(jsonl_flag);
  app.add_option("--tools", tools_file, "JSON file: an array of tools ({\"type\": \"function\", \"function\": {...}})");
  app.add_flag("--add-generation-prompt", add_gen, "end the prompt with the assistant's turn header");
  app.add_option("--chat-template-kwargs", kwargs, "JSON object of extra template variables (e.g. {\"enable_thinking\": false})");
  auto* name_opt = app.add_option("--chat-template", template_name,
                                  "a built-in template by llama.cpp's name (chatml, llama3, ...) or a Jinja template text");
  auto* file_opt = app.add_option("--chat-template-file", template_file, "a Jinja template file");
  name_opt->excludes(file_opt);
  app.add_flag("--server", server, "render as llama-server v0.5.0 builds the prompt of a chat request");
  app.add_flag("--tokenize", tokenize,
               "print the prompt's token ids (as llama-server tokenizes a prompt) instead of the prompt; with --jsonl, "
               "an \"ids\" field beside it");
  app.add_flag("--count", count,
               "print the number of tokens of the prompt instead of the prompt (after the ids with --tokenize); with "
               "--jsonl, an \"n_tokens\" field beside it");
  app.add_flag("--caps", caps, "print the template's capabilities as JSON (llama.cpp's caps + supports_enable_thinking) and exit");
  if (auto rc = parse(app, argc, argv)) return *rc;
  if (!caps && !jsonl && messages_file.empty()) {
    std::cerr << "gguf chat: one of --messages, --jsonl or --caps is required\n";
    return exit_usage;
  }

  auto f = open_model(model);
  if (!f) return report(model, f.error());
  auto v = load_vocab(*f);
  if (!v) return report(model, v.error());

  chat_tokens tokens;
  auto token = [&](int32_t id) -> std::optional<std::string> {
    if (id < 0 || static_cast<uint32_t>(id) >= v->n_tokens()) return std::nullopt;
    return std::string(v->token_text(id));
  };
  tokens.bos_token = token(v->bos());
  tokens.eos_token = token(v->eos());
  tokens.unk_token = token(v->unk());
  tokens.pad_token = token(v->pad());
  tokens.add_bos = v->add_bos();
  tokens.add_eos = v->add_eos();
  std::string tmpl_subject = model;
  result<chat_template> tmpl = [&]() -> result<chat_template> {
    if (!template_file.empty()) {
      tmpl_subject = template_file;
      auto src = read_text_file(template_file);
      if (!src) return src.error();
      return chat_template::from_source(std::move(*src), tokens);
    }
    if (!template_name.empty()) {
      tmpl_subject = "--chat-template";
      auto t = chat_template::from_source(template_name, tokens);
      // llama.cpp takes a name it does not know as template text: say so when it looks like a name
      if (t && t->builtin_name().empty() && template_name.find("{{") == std::string::npos &&
          template_name.find("{%") == std::string::npos) {
        std::cerr << "gguf chat: note: --chat-template '" << template_name
                  << "' is not a built-in template name (see docs/chat.md); it is rendered as template text\n";
      }
      return t;
    }
    return chat_template::load(*f, *v);
  }();
  if (!tmpl) return report(tmpl_subject, tmpl.error());


  if (caps) {
    print_json(chat_caps_json(tmpl->caps()));
    return exit_ok;
  }

  chat_request defaults;
  defaults.add_generation_prompt = add_gen;
  if (!tools_file.empty()) {
    auto t = read_text_file(tools_file);
    if (!t) return report(tools_file, t.error());
    // said under the tools file's name (the template's errors are the model's)
    if (json_nesting_depth(*t) <= chat_max_json_depth) {
      auto j = ojson::parse(*t, nullptr, false);
      if (j.is_discarded() || !(j.is_array() || j.is_null()))
        return report(tools_file, make_error(errc::invalid_argument, no_offset,
                                             j.is_discarded() ? "not valid JSON"
                                                              : "expected a JSON array of tools, not " +
                                                                    std::string(j.type_name())));
    }
    defaults.tools_json = *t;
  }
  if (!kwargs.empty()) {
    if (json_nesting_depth(kwargs) > chat_max_json_depth) {
      std::cerr << "gguf chat: --chat-template-kwargs is nested deeper than " << chat_max_json_depth << " levels\n";
      return exit_usage;
    }
    auto k = ojson::parse(kwargs, nullptr, false);
    if (k.is_discarded() || !k.is_object()) {
      std::cerr << "gguf chat: --chat-template-kwargs must be a JSON object\n";
      return exit_usage;
    }
    defaults.kwargs_json = kwargs;
  }
  const chat_mode mode = server ? chat_mode::server : chat_mode::transformers;

  if (!jsonl) {
    auto text = read_text_file(messages_file);
    if (!text) return report(messages_file, text.error());
    if (json_nesting_depth(*text) > chat_max_json_depth)
      return report(messages_file, make_error(errc::invalid_argument, no_offset,
                                              "nested deeper than " + std::to_string(chat_max_json_depth) + " levels"));
    auto j = ojson::parse(*text, nullptr, false);
    chat_request req;
    if (j.is_discarded() || !to_request(j, defaults, req)) {
      return report(messages_file, make_error(errc::invalid_argument, no_offset,
                                              "expected a JSON array of messages or an object with \"messages\""));
    }
    auto prompt = tmpl->apply(req, mode);
    if (!prompt) return report(tmpl_subject, prompt.error());
    if (!tokenize && !count) {
      std::cout << *prompt;
      return exit_ok;
    }
    auto ids = v->tokenize(*prompt, true, true);
    if (!ids) return report(model, ids.error());
    if (tokenize) std::cout << dump(ojson(*ids)) << '\n';
    if (count) std::cout << ids->size() << '\n';
    return exit_ok;
  }

  jsonl_reader in(0);
  threads = jsonl_threads(threads);
  std::atomic<bool> raised{false};
  int rc = run_jsonl(in, threads, [&](unsigned, std::span<const jsonl_line> lines, std::string& o, std::string& err) {
    chat_request req;
    for (const jsonl_line& line : lines) {
      if (json_nesting_depth(line.text) > chat_max_json_depth)
        return jsonl_error(in, line.line_no,
                           "JSON nested at most " + std::to_string(chat_max_json_depth) + " levels deep", err);
      auto j = ojson::parse(line.text, nullptr, false);
      if (j.is_discarded() || !to_request(j, defaults, req))
        return jsonl_error(in, line.line_no, "an object with a \"messages\" array (and optional \"tools\" array, "
                                             "\"add_generation_prompt\" boolean, \"chat_template_kwargs\" object)", err);
      ojson out;
      auto prompt = tmpl->apply(req, mode);
      if (!prompt) {
        raised = true;
        out["error"] = prompt.error().message();
      } else {
        out["prompt"] = *prompt;
        if (tokenize || count) {
          auto ids = v->tokenize(*prompt, true, true);
          if (!ids) {
            raised = true;
            out = ojson{{"error", ids.error().message()}};
          } else {
            if (tokenize) out["ids"] = *ids;
            if (count) out["n_tokens"] = ids->size();
          }
        }
      }
      o += dump(out);
      o += '\n';
    }
    return exit_ok;
  });
  if (rc != exit_ok) return rc;
  return raised ? exit_invalid : exit_ok;
}

const registrar reg{"chat", "the prompt (and tokens) of a conversation under the file's chat template", run};

}  // namespace
}  // namespace gguf::cli::cmd_chat
