// Records llama.cpp v0.5.0's chat layer for tests/chat (built and run by scripts/record-chat-llamacpp.sh;
// links libllama + libllama-common of the reference, see ../shared/reference/setup.sh).
//
//   chat_reference_driver server CONV_DIR DATA_DIR < templates.jsonl > server.jsonl
//       For every template x conversation: the prompt llama-server (default options, --jinja) builds for a
//       /v1/chat/completions request {"messages", "tools", "add_generation_prompt", "chat_template_kwargs"}:
//       oaicompat_chat_params_parse's handling (prefill_assistant of a trailing assistant message,
//       enable_thinking from common_chat_templates_support_enable_thinking and the kwarg, the default
//       kwarg preserve_reasoning=true, parallel_tool_calls from the caps, reasoning_format deepseek),
//       then common_chat_templates_apply(...).prompt. A template of a vocabulary file is loaded with the
//       model (vocab only), so bos/eos and add_bos/add_eos come from the file; a template of
//       models/templates with bos "<s>", eos "</s>" and no model. -> {"t", "c", "prompt"} or {"t","c","error"}
//   chat_reference_driver builtin CONV_DIR < templates.jsonl > builtin.jsonl
//       llama_chat_apply_template(NAME, ...) for every llama_chat_builtin_templates() name x conversation
//       (messages as llama-server's --no-jinja path passes them: content, text parts joined by "\n")
//       -> {"t": NAME, "c", "prompt"} or {"t", "c", "error"}; then llm_chat_detect_template for every
//       template source -> {"detect": NAME-of-template, "as": builtin name or null}.
#include "chat.h"
#include "llama.h"
#include "llama-chat.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using njson = nlohmann::ordered_json;
namespace fs = std::filesystem;

static std::vector<std::pair<std::string, njson>> read_conversations(const std::string& dir) {
    std::vector<std::pair<std::string, njson>> out;
    std::vector<fs::path> paths;
    for (const auto& e : fs::directory_iterator(dir)) {
        if (e.path().extension() == ".json") paths.push_back(e.path());
    }
    std::sort(paths.begin(), paths.end());
    for (const auto& p : paths) {
        std::ifstream in(p);
        out.emplace_back(p.stem().string(), njson::parse(in));
    }
    return out;
}

static std::vector<njson> read_templates() {
    std::vector<njson> out;
    std::string line;
    while (std::getline(std::cin, line)) {
        if (!line.empty()) out.push_back(njson::parse(line));
    }
    return out;
}

static void emit(njson rec) { std::cout << rec.dump(-1, ' ', false, njson::error_handler_t::replace) << "\n"; }

// oaicompat_chat_params_parse (tools/server/server-common.cpp), the parts that reach the prompt.
static std::string server_prompt(const common_chat_templates* tmpls, bool thinking_default, const njson& conv) {
    common_json messages = common_json::parse(conv.at("messages").dump());
    for (const auto& m : conv.at("messages")) {
        std::string role = m.value("role", "");
        if (role != "assistant" && !m.contains("content"))
            throw std::invalid_argument("All non-assistant messages must contain 'content'");
    }
    common_json tools = conv.contains("tools") ? common_json::parse(conv.at("tools").dump()) : common_json();
    auto caps = common_chat_templates_get_caps(tmpls);

    common_chat_templates_inputs inputs;
    inputs.messages = common_chat_msgs_parse_oaicompat(messages);
    inputs.tools = common_chat_tools_parse_oaicompat(tools);
    inputs.tool_choice = COMMON_CHAT_TOOL_CHOICE_AUTO;
    inputs.use_jinja = true;
    inputs.parallel_tool_calls = caps["supports_parallel_tool_calls"];
    inputs.add_generation_prompt = conv.value("add_generation_prompt", true);
    if (!inputs.messages.empty() && inputs.messages.back().role == "assistant") {  // prefill_assistant
        if (inputs.messages.size() >= 2 && inputs.messages[inputs.messages.size() - 2].role == "assistant")
            throw std::invalid_argument("Cannot have 2 or more assistant messages at the end of the list.");
        inputs.continue_final_message = COMMON_CHAT_CONTINUATION_AUTO;
        inputs.add_generation_prompt = false;
    }
    if (inputs.continue_final_message != COMMON_CHAT_CONTINUATION_NONE && !inputs.messages.back().tool_calls.empty())
        throw std::invalid_argument("Cannot continue an assistant message that contains tool calls.");
    inputs.reasoning_format = COMMON_REASONING_FORMAT_DEEPSEEK;
    inputs.enable_thinking = thinking_default;
    inputs.chat_template_kwargs["preserve_reasoning"] = "true";
    if (conv.contains("chat_template_kwargs")) {
        for (const auto& [k, v] : conv.at("chat_template_kwargs").items()) inputs.chat_template_kwargs[k] = v.dump();
    }
    auto it = inputs.chat_template_kwargs.find("enable_thinking");
    if (it != inputs.chat_template_kwargs.end()) {
        if (it->second == "true") inputs.enable_thinking = true;
        else if (it->second == "false") inputs.enable_thinking = false;
        else if (!it->second.empty() && it->second[0] == '"')
            throw std::invalid_argument("invalid type for \"enable_thinking\" (expected boolean, got string)");
    }
    return common_chat_templates_apply(tmpls, inputs).prompt;
}

