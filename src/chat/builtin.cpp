// Built-in chat templates (see builtin.h). Each format is a row: its llama.cpp name and a
// function that writes the prompt; families that differ by a flag share a function. The
// formats and the detection rules are llama.cpp v0.5.0's (src/llama-chat.cpp), checked
// byte for byte against its llama_chat_apply_template by tests/chat/test_builtin.cpp.
#include "chat/builtin.h"

#include <algorithm>
#include <array>
#include <functional>

namespace gguf::chat_detail {
namespace {

using chat = std::vector<flat_message>;

bool is_c_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

// llama.cpp's trim(): ASCII isspace at both ends.
std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && is_c_space(s[b])) ++b;
  while (e > b && is_c_space(s[e - 1])) --e;
  return std::string(s.substr(b, e - b));
}

std::string upper_ascii(std::string s) {
  for (char& c : s)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return s;
}

// ---- one function per family ------------------------------------------------------------

// role header + content + end, for every message; a generation header when asked.
struct framed {
  std::string_view before_role, after_role, end, gen;
  bool trim_content = false;
};
void render_framed(std::string& o, const chat& c, bool add, const framed& f) {
  for (const auto& m : c) {
    o += f.before_role;
    o += m.role;
    o += f.after_role;
    o += f.trim_content ? trim(m.content) : m.content;
    o += f.end;
  }
  if (add) o += f.gen;
}

// Formats that write a fixed prefix per known role and nothing for other roles.
struct by_role {
  std::string_view system_pre, system_post, user_pre, user_post, assistant_pre, assistant_post, tool_pre,
      tool_post;
  bool trim_content = false;
  std::string_view gen;
  bool other_as_assistant = false;  // every role but system and user (and tool, with tool_pre) renders as the assistant
};
void render_by_role(std::string& o, const chat& c, bool add, const by_role& f) {
  for (const auto& m : c) {
    std::string body = f.trim_content ? trim(m.content) : m.content;
    if (m.role == "system") {
      o += f.system_pre, o += body, o += f.system_post;
    } else if (m.role == "user") {
      o += f.user_pre, o += body, o += f.user_post;
    } else if (m.role == "tool" && !f.tool_pre.empty()) {
      o += f.tool_pre, o += body, o += f.tool_post;
    } else if (m.role == "assistant" || f.other_as_assistant) {
      o += f.assistant_pre, o += body, o += f.assistant_post;
    }
  }
  if (add) o += f.gen;
}

void mistral_v7(std::string& o, const chat& c, std::string_view sp) {
  for (const auto& m : c) {
    if (m.role == "system") {
      o += "[SYSTEM_PROMPT]", o += sp, o += m.content, o += "[/SYSTEM_PROMPT]";
    } else if (m.role == "user") {
      o += "[INST]", o += sp, o += m.content, o += "[/INST]";
    } else {
      o += sp, o += m.content, o += "</s>";
    }
  }
}

// mistral v1 / v3 / v3-tekken: [INST] turns; system text opens the user turn.
void mistral_v1_v3(std::string& o, const chat& c, std::string_view lead, std::string_view trail, bool trim_reply) {
  bool inside = false;
  for (const auto& m : c) {
    if (!inside) {
      o += lead, o += "[INST]", o += trail;
      inside = true;
    }
    if (m.role == "system") {
      o += m.content, o += "\n\n";
    } else if (m.role == "user") {
      o += m.content, o += lead, o += "[/INST]";
    } else {
      o += trail, o += trim_reply ? trim(m.content) : m.content, o += "</s>";
      inside = false;
    }
  }
}

// llama2 and its variants (system support, BOS inside history, stripped content).
void llama2(std::string& o, const chat& c, bool sys, bool bos_inside, bool strip) {
  bool inside = true;
  o += "[INST] ";
  for (const auto& m : c) {
    std::string body = strip ? trim(m.content) : m.content;
    if (!inside) {
      inside = true;
      o += bos_inside ? "<s>[INST] " : "[INST] ";
    }
    if (m.role == "system") {
      if (sys) o += "<<SYS>>\n", o += body, o += "\n<</SYS>>\n\n";
      else o += body, o += "\n";
    } else if (m.role == "user") {
      o += body, o += " [/INST]";
    } else {
      o += body, o += "</s>";
      inside = false;
    }
  }
}

