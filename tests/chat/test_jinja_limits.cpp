// Hostile templates: every limit of gguf::jinja::limits ends a runaway render with a
// clear error (errc::limit_exceeded, or the sandbox's own error as jinja2 raises it),
// quickly and without unbounded memory; deep nesting is refused by the parser. "Quickly" is
// measured in CPU time of the rendering thread, not wall time, so a loaded machine (2 cores
// shared by several builds) does not make it fail, while a render that runs away still does.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <time.h>

#include <pthread.h>

#include "chat/jinja/jinja.h"
#include "gguf/chat.h"

namespace gj = gguf::jinja;

namespace {

long peak_rss_mb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss / 1024;
}

// CPU seconds this thread has used (CLOCK_THREAD_CPUTIME_ID).
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

struct outcome {
  gguf::errc code = gguf::errc::ok;
  std::string detail;
  std::string out;
  double cpu_seconds = 0;
};

outcome run(const std::string& src, const gj::limits& lim = {}) {
  const double t0 = thread_cpu_seconds();
  outcome o;
  auto p = gj::parse(src);
  if (!p) {
    o.code = p.error().code;
    o.detail = p.error().detail;
  } else {
    auto r = gj::render(*p, gj::value::make_dict(), lim);
    if (!r) {
      o.code = r.error().code;
      o.detail = r.error().detail;
    } else {
      o.out = *r;
    }
  }
  o.cpu_seconds = thread_cpu_seconds() - t0;
  return o;
}

// CPU-second budget of one runaway render. Instrumented builds (ASan/UBSan) run 10-40x slower:
// the bound there is looser.
#if defined(__SANITIZE_ADDRESS__)
constexpr double kBudget = 30.0;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr double kBudget = 30.0;
#else
constexpr double kBudget = 1.0;
#endif
#else
constexpr double kBudget = 1.0;
#endif

void expect_stopped(const std::string& src, gguf::errc code, const std::string& what, const gj::limits& lim = {}) {
  long before = peak_rss_mb();
  outcome o = run(src, lim);
  EXPECT_EQ(o.code, code) << src << "\n" << o.detail;
  EXPECT_NE(o.detail.find(what), std::string::npos) << src << "\n" << o.detail;
  EXPECT_LT(o.cpu_seconds, kBudget) << src << ": CPU seconds";
  // the memory limit (256 MiB of strings and containers by default) bounds the process
  EXPECT_LT(peak_rss_mb() - before, 600) << src;
}

}  // namespace

TEST(JinjaLimits, HugeRangeIsRefusedAsTheSandboxDoes) {
  expect_stopped("{% for i in range(10**12) %}x{% endfor %}", gguf::errc::template_error, "MAX_RANGE");
}

TEST(JinjaLimits, NestedLoopsRunOutOfFuel) {
  expect_stopped("{% set r = range(100000) %}{% for i in r %}{% for j in r %}{{ j }}{% endfor %}{% endfor %}",
                 gguf::errc::limit_exceeded, "step limit");
}

TEST(JinjaLimits, StringDoublingHitsTheMemoryLimit) {
  expect_stopped("{% set ns = namespace(s='x') %}{% for i in range(64) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}",
                 gguf::errc::limit_exceeded, "memory limit");
  expect_stopped("{% set ns = namespace(l=[1]) %}{% for i in range(64) %}{% set ns.l = ns.l + ns.l %}{% endfor %}",
                 gguf::errc::limit_exceeded, "memory limit");
}

// An empty sequence times a huge count is empty at once (fuzz_jinja: a timeout, 2 x 10^11 empty appends).
TEST(JinjaLimits, EmptySequenceTimesAHugeCountIsEmptyAtOnce) {
  for (const char* t : {"{{ (233720369547 * '' * 807)|length }}", "{{ ([] * 10**15)|length }}",
                        "{{ (() * 10**15)|length }}", "{{ (10**15 * '')|length }}"}) {
    outcome o = run(t);
    EXPECT_EQ(o.code, gguf::errc::ok) << t << ": " << o.detail;
    EXPECT_EQ(o.out, "0") << t;
    EXPECT_LT(o.cpu_seconds, kBudget) << t;
  }
}

