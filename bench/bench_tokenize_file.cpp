// Our side of the tokenizer comparison with llama.cpp (bench/tokenizer_vs_llama.py): the
// same command line and output as the reference's llama-tokenize-bench.
// usage: bench_tokenize_file MODEL TEXTFILE [reps=3] [add_special=0] [parse_special=0]
// prints: load_ms tokenize_ms n_tokens bytes warm_ms   (medians over reps; load = open the
// file and build the vocabulary, reps loads back to back as the reference times them;
// tokenize = the first call on the whole file with a fresh vocabulary, single thread;
// warm = a second call on the same text)
// env GGUF_BENCH_CACHE_DIR: load through the compiled tokenizer cache in that folder (the
// first load builds and writes it; with reps >= 3 the median is a cached load)
// env GGUF_BENCH_LOADS=1: also print every load's time, in order, on stderr (the first two
// loads of a process take fresh memory, the later ones reuse freed pages:
// docs/tokenizers.md, "Speed against llama.cpp")
// env GGUF_BENCH_CPU=1: time with this thread's CPU clock instead of the wall clock (on a
// machine shared with other jobs the wall time includes waiting for a core)
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "gguf/file.h"
#include "gguf/vocab.h"
#include "bench_data.h"

namespace {
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
// the wall clock, or with GGUF_BENCH_CPU=1 this thread's CPU clock
struct clk {
  using duration = std::chrono::nanoseconds;
  using time_point = std::chrono::time_point<clk, duration>;
  static inline const bool cpu = [] {
    const char* e = std::getenv("GGUF_BENCH_CPU");
    return e && *e == '1';
  }();
  static time_point now() {
    if (!cpu) return time_point(std::chrono::steady_clock::now().time_since_epoch());
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return time_point(std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec));
  }
};
}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s MODEL TEXTFILE [reps] [add_special] [parse_special]\n", argv[0]);
    return 2;
  }
  const int reps = argc > 3 ? std::max(1, std::atoi(argv[3])) : 3;
  const bool add_special = argc > 4 && std::atoi(argv[4]);
  const bool parse_special = argc > 5 && std::atoi(argv[5]);
  const std::string text = read_whole(argv[2]);

  const char* cache = std::getenv("GGUF_BENCH_CACHE_DIR");
  struct loaded {
    gguf::file f;
    gguf::vocab v;
  };
  const auto load = [&]() -> std::optional<loaded> {
    auto f = gguf::file::open(argv[1]);
    if (!f) {
      std::fprintf(stderr, "gguf: %s: %s\n", argv[1], f.error().message().c_str());
      return std::nullopt;
    }
    auto v = gguf::vocab::load(*f, gguf::vocab_load_options{cache ? cache : ""});
    if (!v) {
      std::fprintf(stderr, "gguf: %s: %s\n", argv[1], v.error().message().c_str());
      return std::nullopt;
    }
    return loaded{std::move(*f), std::move(*v)};
  };
  // Load: `reps` loads back to back, each vocabulary freed once the next one is loaded,
  // as the reference times llama_model_load_from_file (vocab_only).
  std::vector<double> load_ms, tok_ms, warm_ms;
  {
    std::optional<loaded> previous;
    for (int r = 0; r < reps; ++r) {
      const auto t0 = clk::now();
      auto l = load();
      const auto t1 = clk::now();
      if (!l) return 1;
      load_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
      previous = std::move(l);
    }
  }
  // Tokenize: every rep loads a fresh vocabulary (not timed), so that its tokenize call
  // starts with empty per-thread caches (the word caches of SPM/BPE/UGM/RWKV persist
  // between calls on a thread; a second call on the same text would find every word
  // cached). That first call is the tokenize time; a second call on the same text is
  // reported as "warm".
  std::vector<int32_t> ids;
  ids.reserve(text.size() + 16);
  for (int r = 0; r < reps; ++r) {
    const auto l = load();
    if (!l) return 1;
    for (int call = 0; call < 2; ++call) {
      ids.clear();
      const auto t2 = clk::now();
      const bool ok = bool(l->v.tokenize_into(text, ids, add_special, parse_special));
      const auto t3 = clk::now();
      if (!ok) {
        std::fprintf(stderr, "tokenize failed\n");
        return 1;
      }
      (call == 0 ? tok_ms : warm_ms).push_back(std::chrono::duration<double, std::milli>(t3 - t2).count());
    }
  }
  if (const char* e = std::getenv("GGUF_BENCH_LOADS"); e && *e == '1') {
    std::fprintf(stderr, "loads ms:");
    for (double ms : load_ms) std::fprintf(stderr, " %.2f", ms);
    std::fprintf(stderr, "\n");
  }
  std::printf("%.3f %.3f %zu %zu %.3f\n", median(load_ms), median(tok_ms), ids.size(), text.size(), median(warm_ms));
  return 0;
}