void monarch(std::string& o, const chat& c, bool add) {
  for (size_t i = 0; i < c.size(); ++i) {
    if (i > 0) o += "<s>";
    o += c[i].role, o += "\n", o += c[i].content, o += "</s>\n";
  }
  if (add) o += "<s>assistant\n";
}

void gemma(std::string& o, const chat& c, bool add) {
  std::string system;
  for (const auto& m : c) {
    if (m.role == "system") {
      system += trim(m.content);
      continue;
    }
    std::string role = m.role == "assistant" ? "model" : m.role;
    o += "<start_of_turn>", o += role, o += "\n";
    if (!system.empty() && role != "model") {
      o += system, o += "\n\n";
      system.clear();
    }
    o += trim(m.content), o += "<end_of_turn>\n";
  }
  if (add) o += "<start_of_turn>model\n";
}

void orion(std::string& o, const chat& c) {
  std::string system;
  for (const auto& m : c) {
    if (m.role == "system") {
      system += m.content;
    } else if (m.role == "user") {
      o += "Human: ";
      if (!system.empty()) {
        o += system, o += "\n\n";
        system.clear();
      }
      o += m.content, o += "\n\nAssistant: </s>";
    } else {
      o += m.content, o += "</s>";
    }
  }
}

void openchat(std::string& o, const chat& c, bool add) {
  for (const auto& m : c) {
    if (m.role == "system") {
      o += m.content, o += "<|end_of_turn|>";
    } else {
      std::string role = m.role;
      if (!role.empty() && role[0] >= 'a' && role[0] <= 'z') role[0] = static_cast<char>(role[0] - 'a' + 'A');
      o += "GPT4 Correct ", o += role, o += ": ", o += m.content, o += "<|end_of_turn|>";
    }
  }
  if (add) o += "GPT4 Correct Assistant:";
}

void rwkv_world(std::string& o, const chat& c) {
  for (size_t i = 0; i < c.size(); ++i) {
    const auto& m = c[i];
    if (m.role == "system") {
      o += "System: ", o += trim(m.content), o += "\n\n";
    } else if (m.role == "user") {
      o += "User: ", o += trim(m.content), o += "\n\n";
      if (i + 1 == c.size()) o += "Assistant:";
    } else if (m.role == "assistant") {
      o += "Assistant: ", o += trim(m.content), o += "\n\n";
    }
  }
}

// granite 3.x / 4.0 / 4.1: the pseudo-role assistant_tool_call adds <|tool_call|>.
void granite(std::string& o, const chat& c, bool add, bool v3) {
  for (const auto& m : c) {
    if (m.role == "assistant_tool_call" && !v3) {
      o += "<|start_of_role|>assistant<|end_of_role|><|tool_call|>";
    } else {
      o += "<|start_of_role|>", o += m.role, o += "<|end_of_role|>";
      if (m.role == "assistant_tool_call") o += "<|tool_call|>";
    }
    o += m.content, o += "<|end_of_text|>\n";
  }
  if (add) o += "<|start_of_role|>assistant<|end_of_role|>";
}

void gigachat(std::string& o, const chat& c, bool add) {
  bool has_system = !c.empty() && c[0].role == "system";
  o += "<s>";
  if (has_system) o += c[0].content, o += "<|message_sep|>";
  for (size_t i = has_system ? 1 : 0; i < c.size(); ++i) {
    if (c[i].role == "user") {
      o += "user<|role_sep|>", o += c[i].content,
          o += "<|message_sep|>available functions<|role_sep|>[]<|message_sep|>";
    } else if (c[i].role == "assistant") {
      o += "assistant<|role_sep|>", o += c[i].content, o += "<|message_sep|>";
    }
  }
  if (add) o += "assistant<|role_sep|>";
}

// bailing / bailing-think / bailing2: <role>ROLE</role>, user as HUMAN.
void bailing(std::string& o, const chat& c, bool add, std::string_view gen_extra, bool v2) {
  if (v2 && !(!c.empty() && c[0].role == "system")) o += "<role>SYSTEM</role>detailed thinking off<|role_end|>";
  for (const auto& m : c) {
    o += "<role>", o += m.role == "user" ? std::string("HUMAN") : upper_ascii(m.role), o += "</role>";
    o += m.content;
    if (v2) o += "<|role_end|>";
  }
  if (add) o += "<role>ASSISTANT</role>", o += gen_extra;
}