TEST(JinjaLimits, HugeRepetitionIsRefusedBeforeAllocating) {
  expect_stopped("{{ 'x' * 10**12 }}", gguf::errc::limit_exceeded, "memory limit");
  expect_stopped("{{ [1, 2] * 10**11 }}", gguf::errc::limit_exceeded, "memory limit");
  expect_stopped("{{ 'ab'.center(10**12) }}", gguf::errc::limit_exceeded, "too large");
  expect_stopped("{{ '%999999999d' % 1 }}", gguf::errc::limit_exceeded, "too large");
  // digit runs past int64: an error, not an exception out of std::stoul (fuzz_jinja: abort)
  expect_stopped("{{ '%s a %" + std::string(120, '2') + "s' % ('a', 'b') }}", gguf::errc::template_error, "width too big");
  expect_stopped("{{ '%." + std::string(40, '9') + "s' % 'a' }}", gguf::errc::template_error, "precision too big");
  expect_stopped("{{ {}|tojson(indent=10**9) }}", gguf::errc::limit_exceeded, "too large");
}

// Each of these builds one value many times larger than everything it was made from; the
// memory or step limit must stop it while it grows, not after (fuzz_jinja found the batch
// one: its fill was allocated before it was accounted, 1.7 GB for a 140-byte template).
TEST(JinjaLimits, AmplifyingBuiltinsStopWhileTheyGrow) {
  // a 32 MiB memory limit: the same stops, and the process stays small under AddressSanitizer
  // too (at the default 256 MiB a string's last doubling and ASan's quarantine of the freed
  // buffers went past the 600 MB bound there)
  gj::limits lim;
  lim.max_memory_bytes = 32u << 20;
  expect_stopped("{{ range(5)|batch(10**12, 'x')|list }}", gguf::errc::limit_exceeded, "limit of", lim);
  const std::string nest =
      "{% set a = [1] * 100 %}{% set b = [a] * 100 %}{% set c = [b] * 100 %}{% set d = [c] * 100 %}"
      "{% set e = [d] * 100 %}";
  expect_stopped(nest + "{{ e|tojson|length }}", gguf::errc::limit_exceeded, "limit of", lim);
  expect_stopped(nest + "{{ e|string|length }}", gguf::errc::limit_exceeded, "limit of", lim);
  expect_stopped(nest + "{{ (e ~ '')|length }}", gguf::errc::limit_exceeded, "limit of", lim);
  expect_stopped("{{ range(100000)|join('x' * 1000000)|length }}", gguf::errc::limit_exceeded, "limit of", lim);
  expect_stopped("{{ ('x' * 1000000).join(['a'] * 100000)|length }}", gguf::errc::limit_exceeded, "limit of", lim);
  expect_stopped("{{ ('abcdefghij' * 1000)|replace('', 'x' * 100000)|length }}", gguf::errc::limit_exceeded,
                 "limit of", lim);
  expect_stopped("{{ ('a\n' * 100000)|indent('x' * 100000)|length }}", gguf::errc::limit_exceeded, "limit of", lim);
  expect_stopped("{{ ('{0}' * 100000).format('x' * 100000)|length }}", gguf::errc::limit_exceeded, "limit of", lim);
  expect_stopped("{{ ('%(a)s' * 100000) % {'a': 'x' * 100000} }}", gguf::errc::limit_exceeded, "limit of", lim);
  // Python's fill is one character; a long one would be repeated up to the width
  expect_stopped("{{ 'a'.center(1000000, 'x' * 1000000) }}", gguf::errc::template_error, "exactly one character", lim);
  expect_stopped("{{ 'a'.ljust(1000000, 'xy') }}", gguf::errc::template_error, "exactly one character", lim);
  expect_stopped("{{ 'a'.rjust(5, 3) }}", gguf::errc::template_error, "not int", lim);
  expect_stopped("{{ ([[1] * 1000] * 1000)|tojson(indent='x' * 100000) }}", gguf::errc::limit_exceeded,
                 "limit of", lim);
}

