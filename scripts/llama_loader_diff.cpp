// The loader differential of issue 29, item 4: every case of CASES.json (a real file of
// the test data with mutations, tests/support/mutations.h) is built with our writer and
// loaded by llama.cpp's libllama (v0.5.0), vocab-only and full; accept/refuse and the
// message llama.cpp logs are written to OUT.json (tests/schema/data/llama_loader_cases.json),
// which tests/cli/test_validate_loader.cpp replays against `gguf validate`.
// Built and run by scripts/record-loader-diff.sh; not part of the build.
// Usage: llama_loader_diff CASES.json DATA_DIR OUT.json
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "ggml-backend.h"
#include "llama.h"
#include "mutations.h"

namespace {

std::string last_error;  // the message of the loader's exception, from its log line

void on_log(ggml_log_level level, const char* text, void*) {
  std::string t = text ? text : "";
  const std::string mark = "error loading model: ";
  if (auto p = t.find(mark); p != std::string::npos) {
    last_error = t.substr(p + mark.size());
    while (!last_error.empty() && (last_error.back() == '\n' || last_error.back() == '\r')) last_error.pop_back();
  } else if (level == GGML_LOG_LEVEL_ERROR && last_error.empty()) {
    last_error = t;
    while (!last_error.empty() && last_error.back() == '\n') last_error.pop_back();
  }
}

nlohmann::json load_here(const std::string& path, bool vocab_only) {
  last_error.clear();
  auto p = llama_model_default_params();
  p.vocab_only = vocab_only;
  llama_model* m = llama_model_load_from_file(path.c_str(), p);
  nlohmann::json r;
  r["ok"] = m != nullptr;
  if (!m) r["error"] = last_error;
  if (m) llama_model_free(m);
  return r;
}

// load_here in a child process: llama.cpp aborts (GGML_ABORT) on some files, which is a
// refusal too, recorded as such.
nlohmann::json load(const std::string& path, bool vocab_only) {
  int fds[2];
  if (::pipe(fds) != 0) return {{"ok", false}, {"error", "pipe failed"}};
  pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    ::dup2(::open("/dev/null", O_WRONLY), 2);  // the abort's backtrace
    const std::string r = load_here(path, vocab_only).dump();
    if (::write(fds[1], r.data(), r.size()) < 0) _exit(3);
    _exit(0);
  }
  ::close(fds[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) text.append(buf, size_t(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (WIFSIGNALED(status) || text.empty())
    return {{"ok", false}, {"aborted", true},
            {"error", "llama.cpp aborted (signal " + std::to_string(WIFSIGNALED(status) ? WTERMSIG(status) : 0) + ")"}};
  return nlohmann::json::parse(text);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: llama_loader_diff CASES.json DATA_DIR OUT.json\n";
    return 2;
  }
  llama_log_set(on_log, nullptr);
  llama_backend_init();
  // the CPU backend, for full loads (node-llama-cpp keeps it beside libllama)
  if (const char* dir = std::getenv("LLAMA_BACKEND_DIR")) ggml_backend_load_all_from_path(dir);
  else ggml_backend_load_all();
  nlohmann::json cases = nlohmann::json::parse(std::ifstream(argv[1]));
  const std::string data = argv[2];
  const std::string tmp = "/tmp/llama-loader-diff-" + std::to_string(::getpid()) + ".gguf";
  nlohmann::json out = nlohmann::json::array();
  for (auto c : cases) {
    auto base = gguf::file::open(data + "/" + c["base"].get<std::string>());
    if (!base) {
      std::cerr << c["name"] << ": " << base.error().message() << "\n";
      return 1;
    }
    auto bytes = gguf::test::apply_mutations(*base, c["ops"]);
    if (!bytes) {
      std::cerr << c["name"] << ": " << bytes.error().message() << "\n";
      return 1;
    }
    {
      std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
      f.write(reinterpret_cast<const char*>(bytes->data()), static_cast<std::streamsize>(bytes->size()));
    }
    if (const char* keep = std::getenv("KEEP_CASES")) {  // a folder: each case's file, NNN.gguf
      char n[16];
      std::snprintf(n, sizeof n, "/%03zu.gguf", out.size());
      std::ofstream(std::string(keep) + n, std::ios::binary)
          .write(reinterpret_cast<const char*>(bytes->data()), static_cast<std::streamsize>(bytes->size()));
    }
    nlohmann::json rec;
    rec["vocab_only"] = load(tmp, true);
    rec["full"] = load(tmp, false);
    c["llama_cpp"] = rec;
    std::cerr << c["name"].get<std::string>() << ": vocab " << rec["vocab_only"].dump() << " full "
              << rec["full"].dump() << "\n";
    out.push_back(c);
  }
  ::unlink(tmp.c_str());
  nlohmann::json doc;
  doc["reference"] = "llama.cpp v0.5.0 (libllama.v0.5.0.so of node-llama-cpp 3.22.1), llama_model_load_from_file";
  doc["cases"] = out;
  std::ofstream(argv[3]) << doc.dump(1) << "\n";
  return 0;
}
