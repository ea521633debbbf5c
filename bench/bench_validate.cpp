// validate() on the largest vocabularies: target < 50 ms for ggml-vocab-command-r.gguf
// (256,000 tokens, 253,333 merges), open + every rule.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "gguf/schema.h"

namespace {

std::filesystem::path data(const std::string& rel) {
  const char* env = std::getenv("GGUF_TEST_DATA");
  return std::filesystem::path(env && *env ? env : GGUF_TEST_DATA_DEFAULT) / rel;
}

void validate_file_bench(benchmark::State& state, const char* rel) {
  auto path = data(rel);
  if (!std::filesystem::exists(path)) {
    state.SkipWithError("test data not found (set GGUF_TEST_DATA)");
    return;
  }
  size_t bytes = std::filesystem::file_size(path);
  for (auto _ : state) {
    auto r = gguf::validate_file(path);
    if (!r || r->has_errors()) {
      state.SkipWithError("validation failed");
      return;
    }
    benchmark::DoNotOptimize(r->diagnostics.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
}

BENCHMARK_CAPTURE(validate_file_bench, command_r, "vocab/ggml-vocab-command-r.gguf")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(validate_file_bench, gemma_4, "vocab/ggml-vocab-gemma-4.gguf")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(validate_file_bench, stories260K, "models/stories260K.gguf")->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
