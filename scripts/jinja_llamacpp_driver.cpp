// A small driver over llama.cpp v0.5.0's libllama-common (its Jinja engine and chat
// layer), for recording reference data and for the side-by-side benchmark. Not built
// by CMake: scripts/record-jinja-caps.sh and bench/jinja_bench.py compile it against the
// reference in /root/.cache/gguf-ref (see ../shared/reference/README.md).
//
//   driver caps  < templates.jsonl   one line in: {"name", "template"}; one line out:
//                                    {"name", "caps": {...}, "enable_thinking": bool} or {"name", "error"}
//   driver bench TEMPLATE CONTEXT.json N
//                                    parses TEMPLATE once, then N times: context from JSON +
//                                    render; prints "median_ns <n> bytes <output size>" (CPU time)
#include <algorithm>
#include <chrono>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "chat.h"
#include "jinja/caps.h"
#include "jinja/lexer.h"
#include "jinja/parser.h"
#include "jinja/runtime.h"
#include "json.h"

static std::string slurp(const char* path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

static std::string escape_json(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') out += '\\', out += char(c);
    else if (c == '\n') out += "\\n";
    else if (c < 0x20) {
      char b[8];
      snprintf(b, sizeof b, "\\u%04x", c);
      out += b;
    } else out += char(c);
  }
  return out + "\"";
}

static int caps_mode() {
  std::string line;
  while (std::getline(std::cin, line)) {
    common_json in = common_json::parse(line);
    std::string name = in["name"].get<std::string>();
    std::string src = in["template"].get<std::string>();
    std::cout << "{\"name\": " << escape_json(name) << ", ";
    try {
      auto tmpls = common_chat_templates_init(nullptr, src, "", "");
      auto caps = common_chat_templates_get_caps(tmpls.get());
      std::cout << "\"caps\": {";
      bool first = true;
      for (const auto& [k, v] : caps) {
        std::cout << (first ? "" : ", ") << escape_json(k) << ": " << (v ? "true" : "false");
        first = false;
      }
      bool thinking = false;
      std::string thinking_error;
      try {
        thinking = common_chat_templates_support_enable_thinking(tmpls.get());
      } catch (const std::exception& e) {
        thinking_error = e.what();
      }
      std::cout << "}, \"enable_thinking\": " << (thinking ? "true" : "false");
      if (!thinking_error.empty()) std::cout << ", \"enable_thinking_error\": " << escape_json(thinking_error);
      std::cout << "}\n";
    } catch (const std::exception& e) {
      std::cout << "\"error\": " << escape_json(e.what()) << "}\n";
    }
    std::cout.flush();
  }
  return 0;
}

static int bench_mode(const char* tmpl_path, const char* ctx_path, int n) {
  std::string src = slurp(tmpl_path);
  common_json ctx_json = common_json::parse(slurp(ctx_path));
  jinja::lexer lexer;
  auto toks = lexer.tokenize(src);
  jinja::program prog = jinja::parse_from_tokens(toks);
  std::vector<double> ns;
  size_t bytes = 0;
  for (int i = 0; i < n; ++i) {
    timespec c0{}, c1{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
    jinja::context ctx(src);
    jinja::global_from_json(ctx, ctx_json, true);
    jinja::runtime rt(ctx);
    const jinja::value results = rt.execute(prog);
    auto parts = jinja::runtime::gather_string_parts(results);
    std::string out = parts->as_string().str();
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
    bytes = out.size();
    ns.push_back((c1.tv_sec - c0.tv_sec) * 1e9 + (c1.tv_nsec - c0.tv_nsec));
  }
  std::sort(ns.begin(), ns.end());
  std::cout << "median_ns " << ns[ns.size() / 2] << " bytes " << bytes << "\n";
  return 0;
}

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "caps") return caps_mode();
  if (mode == "bench" && argc == 5) return bench_mode(argv[2], argv[3], std::stoi(argv[4]));
  std::cerr << "usage: driver caps < templates.jsonl | driver bench TEMPLATE CONTEXT.json N\n";
  return 2;
}
