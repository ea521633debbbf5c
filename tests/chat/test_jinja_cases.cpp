// Replays tests/chat/data/jinja-cases: each case's template and context rendered by our
// engine must equal what Debian's python3-jinja2 rendered in transformers' environment
// (scripts/record_jinja_cases.py), byte for byte; where jinja2 raised, we must raise too,
// and for the errors a template author sees (raise_exception's TemplateError, undefined
// values, the sandbox) with jinja2's message.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "chat/jinja/jinja.h"

namespace fs = std::filesystem;
namespace gj = gguf::jinja;
using ojson = nlohmann::ordered_json;

namespace {

ojson read_json(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ojson::parse(ss.str());
}

fs::path cases_dir() { return fs::path(GGUF_SOURCE_DIR) / "tests" / "chat" / "data" / "jinja-cases"; }

std::vector<std::string> topics() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(cases_dir())) {
    std::string n = e.path().filename().string();
    const std::string suffix = ".cases.json";
    if (n.size() > suffix.size() && n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0)
      out.push_back(n.substr(0, n.size() - suffix.size()));
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool ends_with(const std::string& s, const std::string& t) {
  return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
}

class JinjaCases : public ::testing::TestWithParam<std::string> {};

TEST_P(JinjaCases, MatchJinja2) {
  setenv("SOURCE_DATE_EPOCH", "1700000000", 1);
  const std::string topic = GetParam();
  ojson in = read_json(cases_dir() / (topic + ".cases.json"));
  ojson exp = read_json(cases_dir() / (topic + ".expected.json"));
  ASSERT_EQ(in["cases"].size(), exp["cases"].size()) << "rerun scripts/record_jinja_cases.py";
  size_t n = 0;
  for (size_t i = 0; i < in["cases"].size(); ++i) {
    const ojson& c = in["cases"][i];
    const ojson& e = exp["cases"][i];
    ASSERT_EQ(c["name"], e["name"]);
    ojson ctx = in["context"];
    if (c.contains("context"))
      for (const auto& [k, v] : c["context"].items()) ctx[k] = v;
    const std::string tmpl = c["template"].get<std::string>();
    auto prog = gj::parse(tmpl);
    gguf::result<std::string> out = prog ? gj::render(*prog, gj::value::from_json(ctx)) : gguf::result<std::string>(prog.error());
    SCOPED_TRACE(c["name"].get<std::string>() + ": " + tmpl);
    if (e.contains("output")) {
      if (!out) {
        ADD_FAILURE() << "jinja2 rendered " << e["output"].dump() << ", we raised: " << out.error().detail;
        continue;
      }
      EXPECT_EQ(*out, e["output"].get<std::string>());
    } else {
      const std::string type = e["error_type"].get<std::string>(), msg = e["error"].get<std::string>();
      if (out) {
        ADD_FAILURE() << "jinja2 raised " << type << ": " << msg << "; we rendered " << ojson(*out).dump();
        continue;
      }
      if (type == "TemplateError" || type == "UndefinedError" || type == "SecurityError" || type == "RecursionError") {
        EXPECT_TRUE(ends_with(out.error().detail, msg)) << "jinja2: " << type << ": " << msg << "\nours: " << out.error().detail;
      }
    }
    ++n;
  }
  EXPECT_GT(n, 0u);
}

INSTANTIATE_TEST_SUITE_P(Topics, JinjaCases, ::testing::ValuesIn(topics()),
                         [](const auto& info) { return info.param; });

}  // namespace
