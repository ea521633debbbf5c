// -f/--file and standard input of the commands that read text (input.h): a file, a
// redirected regular file (mapped) and a pipe (read in blocks) give the same output as
// the text given as an argument, and the ids llama.cpp gives (the vectors).
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "test_support.h"

namespace {

using gguf::test::data_file;
using gguf::test::run_cli;
using gguf::test::run_command;

std::string write_temp(const std::string& name, const std::string& bytes) {
  const auto p = gguf::test::temp_dir() / name;
  std::ofstream(p, std::ios::binary) << bytes;
  return p.string();
}

// `cat FILE | gguf ARGS...`: standard input is a pipe, not a file that can be mapped.
gguf::test::run_result run_piped(const std::string& file, const std::vector<std::string>& args) {
  std::string cmd = "cat '" + file + "' | '" GGUF_CLI_PATH "'";
  for (const auto& a : args) cmd += " '" + a + "'";
  return run_command("sh", {"-c", cmd});
}

// The first n vector cases of a vocabulary.
std::vector<nlohmann::json> vectors(const std::string& name, size_t n) {
  std::ifstream in(data_file("tokenizer-vectors/" + name + ".jsonl"));
  std::vector<nlohmann::json> out;
  for (std::string line; out.size() < n && std::getline(in, line);) out.push_back(nlohmann::json::parse(line));
  return out;
}

TEST(cli_text_input, file_stdin_and_pipe_give_the_vector_ids) {
  GGUF_REQUIRE_DATA();
  const std::string m = data_file("vocab/ggml-vocab-qwen2.gguf").string();
  for (const auto& c : vectors("qwen2", 15)) {
    const std::string text = c["text"].get<std::string>();
    if (text.empty()) continue;  // an empty file is an empty text too, but not an argument
    const std::string f = write_temp("text_input.txt", text);
    const std::vector<std::string> args = {"tokenize", "-m", m, "--no-add-special", "--no-parse-special"};
    auto with = [&](std::vector<std::string> more) {
      auto a = args;
      a.insert(a.end(), more.begin(), more.end());
      return a;
    };
    auto by_file = run_cli(with({"-f", f}));
    ASSERT_EQ(by_file.exit_code, 0) << by_file.err;
    EXPECT_EQ(nlohmann::json::parse(by_file.out), c["ids"]) << text;
    auto by_stdin = run_cli(args, f);
    EXPECT_EQ(by_stdin.out, by_file.out) << text;
    auto by_dash = run_cli(with({"--file", "-"}), f);
    EXPECT_EQ(by_dash.out, by_file.out) << text;
    auto by_pipe = run_piped(f, args);
    EXPECT_EQ(by_pipe.out, by_file.out) << text;
  }
}

// A text longer than the pipe reader's first blocks (1 MiB, then 2 MiB) comes through
// whole: the ids of the file read by a pipe equal those of the mapped file.
TEST(cli_text_input, long_pipe_equals_mapped_file) {
  GGUF_REQUIRE_DATA();
  const std::string m = data_file("vocab/ggml-vocab-llama-bpe.gguf").string();
  std::string text;
  for (const auto& c : vectors("llama-bpe", 2532)) text += c["text"].get<std::string>() + "\n";
  while (text.size() < (size_t(7) << 19)) text += text.substr(0, text.size() / 3) + "\n";  // > 3.5 MiB
  const std::string f = write_temp("text_input_long.txt", text);
  auto mapped = run_cli({"tokenize", "-m", m, "--count", "-f", f});
  auto piped = run_piped(f, {"tokenize", "-m", m, "--count"});
  ASSERT_EQ(mapped.exit_code, 0) << mapped.err;
  ASSERT_EQ(piped.exit_code, 0) << piped.err;
  EXPECT_GT(std::stoul(mapped.out), text.size() / 8);
  EXPECT_EQ(piped.out, mapped.out);
}

TEST(cli_text_input, jsonl_from_a_file) {
  GGUF_REQUIRE_DATA();
  const auto cases = vectors("llama-spm", 30);
  std::string lines;
  for (const auto& c : cases) lines += nlohmann::json(c["text"]).dump() + "\n";
  const std::string f = write_temp("text_input.jsonl", lines);
  auto r = run_cli({"tokenize", "-m", data_file("vocab/ggml-vocab-llama-spm.gguf").string(), "--jsonl", "-f", f});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream out(r.out);
  size_t i = 0;
  for (std::string l; std::getline(out, l); ++i) {
    ASSERT_LT(i, cases.size());
    EXPECT_EQ(nlohmann::json::parse(l), cases[i]["ids_special"]) << i;
  }
  EXPECT_EQ(i, cases.size());
  // a bad line is blamed on the file, by line number
  const std::string bad = write_temp("text_input_bad.jsonl", "\"ok\"\n\n[1]\n");
  r = run_cli({"tokenize", "-m", data_file("vocab/ggml-vocab-llama-spm.gguf").string(), "--jsonl", "-f", bad});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "gguf: " + bad + ": line 3: expected a JSON string or an object with a \"text\" string\n");
}