void hunyuan_moe(std::string& o, const chat& c) {
  for (const auto& m : c) {
    if (m.role == "system") o += "<|startoftext|>", o += m.content, o += "<|extra_4|>";
    else if (m.role == "assistant") o += m.content, o += "<|eos|>";
    else o += "<|startoftext|>", o += m.content, o += "<|extra_0|>";
  }
}

void hunyuan_dense(std::string& o, const chat& c) {
  for (size_t i = 0; i < c.size(); ++i) {
    const auto& m = c[i];
    if (i == 0 && m.role == "system") o += m.content, o += "<｜hy_place▁holder▁no▁3｜>";
    if (m.role == "assistant") o += "<｜hy_Assistant｜>", o += m.content, o += "<｜hy_place▁holder▁no▁2｜>";
    else if (m.role == "user") o += "<｜hy_User｜>", o += m.content, o += "<｜hy_Assistant｜>";
  }
}

void hunyuan_vl(std::string& o, const chat& c) {
  o += "<｜hy_begin▁of▁sentence｜>";
  for (size_t i = 0; i < c.size(); ++i) {
    const auto& m = c[i];
    if (i == 0 && m.role == "system") {
      o += m.content, o += "<｜hy_place▁holder▁no▁3｜>";
    } else if (m.role == "user") {
      o += m.content, o += "<｜hy_User｜>";
    } else if (m.role == "assistant") {
      o += m.content, o += "<｜hy_Assistant｜>";
    }
  }
}

void kimi_k2(std::string& o, const chat& c, bool add) {
  for (const auto& m : c) {
    if (m.role == "system") o += "<|im_system|>system<|im_middle|>";
    else if (m.role == "user") o += "<|im_user|>user<|im_middle|>";
    else if (m.role == "assistant") o += "<|im_assistant|>assistant<|im_middle|>";
    else if (m.role == "tool") o += "<|im_system|>tool<|im_middle|>";
    o += m.content, o += "<|im_end|>";
  }
  if (add) o += "<|im_assistant|>assistant<|im_middle|>";
}

void pangu_embedded(std::string& o, const chat& c, bool add) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 5> names = {{
      {"system", "系统"}, {"user", "用户"}, {"assistant", "助手"}, {"tool", "工具"}, {"function", "方法"}}};
  for (size_t i = 0; i < c.size(); ++i) {
    if (i == 0 && c[i].role != "system") o += "[unused9]系统：[unused10]";
    for (const auto& [role, label] : names) {
      if (c[i].role == role) o += "[unused9]", o += label, o += "：", o += c[i].content, o += "[unused10]";
    }
  }
  if (add) o += "[unused9]助手：";
}

using render_fn = std::function<void(std::string&, const chat&, bool)>;
struct builtin_row {
  std::string_view name;
  render_fn render;
};

