// gguf tokenize / detokenize through the built CLI: ids and text equal the llama.cpp
// vectors in ../shared/data, the --jsonl / --count / error contracts of DESIGN.md.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>

#include <algorithm>
#include <fstream>
#include <functional>
#include <iterator>
#include <nlohmann/json.hpp>

#include "test_support.h"

namespace {

using gguf::test::data_file;
using gguf::test::run_cli;

nlohmann::json first_vector(const std::string& name) {
  std::ifstream in(data_file("tokenizer-vectors/" + name + ".jsonl"));
  std::string line;
  std::getline(in, line);
  return nlohmann::json::parse(line);
}

// Writes the texts of the first `max` cases of tokenizer-vectors/NAME.jsonl into `file`, one
// line each as `line(i, text)` makes it; returns the cases' ids_special (llama.cpp's ids).
std::vector<nlohmann::json> jsonl_input(const std::string& name, const std::filesystem::path& file, size_t max,
                                        const std::function<std::string(size_t, const nlohmann::json&)>& line) {
  std::ifstream in(data_file("tokenizer-vectors/" + name + ".jsonl"));
  std::ofstream out(file);
  std::vector<nlohmann::json> want;
  for (std::string l; want.size() < max && std::getline(in, l);) {
    const auto c = nlohmann::json::parse(l);
    out << line(want.size(), c["text"]) << "\n";
    want.push_back(c["ids_special"]);
  }
  return want;
}

// The output of tokenize --jsonl: one JSON array of ids a line, equal to `want` in order.
void expect_id_lines(const std::string& out, const std::vector<nlohmann::json>& want, const std::string& what) {
  std::istringstream lines(out);
  size_t i = 0, bad = 0, first_bad = 0;
  for (std::string l; std::getline(lines, l); ++i) {
    if (i < want.size() && nlohmann::json::parse(l) == want[i]) continue;
    if (bad++ == 0) first_bad = i;
  }
  EXPECT_EQ(i, want.size()) << what;
  EXPECT_EQ(bad, 0u) << what << ": first wrong line is case " << first_bad;
}

TEST(cli_tokenize, jsonl_matches_llama_cpp_vectors) {
  GGUF_REQUIRE_DATA();
  const auto tmp = gguf::test::temp_dir() / "tok_in.jsonl";
  const auto want = jsonl_input("qwen2", tmp, 50, [](size_t, const nlohmann::json& t) {
    return nlohmann::json{{"text", t}, {"other", 1}}.dump();
  });
  auto r = run_cli({"tokenize", "-m", data_file("vocab/ggml-vocab-qwen2.gguf").string(), "--jsonl"}, tmp.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_id_lines(r.out, want, "qwen2");
}

TEST(cli_tokenize, argument_flags_and_count) {
  GGUF_REQUIRE_DATA();
  const auto c = first_vector("llama-spm");
  const std::string m = data_file("vocab/ggml-vocab-llama-spm.gguf").string();
  auto r = run_cli({"tokenize", "-m", m, "--no-add-special", "--no-parse-special", c["text"].get<std::string>()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out), c["ids"]);
  r = run_cli({"tokenize", "-m", m, "--count", c["text"].get<std::string>()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(std::stoul(r.out), c["ids_special"].size());
}

// The plain output's digits (write_ids_json: ids under 1000 and the two parts of larger
// ids from tables) are exactly nlohmann's of the same ids (--pieces): ids of 1 to 6
// digits, from a 262k-token vocabulary and a 1000-token one, over a text of many scripts.
TEST(cli_tokenize, plain_ids_are_written_as_json_writes_them) {
  GGUF_REQUIRE_DATA();
  std::string text;
  for (int k = 0; k < 40; ++k)
    text += "The 1000 tokenizer's ids, 9, 99 and 100000: \xE7\x9A\x84\xE6\x98\xAF\xEF\xBC\x8C \xD0\xBF\xD1\x80\xD0\xB8 x" +
            std::to_string(k * 7919) + "\n";
  for (const char* name : {"ggml-vocab-gemma-4.gguf", "ugm-sp-test.gguf"}) {
    const std::string m = data_file(std::string("vocab/") + name).string();
    const auto plain = run_cli({"tokenize", "-m", m, text});
    const auto pieces = run_cli({"tokenize", "-m", m, "--pieces", text});
    ASSERT_EQ(plain.exit_code, 0) << plain.err;
    ASSERT_EQ(pieces.exit_code, 0) << pieces.err;
    const nlohmann::json ids = nlohmann::json::parse(pieces.out)["ids"];
    ASSERT_GT(ids.size(), 100u) << name;
    EXPECT_EQ(plain.out, ids.dump() + "\n") << name;
  }
}

// A --jsonl text given as an argument is blamed as the argument, not standard input.
TEST(cli_tokenize, jsonl_argument_errors_name_the_argument) {
  GGUF_REQUIRE_DATA();
  const std::string m = data_file("vocab/ggml-vocab-llama-bpe.gguf").string();
  auto r = run_cli({"tokenize", "-m", m, "--jsonl", "\"ok\"\n{bad"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("gguf: <argument>: line 2: expected"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("<stdin>"), std::string::npos) << r.err;
}

TEST(cli_detokenize, text_matches_llama_cpp_vectors) {
  GGUF_REQUIRE_DATA();
  const auto c = first_vector("gpt-2");
  std::vector<std::string> args = {"detokenize", "-m", data_file("vocab/ggml-vocab-gpt-2.gguf").string()};
  for (int id : c["ids"]) args.push_back(std::to_string(id));
  auto r = run_cli(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, c["detok"].get<std::string>() + "\n");
}

// detokenize --jsonl over every case of a vector file: llama.cpp's detok of each, in
// order, with one thread and with two (blocks handed to workers, written in input order).
TEST(cli_detokenize, jsonl_threads_match_llama_cpp_vectors) {
  GGUF_REQUIRE_DATA();
  const auto tmp = gguf::test::temp_dir() / "detok_threads.jsonl";
  std::ifstream in(data_file("tokenizer-vectors/gpt-2.jsonl"));
  std::ofstream out(tmp);
  std::vector<std::string> want;
  for (std::string line; std::getline(in, line);) {
    const auto c = nlohmann::json::parse(line);
    want.push_back(c["detok"].get<std::string>());
    out << c["ids"].dump() << "\n";
  }
  out.close();
  ASSERT_GT(want.size(), 100u);
  for (const char* threads : {"1", "2"}) {
    auto r = run_cli({"detokenize", "-m", data_file("vocab/ggml-vocab-gpt-2.gguf").string(), "--jsonl", "--threads",
                      threads},
                     tmp.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::istringstream lines(r.out);
    size_t i = 0, bad = 0;
    for (std::string l; std::getline(lines, l); ++i)
      bad += i >= want.size() || nlohmann::json::parse(l).get<std::string>() != want[i];
    EXPECT_EQ(i, want.size()) << threads << " threads";
    EXPECT_EQ(bad, 0u) << threads << " threads";
  }
}

TEST(cli_tokenize, errors_follow_the_contract) {
  GGUF_REQUIRE_DATA();
  auto r = run_cli({"tokenize", "-m", "/nonexistent/file.gguf", "x"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("gguf: /nonexistent/file.gguf:"), std::string::npos) << r.err;
  r = run_cli({"tokenize", "x"});  // -m missing
  EXPECT_EQ(r.exit_code, 2);
  r = run_cli({"tokenize", "-m", data_file("models/superpoint.gguf").string(), "x"});  // no tokenizer
  EXPECT_EQ(r.exit_code, 1);
  r = run_cli({"detokenize", "-m", data_file("vocab/ggml-vocab-gpt-2.gguf").string(), "99999999"});
  EXPECT_EQ(r.exit_code, 1);
  r = run_cli({"detokenize", "-m", data_file("vocab/ggml-vocab-gpt-2.gguf").string(), "abc"});
  EXPECT_EQ(r.exit_code, 2);
  r = run_cli({"tokenize", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("--jsonl"), std::string::npos);
}

// --jsonl --threads 2 over every case of a vector file (llama.cpp's ids_special), in
// order, with lines in the shapes the fast reader decodes and ones it leaves to
// nlohmann::json (other fields, escapes, odd spacing): the same ids either way.
TEST(cli_tokenize, jsonl_threads_keep_order_over_all_vectors) {
  GGUF_REQUIRE_DATA();
  const auto tmp = gguf::test::temp_dir() / "tok_threads.jsonl";
  const auto want = jsonl_input("llama-bpe", tmp, SIZE_MAX, [](size_t i, const nlohmann::json& t) -> std::string {
    switch (i % 4) {
      case 0: return t.dump();                                                      // "..."
      case 1: return nlohmann::json{{"text", t}}.dump();                           // {"text":"..."}
      case 2: return " { \"id\": " + std::to_string(i) + ", \"text\" : " + t.dump() + " }\r";  // other fields
      default: return "{\"text\": " + t.dump(-1, ' ', true) + "}";                // \uXXXX escapes
    }
  });
  for (const char* threads : {"1", "2"}) {
    auto r = run_cli({"tokenize", "-m", data_file("vocab/ggml-vocab-llama-bpe.gguf").string(), "--jsonl",
                      "--threads", threads},
                     tmp.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    expect_id_lines(r.out, want, std::string(threads) + " threads");
  }
}

// Lines nlohmann::json rejects (a lone surrogate, invalid UTF-8, a raw control
// character) are errors naming the line; the lines before are written.
TEST(cli_tokenize, jsonl_invalid_strings_are_errors) {
  GGUF_REQUIRE_DATA();
  const std::string m = data_file("vocab/ggml-vocab-llama-bpe.gguf").string();
  for (const std::string bad : {"\"\\ud800\"", "\"\xff\"", "{\"text\": \"a\tb\"}", "\"\\x\"", "[1]"}) {
    const auto tmp = gguf::test::temp_dir() / "tok_bad.jsonl";
    std::ofstream(tmp) << "\"Hello\"\n" << bad << "\n\"never\"\n";
    auto r = run_cli({"tokenize", "-m", m, "--jsonl", "--threads", "2"}, tmp.string());
    EXPECT_EQ(r.exit_code, 1) << bad;
    EXPECT_NE(r.err.find("line 2"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
  }
}

// Many blocks (bench.txt's lines, about 3.8 MB): --threads 2 writes what one thread
// writes, in order; a bad line deep in the input stops both after exactly the lines
// before it, and a tokenization error names its line.
TEST(cli_tokenize, jsonl_threads_over_many_blocks_and_late_errors) {
  GGUF_REQUIRE_DATA();
  const std::string m = data_file("vocab/ggml-vocab-llama-bpe.gguf").string();
  std::ifstream corpus(data_file("corpus/bench.txt"));
  std::vector<std::string> lines;
  for (std::string l; std::getline(corpus, l);)
    if (!l.empty()) lines.push_back(nlohmann::json(l).dump());
  ASSERT_GT(lines.size(), 50000u);
  const auto good = gguf::test::temp_dir() / "tok_many.jsonl";
  const auto bad = gguf::test::temp_dir() / "tok_many_bad.jsonl";
  const size_t bad_line = lines.size() * 3 / 4;  // 1-based line number of the bad line
  {
    std::ofstream g(good), b(bad);
    for (size_t i = 0; i < lines.size(); ++i) {
      g << lines[i] << "\n";
      b << (i + 1 == bad_line ? std::string("{\"text\": 1}") : lines[i]) << "\n";
    }
  }
  const auto one = run_cli({"tokenize", "-m", m, "--jsonl"}, good.string());
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(std::count(one.out.begin(), one.out.end(), '\n'), std::ptrdiff_t(lines.size()));
  const auto two = run_cli({"tokenize", "-m", m, "--jsonl", "--threads", "2"}, good.string());
  ASSERT_EQ(two.exit_code, 0) << two.err;
  EXPECT_TRUE(two.out == one.out);  // not EXPECT_EQ: megabytes of output on failure
  // the output of the lines before the bad one is one's output up to its (bad_line-1)-th '\n'
  size_t end = 0;
  for (size_t k = 0; k + 1 < bad_line; ++k) end = one.out.find('\n', end) + 1;
  for (const char* threads : {"1", "2"}) {
    const auto r = run_cli({"tokenize", "-m", m, "--jsonl", "--threads", threads}, bad.string());
    EXPECT_EQ(r.exit_code, 1) << threads;
    EXPECT_EQ(r.err, "gguf: <stdin>: line " + std::to_string(bad_line) +
                         ": expected a JSON string or an object with a \"text\" string\n");
    EXPECT_TRUE(r.out == one.out.substr(0, end)) << threads << " threads: " << r.out.size() << " bytes";
  }
  const auto none = run_cli({"tokenize", "-m", data_file("models/superpoint.gguf").string(), "--jsonl"}, good.string());
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.err.find("<stdin> line 1: this file has no tokenizer"), std::string::npos) << none.err;
  EXPECT_TRUE(none.out.empty());
}

// A writer that waits for each answer (a coprocess over pipes) gets it: --jsonl does
// not wait for a full block when the pipe has no more to give, and with --threads 2 the
// lines handed to workers are answered before the next read would wait.
TEST(cli_tokenize, jsonl_answers_a_waiting_writer_line_by_line) {
  GGUF_REQUIRE_DATA();
  const std::string m = data_file("vocab/ggml-vocab-llama-bpe.gguf").string();
  for (const char* threads : {"1", "2"}) {
    SCOPED_TRACE(std::string(threads) + " threads");
    // the child's stderr, shown when something fails
    const auto err_path = gguf::test::temp_dir() / (std::string("tok_coprocess_") + threads + ".err");
    const auto child_err = [&] {
      std::ifstream f(err_path);
      return "child stderr: [" + std::string(std::istreambuf_iterator<char>(f), {}) + "]";
    };
    int to_child[2], from_child[2];
    ASSERT_EQ(::pipe(to_child), 0);
    ASSERT_EQ(::pipe(from_child), 0);
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::dup2(to_child[0], 0);
      ::dup2(from_child[1], 1);
      if (FILE* e = std::fopen(err_path.c_str(), "w")) ::dup2(::fileno(e), 2);
      for (int fd : {to_child[0], to_child[1], from_child[0], from_child[1]}) ::close(fd);
      ::alarm(20);  // a reader that waits for more input than it has would hang here
      ::execl(GGUF_CLI_PATH, GGUF_CLI_PATH, "tokenize", "-m", m.c_str(), "--jsonl", "--threads", threads,
              static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(to_child[0]);
    ::close(from_child[1]);
    FILE* out = ::fdopen(from_child[0], "r");
    for (const std::string text : {"Hello", "world", "three lines"}) {
      const std::string line = nlohmann::json(text).dump() + "\n";
      ASSERT_EQ(::write(to_child[1], line.data(), line.size()), ssize_t(line.size()));
      char buf[256] = {};
      ASSERT_NE(std::fgets(buf, sizeof buf, out), nullptr) << "no answer to " << text << "; " << child_err();
      const auto want = run_cli({"tokenize", "-m", m, text});
      EXPECT_EQ(nlohmann::json::parse(buf), nlohmann::json::parse(want.out)) << text << "; " << child_err();
    }
    ::close(to_child[1]);
    std::fclose(out);
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status << "; " << child_err();
  }
}

}  // namespace

// The compiled tokenizer cache: the second run maps the tables the first one wrote, with
// the same output; --no-tokenizer-cache writes nothing; GGUF_CACHE_DIR sets the folder
// and GGUF_CACHE_DIR=0 turns the cache off.
TEST(cli_tokenize, tokenizer_cache_gives_the_same_output) {
  GGUF_REQUIRE_DATA();
  const auto dir = gguf::test::temp_dir() / "cli-tokenizer-cache";
  const std::string text = "Hello world <|endoftext|> 12345 ~~ 你好";
  for (const char* name : {"ggml-vocab-llama-bpe.gguf", "ggml-vocab-llama-spm.gguf", "ggml-vocab-bert-bge.gguf",
                           "ggml-vocab-nomic-bert-moe.gguf", "ggml-vocab-rwkv-world.gguf"}) {
    SCOPED_TRACE(name);
    const std::string m = (gguf::test::data_dir() / "vocab" / name).string();
    const auto plain = run_cli({"tokenize", "-m", m, text, "--no-tokenizer-cache", "--pieces"});
    ASSERT_EQ(plain.exit_code, 0) << plain.err;
    const auto first = run_cli({"tokenize", "-m", m, text, "--tokenizer-cache", dir.string(), "--verbose", "--pieces"});
    EXPECT_EQ(first.out, plain.out);
    EXPECT_NE(first.err.find("tokenizer tables built; cache in " + dir.string()), std::string::npos) << first.err;
    const auto second = run_cli({"tokenize", "-m", m, text, "--tokenizer-cache", dir.string(), "--verbose", "--pieces"});
    EXPECT_EQ(second.out, plain.out);
    EXPECT_NE(second.err.find("tokenizer tables mapped from " + dir.string()), std::string::npos) << second.err;
    const auto de = run_cli({"detokenize", "-m", m, "1", "2", "3", "--tokenizer-cache", dir.string()});
    EXPECT_EQ(de.out, run_cli({"detokenize", "-m", m, "1", "2", "3", "--no-tokenizer-cache"}).out);
  }
  const auto env_dir = gguf::test::temp_dir() / "cli-tokenizer-cache-env";
  const std::string m = (gguf::test::data_dir() / "vocab" / "ggml-vocab-gpt-2.gguf").string();
  auto r = gguf::test::run_command("env", {"GGUF_CACHE_DIR=" + env_dir.string(), GGUF_CLI_PATH, "tokenize", "-m", m, text});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(env_dir)) << "GGUF_CACHE_DIR is the folder";
  const auto off_dir = gguf::test::temp_dir() / "cli-tokenizer-cache-off";
  r = gguf::test::run_command("env", {"XDG_CACHE_HOME=" + off_dir.string(), "GGUF_CACHE_DIR=0", GGUF_CLI_PATH,
                                      "tokenize", "-m", m, text});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = gguf::test::run_command("env", {"XDG_CACHE_HOME=" + off_dir.string(), GGUF_CLI_PATH, "tokenize", "-m", m,
                                      text, "--no-tokenizer-cache"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(std::filesystem::exists(off_dir)) << "GGUF_CACHE_DIR=0 and --no-tokenizer-cache write nothing";
}
