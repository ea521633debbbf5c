// Row quantization against ggml's, side by side in one process: gguf::quantize_rows and
// ggml_quantize_chunk of llama.cpp v0.5.0's libggml-base (dlopen'ed: $GGUF_GGML_BASE, or
// the reference set up by ../shared/reference/setup.sh under $GGUF_REF_DIR or
// ~/.cache/gguf-ref), on the same rows, alternating, single thread. Before timing, the two
// outputs are compared byte for byte.
//
//   bench_quantize [TYPES] [--rows N] [--n-per-row N] [--reps N] [--imatrix]
//     TYPES: comma-separated ggml names (default q4_K,q6_K,q8_0,iq4_xs) or "all"
//
// Prints per type: MB/s of float32 input per second of thread CPU time (median of REPS)
// for ours and ggml, their ratio, and whether the bytes were identical. Without libggml-base only our side is timed.
#include <dlfcn.h>

#include <algorithm>
#include <ctime>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "gguf/quant.h"

namespace {

using ggml_quantize_chunk_fn = size_t (*)(int, const float*, void*, int64_t, int64_t, int64_t, const float*);
using ggml_quantize_init_fn = void (*)(int);

std::string default_lib() {
  if (const char* p = std::getenv("GGUF_GGML_BASE")) return p;
  std::string ref = std::getenv("GGUF_REF_DIR") ? std::getenv("GGUF_REF_DIR")
                                                : std::string(std::getenv("HOME") ? std::getenv("HOME") : "") + "/.cache/gguf-ref";
  return ref + "/node_modules/@node-llama-cpp/linux-x64/bins/linux-x64/libggml-base.so";
}

// This thread's CPU time (on a shared, loaded machine wall time mostly measures the
// scheduler; both sides are single-threaded, so CPU time is their cost).
double thread_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

template <class F>
double median_seconds(F&& f, int reps) {
  std::vector<double> s;
  for (int r = 0; r < reps; ++r) {
    const double t0 = thread_seconds();
    f();
    s.push_back(thread_seconds() - t0);
  }
  std::sort(s.begin(), s.end());
  return s[s.size() / 2];
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  size_t a = 0;
  while (a <= s.size()) {
    const size_t b = std::min(s.find(',', a), s.size());
    if (b > a) out.push_back(s.substr(a, b - a));
    a = b + 1;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string types = "q4_K,q6_K,q8_0,iq4_xs";
  int64_t rows = 64, n_per_row = 4096;
  int reps = 7;
  bool with_imatrix = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--rows" && i + 1 < argc) rows = std::atoll(argv[++i]);
    else if (a == "--n-per-row" && i + 1 < argc) n_per_row = std::atoll(argv[++i]);
    else if (a == "--reps" && i + 1 < argc) reps = std::max(1, std::atoi(argv[++i]));
    else if (a == "--imatrix") with_imatrix = true;
    else types = a;
  }
  if (types == "all") {
    types.clear();
    for (uint32_t id = 0; id < gguf::ggml_type_count; ++id) {
      const auto t = static_cast<gguf::ggml_type>(id);
      if (gguf::is_valid_ggml_type(id) && gguf::can_quantize(t)) types += std::string(gguf::ggml_type_name(t)) + ",";
    }
  }
  void* lib = dlopen(default_lib().c_str(), RTLD_NOW | RTLD_LOCAL);
  auto chunk = lib ? reinterpret_cast<ggml_quantize_chunk_fn>(dlsym(lib, "ggml_quantize_chunk")) : nullptr;
  auto init = lib ? reinterpret_cast<ggml_quantize_init_fn>(dlsym(lib, "ggml_quantize_init")) : nullptr;
  if (!chunk) std::fprintf(stderr, "bench_quantize: %s not loaded: timing ours only\n", default_lib().c_str());

  // Normal-ish rows with a few outliers (deterministic), and positive weights.
  std::vector<float> x(static_cast<size_t>(rows * n_per_row)), w(static_cast<size_t>(n_per_row));
  uint64_t s = 12345;
  auto uni = [&] {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<float>(s >> 40) * 0x1p-24f;
  };
  for (auto& v : x) {
    float g = 0;
    for (int k = 0; k < 4; ++k) g += uni();
    v = (g - 2.0f) * 1.7f * (uni() < 0.002f ? 20.0f : 1.0f);
  }
  for (auto& v : w) v = 0.01f + uni() * uni() * 4.0f;
  const double mb = double(x.size()) * 4 / 1e6;
  std::printf("%-8s %10s %10s %7s  %s   (%lld rows x %lld, imatrix %s, median of %d)\n", "type", "ours MB/s",
              "ggml MB/s", "ratio", "bytes", (long long)rows, (long long)n_per_row, with_imatrix ? "yes" : "no", reps);
  for (const auto& name : split(types)) {
    const auto t = gguf::ggml_type_from_name(name);
    if (!t || !gguf::can_quantize(*t)) {
      std::fprintf(stderr, "bench_quantize: cannot quantize to '%s'\n", name.c_str());
      return 2;
    }
    const float* im = with_imatrix || gguf::quantize_requires_imatrix(*t) ? w.data() : nullptr;
    const uint64_t row_size = gguf::ggml_row_size(*t, n_per_row).value();
    std::vector<uint8_t> ours(row_size * rows), theirs(row_size * rows);
    if (!gguf::quantize_rows(*t, x.data(), ours.data(), rows, n_per_row, im)) return 1;
    double t_theirs = 0;
    bool same = false;
    if (chunk) {
      if (init) init(static_cast<int>(*t));
      chunk(static_cast<int>(*t), x.data(), theirs.data(), 0, rows, n_per_row, im);
      same = ours == theirs;
    }
    std::vector<double> a, b;
    for (int r = 0; r < reps; ++r) {  // alternate, so both see the same machine load
      a.push_back(median_seconds([&] { (void)gguf::quantize_rows(*t, x.data(), ours.data(), rows, n_per_row, im); }, 1));
      if (chunk) b.push_back(median_seconds([&] { chunk(static_cast<int>(*t), x.data(), theirs.data(), 0, rows, n_per_row, im); }, 1));
    }
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    const double t_ours = a[a.size() / 2];
    if (chunk) t_theirs = b[b.size() / 2];
    if (chunk) {
      std::printf("%-8s %10.1f %10.1f %6.2fx  %s\n", name.c_str(), mb / t_ours, mb / t_theirs, t_theirs / t_ours,
                  same ? "identical" : "DIFFER");
    } else {
      std::printf("%-8s %10.1f %10s %7s  -\n", name.c_str(), mb / t_ours, "-", "-");
    }
  }
  return 0;
}
