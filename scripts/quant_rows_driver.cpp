// Records ggml's row quantization for the replay test tests/quant/test_quantize_rows.cpp:
// for every case of tests/quant/quant_row_cases.h, ggml_quantize_chunk's bytes (libggml-base
// of llama.cpp v0.5.0) and ggml's to_float of them, as SHA-256 digests. Built and run by
// scripts/record-quant-rows.sh; not part of the build.
//
//   quant_rows_driver > tests/quant/data/quant_rows.tsv
//
// Output: one line per case, tab-separated:
//   type kind nrows n_per_row imatrix seed sha256(quantized bytes) sha256(to_float floats)
#include <openssl/sha.h>

#include <cstdio>
#include <string>
#include <vector>

#include "../tests/quant/quant_row_cases.h"
#include "ggml.h"

namespace {

std::string hex_sha256(const void* p, size_t n) {
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

ggml_type type_by_name(std::string_view name) {
  for (int t = 0; t < GGML_TYPE_COUNT; ++t) {
    const char* n = ggml_type_name(static_cast<ggml_type>(t));
    if (n && name == n) return static_cast<ggml_type>(t);
  }
  std::fprintf(stderr, "unknown type %.*s\n", int(name.size()), name.data());
  std::exit(2);
}

}  // namespace

int main() {
  std::printf("# ggml_quantize_chunk of libggml-base (llama.cpp v0.5.0); see scripts/record-quant-rows.sh\n");
  for (auto name : quant_cases::quantized_types) {
    const ggml_type type = type_by_name(name);
    const int64_t blck = ggml_blck_size(type);
    for (const auto& c : quant_cases::cases_for(std::string(name), blck, ggml_quantize_requires_imatrix(type))) {
      const auto rows = quant_cases::make_row_data(c.k, c.seed, c.nrows * c.n_per_row);
      const auto im = c.imatrix ? quant_cases::make_imatrix(c.seed, c.n_per_row, c.imatrix) : std::vector<float>{};
      const size_t row_size = ggml_row_size(type, c.n_per_row);
      std::vector<uint8_t> q(row_size * c.nrows);
      const size_t n = ggml_quantize_chunk(type, rows.data(), q.data(), 0, c.nrows, c.n_per_row,
                                           c.imatrix ? im.data() : nullptr);
      if (n != q.size()) return 1;
      std::vector<float> deq(rows.size());
      const auto* tr = ggml_get_type_traits(type);
      if (type == GGML_TYPE_F32) {
        deq = rows;
      } else {
        tr->to_float(q.data(), deq.data(), static_cast<int64_t>(deq.size()));
      }
      std::printf("%s\t%s\t%lld\t%lld\t%d\t%llu\t%s\t%s\n", c.type.c_str(),
                  std::string(quant_cases::kind_names[static_cast<int>(c.k)]).c_str(), (long long)c.nrows,
                  (long long)c.n_per_row, c.imatrix, (unsigned long long)c.seed, hex_sha256(q.data(), q.size()).c_str(),
                  hex_sha256(deq.data(), deq.size() * sizeof(float)).c_str());
    }
  }
  return 0;
}