static int run_server(const std::string& conv_dir, const std::string& data_dir) {
    auto convs = read_conversations(conv_dir);
    std::map<std::string, llama_model*> models;
    auto model_for = [&](const std::string& file) -> llama_model* {
        auto it = models.find(file);
        if (it != models.end()) return it->second;
        auto mp = llama_model_default_params();
        mp.vocab_only = true;
        llama_model* m = llama_model_load_from_file((data_dir + "/" + file).c_str(), mp);
        models[file] = m;
        return m;
    };
    for (const auto& t : read_templates()) {
        const std::string name = t.at("name");
        common_chat_templates_ptr tmpls;
        std::string init_error;
        try {
            if (name.rfind("vocab/", 0) == 0) {
                auto colon = name.find(':');
                std::string file = name.substr(0, colon);
                llama_model* m = model_for(file);
                if (!m) throw std::runtime_error("cannot load " + file);
                // the file's own template(s) through llama_model_chat_template, a named variant as an override
                tmpls = common_chat_templates_init(m, colon == std::string::npos ? "" : t.at("source").get<std::string>());
            } else {
                tmpls = common_chat_templates_init(nullptr, t.at("source").get<std::string>(), "<s>", "</s>");
            }
        } catch (const std::exception& e) {
            init_error = e.what();
        }
        bool thinking_default = false;
        if (tmpls) {
            try {
                thinking_default = common_chat_templates_support_enable_thinking(tmpls.get());
            } catch (const std::exception&) {
                thinking_default = false;
            }
        }
        for (const auto& [cname, conv] : convs) {
            njson rec = {{"t", name}, {"c", cname}};
            try {
                if (!tmpls) throw std::runtime_error(init_error);
                rec["prompt"] = server_prompt(tmpls.get(), thinking_default, conv);
            } catch (const std::exception& e) {
                rec["error"] = e.what();
            }
            emit(rec);
        }
        njson caps = {{"caps", name}, {"thinking", thinking_default}};
        if (tmpls) {
            for (const auto& [k, v] : common_chat_templates_get_caps(tmpls.get())) caps[k] = v;
        }
        emit(caps);
    }
    for (auto& [f, m] : models) {
        if (m) llama_model_free(m);
    }
    return 0;
}

static int run_builtin(const std::string& conv_dir) {
    auto convs = read_conversations(conv_dir);
    std::vector<const char*> names(128);
    int n = llama_chat_builtin_templates(names.data(), names.size());
    names.resize(n);
    std::map<int, std::string> by_id;
    for (const char* nm : names) by_id[(int) llm_chat_template_from_str(nm)] = nm;

    for (const char* nm : names) {
        for (const auto& [cname, conv] : convs) {
            njson rec = {{"t", nm}, {"c", cname}};
            try {
                auto msgs = common_chat_msgs_parse_oaicompat(common_json::parse(conv.at("messages").dump()));
                std::vector<std::string> contents;
                for (const auto& m : msgs) {  // common_chat_templates_apply_legacy's flattening
                    std::string c = m.content;
                    for (const auto& p : m.content_parts) {
                        if (p.type != "text" && p.type != "media_marker") continue;
                        if (!c.empty()) c += "\n";
                        c += p.text;
                    }
                    contents.push_back(c);
                }
                std::vector<llama_chat_message> chat;
                for (size_t i = 0; i < msgs.size(); ++i) chat.push_back({msgs[i].role.c_str(), contents[i].c_str()});
                bool add_ass = conv.value("add_generation_prompt", false);
                int32_t r = llama_chat_apply_template(nm, chat.data(), chat.size(), add_ass, nullptr, 0);
                if (r < 0) throw std::runtime_error("llama_chat_apply_template returned " + std::to_string(r));
                std::vector<char> buf(r + 1);
                llama_chat_apply_template(nm, chat.data(), chat.size(), add_ass, buf.data(), buf.size());
                rec["prompt"] = std::string(buf.data(), r);
            } catch (const std::exception& e) {
                rec["error"] = e.what();
            }
            emit(rec);
        }
    }
    for (const auto& t : read_templates()) {
        auto d = llm_chat_detect_template(t.at("source").get<std::string>());
        njson rec = {{"detect", t.at("name")}};
        auto it = by_id.find((int) d);
        rec["as"] = it == by_id.end() ? njson() : njson(it->second);
        emit(rec);
    }
    return 0;
}

int main(int argc, char** argv) {
    llama_log_set([](ggml_log_level, const char*, void*) {}, nullptr);
    std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "server" && argc == 4) return run_server(argv[2], argv[3]);
    if (mode == "builtin" && argc == 3) return run_builtin(argv[2]);
    std::fprintf(stderr, "usage: %s server CONV_DIR DATA_DIR | builtin CONV_DIR  (templates.jsonl on stdin)\n", argv[0]);
    return 2;
}