TEST(cli_text_input, detokenize_ids_from_a_file) {
  GGUF_REQUIRE_DATA();
  const std::string m = data_file("vocab/ggml-vocab-gpt-2.gguf").string();
  for (const auto& c : vectors("gpt-2", 20)) {
    std::string ids = "[";  // the spelling tokenize prints, over several lines
    for (size_t i = 0; i < c["ids"].size(); ++i) ids += (i ? (i % 3 ? ", " : ",\n") : "") + c["ids"][i].dump();
    ids += "]\n";
    const std::string f = write_temp("ids.txt", ids);
    auto r = run_cli({"detokenize", "-m", m, "-f", f});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, c["detok"].get<std::string>() + "\n");
    EXPECT_EQ(run_piped(f, {"detokenize", "-m", m}).out, r.out);
  }
  // signs as std::stoll took them; anything else is a usage error
  auto plus = run_cli({"detokenize", "-m", m, "-f", write_temp("ids_plus.txt", "+15496 +11")});
  EXPECT_EQ(plus.out, run_cli({"detokenize", "-m", m, "15496", "11"}).out);
  for (const char* bad : {"12x", "1 2 +", "--3", "99999999999999999999", "+-3"}) {
    auto r = run_cli({"detokenize", "-m", m, "-f", write_temp("ids_bad.txt", bad)});
    EXPECT_EQ(r.exit_code, 2) << bad;
  }
  auto neg = run_cli({"detokenize", "-m", m, "-f", write_temp("ids_neg.txt", "-3")});
  EXPECT_EQ(neg.exit_code, 1) << neg.err;  // an integer, out of range
  EXPECT_NE(neg.err.find("token id -3 out of range"), std::string::npos) << neg.err;
}

TEST(cli_text_input, embed_from_a_file) {
  GGUF_REQUIRE_DATA();
  const std::string m = data_file("models/stories260K.gguf").string();
  const std::string text = "Once upon a time, a little girl named Lily";
  auto arg = run_cli({"embed", "-m", m, text});
  ASSERT_EQ(arg.exit_code, 0) << arg.err;
  auto file = run_cli({"embed", "-m", m, "-f", write_temp("embed.txt", text)});
  EXPECT_EQ(file.out, arg.out);
  auto jsonl = run_cli({"embed", "-m", m, "--jsonl", "-f", write_temp("embed.jsonl", nlohmann::json(text).dump() + "\n")});
  EXPECT_EQ(jsonl.out, arg.out);
}

TEST(cli_text_input, errors) {
  GGUF_REQUIRE_DATA();
  const std::string m_vocab = data_file("vocab/ggml-vocab-llama-bpe.gguf").string();
  const std::string missing = (gguf::test::temp_dir() / "no-such-text.txt").string();
  const std::string model_with_weights = data_file("models/stories260K.gguf").string();
  for (const std::string cmd : {"tokenize", "detokenize", "embed"}) {
    const std::string& m = cmd == "embed" ? model_with_weights : m_vocab;
    auto r = run_cli({cmd, "-m", m, "-f", missing});
    EXPECT_EQ(r.exit_code, 2) << cmd;
    EXPECT_EQ(r.err, "gguf: " + missing + ": cannot open: No such file or directory\n") << cmd;
    r = run_cli({cmd, "-m", m, "--jsonl", "-f", missing});
    EXPECT_EQ(r.exit_code, 2) << cmd;
    EXPECT_EQ(r.err, "gguf: " + missing + ": cannot open: No such file or directory\n") << cmd;
  }
  auto both = run_cli({"tokenize", "-m", m_vocab, "-f", missing, "text"});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.err.find("excludes"), std::string::npos) << both.err;
  // a folder cannot be read
  auto dir = run_cli({"tokenize", "-m", m_vocab, "-f", gguf::test::temp_dir().string()});
  EXPECT_EQ(dir.exit_code, 2);
  EXPECT_NE(dir.err.find("cannot read: Is a directory"), std::string::npos) << dir.err;
}

}  // namespace
