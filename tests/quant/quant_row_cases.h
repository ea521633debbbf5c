// The row-quantization cases shared by the recording driver (scripts/quant_rows_driver.cpp,
// linked against ggml) and the replay test (test_quantize_rows.cpp): a case is its
// parameters; its rows and importance weights are regenerated from them, bit for bit, by
// integer arithmetic and exact float operations only (no libm), so a recording made on one
// machine replays on any other. Header-only and free of gguf and ggml includes; the
// digests are OpenSSL's SHA-256.
#pragma once

#include <openssl/sha.h>

#include <cstdio>
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "../support/splitmix.h"

namespace quant_cases {

/// What the values of a row look like.
enum class kind : int {
  normal,    ///< approximately N(0, 1)
  heavy,     ///< a normal over a uniform: heavy tails (ratio distribution), a few outliers
  zero,      ///< all 0
  constant,  ///< all the same value (0.75)
  huge,      ///< normal * 4096 (scales near the top of binary16)
  tiny,      ///< normal * 2^-17 (scales in binary16's subnormals)
  skewed,    ///< mostly positive: 0.5 + |normal| with a few negatives
  sparse,    ///< normal with runs of 16 zeros (a third of the aligned runs): all-zero sub-blocks
  outlier,   ///< normal with one value in 64 multiplied by 100
};
inline constexpr int kind_count = 9;
inline constexpr std::string_view kind_names[kind_count] = {"normal", "heavy",  "zero",   "constant", "huge",
                                                            "tiny",   "skewed", "sparse", "outlier"};

/// splitmix64: a small, well-mixed deterministic generator.
struct rng {
  uint64_t s;
  uint64_t next() { return gguf::test::splitmix64_next(s); }
  /// Uniform in [0, 1) with 24 bits (exact in float).
  float uniform() { return static_cast<float>(next() >> 40) * 0x1p-24f; }
  /// Irwin-Hall: the sum of 12 uniforms minus 6, approximately N(0, 1).
  float normal() {
    float s = 0;
    for (int i = 0; i < 12; ++i) s += uniform();
    return s - 6.0f;
  }
};

/// n floats of kind k from seed.
inline std::vector<float> make_row_data(kind k, uint64_t seed, int64_t n) {
  rng r{seed};
  std::vector<float> v(static_cast<size_t>(n));
  for (auto& x : v) {
    switch (k) {
      case kind::normal: x = r.normal(); break;
      case kind::heavy: x = r.normal() / (r.uniform() + 0.02f); break;
      case kind::zero: x = 0.0f; break;
      case kind::constant: x = 0.75f; break;
      case kind::huge: x = r.normal() * 4096.0f; break;
      case kind::tiny: x = r.normal() * 0x1p-17f; break;
      case kind::sparse:
      case kind::outlier: x = r.normal(); break;
      case kind::skewed: {
        const float g = r.normal();
        x = r.uniform() < 0.1f ? -0.25f * (g < 0 ? -g : g) : 0.5f + (g < 0 ? -g : g);
        break;
      }
    }
  }
  if (k == kind::sparse) {
    for (int64_t i = 0; i + 16 <= n; i += 16) {
      if (r.uniform() < 0.33f) std::fill(v.begin() + i, v.begin() + i + 16, 0.0f);
    }
  }
  if (k == kind::outlier) {
    for (int64_t i = 0; i < n; i += 64) v[static_cast<size_t>(i + static_cast<int64_t>(r.next() % 64) % (n - i))] *= 100.0f;
  }
  return v;
}

/// n importance weights (as llama-imatrix writes them: mean squared activations, > 0), or a
/// mix with zeros when `with_zeros`.
/// mix with zeros (`mode` 2: one in 8; 3: whole runs of 8, a quarter of them).
inline std::vector<float> make_imatrix(uint64_t seed, int64_t n, int mode) {
  rng r{seed ^ 0xA5A5A5A5DEADBEEFull};
  std::vector<float> w(static_cast<size_t>(n));
  for (auto& x : w) {
    const float g = r.normal();
    x = 0.05f + g * g;
    if (mode == 2 && r.uniform() < 0.125f) x = 0.0f;
  }
  if (mode == 3) {
    for (int64_t i = 0; i + 8 <= n; i += 8) {
      if (r.uniform() < 0.25f) std::fill(w.begin() + i, w.begin() + i + 8, 0.0f);
    }
  }
  return w;
}

/// One recorded case. imatrix: 0 none, 1 positive weights, 2 and 3 weights with zeros.
struct row_case {
  std::string type;  ///< ggml type name
  kind k;
  int64_t nrows;
  int64_t n_per_row;
  int imatrix;
  uint64_t seed;
};

/// The cases of a type of block size `blck`. `needs_imatrix`: only cases with weights.
inline std::vector<row_case> cases_for(const std::string& type, int64_t blck, bool needs_imatrix) {
  std::vector<int64_t> lengths;
  for (int64_t n : {blck, 3 * blck, int64_t{256}, int64_t{512}, int64_t{1024} + blck}) {
    bool seen = false;
    for (auto m : lengths) seen |= m == n;
    if (n % blck == 0 && !seen) lengths.push_back(n);
  }
  std::vector<row_case> out;
  uint64_t seed = 1;
  for (auto c : type) seed = seed * 131 + static_cast<unsigned char>(c);
  for (int k = 0; k < kind_count; ++k) {
    for (size_t li = 0; li < lengths.size(); ++li) {
      // all lengths for normal and heavy rows; the other kinds on two lengths
      if (k >= 2 && li != 0 && li != lengths.size() - 1) continue;
      for (int im = needs_imatrix ? 1 : 0; im <= 3; ++im) {
        if (im >= 2 && k != static_cast<int>(kind::normal) && k != static_cast<int>(kind::heavy)) continue;
        const int64_t nrows = 1 + static_cast<int64_t>((li + k) % 3);
        out.push_back({type, static_cast<kind>(k), nrows, lengths[li], im, seed++ * 0x100000001B3ull});
      }
    }
  }
  return out;
}

/// Lowercase hex SHA-256 of n bytes (the recorded digests).
inline std::string hex_sha256(const void* p, size_t n) {
  unsigned char md[SHA256_DIGEST_LENGTH];
  SHA256(static_cast<const unsigned char*>(p), n, md);
  std::string s;
  char b[3];
  for (unsigned char c : md) {
    std::snprintf(b, sizeof b, "%02x", c);
    s += b;
  }
  return s;
}

/// The types recorded: every type ggml_quantize_chunk handles (ggml v0.5.0).
inline constexpr std::string_view quantized_types[] = {
    "f32",   "f16",   "bf16",  "q1_0",   "q2_0",    "q4_0",   "q4_1",    "q5_0",  "q5_1",   "q8_0",
    "mxfp4", "nvfp4", "q2_K",  "q3_K",   "q4_K",    "q5_K",   "q6_K",    "tq1_0", "tq2_0",  "iq2_xxs",
    "iq2_xs", "iq2_s", "iq3_xxs", "iq3_s", "iq1_s", "iq1_m", "iq4_nl", "iq4_xs"};

}  // namespace quant_cases
