// Every read command over HTTP against a real nginx serving ../shared/data: the same
// output as the local file, in few requests (counted from nginx's access log), and the
// remote options (redirects, authentication, the cache, --verbose).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <set>

#include "gguf/file.h"
#include "nginx_server.h"
#include "test_support.h"

namespace fs = std::filesystem;
using gguf::test::access_entry;
using gguf::test::data_dir;
using gguf::test::nginx_server;
using gguf::test::run_gguf;
using nlohmann::json;

namespace {

constexpr uint64_t first_request = 64ull << 10;  // remote_options' default

// GGUF_REMOTE_FULL=1: tokenizer vectors of every vocabulary, info/validate/name of every
// file. Default: a representative subset (below), to keep the suite short.
bool full() {
  const char* e = std::getenv("GGUF_REMOTE_FULL");
  return e && *e && std::string(e) != "0";
}

nginx_server* server() {
  static std::unique_ptr<nginx_server> s;
  if (!s && !data_dir().empty()) s = std::make_unique<nginx_server>(data_dir());
  return s.get();
}

#define REQUIRE_SERVER()                                                              \
  GGUF_REQUIRE_DATA();                                                                \
  ASSERT_TRUE(server()->started()) << server()->why_not();                            \
  server()->take_log()

std::string url(const std::string& location, const std::string& rel) { return server()->base() + "/" + location + "/" + rel; }

// Replaces every occurrence of `from` by `to`.
std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t p = 0; (p = s.find(from, p)) != std::string::npos; p += to.size()) s.replace(p, from.size(), to);
  return s;
}

