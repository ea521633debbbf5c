// Tokenizer benchmarks over ../shared/data/corpus/bench.txt (3.9 MB):
//  - BM_tokenize/NAME: whole file in one llama_tokenize-style call (add_special and
//    parse_special on), single thread, bytes/s;
//  - BM_load/NAME: gguf::vocab::load from an opened file (tokenizer ready to use), with
//    the heap the vocab keeps (malloc'd bytes, the mapping excluded) as a counter.
// Run: bench_tokenize --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>
#include <malloc.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "gguf/vocab.h"
#include "bench_data.h"

namespace {

std::string vocab_path(const std::string& name) { return (data_dir() / "vocab" / ("ggml-vocab-" + name + ".gguf")).string(); }

const std::string& corpus() {
  static const std::string text = read_whole(data_dir() / "corpus" / "bench.txt");
  return text;
}

void BM_tokenize(benchmark::State& state, const std::string& name) {
  auto f = gguf::file::open(vocab_path(name));
  if (!f) return state.SkipWithError(f.error().message().c_str());
  auto v = gguf::vocab::load(*f);
  if (!v) return state.SkipWithError(v.error().message().c_str());
  const std::string& text = corpus();
  if (text.empty()) return state.SkipWithError("bench.txt not found");
  size_t n = 0;
  for (auto _ : state) {
    std::vector<int32_t> ids;
    ids.reserve(text.size() / 3);
    (void)v->tokenize_into(text, ids, true, true);
    n = ids.size();
    benchmark::DoNotOptimize(ids.data());
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(text.size()));
  state.counters["tokens"] = double(n);
}

size_t heap_bytes() {
  const struct mallinfo2 mi = mallinfo2();
  return mi.uordblks + mi.hblkhd;
}

void BM_load(benchmark::State& state, const std::string& name) {
  auto f = gguf::file::open(vocab_path(name));
  if (!f) return state.SkipWithError(f.error().message().c_str());
  double heap = 0;
  for (auto _ : state) {
    const size_t before = heap_bytes();
    auto v = gguf::vocab::load(*f);
    if (!v) return state.SkipWithError(v.error().message().c_str());
    heap = double(heap_bytes() - before) / (1024.0 * 1024.0);
    benchmark::DoNotOptimize(v->n_tokens());
  }
  state.counters["heap_MiB"] = heap;
}

const char* const vocabs[] = {"llama-bpe", "gpt-2",    "qwen2",      "llama-spm",      "bert-bge",  "gemma-4",
                              "command-r", "deepseek-llm", "falcon", "nomic-bert-moe", "rwkv-world"};

const bool registered = [] {
  for (const char* n : vocabs) {
    benchmark::RegisterBenchmark(("BM_tokenize/" + std::string(n)).c_str(), BM_tokenize, std::string(n))
        ->Unit(benchmark::kMillisecond)
        ->MinTime(1.0);
    benchmark::RegisterBenchmark(("BM_load/" + std::string(n)).c_str(), BM_load, std::string(n))
        ->Unit(benchmark::kMillisecond);
  }
  return true;
}();

}  // namespace

BENCHMARK_MAIN();
