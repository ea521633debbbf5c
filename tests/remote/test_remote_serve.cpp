// `gguf serve URL`: a remote file is read with the remote options (--header here), and the
// page's API answers from it as from the local file.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <httplib.h>
#include <nlohmann/json.hpp>
#include <cstdio>
#include <memory>

#include "gguf/file.h"
#include "nginx_server.h"
#include "test_support.h"

using gguf::test::data_dir;
using gguf::test::nginx_server;
using nlohmann::json;

namespace {

// `gguf serve ARGS --port 0` as a child process; port() is 0 when it did not start.
class serve_process {
 public:
  explicit serve_process(std::vector<std::string> args) {
    int out[2];
    if (pipe(out) != 0) return;
    args.insert(args.begin(), {GGUF_CLI_PATH, "serve", "--port", "0"});
    pid_ = fork();
    if (pid_ == 0) {
      dup2(out[1], 1);
      close(out[0]);
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
    close(out[1]);
    FILE* f = fdopen(out[0], "r");
    char line[256] = {};
    if (f && std::fgets(line, sizeof line, f)) std::sscanf(line, "gguf serve: listening on http://127.0.0.1:%d/", &port_);
    if (f) std::fclose(f);
  }
  ~serve_process() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      waitpid(pid_, nullptr, 0);
    }
  }
  /// Exit code after SIGTERM (or the exit code of a failed start).
  int stop() {
    int status = 0;
    if (pid_ <= 0) return -1;
    if (port_) kill(pid_, SIGTERM);
    waitpid(pid_, &status, 0);
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  int port() const { return port_; }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
};

json get(int port, const std::string& path) {
  httplib::Client c("127.0.0.1", port);
  auto r = c.Get(path);
  if (!r || r->status != 200) return nullptr;
  return json::parse(r->body);
}

}  // namespace

TEST(RemoteServe, UrlReadWithTheRemoteOptions) {
  GGUF_REQUIRE_DATA();
  nginx_server nginx(data_dir());
  ASSERT_TRUE(nginx.started()) << nginx.why_not();
  const std::string u = nginx.base() + "/auth/models/stories260K.gguf";

  serve_process denied({u});  // no token: the URL cannot be read, the server does not start
  EXPECT_EQ(denied.port(), 0);
  EXPECT_EQ(denied.stop(), 2);

  serve_process s({u, "--header", "Authorization: Bearer test-token"});
  ASSERT_GT(s.port(), 0);
  auto files = get(s.port(), "/api/files");
  ASSERT_FALSE(files.is_null());
  EXPECT_EQ(files["files"][0]["remote"], true);
  auto local = gguf::file::open(data_dir() / "models/stories260K.gguf").value();
  auto kv = get(s.port(), "/api/kv?file=0");
  ASSERT_EQ(kv["kv"].size(), local.kv_count());
  for (size_t i = 0; i < local.kv_count(); ++i) EXPECT_EQ(kv["kv"][i]["key"], std::string(local.kv(i).key));
  auto tensors = get(s.port(), "/api/tensors?file=0");
  ASSERT_EQ(tensors["tensors"].size(), local.tensor_count());
  auto tok = get(s.port(), "/api/tokenize?file=0&text=Hello%20world");
  ASSERT_FALSE(tok.is_null());
  auto cli = gguf::test::run_cli({"tokenize", "-m", (data_dir() / "models/stories260K.gguf").string(), "Hello world"});
  ASSERT_EQ(cli.exit_code, 0) << cli.err;
  EXPECT_EQ(tok["ids"], json::parse(cli.out));  // as `gguf tokenize` on the local file
  EXPECT_EQ(s.stop(), 0);
}
