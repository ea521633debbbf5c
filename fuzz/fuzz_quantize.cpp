// Fuzz target: row quantization (quant layer: quantize_rows, then dequantize_row).
//
// Input: byte 0 = ggml type id, byte 1 = flags (bit 0: give an importance matrix, bits 1-2:
// rows - 1, bits 3-4: blocks per row - 1), then bytes read as float32 values (non-finite
// ones replaced, magnitudes capped at 30000, 1e6 for weights), cycled when short; the
// importance weights are their magnitudes.
// Properties: quantize_rows succeeds exactly for the types can_quantize() names (with an
// imatrix where quantize_requires_imatrix()), writes nrows * row size bytes; the same
// input gives the same bytes twice and row by row as all at once; dequantizing the
// result gives finite floats.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "fuzz_check.h"
#include "gguf/quant.h"

namespace {

using gguf::errc;
using gguf::ggml_type;

// The i-th float of the payload, finite and at most `cap` in magnitude.
float value_at(const uint8_t* p, size_t n, size_t i, float cap) {
  if (n < 4) return 0.0f;
  const size_t at = (i * 4) % (n - 3);
  uint32_t bits;
  std::memcpy(&bits, p + at, 4);
  bits ^= static_cast<uint32_t>(i * 4 / (n - 3)) * 0x9E3779B9u;  // each cycle over the payload differs
  float v;
  std::memcpy(&v, &bits, 4);
  if (!std::isfinite(v)) v = static_cast<float>(static_cast<int8_t>(p[at])) * 0.25f;
  if (v > cap) v = cap;
  if (v < -cap) v = -cap;
  return v;
}

}  // namespace

// The grid types' search tables are built once per process (seconds under the sanitizers):
// at start-up, not inside the first input's time limit.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  for (auto t : {ggml_type::iq2_xxs, ggml_type::iq2_xs, ggml_type::iq2_s, ggml_type::iq3_xxs, ggml_type::iq3_s,
                 ggml_type::iq1_s, ggml_type::iq1_m}) {
    gguf::quantize_init(t);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const auto type = static_cast<ggml_type>(data[0] % gguf::ggml_type_count);
  const bool with_imatrix = data[1] & 1;
  const int64_t nrows = 1 + ((data[1] >> 1) & 3);
  const uint8_t* payload = data + 2;
  const size_t psize = size - 2;
  const auto* tr = gguf::ggml_type_traits(type);
  const int64_t blck = tr ? tr->blck_size : 32;
  const int64_t n_per_row = blck * (1 + ((data[1] >> 3) & 3)) * (blck == 1 ? 32 : 1);

  std::vector<float> x(static_cast<size_t>(nrows * n_per_row)), w(static_cast<size_t>(n_per_row));
  for (size_t i = 0; i < x.size(); ++i) x[i] = value_at(payload, psize, i, 30000.0f);
  for (size_t i = 0; i < w.size(); ++i) w[i] = std::fabs(value_at(payload, psize, i + 7, 1e6f));
  const float* im = with_imatrix ? w.data() : nullptr;

  const uint64_t row_size = tr ? gguf::ggml_row_size(type, n_per_row).value() : 0;
  std::vector<uint8_t> q(row_size * nrows + 1, 0xA5);
  auto r = gguf::quantize_rows(type, x.data(), q.data(), nrows, n_per_row, im);
  const bool expect = tr && gguf::can_quantize(type) && (im || !gguf::quantize_requires_imatrix(type));
  FUZZ_CHECK(r.ok() == expect);
  if (!r) {
    FUZZ_CHECK(r.error().code == (tr ? (gguf::can_quantize(type) ? errc::invalid_argument : errc::unsupported)
                                     : errc::invalid_ggml_type));
    return 0;
  }
  FUZZ_CHECK(*r == row_size * nrows);
  FUZZ_CHECK(q.back() == 0xA5);  // nothing written past the end
  q.pop_back();

  // Deterministic, and rows are independent.
  std::vector<uint8_t> again(q.size());
  FUZZ_CHECK(gguf::quantize_rows(type, x.data(), again.data(), nrows, n_per_row, im).ok());
  FUZZ_CHECK(again == q);
  std::vector<uint8_t> one(row_size);
  for (int64_t row = 0; row < nrows; ++row) {
    FUZZ_CHECK(gguf::quantize_rows(type, x.data() + row * n_per_row, one.data(), 1, n_per_row, im).ok());
    FUZZ_CHECK(std::memcmp(one.data(), q.data() + row * row_size, row_size) == 0);
  }

  // The round trip through our dequantizer is finite.
  std::vector<float> back(x.size());
  FUZZ_CHECK(gguf::dequantize_row(type, std::as_bytes(std::span(q)), back).ok());
  for (float v : back) FUZZ_CHECK(std::isfinite(v));

  // A row that is not a whole number of blocks is refused.
  if (blck > 1) {
    auto rp = gguf::quantize_rows(type, x.data(), q.data(), 1, blck - 1, im);
    FUZZ_CHECK(!rp.ok() && rp.error().code == errc::partial_block);
  }
  return 0;
}
