// gguf chat through the built CLI: prompts equal the recorded references (tests/chat/data:
// jinja2 in transformers' environment, llama-server v0.5.0, llama_chat_apply_template), the
// --jsonl contract (order, "ids"/"n_tokens", {"error"} lines with exit 1 at the end, a
// malformed line stops the run) and usage errors.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "../chat/recordings.h"
#include "gguf/file.h"
#include "gguf/vocab.h"
#include "test_support.h"

namespace {

namespace tc = gguf::test::chat;
using gguf::test::data_file;
using gguf::test::run_cli;

std::string conv_path(const std::string& c) { return tc::data_path("conversations/" + c + ".json").string(); }

// The recorded prompt of (template, conversation) in a recording.
std::string recorded(const std::string& file, const std::string& t, const std::string& c) {
  for (const auto& r : tc::read_jsonl_gz(file))
    if (r.contains("c") && r["t"] == t && r["c"] == c) return r.value("prompt", "<error>");
  return "<absent>";
}

std::string write_temp(const std::string& name, const std::string& text) {
  auto p = gguf::test::temp_dir() / name;
  std::ofstream(p) << text;
  return p.string();
}

std::vector<tc::ojson> lines_of(const std::string& out) {
  std::vector<tc::ojson> v;
  std::istringstream in(out);
  for (std::string l; std::getline(in, l);) v.push_back(tc::ojson::parse(l));
  return v;
}

TEST(cli_chat, messages_prints_the_transformers_prompt) {
  GGUF_REQUIRE_DATA();
  // a request object as --messages: its tools, add_generation_prompt and kwargs are used
  auto r = run_cli({"chat", "-m", data_file("vocab/ggml-vocab-qwen2.gguf").string(), "--messages",
                    conv_path("06_tools_offered")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, recorded("transformers.jsonl.gz", "vocab/ggml-vocab-qwen2.gguf", "06_tools_offered"));
  // where jinja2 raises (None content + a string), the template error is reported, exit 1
  ASSERT_EQ(recorded("transformers.jsonl.gz", "vocab/ggml-vocab-qwen2.gguf", "07_tool_call_dict"), "<error>");
  r = run_cli({"chat", "-m", data_file("vocab/ggml-vocab-qwen2.gguf").string(), "--messages", conv_path("07_tool_call_dict")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("ggml-vocab-qwen2.gguf"), std::string::npos) << r.err;
  // a bare array of messages with the flags
  auto conv = tc::ojson::parse(std::ifstream(conv_path("04_multi_turn")));
  auto m = write_temp("msgs.json", conv["messages"].dump());
  r = run_cli({"chat", "-m", data_file("vocab/ggml-vocab-phi-3.gguf").string(), "--messages", m, "--add-generation-prompt"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, recorded("transformers.jsonl.gz", "vocab/ggml-vocab-phi-3.gguf", "04_multi_turn"));
}

TEST(cli_chat, server_prints_llama_servers_prompt) {
  GGUF_REQUIRE_DATA();
  auto r = run_cli({"chat", "-m", data_file("vocab/ggml-vocab-phi-3.gguf").string(), "--messages",
                    conv_path("03_system_user"), "--server"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, recorded("server.jsonl.gz", "vocab/ggml-vocab-phi-3.gguf", "03_system_user"));
}

TEST(cli_chat, builtin_template_by_name) {
  GGUF_REQUIRE_DATA();
  auto r = run_cli({"chat", "-m", data_file("vocab/ggml-vocab-qwen2.gguf").string(), "--messages",
                    conv_path("04_multi_turn"), "--chat-template", "llama3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, recorded("builtin.jsonl.gz", "llama3", "04_multi_turn"));
}

TEST(cli_chat, jsonl_in_order_with_ids_and_counts) {
  GGUF_REQUIRE_DATA();
  const std::string model = data_file("vocab/ggml-vocab-gemma-4.gguf").string();
  auto convs = tc::conversations();
  std::string input;
  std::vector<std::string> names;
  for (const auto& [name, conv] : convs) names.push_back(name), input += conv.dump() + "\n";
  auto in = write_temp("chat_in.jsonl", input);
  auto r = run_cli({"chat", "-m", model, "--jsonl", "--tokenize", "--count", "--threads", "2"}, in);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto out = lines_of(r.out);
  ASSERT_EQ(out.size(), names.size());
  auto f = gguf::file::open(model);
  auto v = gguf::vocab::load(*f);
  for (size_t i = 0; i < out.size(); ++i) {
    ASSERT_TRUE(out[i].contains("prompt")) << names[i] << ": " << out[i].dump();
    EXPECT_EQ(out[i]["prompt"], recorded("transformers.jsonl.gz", "vocab/ggml-vocab-gemma-4.gguf", names[i])) << names[i];
    auto ids = v->tokenize(out[i]["prompt"].get<std::string>(), true, true);  // as llama-server tokenizes a prompt
    EXPECT_EQ(out[i]["ids"].get<std::vector<int32_t>>(), *ids) << names[i];
    EXPECT_EQ(out[i]["n_tokens"].get<size_t>(), ids->size()) << names[i];
  }
}

TEST(cli_chat, jsonl_template_error_goes_on_and_exits_1) {
  GGUF_REQUIRE_DATA();
  auto t = write_temp("raise.jinja",
                      "{% if messages|length > 1 %}{{ raise_exception('two is too many') }}{% endif %}{{ messages[0].content }}");
  auto in = write_temp("two.jsonl", R"({"messages":[{"role":"user","content":"a"},{"role":"user","content":"b"}]})"
                                    "\n" R"({"messages":[{"role":"user","content":"ok"}]})" "\n");
  auto r = run_cli({"chat", "-m", data_file("vocab/ggml-vocab-qwen2.gguf").string(), "--jsonl", "--chat-template-file", t}, in);
  EXPECT_EQ(r.exit_code, 1);
  auto out = lines_of(r.out);
  ASSERT_EQ(out.size(), 2u);
  ASSERT_TRUE(out[0].contains("error"));
  EXPECT_NE(out[0]["error"].get<std::string>().find("two is too many"), std::string::npos);
  EXPECT_EQ(out[1]["prompt"], "ok");
}

TEST(cli_chat, jsonl_malformed_line_stops_the_run) {
  GGUF_REQUIRE_DATA();
  auto in = write_temp("bad.jsonl", R"({"messages":[{"role":"user","content":"a"}]})" "\n" R"({"messages": 3})" "\n"
                                    R"({"messages":[{"role":"user","content":"c"}]})" "\n");
  auto r = run_cli({"chat", "-m", data_file("vocab/ggml-vocab-qwen2.gguf").string(), "--jsonl"}, in);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(lines_of(r.out).size(), 1u);
  EXPECT_NE(r.err.find("line 2"), std::string::npos) << r.err;
}

TEST(cli_chat, usage_and_input_errors) {
  GGUF_REQUIRE_DATA();
  const std::string model = data_file("vocab/ggml-vocab-qwen2.gguf").string();
  EXPECT_EQ(run_cli({"chat", "-m", model}).exit_code, 2);  // neither --messages nor --jsonl
  EXPECT_EQ(run_cli({"chat", "-m", model, "--messages", "/nonexistent.json"}).exit_code, 2);
  auto bad = write_temp("bad.json", "{not json");
  EXPECT_EQ(run_cli({"chat", "-m", model, "--messages", bad}).exit_code, 1);
  auto t = write_temp("broken.jinja", "{% for x in %}");
  auto r = run_cli({"chat", "-m", model, "--messages", conv_path("01_user"), "--chat-template-file", t});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("broken.jinja"), std::string::npos) << r.err;
}

// JSON nested a million deep (messages file, a --jsonl line) or 60000 deep (kwargs: one
// argument) is refused with a message; serializing it crashed the process (stack overflow).
TEST(cli_chat, deeply_nested_json_is_refused_not_a_crash) {
  GGUF_REQUIRE_DATA();
  const std::string model = data_file("vocab/ggml-vocab-qwen2.gguf").string();
  auto nest = [](size_t n) { return std::string(n, '[') + std::string(n, ']'); };
  auto deep = write_temp("deep.json", R"([{"role": "user", "content": "a", "x": )" + nest(1000000) + "}]");
  auto r = run_cli({"chat", "-m", model, "--messages", deep});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("nested deeper than 512 levels"), std::string::npos) << r.err;
  auto lines = write_temp("deep.jsonl", R"({"messages":[{"role":"user","content":"a"}]})" "\n"
                                        R"({"messages":[{"role":"user","content":"a"}], "x": )" + nest(1000000) + "}\n");
  r = run_cli({"chat", "-m", model, "--jsonl"}, lines);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(lines_of(r.out).size(), 1u);
  EXPECT_NE(r.err.find("line 2"), std::string::npos) << r.err;
  r = run_cli({"chat", "-m", model, "--messages", conv_path("01_user"), "--chat-template-kwargs",
               R"({"x": )" + nest(60000) + "}"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("nested deeper than 512 levels"), std::string::npos) << r.err;
  // 512 levels are accepted
  r = run_cli({"chat", "-m", model, "--messages", conv_path("01_user"), "--chat-template-kwargs",
               R"({"x": )" + nest(511) + "}"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

}  // namespace

namespace {

TEST(cli_chat, caps_equal_llama_cpps) {
  GGUF_REQUIRE_DATA();
  for (const std::string name : {"gemma-4", "qwen2", "phi-3", "rwkv-world"}) {
    const std::string t = "vocab/ggml-vocab-" + name + ".gguf";
    auto r = run_cli({"chat", "-m", data_file(t).string(), "--caps"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto got = tc::ojson::parse(r.out);
    size_t n = 0;
    for (const auto& rec : tc::read_jsonl_gz("server.jsonl.gz")) {
      if (!rec.contains("caps") || rec["caps"] != t) continue;
      for (const auto& [k, v] : rec.items()) {
        if (k.rfind("supports_", 0) != 0) continue;
        EXPECT_EQ(got.at(k), v) << t << " " << k;
        ++n;
      }
    }
    EXPECT_EQ(n, 9u) << t;  // llama.cpp's nine
  }
}

TEST(cli_chat, validate_edit_and_info_check_the_template) {
  GGUF_REQUIRE_DATA();
  const std::string src = data_file("vocab/ggml-vocab-qwen2.gguf").string();
  const auto dir = gguf::test::temp_dir();
  const std::string broken = (dir / "broken_tmpl.gguf").string(), raising = (dir / "raising_tmpl.gguf").string();
  // edit refuses a template that does not parse, unless --force
  auto r = run_cli({"edit", src, "-o", broken, "--chat-template", "{% for %}"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("does not parse"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(broken));
  ASSERT_EQ(run_cli({"edit", src, "-o", broken, "--chat-template", "{% for %}", "--force"}).exit_code, 0);
  // validate: not parsing is an error, raising on a plain exchange a warning
  r = run_cli({"validate", broken});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("error chat_template.parse"), std::string::npos) << r.out;
  ASSERT_EQ(run_cli({"edit", src, "-o", raising, "--chat-template", "{{ raise_exception('nope') }}"}).exit_code, 0);
  r = run_cli({"validate", raising});
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("warning chat_template.render"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("nope"), std::string::npos) << r.out;
  EXPECT_EQ(run_cli({"validate", "--strict", raising}).exit_code, 1);
  EXPECT_EQ(run_cli({"validate", src}).out.find("chat_template."), std::string::npos);  // the real one is fine
  // info --json: detection and caps, or the parse error
  auto j = tc::ojson::parse(run_cli({"info", "--json", src}).out);
  EXPECT_EQ(j["chat_template"]["detected_builtin"], "chatml");
  EXPECT_EQ(j["chat_template"]["caps"]["supports_system_role"], true);
  j = tc::ojson::parse(run_cli({"info", "--json", broken}).out);
  EXPECT_TRUE(j["chat_template"].contains("error"));
}

}  // namespace

// A template that raises while rendering names its key, as one that does not parse does:
// the file's main template, its tool_use variant (chosen when tools are given), in both
// modes; a template given on the command line names no key.
TEST(cli_chat, render_errors_name_the_templates_key) {
  GGUF_REQUIRE_DATA();
  const std::string src = data_file("vocab/ggml-vocab-qwen2.gguf").string();
  const std::string out = (gguf::test::temp_dir() / "raising_keys.gguf").string();
  ASSERT_EQ(run_cli({"edit", src, "-o", out, "--chat-template", "{{ raise_exception('main') }}", "--set-file",
                     "tokenizer.chat_template.tool_use=" + write_temp("tool.jinja", "{{ raise_exception('tools') }}"),
                     "--force"})
                .exit_code,
            0);
  const std::string msgs = conv_path("03_system_user");
  const std::string tools = write_temp("tools.json", R"([{"type":"function","function":{"name":"f","parameters":{}}}])");
  for (const char* mode : {"", "--server"}) {
    std::vector<std::string> args = {"chat", "-m", out, "--messages", msgs};
    if (*mode) args.push_back(mode);
    auto r = run_cli(args);
    EXPECT_EQ(r.exit_code, 1) << mode;
    EXPECT_EQ(r.err, "gguf: " + out + ": line 1: main (key tokenizer.chat_template)\n") << mode;
    args.insert(args.end(), {"--tools", tools});
    r = run_cli(args);
    EXPECT_EQ(r.exit_code, 1) << mode;
    EXPECT_EQ(r.err, "gguf: " + out + ": line 1: tools (key tokenizer.chat_template.tool_use)\n") << mode;
  }
  auto given = run_cli({"chat", "-m", out, "--messages", msgs, "--chat-template", "{{ raise_exception('given') }}"});
  EXPECT_EQ(given.exit_code, 1);
  EXPECT_EQ(given.err.find("(key "), std::string::npos) << given.err;
}
