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
