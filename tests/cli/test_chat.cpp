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

}  // namespace