// Strings handed to the engine through the library need not be UTF-8 (a GGUF file's are
// checked by the reader; a caller's context is not). find/index/count map code points to
// bytes of the string itself: a malformed byte is one code point and one byte, never an
// offset past the end (fuzz_jinja found re-encoded U+FFFD widening 1-byte errors to 3).
TEST(JinjaLimits, FindOnMalformedUtf8StaysInTheString) {
  const std::string bad = "h\xc3\xa9" + std::string(60, '\x90') + "lo";
  for (const char* expr : {"s.find('l')", "s.rfind('o')", "s.index('lo')", "s.count('')", "s.count('l', 1, 70)",
                           "s.find('o', 61)", "s.count('\\x90')"}) {
    auto p = gj::parse(std::string("{{ ") + expr + " }}");
    ASSERT_TRUE(p) << expr;
    gj::value c = gj::value::make_dict();
    c.set(gj::value("s"), gj::value(bad));
    auto r = gj::render(*p, c, gj::limits{});
    ASSERT_TRUE(r) << expr << ": " << r.error().message();
  }
  auto p = gj::parse("{{ s.find('l') }} {{ s.rfind('o') }} {{ s.count('') }} {{ s.find('o', 63) }}");
  ASSERT_TRUE(p);
  gj::value c = gj::value::make_dict();
  c.set(gj::value("s"), gj::value(bad));
  auto r = gj::render(*p, c, gj::limits{});
  ASSERT_TRUE(r) << r.error().message();
  // h, é, 60 malformed bytes (one code point each), l, o: 64 code points
  EXPECT_EQ(*r, "62 63 65 63");
}

// A long needle that almost matches everywhere: a quadratic search (string_view::find)
// takes about 4 x 10^11 byte compares here, minutes, all inside one step of fuel. Each
// search must be linear (text::find / text::rfind; the results are checked against jinja2 in
// methods.cases.json, methods_long_separators).
TEST(JinjaLimits, LongNeedlesSearchInLinearTime) {
  const std::string set = "{% set h = 'a' * 4000000 %}{% set n = 'a' * 99999 ~ 'b' %}{% set r = 'b' ~ 'a' * 99999 %}";
  for (const char* expr : {"n in h", "h.find(n)", "h.rfind(r)", "h.count(n)", "h.replace(n, 'x')|length",
                           "h.split(n)|length", "h.rsplit(r)|length", "h.partition(n)|length",
                           "h.rpartition(r)|length"}) {
    outcome o = run(set + "{{ " + expr + " }}");
    EXPECT_EQ(o.code, gguf::errc::ok) << expr << ": " << o.detail;
    EXPECT_LT(o.cpu_seconds, kBudget) << expr << ": CPU seconds";
    EXPECT_FALSE(o.out.empty()) << expr;
  }
}

