// Tokenizer throughput of the WPM, UGM and RWKV models on corpus/bench.txt (3.9 MB of
// multilingual, code and English text, tokenized as one text with add_special and
// parse_special off), and the time to build each vocabulary's tokenizer from an open file.
// Target (issue 3): bert-bge (WPM) >= 24 MB/s single-threaded, 2x llama.cpp's 12 MB/s.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gguf/file.h"
#include "gguf/vocab.h"
#include "bench_data.h"

namespace {

const std::string& corpus() {
  static const std::string text = read_whole(data("corpus/bench.txt"));
  return text;
}

void tokenize(benchmark::State& state, const std::string& rel) {
  auto f = gguf::file::open(data(rel));
  if (!f) {
    state.SkipWithError(f.error().message().c_str());
    return;
  }
  auto v = gguf::vocab::load(*f);
  if (!v) {
    state.SkipWithError(v.error().message().c_str());
    return;
  }
  const std::string& text = corpus();
  if (text.empty()) {
    state.SkipWithError("corpus/bench.txt missing");
    return;
  }
  std::vector<int32_t> ids;
  ids.reserve(text.size());
  for (auto _ : state) {
    ids.clear();
    (void)v->tokenize_into(text, ids, false, false);
    benchmark::DoNotOptimize(ids.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
  state.counters["tokens"] = static_cast<double>(ids.size());
}

void load(benchmark::State& state, const std::string& rel) {
  auto f = gguf::file::open(data(rel));
  if (!f) {
    state.SkipWithError(f.error().message().c_str());
    return;
  }
  for (auto _ : state) {
    auto v = gguf::vocab::load(*f);
    if (!v) {
      state.SkipWithError(v.error().message().c_str());
      return;
    }
    benchmark::DoNotOptimize(v->n_tokens());
  }
}

}  // namespace

BENCHMARK_CAPTURE(tokenize, wpm_bert_bge, std::string("vocab/ggml-vocab-bert-bge.gguf"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(tokenize, ugm_nomic_bert_moe, std::string("vocab/ggml-vocab-nomic-bert-moe.gguf"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(tokenize, ugm_sp_test, std::string("vocab/ugm-sp-test.gguf"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(tokenize, rwkv_world, std::string("vocab/ggml-vocab-rwkv-world.gguf"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(load, wpm_bert_bge, std::string("vocab/ggml-vocab-bert-bge.gguf"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(load, ugm_nomic_bert_moe, std::string("vocab/ggml-vocab-nomic-bert-moe.gguf"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(load, rwkv_world, std::string("vocab/ggml-vocab-rwkv-world.gguf"))->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
