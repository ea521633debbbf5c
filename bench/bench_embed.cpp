// Token embeddings of a 1,000-token text on models/synth-llama-256-Q4_K_M.gguf (n_embd
// 256, token_embd q4_K), after the file is open (issue 4's bar: under 10 ms).
//
//   embed/tokenize+lookup: gguf::vocab::tokenize (add_special on, parse_special off) then
//                          model::get_token_embeddings into a caller buffer — what
//                          `gguf embed` does before printing;
//   embed/lookup:          get_token_embeddings of the same 1,000 ids only;
//   embed/open+load:       file::open + model::load + vocab::load, for scale.
// The text is the beginning of corpus/prose-en.txt cut to 1,000 tokens.
//
//   build-*/bench/bench_embed --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "gguf/model.h"
#include "gguf/vocab.h"
#include "bench_data.h"

namespace {

constexpr size_t target_tokens = 1000;

struct fixture {
  std::optional<gguf::file> f;
  std::optional<gguf::model> m;
  std::optional<gguf::vocab> v;
  std::string text;
  std::vector<int32_t> ids;
  std::string error;
};

const fixture& get() {
  static const fixture fx = [] {
    fixture x;
    auto f = gguf::file::open(data("models/synth-llama-256-Q4_K_M.gguf"));
    if (!f) return x.error = f.error().message(), x;
    auto m = gguf::model::load(*f);
    if (!m) return x.error = m.error().message(), x;
    auto v = gguf::vocab::load(*f);
    if (!v) return x.error = v.error().message(), x;
    std::string corpus = read_whole(data("corpus/prose-en.txt")).substr(0, 20000);
    // The longest prefix (on a token boundary of the whole) with at most 1,000 tokens.
    auto all = v->tokenize(corpus, true, false);
    if (!all || all->size() < target_tokens) return x.error = "corpus too short", x;
    size_t lo = 0, hi = corpus.size();
    while (lo < hi) {
      size_t mid = (lo + hi + 1) / 2;
      auto n = v->tokenize(std::string_view(corpus).substr(0, mid), true, false);
      if (n && n->size() <= target_tokens) lo = mid; else hi = mid - 1;
    }
    x.text = corpus.substr(0, lo);
    x.ids = v->tokenize(x.text, true, false).value();
    x.f = std::move(*f);
    x.m = std::move(*m);
    x.v = std::move(*v);
    return x;
  }();
  return fx;
}

void BM_embed_tokenize_lookup(benchmark::State& state) {
  const auto& fx = get();
  if (!fx.error.empty()) return state.SkipWithError(fx.error.c_str());
  const size_t n_embd = fx.m->hparams().n_embd;
  std::vector<int32_t> ids;
  std::vector<float> out;
  for (auto _ : state) {
    ids.clear();
    (void)fx.v->tokenize_into(fx.text, ids, true, false);
    out.resize(ids.size() * n_embd);
    if (!fx.m->get_token_embeddings(ids, out)) return state.SkipWithError("lookup failed");
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["tokens"] = static_cast<double>(fx.ids.size());
  state.counters["tokens/s"] = benchmark::Counter(static_cast<double>(fx.ids.size()), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_embed_tokenize_lookup)->Name("embed/tokenize+lookup")->Unit(benchmark::kMillisecond);

void BM_embed_lookup(benchmark::State& state) {
  const auto& fx = get();
  if (!fx.error.empty()) return state.SkipWithError(fx.error.c_str());
  std::vector<float> out(fx.ids.size() * fx.m->hparams().n_embd);
  for (auto _ : state) {
    if (!fx.m->get_token_embeddings(fx.ids, out)) return state.SkipWithError("lookup failed");
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["tokens"] = static_cast<double>(fx.ids.size());
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * out.size() * sizeof(float)));
}
BENCHMARK(BM_embed_lookup)->Name("embed/lookup")->Unit(benchmark::kMillisecond);

void BM_embed_open_load(benchmark::State& state) {
  if (!get().error.empty()) return state.SkipWithError(get().error.c_str());
  for (auto _ : state) {
    auto f = gguf::file::open(data("models/synth-llama-256-Q4_K_M.gguf"));
    auto m = gguf::model::load(*f);
    auto v = gguf::vocab::load(*f);
    benchmark::DoNotOptimize(v.ok() && m.ok());
  }
}
BENCHMARK(BM_embed_open_load)->Name("embed/open+load")->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
