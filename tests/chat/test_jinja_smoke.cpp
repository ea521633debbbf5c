// Smoke tests of the Jinja engine's API; the recorded jinja2 cases are in test_jinja_cases.cpp.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "chat/jinja/jinja.h"

namespace gj = gguf::jinja;

namespace {
std::string render(const std::string& src, const nlohmann::json& ctx = nlohmann::json::object()) {
  auto p = gj::parse(src);
  if (!p) return "PARSE ERROR: " + p.error().detail;
  auto r = gj::render(*p, gj::value::from_json(ctx));
  if (!r) return "ERROR: " + r.error().detail;
  return *r;
}
}  // namespace

TEST(JinjaSmoke, BasicConstructs) {
  EXPECT_EQ(render("Hello {{ name }}!", {{"name", "world"}}), "Hello world!");
  EXPECT_EQ(render("{% for m in messages %}{{ m.role }}:{{ m['content'] }};{% endfor %}",
                   {{"messages", {{{"role", "user"}, {"content", "hi"}}, {{"role", "assistant"}, {"content", "yo"}}}}}),
            "user:hi;assistant:yo;");
  EXPECT_EQ(render("{{ [1, 'a', none, true, 1.5] }}"), "[1, 'a', None, True, 1.5]");
  EXPECT_EQ(render("{{ {'a': 1}|tojson }}"), "{\"a\": 1}");
}

// llama.cpp's engine (dialect::llama_cpp) where it is more lenient than jinja2; each pair is
// what llama.cpp v0.5.0 renders (command-r's tool_use template on OpenAI-style tools and
// functionary-v3.1's tool JSON in the server recording rely on these) and what jinja2 does.
TEST(JinjaSmoke, LlamaCppDialectLeniency) {
  auto both = [](const std::string& src, const nlohmann::json& ctx) {
    auto p = gj::parse(src);
    EXPECT_TRUE(p) << src;
    std::pair<std::string, std::string> out;
    for (auto d : {gj::dialect::llama_cpp, gj::dialect::jinja2}) {
      gj::limits lim;
      lim.dialect = d;
      auto r = gj::render(*p, gj::value::from_json(ctx), lim);
      (d == gj::dialect::llama_cpp ? out.first : out.second) = r ? *r : "ERROR";
    }
    return out;
  };
  nlohmann::json tool = {{"tools", {{{"type", "function"}}}}};
  EXPECT_EQ(both("{% for t in tools %}[{% for k, v in t.parameter_definitions.items() %}{{ k }}{% endfor %}]{% endfor %}", tool),
            std::make_pair(std::string("[]"), std::string("ERROR")));
  EXPECT_EQ(both("{{ u.length() }}|{{ u.upper() }}|{{ u.items()|length }}", nlohmann::json::object()),
            std::make_pair(std::string("0||0"), std::string("ERROR")));
  EXPECT_EQ(both("{{ n.items()|length }}", {{"n", nullptr}}), std::make_pair(std::string("0"), std::string("ERROR")));
  EXPECT_EQ(both("{{ 'a'|safe + s }}", {{"s", "\"<b>"}}),
            std::make_pair(std::string("a\"<b>"), std::string("a&#34;&lt;b&gt;")));
}