std::vector<std::string> gguf_files() {
  std::vector<std::string> out;
  for (const char* d : {"vocab", "models", "compat", "quant"})
    for (const auto& e : fs::directory_iterator(data_dir() / d))
      if (e.path().extension() == ".gguf") out.push_back(std::string(d) + "/" + e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

struct cost {
  uint64_t requests = 0, bytes = 0;
};
cost count(const std::vector<access_entry>& log) {
  cost c;
  for (const auto& e : log) {
    ++c.requests;
    c.bytes += e.bytes;
  }
  return c;
}

}  // namespace

// dump --json --full-arrays of every file equals the local dump (invalid files: the same
// error); a file costs at most three requests and at most 10% more than its metadata plus
// the first request.
TEST(RemoteCli, DumpOfEveryFileEqualsLocal) {
  REQUIRE_SERVER();
  int files = 0;
  std::printf("%-45s %10s %10s %4s %10s\n", "file", "size", "metadata", "req", "bytes");
  for (const auto& rel : gguf_files()) {
    std::string local = (data_dir() / rel).string(), remote = url("data", rel);
    auto l = run_gguf({"dump", "--json", "--full-arrays", local});
    auto r = run_gguf({"dump", "--json", "--full-arrays", remote});
    auto c = count(server()->take_log());
    ASSERT_EQ(l.exit_code, r.exit_code) << rel << "\n" << r.err;
    EXPECT_EQ(l.out, replace_all(r.out, remote, local)) << rel;
    EXPECT_EQ(l.err, replace_all(r.err, remote, local)) << rel;
    const uint64_t size = fs::file_size(local);
    uint64_t meta = size;
    if (l.exit_code == 0) meta = std::min<uint64_t>(json::parse(l.out)["data_offset"].get<uint64_t>(), size);
    std::printf("%-45s %10llu %10llu %4llu %10llu\n", rel.c_str(), (unsigned long long)size, (unsigned long long)meta,
                (unsigned long long)c.requests, (unsigned long long)c.bytes);
    if (l.exit_code == 0) {
      EXPECT_LE(c.requests, 3u) << rel;
      EXPECT_LE(c.bytes, std::min<uint64_t>(size, (meta + first_request) * 11 / 10)) << rel;
    }
    ++files;
  }
  EXPECT_GE(files, 40);
}

// info, validate and name --suggest equal local: of every model, every compat file (v1, v2,
// big-endian, invalid) and the 256k-token vocabularies (GGUF_REMOTE_FULL: of every file).
TEST(RemoteCli, InfoValidateNameEqualLocal) {
  REQUIRE_SERVER();
  std::vector<std::string> rels;
  for (const auto& rel : gguf_files())
    if (full() || rel.starts_with("models/") || rel.starts_with("compat/") || rel.find("command-r") != std::string::npos ||
        rel.find("gemma-4") != std::string::npos)
      rels.push_back(rel);
  for (const auto& rel : rels) {
    std::string local = (data_dir() / rel).string(), remote = url("data", rel);
    for (std::vector<std::string> cmd : {std::vector<std::string>{"info", "--json"}, {"info"}, {"validate", "--json"},
                                         {"name", "--suggest", "--json"}}) {
      auto la = cmd, ra = cmd;
      la.push_back(local);
      ra.push_back(remote);
      auto l = run_gguf(la), r = run_gguf(ra);
      EXPECT_EQ(l.exit_code, r.exit_code) << cmd[0] << " " << rel << r.err;
      EXPECT_EQ(l.out, replace_all(r.out, remote, local)) << cmd[0] << " " << rel;
      EXPECT_EQ(l.err, replace_all(r.err, remote, local)) << cmd[0] << " " << rel;
    }
  }
}

namespace {
// The GGUF of a tokenizer-vectors file: vocab/ggml-vocab-NAME.gguf, vocab/NAME.gguf or models/NAME.gguf.
std::string vocab_file(const std::string& name) {
  for (std::string rel : {"vocab/ggml-vocab-" + name + ".gguf", "vocab/" + name + ".gguf", "models/" + name + ".gguf"})
    if (fs::exists(data_dir() / rel)) return rel;
  return {};
}
}  // namespace

// tokenize --jsonl and detokenize --jsonl of the tokenizer vectors (all 2,532 cases; 
// GGUF_REMOTE_TOKENIZER_CASES limits them) over a URL equal local: by default one
// vocabulary per tokenizer model (SPM, BPE with the 256k-token command-r, WPM, UGM, RWKV)
// and a model's; GGUF_REMOTE_FULL=1: every vocabulary.
TEST(RemoteCli, TokenizeDetokenizeEqualLocal) {
  REQUIRE_SERVER();
  size_t limit = SIZE_MAX;
  if (const char* e = std::getenv("GGUF_REMOTE_TOKENIZER_CASES")) limit = std::strtoull(e, nullptr, 10);
  auto tmp = gguf::test::temp_dir();
  int vocabs = 0;
  for (const auto& e : fs::directory_iterator(data_dir() / "tokenizer-vectors")) {
    std::string name = e.path().stem().string(), rel = vocab_file(name);
    ASSERT_FALSE(rel.empty()) << name;
    static const std::set<std::string> subset{"llama-spm", "command-r", "bert-bge", "ugm-sp-test", "rwkv-world", "stories260K", "gemma-4"};
    if (!full() && !subset.count(name)) continue;
    std::ifstream in(e.path());
    std::ofstream texts(tmp / "texts.jsonl"), ids(tmp / "ids.jsonl");
    std::string line;
    for (size_t n = 0; n < limit && std::getline(in, line); ++n) {
      auto j = json::parse(line);
      texts << json(j["text"]).dump() << "\n";
      ids << j["ids"].dump() << "\n";
    }
    texts.close();
    ids.close();
    std::string local = (data_dir() / rel).string(), remote = url("data", rel);
    for (const char* cmd : {"tokenize", "detokenize"}) {
      std::string input = ((tmp / (std::string(cmd) == "tokenize" ? "texts.jsonl" : "ids.jsonl"))).string();
      auto l = run_gguf({cmd, "-m", local, "--jsonl"}, {}, input);
      auto r = run_gguf({cmd, "-m", remote, "--jsonl"}, {}, input);
      ASSERT_EQ(l.exit_code, 0) << name << l.err;
      EXPECT_EQ(r.exit_code, 0) << name << r.err;
      EXPECT_EQ(l.out, r.out) << cmd << " " << name;
    }
    ++vocabs;
  }
  EXPECT_GE(vocabs, full() ? 20 : 7);
}

// embed --jsonl of the embedding texts over a URL equals local, and fetches only the
// metadata and the rows of the tokens (never the whole file, when it exceeds the first request).
TEST(RemoteCli, EmbedEqualsLocalAndFetchesOnlyRows) {
  REQUIRE_SERVER();
  auto tmp = gguf::test::temp_dir();
  {
    std::ifstream in(data_dir() / "models/embeddings/texts.json");
    std::ofstream out(tmp / "embed.jsonl");
    for (const auto& t : json::parse(in)) out << t.dump() << "\n";
  }
  int models = 0;
  for (const auto& e : fs::directory_iterator(data_dir() / "models/embeddings")) {
    if (e.path().extension() != ".jsonl") continue;
    std::string rel = "models/" + e.path().stem().string() + ".gguf";
    std::string local = (data_dir() / rel).string(), remote = url("data", rel);
    auto l = run_gguf({"embed", "-m", local, "--jsonl"}, {}, (tmp / "embed.jsonl").string());
    server()->take_log();
    // A small first request, so that the rows are fetched on their own.
    auto r = run_gguf({"embed", "-m", remote, "--jsonl", "--first-request", "65536"}, {}, (tmp / "embed.jsonl").string());
    auto c = count(server()->take_log());
    ASSERT_EQ(l.exit_code, 0) << rel << l.err;
    ASSERT_EQ(r.exit_code, 0) << rel << r.err;
    EXPECT_EQ(l.out, r.out) << rel;
    EXPECT_LT(c.bytes, fs::file_size(local)) << rel;
    ++models;
  }
  EXPECT_GE(models, 10);
}

// dequantize URL TENSOR: the same floats, and only the metadata and that tensor fetched.
TEST(RemoteCli, DequantizeFetchesOnlyTheTensor) {
  REQUIRE_SERVER();
  const std::string rel = "models/synth-llama-256-Q4_K_M.gguf";
  std::string local = (data_dir() / rel).string(), remote = url("data", rel);
  auto f = gguf::file::open(local);
  ASSERT_TRUE(f);
  for (const char* name : {"token_embd.weight", "blk.1.ffn_down.weight", "output_norm.weight"}) {
    const auto* t = f->find_tensor(name);
    ASSERT_NE(t, nullptr);
    auto l = run_gguf({"dequantize", local, name});
    server()->take_log();
    auto r = run_gguf({"dequantize", remote, name, "--first-request", "65536"});
    auto log = server()->take_log();
    auto c = count(log);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(l.out, r.out) << name;
    // The metadata (within a few growing requests) and the tensor's bytes, nothing else.
    EXPECT_LE(c.bytes, f->data_offset() + (f->data_offset() >> 1) + (64u << 10) + t->nbytes) << name;
    EXPECT_LE(c.requests, 4u) << name;
  }
}

// A hub answers with a redirect to its CDN: followed, and later requests go to the target.
TEST(RemoteCli, RedirectIsFollowed) {
  REQUIRE_SERVER();
  const std::string rel = "models/synth-llama-256-Q4_K_M.gguf";
  auto r = run_gguf({"dequantize", url("redirect", rel), "output_norm.weight", "--first-request", "65536"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto log = server()->take_log();
  ASSERT_GE(log.size(), 3u);
  EXPECT_EQ(log[0].status, 302);
  EXPECT_EQ(log[0].uri, "/redirect/" + rel);
  for (size_t i = 1; i < log.size(); ++i) {
    EXPECT_EQ(log[i].status, 206);
    EXPECT_EQ(log[i].uri, "/data/" + rel) << "request " << i;
  }
  EXPECT_EQ(r.out, run_gguf({"dequantize", (data_dir() / rel).string(), "output_norm.weight"}).out);
}

// 401 without a token; --header or HF_TOKEN (for the HF_ENDPOINT host) open it; the token
// is never printed, not even with --verbose.
TEST(RemoteCli, AuthorizationHeaderAndHfToken) {
  REQUIRE_SERVER();
  std::string u = url("auth", "models/stories260K.gguf");
  auto none = run_gguf({"info", u});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_EQ(none.err, "gguf: " + u + ": access denied (HTTP 401): give a token with --hf-token, --header 'Authorization: Bearer …' or the HF_TOKEN variable\n");
  auto wrong = run_gguf({"info", u, "--header", "Authorization: Bearer nope"});
  EXPECT_EQ(wrong.exit_code, 2);
  auto hdr = run_gguf({"info", u, "--header", "Authorization: Bearer test-token", "--verbose"});
  EXPECT_EQ(hdr.exit_code, 0) << hdr.err;
  auto env = run_gguf({"info", u, "--verbose"}, {"HF_TOKEN=test-token", "HF_ENDPOINT=" + server()->base()});
  EXPECT_EQ(env.exit_code, 0) << env.err;
  EXPECT_EQ(env.out, hdr.out);
  // HF_TOKEN goes only to Hugging Face hosts (here: not the HF_ENDPOINT host).
  auto other = run_gguf({"info", u}, {"HF_TOKEN=test-token", "HF_ENDPOINT=http://localhost:1"});
  EXPECT_EQ(other.exit_code, 2);
  for (const auto* r : {&none, &wrong, &hdr, &env, &other}) {
    EXPECT_EQ(r->out.find("test-token"), std::string::npos);
    EXPECT_EQ(r->err.find("test-token"), std::string::npos);
  }
  auto f = run_gguf({"info", (data_dir() / "models/stories260K.gguf").string()});
  EXPECT_EQ(replace_all(hdr.out, u, (data_dir() / "models/stories260K.gguf").string()), f.out);
}

// A server that ignores Range: a small file is taken whole (one 200), a large one refused.
TEST(RemoteCli, ServerIgnoringRange) {
  REQUIRE_SERVER();
  const std::string rel = "models/stories260K.gguf";
  auto r = run_gguf({"dump", "--json", url("norange", rel)});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto log = server()->take_log();
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log[0].status, 200);
  auto l = run_gguf({"dump", "--json", (data_dir() / rel).string()});
  EXPECT_EQ(l.out, replace_all(r.out, url("norange", rel), (data_dir() / rel).string()));

  gguf::remote_options o;
  o.max_unranged = 100000;
  auto f = gguf::file::open_url(url("norange", rel), o);
  ASSERT_FALSE(f);
  EXPECT_EQ(f.error().code, gguf::errc::io_error);
  EXPECT_NE(f.error().detail.find("the server ignores Range requests (HTTP 200 with the whole 1.1 MiB body); refusing to download more than 100000 bytes"),
            std::string::npos)
      << f.error().detail;
}

// A server that stalls: the command fails within its --timeout, with one line.
TEST(RemoteCli, StalledServerTimesOut) {
  REQUIRE_SERVER();
  std::string u = url("slow", "models/stories260K.gguf");
  auto r = run_gguf({"info", u, "--timeout", "1", "--retries", "0"}, {}, {}, 30);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_LT(r.seconds, 6.0);
  EXPECT_EQ(r.err.substr(0, r.err.find(" after ")), "gguf: " + u + ": the transfer stalled (under 1 KiB/s for 1 s)") << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
}

TEST(RemoteCli, NotFound) {
  REQUIRE_SERVER();
  std::string u = url("data", "models/no-such-model.gguf");
  for (const char* cmd : {"info", "dump", "validate"}) {
    auto r = run_gguf({cmd, u});
    EXPECT_EQ(r.exit_code, 2) << cmd;
    EXPECT_EQ(r.err, "gguf: " + u + ": not found (HTTP 404)\n") << cmd;
  }
  auto r = run_gguf({"tokenize", "-m", u, "hello"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "gguf: " + u + ": not found (HTTP 404)\n");
}

// libcurl is loaded on the first remote open, not linked: the tool does not list it
// among its needed libraries, a URL still reads (the tests above), and a libcurl that
// cannot be loaded is one clear error naming it, local files unaffected. (The static
// gguf hands a URL to gguf-dynamic, which loads it: the NEEDED check reads that one.)
TEST(RemoteCli, LibcurlIsLoadedOnlyForUrls) {
  REQUIRE_SERVER();
  const std::string bin = GGUF_CLI_STATIC ? (std::filesystem::path(GGUF_CLI_PATH).parent_path() / "gguf-dynamic").string()
                                          : std::string(GGUF_CLI_PATH);
  FILE* p = popen(("readelf -d '" + bin + "' 2>&1").c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string dyn;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) dyn.append(buf, n);
  ASSERT_EQ(pclose(p), 0) << dyn;
  ASSERT_NE(dyn.find("(NEEDED)"), std::string::npos) << dyn;  // readelf worked on the binary
  EXPECT_EQ(dyn.find("libcurl"), std::string::npos) << dyn;

  const std::string u = url("data", "vocab/ggml-vocab-llama-spm.gguf");
  auto r = run_gguf({"info", u}, {"GGUF_LIBCURL=libgguf-no-such-curl.so.4"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("gguf: " + u + ": cannot load libcurl (libgguf-no-such-curl.so.4), which reading over HTTP needs: ", 0), 0u)
      << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  auto local = run_gguf({"info", (data_dir() / "vocab/ggml-vocab-llama-spm.gguf").string()},
                        {"GGUF_LIBCURL=libgguf-no-such-curl.so.4"});
  EXPECT_EQ(local.exit_code, 0) << local.err;
  EXPECT_EQ(server()->take_log().size(), 0u);  // no request was made
}

// --cache: the second read of a file is one conditional request answered 304, no body.
TEST(RemoteCli, CacheRevalidatesWithOneRequest) {
  REQUIRE_SERVER();
  auto cache = gguf::test::temp_dir() / "remote-cache";
  fs::remove_all(cache);
  for (const std::string rel : {"vocab/ggml-vocab-command-r.gguf", "models/stories260K-Q8_0.gguf"}) {
    std::string u = url("data", rel);
    auto a = run_gguf({"dump", "--json", "--full-arrays", u, "--cache", cache.string()});
    auto first = server()->take_log();
    auto b = run_gguf({"dump", "--json", "--full-arrays", u, "--cache", cache.string()});
    auto second = server()->take_log();
    ASSERT_EQ(a.exit_code, 0) << a.err;
    ASSERT_EQ(b.exit_code, 0) << b.err;
    EXPECT_EQ(a.out, b.out);
    EXPECT_GE(first.size(), 1u);
    ASSERT_EQ(second.size(), 1u) << rel;
    EXPECT_EQ(second[0].status, 304);
    EXPECT_EQ(second[0].bytes, 0u);
  }
}

// One disk cache: --cache-dir names the folder of both the tokenizer tables and the remote
// metadata (entries KIND-<32 hex>.EXT); the second run revalidates with one request and
// maps the tables; --no-cache reads and writes nothing there.
TEST(RemoteCli, CacheDirHoldsTablesAndMetadata) {
  REQUIRE_SERVER();
  auto cache = gguf::test::temp_dir() / "one-cache";
  fs::remove_all(cache);
  std::string u = url("data", "vocab/ggml-vocab-llama-bpe.gguf");
  auto a = run_gguf({"tokenize", "-m", u, "Hello world", "--cache-dir", cache.string()});
  server()->take_log();
  ASSERT_EQ(a.exit_code, 0) << a.err;
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(cache)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  ASSERT_EQ(names.size(), 2u) << ::testing::PrintToString(names);
  EXPECT_TRUE(names[0].starts_with("meta-") && names[0].ends_with(".gguf-meta") && names[0].size() == 5 + 32 + 10)
      << names[0];
  EXPECT_TRUE(names[1].starts_with("vocab-") && names[1].ends_with(".bin")) << names[1];
  auto b = run_gguf({"tokenize", "-m", u, "Hello world", "--cache-dir", cache.string(), "--verbose"});
  auto second = server()->take_log();
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_EQ(a.out, b.out);
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0].status, 304);
  EXPECT_NE(b.err.find("tokenizer tables mapped from " + cache.string()), std::string::npos) << b.err;
  auto c = run_gguf({"tokenize", "-m", u, "Hello world", "--cache-dir", cache.string(), "--no-cache"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_EQ(c.out, a.out);
  auto third = server()->take_log();
  ASSERT_GE(third.size(), 1u);
  for (const auto& e : third) EXPECT_EQ(e.status, 206) << "--no-cache sends no conditional request";
}

// --verbose: one line per request with its range, status, bytes and milliseconds.
TEST(RemoteCli, VerbosePrintsEachRequest) {
  REQUIRE_SERVER();
  std::string u = url("data", "vocab/ggml-vocab-gemma-4.gguf");
  auto r = run_gguf({"info", u, "--verbose"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto log = server()->take_log();
  std::istringstream lines(r.err);
  std::string line;
  size_t n = 0;
  while (std::getline(lines, line)) {
    ASSERT_LT(n, log.size());
    std::string want = "gguf: GET " + u + " bytes=" + log[n].range.substr(6) + " -> " + std::to_string(log[n].status) +
                       ", " + std::to_string(log[n].bytes) + " bytes, ";
    EXPECT_EQ(line.substr(0, want.size()), want);
    EXPECT_TRUE(line.ends_with(" ms")) << line;
    ++n;
  }
  EXPECT_EQ(n, log.size());
}

// A file replaced on the server between two requests is an error, not a mix of two files.
TEST(RemoteFile, ChangedBetweenRequestsIsAnError) {
  REQUIRE_SERVER();
  auto local = data_dir() / "models/stories260K-Q8_0.gguf";
  auto copy = server()->scratch() / "model.gguf";
  fs::copy_file(local, copy, fs::copy_options::overwrite_existing);
  gguf::remote_options o;
  o.first_request = 65536;
  auto f = gguf::file::open_url(server()->base() + "/mutable/model.gguf", o);
  ASSERT_TRUE(f) << f.error().message();
  const auto* t = f->find_tensor("blk.4.attn_output.weight");  // past the first request
  ASSERT_NE(t, nullptr);
  ASSERT_FALSE(f->resident(t->data.data() - f->bytes().data(), t->nbytes));
  fs::last_write_time(copy, fs::last_write_time(copy) + std::chrono::hours(1));  // a new ETag
  auto r = f->fetch(t->data);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, gguf::errc::io_error);
  EXPECT_NE(r.error().detail.find("the file changed on the server between two requests (ETag"), std::string::npos)
      << r.error().detail;
  EXPECT_FALSE(f->resident(t->data.data() - f->bytes().data(), t->nbytes));
}