const std::vector<builtin_row>& rows() {
  static const std::vector<builtin_row> table = [] {
    std::vector<builtin_row> t = {
        {"chatml", [](auto& o, auto& c, bool a) { render_framed(o, c, a, {"<|im_start|>", "\n", "<|im_end|>\n", "<|im_start|>assistant\n"}); }},
        {"llama2", [](auto& o, auto& c, bool) { llama2(o, c, false, false, false); }},
        {"llama2-sys", [](auto& o, auto& c, bool) { llama2(o, c, true, false, false); }},
        {"llama2-sys-bos", [](auto& o, auto& c, bool) { llama2(o, c, true, true, false); }},
        {"llama2-sys-strip", [](auto& o, auto& c, bool) { llama2(o, c, true, false, true); }},
        {"mistral-v1", [](auto& o, auto& c, bool) { mistral_v1_v3(o, c, " ", " ", false); }},
        {"mistral-v3", [](auto& o, auto& c, bool) { mistral_v1_v3(o, c, "", " ", true); }},
        {"mistral-v3-tekken", [](auto& o, auto& c, bool) { mistral_v1_v3(o, c, "", "", false); }},
        {"mistral-v7", [](auto& o, auto& c, bool) { mistral_v7(o, c, " "); }},
        {"mistral-v7-tekken", [](auto& o, auto& c, bool) { mistral_v7(o, c, ""); }},
        {"phi3", [](auto& o, auto& c, bool a) { render_framed(o, c, a, {"<|", "|>\n", "<|end|>\n", "<|assistant|>\n"}); }},
        {"phi4", [](auto& o, auto& c, bool a) { render_framed(o, c, a, {"<|im_start|>", "<|im_sep|>", "<|im_end|>", "<|im_start|>assistant<|im_sep|>"}); }},
        {"falcon3", [](auto& o, auto& c, bool a) { render_framed(o, c, a, {"<|", "|>\n", "\n", "<|assistant|>\n"}); }},
        {"zephyr", [](auto& o, auto& c, bool a) { render_framed(o, c, a, {"<|", "|>\n", "<|endoftext|>\n", "<|assistant|>\n"}); }},
        {"monarch", [](auto& o, auto& c, bool a) { monarch(o, c, a); }},
        {"gemma", [](auto& o, auto& c, bool a) { gemma(o, c, a); }},
        {"orion", [](auto& o, auto& c, bool) { orion(o, c); }},
        {"openchat", [](auto& o, auto& c, bool a) { openchat(o, c, a); }},
        {"vicuna", [](auto& o, auto& c, bool a) { render_by_role(o, c, a, {"", "\n\n", "USER: ", "\n", "ASSISTANT: ", "</s>\n", "", "", false, "ASSISTANT:"}); }},
        {"vicuna-orca", [](auto& o, auto& c, bool a) { render_by_role(o, c, a, {"SYSTEM: ", "\n", "USER: ", "\n", "ASSISTANT: ", "</s>\n", "", "", false, "ASSISTANT:"}); }},
        {"deepseek", [](auto& o, auto& c, bool a) { render_by_role(o, c, a, {"", "", "### Instruction:\n", "\n", "### Response:\n", "\n<|EOT|>\n", "", "", false, "### Response:\n"}); }},
        {"deepseek2", [](auto& o, auto& c, bool a) { render_by_role(o, c, a, {"", "\n\n", "User: ", "\n\n", "Assistant: ", "<｜end▁of▁sentence｜>", "", "", false, "Assistant:"}); }},
        {"deepseek3", [](auto& o, auto& c, bool a) { render_by_role(o, c, a, {"", "\n\n", "<｜User｜>", "", "<｜Assistant｜>", "<｜end▁of▁sentence｜>", "", "", false, "<｜Assistant｜>"}); }},
        {"deepseek-ocr", [](auto& o, auto& c, bool) { for (const auto& m : c) o += m.content; }},
        {"command-r", [](auto& o, auto& c, bool a) { render_by_role(o, c, a, {"<|START_OF_TURN_TOKEN|><|SYSTEM_TOKEN|>", "<|END_OF_TURN_TOKEN|>", "<|START_OF_TURN_TOKEN|><|USER_TOKEN|>", "<|END_OF_TURN_TOKEN|>", "<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>", "<|END_OF_TURN_TOKEN|>", "", "", true, "<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>"}); }},
        {"llama3", [](auto& o, auto& c, bool a) { render_framed(o, c, a, {"<|start_header_id|>", "<|end_header_id|>\n\n", "<|eot_id|>", "<|start_header_id|>assistant<|end_header_id|>\n\n", true}); }},
        {"chatglm3", [](auto& o, auto& c, bool a) { o += "[gMASK]sop"; render_framed(o, c, a, {"<|", "|>\n ", "", "<|assistant|>"}); }},
        {"chatglm4", [](auto& o, auto& c, bool a) { o += "[gMASK]<sop>"; render_framed(o, c, a, {"<|", "|>\n", "", "<|assistant|>\n"}); }},
        {"glmedge", [](auto& o, auto& c, bool a) { render_framed(o, c, a, {"<|", "|>\n", "", "<|assistant|>"}); }},
        {"minicpm", [](auto& o, auto& c, bool) {
           for (const auto& m : c) {
             if (m.role == "user") o += "<用户>", o += trim(m.content), o += "<AI>";
             else o += trim(m.content);
           }
         }},
        {"exaone3", [](auto& o, auto& c, bool a) { render_by_role(o, c, a, {"[|system|]", "[|endofturn|]\n", "[|user|]", "\n", "[|assistant|]", "[|endofturn|]\n", "", "", true, "[|assistant|]"}); }},
        {"exaone4", [](auto& o, auto& c, bool a) { render_by_role(o, c, a, {"[|system|]", "[|endofturn|]\n", "[|user|]", "\n", "[|assistant|]", "[|endofturn|]\n", "[|tool|]", "[|endofturn|]\n", true, "[|assistant|]"}); }},
        {"exaone-moe", [](auto& o, auto& c, bool a) { render_by_role(o, c, a, {"<|system|>\n", "<|endofturn|>\n", "<|user|>\n", "<|endofturn|>\n", "<|assistant|>\n", "<|endofturn|>\n", "<|tool|>\n", "<|endofturn|>\n", true, "<|assistant|>\n"}); }},
        {"rwkv-world", [](auto& o, auto& c, bool) { rwkv_world(o, c); }},
        {"granite", [](auto& o, auto& c, bool a) { granite(o, c, a, true); }},
        {"granite-4.0", [](auto& o, auto& c, bool a) { granite(o, c, a, false); }},
        {"granite-4.1", [](auto& o, auto& c, bool a) { granite(o, c, a, false); }},
        {"gigachat", [](auto& o, auto& c, bool a) { gigachat(o, c, a); }},
        {"megrez", [](auto& o, auto& c, bool a) { render_framed(o, c, a, {"<|role_start|>", "<|role_end|>", "<|turn_end|>", "<|role_start|>assistant<|role_end|>"}); }},
        {"yandex", [](auto& o, auto& c, bool a) {  // no system turn: a system message is dropped
           for (const auto& m : c) {
             if (m.role == "user") o += " Пользователь: ", o += m.content, o += "\n\n";
             else if (m.role == "assistant") o += " Ассистент: ", o += m.content, o += "\n\n";
           }
           if (a) o += " Ассистент:[SEP]";
         }},
        {"bailing", [](auto& o, auto& c, bool a) { bailing(o, c, a, "", false); }},
        {"bailing-think", [](auto& o, auto& c, bool a) { bailing(o, c, a, "<think>", false); }},
        {"bailing2", [](auto& o, auto& c, bool a) { bailing(o, c, a, "", true); }},
        {"llama4", [](auto& o, auto& c, bool a) { render_framed(o, c, a, {"<|header_start|>", "<|header_end|>\n\n", "<|eot|>", "<|header_start|>assistant<|header_end|>\n\n", true}); }},
        {"smolvlm", [](auto& o, auto& c, bool a) { o += "<|im_start|>"; render_by_role(o, c, a, {"", "\n\n", "User: ", "<end_of_utterance>\n", "Assistant: ", "<end_of_utterance>\n", "", "", false, "Assistant:", true}); }},
        {"hunyuan-moe", [](auto& o, auto& c, bool) { hunyuan_moe(o, c); }},
        {"gpt-oss", [](auto& o, auto& c, bool a) {
           for (const auto& m : c) {
             o += "<|start|>", o += m.role, o += "<|message|>", o += m.content;
             o += m.role == "assistant" ? "<|return|>" : "<|end|>";
           }
           if (a) o += "<|start|>assistant";
         }},
        {"hunyuan-dense", [](auto& o, auto& c, bool) { hunyuan_dense(o, c); }},
        {"hunyuan-vl", [](auto& o, auto& c, bool) { hunyuan_vl(o, c); }},
        {"kimi-k2", [](auto& o, auto& c, bool a) { kimi_k2(o, c, a); }},
        {"seed_oss", [](auto& o, auto& c, bool a) {
           for (const auto& m : c) {
             o += "<seed:bos>", o += m.role, o += "\n";
             o += m.role == "assistant" ? trim(m.content) : m.content;
             o += "<seed:eos>";
           }
           if (a) o += "<seed:bos>assistant\n";
         }},
        {"grok-2", [](auto& o, auto& c, bool a) {
           for (const auto& m : c) {
             if (m.role == "system") o += "System: ", o += trim(m.content), o += "<|separator|>\n\n";
             else if (m.role == "user") o += "Human: ", o += trim(m.content), o += "<|separator|>\n\n";
             else if (m.role == "assistant") o += "Assistant: ", o += m.content, o += "<|separator|>\n\n";
           }
           if (a) o += "Assistant:";
         }},
        {"pangu-embedded", [](auto& o, auto& c, bool a) { pangu_embedded(o, c, a); }},
        {"solar-open", [](auto& o, auto& c, bool a) { render_framed(o, c, a, {"<|begin|>", "<|content|>", "<|end|>", "<|begin|>assistant"}); }},
        // dots1 has a format but no name in llama.cpp's table: reachable by detection only.
        {"dots1", [](auto& o, auto& c, bool a) { render_by_role(o, c, a, {"<|system|>", "<|endofsystem|>", "<|userprompt|>", "<|endofuserprompt|>", "<|response|>", "<|endofresponse|>", "", "", false, "<|response|>", true}); }},
    };
    std::sort(t.begin(), t.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    return t;
  }();
  return table;
}

const builtin_row* find_row(std::string_view name) {
  for (const auto& r : rows())
    if (r.name == name) return &r;
  return nullptr;
}

// llm_chat_detect_template's rules, in its order: the first matching row wins.
struct detect_rule {
  std::string_view name;
  std::function<bool(std::string_view)> match;
};

const std::vector<detect_rule>& detect_rules() {
  auto has = [](std::string_view s, std::string_view what) { return s.find(what) != std::string_view::npos; };
  static const std::vector<detect_rule> rules = [has] {
    auto all = [has](std::initializer_list<std::string_view> what) {
      std::vector<std::string_view> w(what);
      return [has, w](std::string_view s) {
        return std::all_of(w.begin(), w.end(), [&](std::string_view x) { return has(s, x); });
      };
    };
    auto mistral_family = [has](std::string_view s) { return s.rfind("mistral", 0) == 0 || has(s, "[INST]"); };
    auto mistral_official = [has](std::string_view s) {
      return has(s, "' [INST] ' + system_message") || has(s, "[AVAILABLE_TOOLS]");
    };
    std::vector<detect_rule> r = {
        {"phi4", all({"<|im_start|>", "<|im_sep|>"})},
        {"smolvlm", all({"<|im_start|>", "<end_of_utterance>"})},
        {"chatml", all({"<|im_start|>"})},
        {"mistral-v7", [=](std::string_view s) { return mistral_family(s) && has(s, "[SYSTEM_PROMPT]"); }},
        {"mistral-v1", [=](std::string_view s) { return mistral_family(s) && mistral_official(s) && has(s, " [INST]"); }},
        {"mistral-v3-tekken", [=](std::string_view s) { return mistral_family(s) && mistral_official(s) && has(s, "\"[INST]\""); }},
        {"mistral-v3", [=](std::string_view s) { return mistral_family(s) && mistral_official(s); }},
        {"llama2-sys-strip", [=](std::string_view s) { return mistral_family(s) && has(s, "content.strip()"); }},
        {"llama2-sys-bos", [=](std::string_view s) { return mistral_family(s) && has(s, "bos_token + '[INST]"); }},
        {"llama2-sys", [=](std::string_view s) { return mistral_family(s) && has(s, "<<SYS>>"); }},
        {"llama2", mistral_family},
        {"phi3", all({"<|assistant|>", "<|end|>"})},
        {"chatglm4", all({"[gMASK]<sop>"})},
        {"exaone-moe", all({"<|assistant|>", "<|user|>", "<|tool_declare|>"})},
        {"falcon3", all({"<|assistant|>", "<|user|>", "</s>"})},
        {"glmedge", all({"<|assistant|>", "<|user|>"})},
        {"glmedge", all({"<|{{ item['role'] }}|>", "<|begin_of_image|>"})},
        {"zephyr", all({"<|user|>", "<|endoftext|>"})},
        {"monarch", all({"bos_token + message['role']"})},
        {"gemma", all({"<start_of_turn>"})},
        {"orion", all({"'\\n\\nAssistant: ' + eos_token"})},
        {"openchat", all({"GPT4 Correct "})},
        {"vicuna-orca", all({"USER: ", "ASSISTANT: ", "SYSTEM: "})},
        {"vicuna", all({"USER: ", "ASSISTANT: "})},
        {"deepseek", all({"### Instruction:", "<|EOT|>"})},
        {"command-r", all({"<|START_OF_TURN_TOKEN|>", "<|USER_TOKEN|>"})},
        {"llama3", all({"<|start_header_id|>", "<|end_header_id|>"})},
        {"chatglm3", all({"[gMASK]sop"})},
        {"minicpm", all({"<用户>"})},
        {"deepseek2", all({"'Assistant: ' + message['content'] + eos_token"})},
        {"deepseek3", all({"<｜Assistant｜>", "<｜User｜>", "<｜end▁of▁sentence｜>"})},
        {"exaone4", all({"[|system|]", "[|assistant|]", "[|endofturn|]", "[|tool|]"})},
        {"exaone3", all({"[|system|]", "[|assistant|]", "[|endofturn|]"})},
        {"rwkv-world", [has](std::string_view s) { return has(s, "rwkv-world") || has(s, "{{- 'User: ' + message['content']|trim + '\\n\\n' -}}"); }},
        {"granite-4.0", [has](std::string_view s) { return has(s, "<|start_of_role|>") && (has(s, "<tool_call>") || has(s, "<tools>")) && has(s, "g4_default_system_message"); }},
        {"granite-4.1", [has](std::string_view s) { return has(s, "<|start_of_role|>") && (has(s, "<tool_call>") || has(s, "<tools>")); }},
        {"granite", all({"<|start_of_role|>"})},
        {"gigachat", all({"message['role'] + additional_special_tokens[0] + message['content'] + additional_special_tokens[1]"})},
        {"megrez", all({"<|role_start|>"})},
        {"yandex", all({" Ассистент:"})},
        {"bailing", all({"<role>ASSISTANT</role>", "'HUMAN'"})},
        {"bailing-think", all({"<role>ASSISTANT</role>", "\"HUMAN\"", "<think>"})},
        {"bailing2", all({"<role>ASSISTANT</role>", "<role>HUMAN</role>", "<|role_end|>"})},
        {"llama4", all({"<|header_start|>", "<|header_end|>"})},
        {"dots1", all({"<|endofuserprompt|>"})},
        {"hunyuan-moe", all({"<|extra_0|>", "<|extra_4|>"})},
        {"gpt-oss", all({"<|start|>", "<|channel|>"})},
        {"hunyuan-vl", all({"<｜hy_Assistant｜>", "<｜hy_begin▁of▁sentence｜>"})},
        {"hunyuan-dense", all({"<｜hy_Assistant｜>", "<｜hy_place▁holder▁no▁3｜>"})},
        {"kimi-k2", all({"<|im_assistant|>assistant<|im_middle|>"})},
        {"seed_oss", all({"<seed:bos>"})},
        {"grok-2", all({"'Assistant: '  + message['content'] + '<|separator|>"})},
        {"pangu-embedded", all({"[unused9]系统：[unused10]"})},
        {"solar-open", all({"<|begin|>", "<|end|>", "<|content|>"})},
    };
    return r;
  }();
  return rules;
}

}  // namespace

const std::vector<std::string_view>& builtin_names() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> n;
    for (const auto& r : rows())
      if (r.name != "dots1") n.push_back(r.name);
    return n;
  }();
  return names;
}

std::optional<std::string_view> detect_builtin(std::string_view source) {
  for (auto name : builtin_names())
    if (name == source) return name;
  for (const auto& rule : detect_rules()) {
    // llama.cpp's chain is if/else on families: once a family's first test matches, a
    // failing sub-test never falls through to later families. The rows above keep that:
    // the "mistral" family ends with an unconditional llama2 row, the "<|im_start|>"
    // family with an unconditional chatml row, and so on.
    if (rule.match(source)) return rule.name;
  }
  return std::nullopt;
}

std::optional<std::string> apply_builtin(std::string_view name, const std::vector<flat_message>& chat,
                                         bool add_assistant) {
  const builtin_row* r = find_row(name);
  if (!r) return std::nullopt;
  std::string out;
  r->render(out, chat, add_assistant);
  return out;
}

}  // namespace gguf::chat_detail