// Values nested a million deep can be built through a namespace in a loop (a list in a
// list, or a namespace in a namespace). Freeing, comparing and printing them must not
// overflow the stack: freeing goes one level at a time, repr and comparison stop with
// Python's RecursionError. (A namespace that holds itself: namespace_holds_itself in
// assign.cases.json, recorded from jinja2; under LeakSanitizer that case also shows it is freed.)
TEST(JinjaLimits, DeepValuesAreFreedComparedAndPrintedWithoutRecursion) {
  const std::string chain =
      "{% set ns = namespace(l=[], cur=none) %}{% for i in range(100000) %}{% for j in range(3) %}"
      "{% set ns.l = [ns.l] %}{% set n = namespace(p=ns.cur) %}{% set ns.cur = n %}{% endfor %}{% endfor %}";
  outcome o = run(chain + "{{ ns.l|length }}");
  EXPECT_EQ(o.code, gguf::errc::ok) << o.detail;
  EXPECT_EQ(o.out, "1");
  o = run(chain + "{{ ns.l }}");
  EXPECT_EQ(o.code, gguf::errc::template_error) << o.detail;
  EXPECT_NE(o.detail.find("maximum recursion depth exceeded while getting the repr"), std::string::npos) << o.detail;
  o = run(chain + "{% set a = ns.l %}{% set ns.l = [] %}{% for i in range(3000) %}{% set ns.l = [ns.l] %}{% endfor %}"
                  "{{ a == ns.l }}");
  EXPECT_EQ(o.code, gguf::errc::template_error) << o.detail;
  EXPECT_NE(o.detail.find("maximum recursion depth exceeded in comparison"), std::string::npos) << o.detail;
  o = run(chain + "{{ ns.cur }}");
  EXPECT_NE(o.detail.find("maximum recursion depth exceeded"), std::string::npos) << o.detail;
}

TEST(JinjaLimits, UnboundedRecursionHitsTheDepthLimit) {
  expect_stopped("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}", gguf::errc::limit_exceeded,
                 "recursion limit");
  expect_stopped("{% for x in [1] recursive %}{{ loop([1]) }}{% endfor %}", gguf::errc::limit_exceeded,
                 "recursion limit");
}

TEST(JinjaLimits, OutputIsBounded) {
  expect_stopped("{% for i in range(100000) %}{{ 'x' * 1000 }}{% endfor %}", gguf::errc::limit_exceeded,
                 "output limit");
  gj::limits small;
  small.max_output_bytes = 10;
  auto p = gj::parse("{{ 'abcdefghijkl' }}");
  ASSERT_TRUE(p);
  auto r = gj::render(*p, gj::value::make_dict(), small);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, gguf::errc::limit_exceeded);
}

TEST(JinjaLimits, IntegerOverflowIsAnError) {
  expect_stopped("{{ 2 ** 10**12 }}", gguf::errc::template_error, "integer overflow");
  expect_stopped("{{ 9223372036854775807 + 1 }}", gguf::errc::template_error, "integer overflow");
}

TEST(JinjaLimits, DeepNestingIsAParseError) {
  std::string deep = "{{ " + std::string(100000, '(') + "1" + std::string(100000, ')') + " }}";
  expect_stopped(deep, gguf::errc::invalid_template, "nesting");
  std::string deep_not = "{{ " + std::string(0, ' ');
  for (int i = 0; i < 100000; ++i) deep_not += "not ";
  expect_stopped(deep_not + "1 }}", gguf::errc::invalid_template, "nesting");
  std::string deep_if;
  for (int i = 0; i < 10000; ++i) deep_if += "{% if true %}";
  expect_stopped(deep_if, gguf::errc::invalid_template, "nesting");
  std::string deep_list = "{{ " + std::string(100000, '[') + " }}";
  expect_stopped(deep_list, gguf::errc::invalid_template, "");
}

TEST(JinjaLimits, TheSandboxRefusesMutationAndInternals) {
  expect_stopped("{{ [1].append(2) }}", gguf::errc::template_error, "unsafe");
  expect_stopped("{{ {}.update({'a': 1}) }}", gguf::errc::template_error, "unsafe");
  outcome o = run("[{{ ''.__class__ }}][{{ range.__globals__ }}]");
  EXPECT_EQ(o.code, gguf::errc::ok) << o.detail;  // attributes of Python internals are undefined: nothing leaks
}

TEST(JinjaLimits, ALimitErrorNamesTheLine) {
  outcome o = run("line one\n{% for i in range(10**12) %}{% endfor %}");
  EXPECT_NE(o.detail.find("line 2"), std::string::npos) << o.detail;
}

