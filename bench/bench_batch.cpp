// Batch tokenization over the lines of ../shared/data/corpus/bench.txt (llama-bpe):
//  - batch/lines/loop: one tokenize() per line on one thread (bytes/s of text);
//  - batch/lines/threads:N: vocab::tokenize_batch of all lines on N threads;
//  - batch/whole_text: the file as one text (the one-string rate the batch aims at);
//  - batch/short_text: one tokenize() of "Hello world" (the C++ call the Python
//    binding's overhead is measured against).
// Run: bench_batch --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "gguf/vocab.h"
#include "bench_data.h"

namespace {

struct fixture {
  gguf::file f;
  gguf::vocab v;
  std::string text;
  std::vector<std::string_view> lines;
  size_t line_bytes = 0;
};

const fixture& fx() {
  static const fixture x = [] {
    auto f = gguf::file::open(data_dir() / "vocab" / "ggml-vocab-llama-bpe.gguf").value();
    auto v = gguf::vocab::load(f).value();
    fixture r{f, v, read_whole(data_dir() / "corpus" / "bench.txt"), {}, 0};
    std::string_view t = r.text;
    for (size_t p = 0; p < t.size();) {
      size_t q = t.find('\n', p);
      if (q == std::string_view::npos) q = t.size();
      if (q > p) r.lines.push_back(t.substr(p, q - p)), r.line_bytes += q - p;
      p = q + 1;
    }
    return r;
  }();
  return x;
}

void BM_loop(benchmark::State& state) {
  const auto& x = fx();
  std::vector<int32_t> ids;
  for (auto _ : state)
    for (auto line : x.lines) {
      ids.clear();
      benchmark::DoNotOptimize(x.v.tokenize_into(line, ids));
    }
  state.SetBytesProcessed(int64_t(state.iterations() * x.line_bytes));
}

void BM_batch(benchmark::State& state) {
  const auto& x = fx();
  for (auto _ : state) benchmark::DoNotOptimize(x.v.tokenize_batch(x.lines, unsigned(state.range(0))));
  state.SetBytesProcessed(int64_t(state.iterations() * x.line_bytes));
}

void BM_whole(benchmark::State& state) {
  const auto& x = fx();
  for (auto _ : state) benchmark::DoNotOptimize(x.v.tokenize(x.text));
  state.SetBytesProcessed(int64_t(state.iterations() * x.text.size()));
}

void BM_short(benchmark::State& state) {
  const auto& x = fx();
  for (auto _ : state) benchmark::DoNotOptimize(x.v.tokenize("Hello world"));
}

}  // namespace

BENCHMARK(BM_loop)->Name("batch/lines/loop")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_batch)->Name("batch/lines/threads")->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_whole)->Name("batch/whole_text")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_short)->Name("batch/short_text")->Unit(benchmark::kNanosecond);
BENCHMARK_MAIN();
