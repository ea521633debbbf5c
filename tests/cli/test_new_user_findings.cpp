// Defects a new user met (session 10's hunt over every command, as documented): one test
// per finding, named after what the user sees. Each failed before its fix.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "gguf/file.h"
#include "gguf/writer.h"
#include "test_support.h"

namespace fs = std::filesystem;
using namespace gguf::test;

namespace {

std::string bytes_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

// A value left out at the end of the line (or before another option) took the "--" that
// the edit commands' parser inserts: the chat template became "--", bos_token_id the id
// of the token "--" (313 in llama-bpe), -o wrote a file named "--"; all exited 0.
TEST(NewUserFindings, AnOptionWithoutItsValueIsAUsageErrorAndChangesNothing) {
  GGUF_REQUIRE_DATA();
  auto dir = fresh_dir("finding-missing-value");
  auto p = copy_data_into(dir, "vocab/ggml-vocab-llama-bpe.gguf", "v.gguf");
  const std::string before = bytes_of(p);
  const std::vector<std::vector<std::string>> cmds = {
      {"edit", p.string(), "--chat-template"},
      {"edit", p.string(), "--special-token", "bos"},
      {"edit", p.string(), "--special-token", "bos", "--"},
      {"edit", p.string(), "--special-token-by-id", "bos"},
      {"edit", p.string(), "--set"},
      {"edit", p.string(), "--rm"},
      {"edit", p.string(), "--set", "general.name=x", "-o"},
      {"edit", p.string(), "--chat-template", "--dry-run"},
      {"edit", "--set", "--force", p.string()},
      {"set", p.string(), "general.name", "x", "--type"},
  };
  for (const auto& c : cmds) {
    std::string name;
    for (const auto& a : c) name += a + " ";
    auto r = run_cli(c);
    EXPECT_EQ(r.exit_code, 2) << name << r.err;
    EXPECT_NE(r.err.find("needs "), std::string::npos) << name << r.err;
    EXPECT_TRUE(bytes_of(p) == before) << name;
    EXPECT_EQ(names_in(dir), std::vector<std::string>{"v.gguf"}) << name;
  }
  // a value that starts with '-' but is no option is still a value
  auto r = run_cli({"edit", p.string(), "--special-token", "bos", "-"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto f = gguf::file::open(p);
  ASSERT_TRUE(f);
  const auto id = f->get("tokenizer.ggml.bos_token_id")->get<uint32_t>();
  ASSERT_TRUE(id);
  auto piece = run_cli({"detokenize", "-m", p.string(), "--unparse-special", std::to_string(*id)});
  EXPECT_EQ(piece.out, "-\n");
}

// `--set llama.context_length:uint23=4096` added a string key named
// "llama.context_length:uint23" and left the key meant unchanged.
TEST(NewUserFindings, AMisspelledTypeInSetIsRefused) {
  GGUF_REQUIRE_DATA();
  auto dir = fresh_dir("finding-bad-type");
  auto p = copy_data_into(dir, "models/stories260K.gguf", "s.gguf");
  const std::string before = bytes_of(p);
  for (const std::string opt : {"--set", "--set-json"}) {
    auto r = run_cli({"edit", p.string(), opt, "llama.context_length:uint23=4096"});
    EXPECT_EQ(r.exit_code, 2) << opt << r.err;
    EXPECT_NE(r.err.find("'uint23' is not a TYPE"), std::string::npos) << r.err;
  }
  auto r = run_cli({"edit", p.string(), "--set-file", "my.k:uint32=" + p.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(bytes_of(p) == before);
  // a type that is one still works, and a key holding ':' is given with its type
  r = run_cli({"edit", p.string(), "--set", "my.n:uint32=7", "--set", "my:odd:string=x"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto f = gguf::file::open(p);
  ASSERT_TRUE(f);
  EXPECT_EQ(*f->get("my.n")->get<uint32_t>(), 7u);
  EXPECT_EQ(*f->get("my:odd")->get<std::string_view>(), "x");
}

// An invalid --tensor-type regex ended in an uncaught std::regex_error (abort, exit 134).
TEST(NewUserFindings, AnInvalidTensorTypeRegexIsAUsageError) {
  GGUF_REQUIRE_DATA();
  auto dir = fresh_dir("finding-regex");
  const std::string in = data_file("models/stories260K.gguf").string();
  const std::string out = (dir / "q.gguf").string();
  auto r = run_cli({"quantize", in, out, "Q4_K_M", "--tensor-type", "(=q8_0"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("tensor type pattern '(' is not a regex"), std::string::npos) << r.err;
  std::ofstream(dir / "tt.txt") << "blk[=q8_0\n";
  r = run_cli({"quantize", in, out, "Q4_K_M", "--dry-run", "--tensor-type-file", (dir / "tt.txt").string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(names_in(dir), std::vector<std::string>{"tt.txt"});
}

// quantize: the output that is the input exited 1 (an invalid input), the one that exists
// was named twice; --json without --dry-run quantized and printed text.
TEST(NewUserFindings, QuantizeRefusesItsOutputOnceAsAUsageError) {
  GGUF_REQUIRE_DATA();
  auto dir = fresh_dir("finding-quantize-out");
  auto in = copy_data_into(dir, "models/stories260K.gguf", "s.gguf");
  auto other = copy_data_into(dir, "models/stories260K-Q8_0.gguf", "o.gguf");
  auto r = run_cli({"quantize", in.string(), in.string(), "Q4_0"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("is the input"), std::string::npos) << r.err;
  r = run_cli({"quantize", in.string(), other.string(), "Q4_0"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err, "gguf: " + other.string() + " exists; not replaced without --force\n");
  r = run_cli({"quantize", "--json", in.string(), (dir / "n.gguf").string(), "Q4_0"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_FALSE(fs::exists(dir / "n.gguf"));
  r = run_cli({"quantize", "--help"});
  EXPECT_NE(r.out.find("Usage: quantize [OPTIONS] IN [OUT] TYPE [NTHREADS]\n"), std::string::npos) << r.out;
}

// diff exited 1 ("they differ") for a file it could not parse; diff(1) and docs/diff.md say 2.
TEST(NewUserFindings, DiffOfAnUnreadableFileIsTroubleNotADifference) {
  GGUF_REQUIRE_DATA();
  auto dir = fresh_dir("finding-diff");
  const std::string good = data_file("models/stories260K.gguf").string();
  const std::string whole = bytes_of(good);
  std::ofstream(dir / "t.gguf", std::ios::binary) << whole.substr(0, 600000);
  for (auto args : {std::vector<std::string>{"diff", good, (dir / "t.gguf").string()},
                    std::vector<std::string>{"diff", (dir / "t.gguf").string(), good},
                    std::vector<std::string>{"diff", good, (dir / "missing.gguf").string()}}) {
    auto r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << args[2] << r.err;
  }
  EXPECT_EQ(run_cli({"diff", good, good}).exit_code, 0);
  EXPECT_EQ(run_cli({"diff", good, data_file("models/stories260K-Q8_0.gguf").string()}).exit_code, 1);
  // --threads 0 is every core, as in tokenize, detokenize, embed and chat
  EXPECT_EQ(run_cli({"diff", "--values", "--threads", "0", good, good}).exit_code, 0);
  EXPECT_EQ(run_cli({"hash", "--threads", "0", good}).out, run_cli({"hash", "--threads", "1", good}).out);
}

// --stdin with a FILE read standard input and ignored the FILE without a word.
TEST(NewUserFindings, StdinWithAFileIsAUsageError) {
  GGUF_REQUIRE_DATA();
  const std::string a = data_file("models/stories260K-Q4_0.gguf").string();
  const std::string b = data_file("vocab/ggml-vocab-qwen2.gguf").string();
  for (auto args : {std::vector<std::string>{"info", "--stdin", b}, std::vector<std::string>{"dump", "--stdin", b},
                    std::vector<std::string>{"get", "--stdin", b, "general.architecture"}}) {
    auto r = run_cli(args, a);
    EXPECT_EQ(r.exit_code, 2) << args[0] << r.err;
    EXPECT_NE(r.err.find(b), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
  }
  auto r = run_cli({"get", "--stdin", "general.architecture"}, a);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "llama");
}

// Flags that do not apply were ignored without a word.
TEST(NewUserFindings, FlagsThatDoNotApplyAreUsageErrors) {
  GGUF_REQUIRE_DATA();
  auto dir = fresh_dir("finding-flags");
  const std::string vocab = data_file("vocab/ggml-vocab-qwen2.gguf").string();
  EXPECT_EQ(run_cli({"tokenize", "-m", vocab, "--count", "--pieces", "hi"}).exit_code, 2);
  EXPECT_EQ(run_cli({"tokenize", "-m", vocab, "--threads", "2", "hi"}).exit_code, 2);
  EXPECT_EQ(run_cli({"embed", "-m", vocab, "--threads", "2", "hi"}).exit_code, 2);
  std::ofstream(dir / "m.json") << R"([{"role":"user","content":"hi"}])";
  std::ofstream(dir / "tools.json") << "{}";
  auto r = run_cli({"chat", "-m", vocab, "--messages", (dir / "m.json").string(), "--tools",
                    (dir / "tools.json").string()});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.err, "gguf: " + (dir / "tools.json").string() + ": expected a JSON array of tools, not object\n");
  EXPECT_EQ(r.out, "");
  // the same in a --jsonl request
  std::ofstream(dir / "req.jsonl") << R"({"messages":[{"role":"user","content":"hi"}],"tools":{}})" << "\n";
  r = run_cli({"chat", "-m", vocab, "--jsonl"}, (dir / "req.jsonl").string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("line 1: expected an object with a \"messages\" array (and optional \"tools\" array"),
            std::string::npos)
      << r.err;
}

// Errors of a --chat-template text were said under the model's name; a name that is not a
// built-in was rendered as text without a hint.
TEST(NewUserFindings, ChatTemplateTextIsNamedAsSuch) {
  GGUF_REQUIRE_DATA();
  auto dir = fresh_dir("finding-chat-template");
  const std::string vocab = data_file("vocab/ggml-vocab-qwen2.gguf").string();
  std::ofstream(dir / "m.json") << R"([{"role":"user","content":"hi"}])";
  const std::string msgs = (dir / "m.json").string();
  auto r = run_cli({"chat", "-m", vocab, "--messages", msgs, "--chat-template", "{{ raise_exception(\"boom\") }}"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "gguf: --chat-template: line 1: boom\n");
  r = run_cli({"chat", "-m", vocab, "--messages", msgs, "--chat-template", "chatmll"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("'chatmll' is not a built-in template name"), std::string::npos) << r.err;
  r = run_cli({"chat", "-m", vocab, "--messages", msgs, "--chat-template", "chatml"});
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out.rfind("<|im_start|>user\nhi<|im_end|>\n", 0), 0u) << r.out;
}

// On a full disk the reason was lost for output written before the last flush (tokenize's
// ids past one stdio buffer), and dequantize named its input as what failed.
TEST(NewUserFindings, AFullDiskGivesItsReasonAndNamesStandardOutput) {
  GGUF_REQUIRE_DATA();
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full on this system";
  const std::string vocab = data_file("vocab/ggml-vocab-llama-spm.gguf").string();
  const std::string prose = data_file("corpus/prose-en.txt").string();
  const std::vector<std::vector<std::string>> cmds = {
      {"tokenize", "-m", vocab, "-f", prose},
      {"dequantize", data_file("models/stories260K.gguf").string(), "token_embd.weight"},
  };
  for (const auto& c : cmds) {
    std::vector<std::string> args{"-c", "exec \"$0\" \"$@\" >/dev/full", GGUF_CLI_PATH};
    args.insert(args.end(), c.begin(), c.end());
    auto r = run_command("sh", args);
    EXPECT_EQ(r.exit_code, 2) << c[0] << r.err;
    EXPECT_EQ(r.err, "gguf: standard output: cannot write: No space left on device; the output is incomplete\n") << c[0];
  }
}

// `detokenize --jsonl`: an id out of range gave no line number (JSON errors did).
TEST(NewUserFindings, DetokenizeJsonlNamesTheLineOfABadId) {
  GGUF_REQUIRE_DATA();
  auto dir = fresh_dir("finding-detok");
  std::ofstream(dir / "ids.jsonl") << "[1,2]\n[1,99999999]\n";
  auto r = run_cli({"detokenize", "-m", data_file("vocab/ggml-vocab-llama-bpe.gguf").string(), "--jsonl", "-f",
                    (dir / "ids.jsonl").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("ids.jsonl: line 2: token id 99999999 out of range (n_tokens 128256)"), std::string::npos)
      << r.err;
}

// `gguf set` of split.no on a shard broke the set without --force, and validate called
// the shard that was wrong "valid" (only a naming warning).
TEST(NewUserFindings, AShardWhoseSplitNoDisagreesWithItsNameIsInvalid) {
  GGUF_REQUIRE_DATA();
  auto set = split_data_into("finding-split-no", "models/stories260K-Q4_0.gguf", 20);
  ASSERT_GE(set.shards.size(), 3u);
  const fs::path second = set.shards[1];
  const std::string before = bytes_of(second);
  auto r = run_cli({"set", second.string(), "split.no", "2"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("named as shard 2"), std::string::npos) << r.err;
  EXPECT_TRUE(bytes_of(second) == before);
  r = run_cli({"set", second.string(), "split.no", "2", "--force"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_cli({"validate", second.string()});
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("error split.no"), std::string::npos) << r.out;
}

// A tensor name with a newline and a terminal escape was printed raw by dump, validate and
// diff: a file could forge output lines and drive the terminal. Names with bytes below 0x20
// (or 0x7f) are printed quoted and escaped.
TEST(NewUserFindings, ControlCharactersInNamesAreEscaped) {
  auto dir = fresh_dir("finding-control-names");
  gguf::writer w;
  ASSERT_TRUE(w.set("general.architecture", gguf::value::string("llama")));
  const float x[4] = {1, 2, 3, 4};
  const uint64_t ne[] = {4};
  ASSERT_TRUE(w.add_tensor("evil\n\x1b[31mname", gguf::ggml_type::f32, ne,
                           std::span<const std::byte>(reinterpret_cast<const std::byte*>(x), sizeof x)));
  ASSERT_TRUE(w.add_tensor("plain.weight", gguf::ggml_type::f32, ne,
                           std::span<const std::byte>(reinterpret_cast<const std::byte*>(x), sizeof x)));
  const fs::path p = dir / "evil.gguf";
  ASSERT_TRUE(w.write_file(p));
  gguf::writer w2;
  ASSERT_TRUE(w2.set("general.architecture", gguf::value::string("llama")));
  const fs::path q = dir / "other.gguf";
  ASSERT_TRUE(w2.write_file(q));
  const std::string escaped = "\"evil\\n\\x1b[31mname\"";
  for (auto args : {std::vector<std::string>{"dump", p.string()}, std::vector<std::string>{"validate", p.string()},
                    std::vector<std::string>{"diff", p.string(), q.string()}}) {
    auto r = run_cli(args);
    const std::string all = r.out + r.err;
    EXPECT_EQ(all.find('\x1b'), std::string::npos) << args[0] << ": " << all;
    EXPECT_NE(all.find(escaped), std::string::npos) << args[0] << ": " << all;
    EXPECT_NE(all.find("plain.weight"), std::string::npos) << args[0];  // plain names as they are
  }
}
