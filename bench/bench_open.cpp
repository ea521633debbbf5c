// Open-and-index speed of the reader: mmap + parse + validate of a whole file.
// Target (issue 2): ggml-vocab-command-r.gguf (256,000 tokens) in under 2 ms median;
// ggml's gguf_init_from_file takes about 33 ms there because it copies every string.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "gguf/file.h"
#include "gguf/writer.h"
#include "bench_data.h"

namespace {

void open_file(benchmark::State& state, const std::string& rel) {
  auto path = data(rel);
  if (!std::filesystem::exists(path)) {
    state.SkipWithError(("missing " + path).c_str());
    return;
  }
  for (auto _ : state) {
    auto f = gguf::file::open(path);
    if (!f) {
      state.SkipWithError(f.error().message().c_str());
      return;
    }
    benchmark::DoNotOptimize(f->kv_count());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(std::filesystem::file_size(path)));
}

// Open, then read one key and one token by index (builds the token offset table).
void open_and_lookup(benchmark::State& state) {
  auto path = data("vocab/ggml-vocab-command-r.gguf");
  for (auto _ : state) {
    auto f = gguf::file::open(path);
    auto arch = f->get_string("general.architecture");
    auto tok = f->get_array("tokenizer.ggml.tokens")->get<std::string_view>(255999);
    benchmark::DoNotOptimize(arch->size() + tok->size());
  }
}

void rewrite(benchmark::State& state) {
  auto f = gguf::file::open(data("models/synth-llama-256-Q4_K_M.gguf"));
  for (auto _ : state) {
    auto bytes = gguf::writer::from_file(*f).to_bytes();
    benchmark::DoNotOptimize(bytes.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(f->size()));
}

}  // namespace

BENCHMARK_CAPTURE(open_file, command_r_256k_tokens, std::string("vocab/ggml-vocab-command-r.gguf"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(open_file, gemma4_262k_tokens, std::string("vocab/ggml-vocab-gemma-4.gguf"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(open_file, llama_spm_32k_tokens, std::string("vocab/ggml-vocab-llama-spm.gguf"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(open_file, synth_llama_q4_k_m, std::string("models/synth-llama-256-Q4_K_M.gguf"))->Unit(benchmark::kMillisecond);
BENCHMARK(open_and_lookup)->Unit(benchmark::kMillisecond);
BENCHMARK(rewrite)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
