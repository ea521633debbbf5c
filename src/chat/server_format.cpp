// llama-server's per-format handlers (see server_format.h); llama.cpp v0.5.0 common/chat.cpp and
// common/parsers/*.cpp.
#include "chat/server_format.h"

#include <algorithm>
#include <map>

namespace gguf::chat_detail {
namespace {

using ojson = nlohmann::ordered_json;

bool has(std::string_view s, std::string_view w) { return s.find(w) != std::string_view::npos; }

bool ends_with(std::string_view s, std::string_view end) {
  return s.size() >= end.size() && s.substr(s.size() - end.size()) == end;
}

bool has_tool_calls(const ojson& m) {
  return m.contains("tool_calls") && m["tool_calls"].is_array() && !m["tool_calls"].empty();
}

std::string role_of(const ojson& m) { return m.contains("role") && m["role"].is_string() ? m["role"].get<std::string>() : ""; }

// Gemma 4 (older templates): an assistant turn with tool calls, the tool results after it and a
// final assistant answer become one message with "tool_responses" (gemma4_model_turn_builder).
void gemma4_merge_tool_turns(ojson& messages) {
  ojson out = ojson::array();
  size_t i = 0;
  while (i < messages.size()) {
    const ojson& first = messages[i];
    if (role_of(first) != "assistant" || !has_tool_calls(first)) {
      out.push_back(first);
      ++i;
      continue;
    }
    ojson calls = ojson::array(), responses = ojson::array(), content, reasoning;
    if (first.contains("reasoning_content") && first["reasoning_content"].is_string()) reasoning = first["reasoning_content"];
    for (const auto& tc : first["tool_calls"]) calls.push_back(tc);
    ++i;
    for (; i < messages.size() && role_of(messages[i]) == "tool"; ++i) {
      const ojson& tool = messages[i];
      ojson response;
      if (tool.contains("content")) {
        const ojson& c = tool["content"];
        response = c;
        if (c.is_string()) {
          try {
            response = ojson::parse(c.get<std::string>());
          } catch (const std::exception&) {
            response = c;
          }
        }
      }
      std::string name;
      if (responses.size() < calls.size()) {
        const ojson& tc = calls[responses.size()];
        if (tc.contains("function")) name = tc["function"].value("name", "");
      }
      if (name.empty()) name = tool.value("tool_call_id", "");
      responses.push_back({{"name", name}, {"response", response}});
    }
    if (i < messages.size() && role_of(messages[i]) == "assistant" && !has_tool_calls(messages[i])) {
      const ojson& next = messages[i];
      const ojson c = next.contains("content") ? next["content"] : ojson();
      if ((c.is_string() && !c.get<std::string>().empty()) || (c.is_array() && !c.empty())) {
        content = c;
        ++i;
      }
    }
    ojson merged = {{"role", "assistant"}, {"tool_calls", calls}};
    if (!responses.empty()) merged["tool_responses"] = responses;
    if (!content.is_null()) merged["content"] = content;
    if (!reasoning.is_null()) merged["reasoning_content"] = reasoning;
    out.push_back(std::move(merged));
  }
  messages = std::move(out);
}

// DeepSeek V4: the tool results of one user/tool run in the order of the preceding tool calls.
void deepseek_v4_order_tool_results(ojson& messages) {
  std::map<std::string, size_t> order;
  for (size_t i = 0; i < messages.size();) {
    const std::string role = role_of(messages[i]);
    if (role == "assistant" && has_tool_calls(messages[i])) {
      order.clear();
      const ojson& calls = messages[i]["tool_calls"];
      for (size_t k = 0; k < calls.size(); ++k) {
        std::string id = calls[k].value("id", "");
        if (!id.empty()) order[id] = k;
      }
      ++i;
      continue;
    }
    if (role != "user" && role != "tool") {
      ++i;
      continue;
    }
    std::vector<size_t> at;
    size_t end = i;
    for (; end < messages.size(); ++end) {
      const std::string r = role_of(messages[end]);
      if (r == "tool") at.push_back(end);
      else if (r != "user") break;
    }
    if (at.size() > 1 && !order.empty()) {
      std::vector<ojson> results;
      for (size_t p : at) results.push_back(messages[p]);
      auto rank = [&](const ojson& m) {
        auto it = order.find(m.value("tool_call_id", ""));
        return it == order.end() ? size_t(0) : it->second;
      };
      std::stable_sort(results.begin(), results.end(), [&](const ojson& a, const ojson& b) { return rank(a) < rank(b); });
      for (size_t k = 0; k < at.size(); ++k) messages[at[k]] = std::move(results[k]);
    }
    i = end;
  }
}

// Ministral 3: system and assistant content as blocks, reasoning as a "thinking" block first.
void ministral_blocks(ojson& messages) {
  for (auto& m : messages) {
    const std::string role = role_of(m);
    if (role != "system" && role != "assistant") continue;
    ojson blocks = ojson::array();
    if (m.contains("reasoning_content") && m["reasoning_content"].is_string())
      blocks.push_back({{"type", "thinking"}, {"thinking", m["reasoning_content"]}});
    if (m.contains("content")) {
      if (m["content"].is_string()) blocks.push_back({{"type", "text"}, {"text", m["content"]}});
      else if (m["content"].is_array())
        for (const auto& b : m["content"]) blocks.push_back(b);
    }
    m["content"] = std::move(blocks);
    m.erase("reasoning_content");
  }
}

}  // namespace

server_format detect_server_format(std::string_view s) {
  if (has(s, "[SYSTEM_PROMPT]") && has(s, "[TOOL_CALLS]") && has(s, "[ARGS]") && !has(s, "[CALL_ID]"))
    return server_format::ministral3;
  if (has(s, "<|channel|>")) return server_format::gpt_oss;
  if (has(s, "<atem:function_calls>") && has(s, "<|eom|>")) return server_format::muse_glimmer;
  if (has(s, ">>>all") && has(s, ">>>${recipient}")) return server_format::functionary_v3_2;
  if (has(s, "<|tool_calls_section_begin|>") && has(s, "<|tool_call_begin|>")) return server_format::kimi_k2;
  if (has(s, "<|open|>") && has(s, "<|close|>") && has(s, "<|end_of_msg|>")) return server_format::kimi_k3;
  if (has(s, "<role>ASSISTANT</role>") && has(s, "<arg_key>")) return server_format::ling3;
  if (has(s, "<|START_TEXT|>") && has(s, "<|START_ACTION|>")) return server_format::cohere2moe;
  if (has(s, "<|tool_list_start|>") && has(s, "<|tool_list_end|>")) return server_format::lfm2;
  if (has(s, "List of tools: [") && !has(s, "<|tool_list_start|>")) return server_format::lfm2;
  if (has(s, "<|role_sep|>") && has(s, "<|message_sep|>") && !has(s, "<|function_call|>")) return server_format::gigachat_v3;
  if (has(s, "]<]minimax[>[") && has(s, "<tool_call>") && has(s, "<invoke name=")) return server_format::minimax_m3;
  if (has(s, "dsml_token") && has(s, "DSML") && (has(s, "function_calls") || has(s, "tool_calls")))
    return server_format::deepseek_v3_2;
  if (has(s, "'<|tool_call>call:'")) return server_format::gemma4;
  if (has(s, "Tool usage guidelines:") && has(s, "<function name=\"") && has(s, "<param name=\"")) return server_format::minicpm5;
  if (has(s, "<tool_call>") && has(s, "<function=") && has(s, "<parameter=") &&
      !has(s, "'<tool_call><function=' ~ tool_call.name ~ '>'"))
    return server_format::qwen3_coder;
  return server_format::autoparser;
}

bool format_supports_thinking(server_format f, std::string_view source) {
  switch (f) {
    case server_format::autoparser:
    case server_format::functionary_v3_2:
    case server_format::gigachat_v3:
      return false;
    case server_format::qwen3_coder:
      return has(source, "<think>");
    default:
      return true;
  }
}

void adjust_server_messages(server_format f, std::string_view source, ojson& messages) {
  switch (f) {
    case server_format::gpt_oss:  // reasoning to "thinking"; no content beside tool calls then
      for (auto& m : messages) {
        if (!m.contains("reasoning_content") || !m["reasoning_content"].is_string()) continue;
        m["thinking"] = m["reasoning_content"];
        if (has_tool_calls(m)) m.erase("content");
      }
      break;
    case server_format::lfm2:
      for (auto& m : messages)
        if (m.contains("reasoning_content") && m["reasoning_content"].is_string()) m["thinking"] = m["reasoning_content"];
      break;
    case server_format::ministral3:
      ministral_blocks(messages);
      break;
    case server_format::gemma4:
      if (!has(source, "{#- OpenAI Chat Completions:")) gemma4_merge_tool_turns(messages);
      break;
    case server_format::deepseek_v3_2:
      if (!has(source, "function_calls")) deepseek_v4_order_tool_results(messages);
      break;
    default:
      break;
  }
}

std::string continuation_text(server_format f, std::string_view source, const std::string& prompt,
                              const std::string& generation_prompt, const reasoning_markers& markers,
                              const continued_message& msg) {
  // (opening text, reasoning opener, reasoning closer before the content)
  auto shaped = [&](std::string open, std::string_view think_start, std::string_view think_end) {
    std::string s = std::move(open);
    s += think_start;
    s += msg.reasoning;
    if (msg.content_mode) s += std::string(think_end) + msg.content;
    return s;
  };
  switch (f) {
    case server_format::autoparser: {
      std::string s = generation_prompt;
      if (!markers.start.empty()) {
        s = s.substr(0, s.find(markers.start)) + markers.start + msg.reasoning;
        if (msg.content_mode) s += markers.end;
      }
      if (msg.content_mode) s += msg.content;
      return s;
    }
    case server_format::ministral3:
      return shaped("", "[THINK]", "[/THINK]");
    case server_format::gpt_oss:
      return shaped("<|start|>assistant<|channel|>analysis<|message|>", "",
                    "<|end|><|start|>assistant<|channel|>final<|message|>");
    case server_format::muse_glimmer:
      return shaped("<|start|>assistant to=self<|message|>", "", "<|eom|><|start|>assistant to=user<|message|>");
    case server_format::functionary_v3_2:
      return "<|start_header_id|>assistant<|end_header_id|>\n\n>>>all\n" + msg.content;
    case server_format::kimi_k2:
      return shaped("<|im_assistant|>assistant<|im_middle|>", "<think>", "</think>");
    case server_format::kimi_k3:
      return shaped("<|open|>message role=\"assistant\"<|sep|>", "<|open|>think<|sep|>",
                    "<|close|>think<|sep|><|open|>response<|sep|>");
    case server_format::ling3:
      return shaped("<role>ASSISTANT</role>\n", "<think>", "</think>");
    case server_format::cohere2moe:
      return shaped("<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>", "<|START_THINKING|>", "<|END_THINKING|><|START_TEXT|>");
    case server_format::lfm2:
      return shaped("<|im_start|>assistant\n", "<think>", "</think>");
    case server_format::gigachat_v3:
      return "assistant<|role_sep|>\n" + msg.content;
    case server_format::minimax_m3:
      return shaped(generation_prompt, "<mm:think>", "</mm:think>");
    case server_format::deepseek_v3_2:
      if (!has(source, "function_calls") && msg.reasoning.empty())  // V4 without reasoning: a bare </think>
        return std::string("<｜Assistant｜></think>") + (msg.content_mode ? msg.content : "");
      return shaped("<｜Assistant｜>", "<think>", "</think>");
    case server_format::gemma4:
      return shaped(ends_with(prompt, "<turn|>\n") ? "<|turn>model\n" : "", "<|channel>thought\n", "<channel|>");
    case server_format::minicpm5:
      return shaped("<|im_start|>assistant\n", "<think>\n", "\n</think>\n\n");
    case server_format::qwen3_coder:
      if (!has(source, "<think>")) return std::string("<|im_start|>assistant\n") + (msg.content_mode ? msg.content : "");
      return shaped("<|im_start|>assistant\n", "<think>\n", "\n</think>\n\n");
  }
  return {};
}

}  // namespace gguf::chat_detail
