// The timing both sides of bench/dequant_vs_ggml.py use (bench_dequant_vs.cpp, ours, and
// reference/ggml_dequant_bench.cpp, ggml's), so that the two figures are measured alike:
// the median of `reps` calls of f, as GB/s of `out_bytes` written. C++17 (the reference
// driver is built with -std=c++17).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <vector>

template <class F>
inline double median_gbps(F&& f, size_t out_bytes, int reps) {
  std::vector<double> s;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    const auto t1 = std::chrono::steady_clock::now();
    s.push_back(std::chrono::duration<double>(t1 - t0).count());
  }
  std::sort(s.begin(), s.end());
  return double(out_bytes) / s[s.size() / 2] / 1e9;
}