// A chat request (messages, tools, kwargs) nested deeper than chat_max_json_depth is
// refused before anything walks it recursively; json_nesting_depth skips brackets in strings.
TEST(ChatLimits, DeeplyNestedRequestsAreRefused) {
  EXPECT_EQ(gguf::json_nesting_depth(R"({"a": [1, {"b": "[[[[{{"}], "c": "\\\"[["})"), 3u);
  EXPECT_EQ(gguf::json_nesting_depth("3"), 0u);
  auto t = gguf::chat_template::from_source("{{ messages|length }}{{ tools|length }}{{ x|length }}");
  ASSERT_TRUE(t) << t.error().message();
  const std::string deep = std::string(1000000, '[') + std::string(1000000, ']');
  const std::string msgs = R"([{"role": "user", "content": "a"}])";
  gguf::chat_request ok{msgs, "[]", false, R"({"x": [1]})"};
  auto r = t->apply(ok);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(*r, "101");
  for (int which = 0; which < 3; ++which) {
    gguf::chat_request req = ok;
    if (which == 0) req.messages_json = R"([{"role": "user", "content": "a", "x": )" + deep + "}]";
    if (which == 1) req.tools_json = "[" + deep + "]";
    if (which == 2) req.kwargs_json = R"({"x": )" + deep + "}";
    for (auto mode : {gguf::chat_mode::transformers, gguf::chat_mode::server}) {
      auto e = t->apply(req, mode);
      ASSERT_FALSE(e) << which;
      EXPECT_EQ(e.error().code, gguf::errc::invalid_argument);
      EXPECT_NE(e.error().message().find("nested deeper than 512 levels"), std::string::npos) << e.error().message();
    }
  }
}


// Tools that are not an array (an object, a string) were rendered as if none were given;
// llama-server refuses them ("Expected 'tools' to be an array"), so does apply.
TEST(ChatLimits, ToolsThatAreNotAnArrayAreRefused) {
  auto t = gguf::chat_template::from_source("{% if tools %}{{ tools|length }}{% endif %}.");
  ASSERT_TRUE(t) << t.error().message();
  const std::string msgs = R"([{"role": "user", "content": "a"}])";
  for (const char* ok : {"", "null", "[]", R"([{"type": "function", "function": {"name": "f"}}])"}) {
    auto r = t->apply(gguf::chat_request{msgs, ok, false, ""});
    EXPECT_TRUE(r) << ok << ": " << r.error().message();
  }
  for (const char* bad : {"{}", R"({"type": "function"})", "\"f\"", "3"}) {
    for (auto mode : {gguf::chat_mode::transformers, gguf::chat_mode::server}) {
      auto r = t->apply(gguf::chat_request{msgs, bad, false, ""}, mode);
      ASSERT_FALSE(r) << bad;
      EXPECT_EQ(r.error().code, gguf::errc::invalid_argument);
      EXPECT_NE(r.error().message().find("tools must be a JSON array"), std::string::npos) << r.error().message();
    }
  }
}

// Long chains of a left-associative construct (a|f|f..., a ~ b ~ ..., x.a.a..., `1 if 1 else 1 if
// ...`) made trees as deep as the template is long: a 300 KB template overflowed the stack of
// every walk over them (evaluation, the caps probe, destruction), in `gguf info` too. The parser
// bounds an expression's height.
TEST(JinjaLimits, LongChainsAreRefusedByTheParserNotTheStack) {
  const size_t n = 200000;
  auto repeat = [&](const std::string& s) {
    std::string out;
    out.reserve(s.size() * n);
    for (size_t i = 0; i < n; ++i) out += s;
    return out;
  };
  const std::vector<std::string> chains = {
      "{{ 1" + repeat("|string") + " }}",
      "{{ 'a'" + repeat(" ~ 'a'") + " }}",
      "{{ x" + repeat(".a") + " }}",
      "{{ x" + repeat("[0]") + " }}",
      "{{ 1" + repeat(" + 1") + " }}",
      "{{ 1" + repeat(" * 1") + " }}",
      "{{ true" + repeat(" and true") + " }}",
      "{{ false" + repeat(" or false") + " }}",
      "{{ 'a'" + repeat(".upper()") + " }}",
      "{{ 1" + repeat(" if 1 else 1") + " }}",
      "{{ f" + repeat("(1)") + " }}",
      "{{ 1" + repeat(" is number") + " }}",
  };
  for (const auto& src : chains) {
    outcome o = run(src);
    EXPECT_EQ(o.code, gguf::errc::invalid_template) << src.substr(0, 40);
    EXPECT_TRUE(o.detail.find("nested deeper than 1000 levels") != std::string::npos ||
                o.detail.find("nesting deeper than 300 levels") != std::string::npos ||
                o.detail.find("chain multiple tests") != std::string::npos)
        << src.substr(0, 40) << ": " << o.detail;
  }
  // a chain within the bound still renders
  std::string ok = "{{ 1";
  for (int i = 0; i < 900; ++i) ok += "|string";
  EXPECT_EQ(run(ok + " }}").out, "1");
}

// A recursive macro whose every level evaluates a deep (but bounded) expression nests
// deeper than the stack: the render ends with a limit error before the stack does.
TEST(JinjaLimits, RecursionThroughDeepExpressionsStopsBeforeTheStack) {
  std::string chain;
  for (int i = 0; i < 900; ++i) chain += "|string";
  const std::string src = "{%- macro m(n) -%}{%- if n > 0 -%}{{ m(n - 1)" + chain +
                          " }}{%- endif -%}{%- endmacro -%}{{ m(250) }}";
  outcome o = run(src);
  EXPECT_EQ(o.code, gguf::errc::limit_exceeded) << o.detail;
  EXPECT_NE(o.detail.find("nesting too deep for the stack"), std::string::npos) << o.detail;
  // on a thread whose stack is 4 MiB instead of 8: the bound follows the thread's own stack
  struct job {
    const std::string* src;
    outcome result;
  } j{&src, {}};
  pthread_attr_t attr;
  ASSERT_EQ(pthread_attr_init(&attr), 0);
  ASSERT_EQ(pthread_attr_setstacksize(&attr, 4u << 20), 0);
  pthread_t th;
  ASSERT_EQ(pthread_create(
                &th, &attr,
                [](void* p) -> void* {
                  auto* jb = static_cast<job*>(p);
                  jb->result = run(*jb->src);
                  return nullptr;
                },
                &j),
            0);
  pthread_join(th, nullptr);
  pthread_attr_destroy(&attr);
  EXPECT_EQ(j.result.code, gguf::errc::limit_exceeded) << j.result.detail;
}

// The caps probe marks every value a render reaches: it walked them recursively, forever on a
// namespace that holds itself and past the stack on a list nested 400000 deep.
TEST(ChatLimits, TheCapsProbeWalksSelfHoldingAndDeepValues) {
  for (const char* src : {"{% set ns = namespace(a=1) %}{% set ns.a = ns %}{{ ns|tojson }}",
                          "{% set x = [] %}{% set _ = x.append(x) %}{{ x|tojson }}",
                          // (a list that holds itself was never freed: LeakSanitizer in the sanitizer job)
                          "{% set x = [] %}{% set _ = x.append(x) %}{% set _ = x.append(x) %}{{ x|sort }}{{ x == x }}",
                          "{% set ns = namespace(v=[]) %}{% for i in range(400) %}{% for j in range(1000) %}"
                          "{% set ns.v = [ns.v] %}{% endfor %}{% endfor %}{{ ns.v|tojson }}"}) {
    auto t = gguf::chat_template::from_source(src);
    ASSERT_TRUE(t) << t.error().message();
    auto caps = t->caps();  // (a crash before; the answer itself is whatever the probe finds)
    EXPECT_FALSE(caps.supports_tools) << src;
  }
}
