// The Jinja engine: render the gemma-4 chat template (tokenizer.chat_template of
// ../shared/data/vocab/ggml-vocab-gemma-4.gguf, 12 KB) on a 10-turn conversation with
// tools and parallel tool calls (bench/data/jinja_conversation.json). The template is
// parsed once; a render is timed with and without building the context from JSON.
// bench/jinja_bench.py runs this beside python3-jinja2 and llama.cpp's engine.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "chat/jinja/jinja.h"
#include "gguf/file.h"
#include "bench_data.h"

namespace {

struct fixture {
  std::string source;
  gguf::jinja::program prog;
  nlohmann::ordered_json ctx_json;
  gguf::jinja::value ctx;
  bool ok = false;
  std::string why;

  fixture() {
    auto f = gguf::file::open(data("vocab/ggml-vocab-gemma-4.gguf"));
    if (!f) {
      why = f.error().message();
      return;
    }
    auto t = f->get_string("tokenizer.chat_template");
    if (!t) {
      why = t.error().message();
      return;
    }
    source = std::string(*t);
    ctx_json = nlohmann::ordered_json::parse(read_whole(std::string(GGUF_SOURCE_DIR) + "/bench/data/jinja_conversation.json"));
    ctx = gguf::jinja::value::from_json(ctx_json);
    auto p = gguf::jinja::parse(source);
    if (!p) {
      why = p.error().detail;
      return;
    }
    prog = *p;
    ok = true;
  }
};

const fixture& fx() {
  static const fixture f;
  return f;
}

void BM_jinja_gemma4_render(benchmark::State& state) {
  const fixture& f = fx();
  if (!f.ok) return state.SkipWithError(f.why.c_str());
  size_t bytes = 0;
  for (auto _ : state) {
    auto r = gguf::jinja::render(f.prog, f.ctx);
    if (!r) return state.SkipWithError(r.error().detail.c_str());
    bytes = r->size();
    benchmark::DoNotOptimize(r);
  }
  state.counters["output_bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_jinja_gemma4_render)->Unit(benchmark::kMicrosecond);

void BM_jinja_gemma4_context_and_render(benchmark::State& state) {
  const fixture& f = fx();
  if (!f.ok) return state.SkipWithError(f.why.c_str());
  for (auto _ : state) {
    auto r = gguf::jinja::render(f.prog, gguf::jinja::value::from_json(f.ctx_json));
    if (!r) return state.SkipWithError(r.error().detail.c_str());
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_jinja_gemma4_context_and_render)->Unit(benchmark::kMicrosecond);

void BM_jinja_gemma4_parse(benchmark::State& state) {
  const fixture& f = fx();
  if (!f.ok) return state.SkipWithError(f.why.c_str());
  for (auto _ : state) {
    auto p = gguf::jinja::parse(f.source);
    benchmark::DoNotOptimize(p);
  }
}
BENCHMARK(BM_jinja_gemma4_parse)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
