// Row quantization against ggml itself: tests/quant/data/quant_rows.tsv holds, for every
// case of quant_row_cases.h, the SHA-256 of ggml_quantize_chunk's bytes and of ggml's
// to_float of them (recorded by scripts/record-quant-rows.sh from llama.cpp v0.5.0's
// libggml-base). We regenerate each case's rows, quantize them, and require the same
// bytes; then dequantize our bytes and require ggml's floats.
#include <gtest/gtest.h>
#include <openssl/sha.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "gguf/quant.h"
#include "quant/quantize_simd.h"
#include "quant_row_cases.h"
#include "test_support.h"

namespace {

using gguf::ggml_type;

struct recorded {
  quant_cases::row_case c;
  std::string sha_q, sha_deq;
};

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

const std::map<std::string, std::vector<recorded>>& recording() {
  static const auto all = [] {
    std::map<std::string, std::vector<recorded>> m;
    std::ifstream in(gguf::test::source_dir() / "tests/quant/data/quant_rows.tsv");
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      std::istringstream ls(line);
      recorded r;
      std::string kind;
      ls >> r.c.type >> kind >> r.c.nrows >> r.c.n_per_row >> r.c.imatrix >> r.c.seed >> r.sha_q >> r.sha_deq;
      for (int k = 0; k < quant_cases::kind_count; ++k)
        if (quant_cases::kind_names[k] == kind) r.c.k = static_cast<quant_cases::kind>(k);
      m[r.c.type].push_back(r);
    }
    return m;
  }();
  return all;
}

// The replay, with the AVX2 parts of the quantizers (where the CPU has them) or without.
void replay(const std::string& name, bool simd);

class QuantizeRows : public ::testing::TestWithParam<std::string_view> {};

TEST_P(QuantizeRows, ByteIdenticalToGgml) { replay(std::string(GetParam()), true); }

// The scalar reference path alone: the same bytes (so SIMD and scalar agree on every case).
TEST_P(QuantizeRows, ScalarPathByteIdenticalToGgml) { replay(std::string(GetParam()), false); }

// Scalar and SIMD paths on many more rows than the recording (no ggml needed): the same
// bytes for every type, with and without weights.
TEST_P(QuantizeRows, SimdEqualsScalar) {
  if (!gguf::detail::use_simd_quantizers()) GTEST_SKIP() << "no AVX2 on this CPU";
  const std::string name(GetParam());
  const auto type = gguf::ggml_type_from_name(name);
  ASSERT_TRUE(type && gguf::can_quantize(*type));
  const int64_t n_per_row = 512;
  const uint64_t row_size = gguf::ggml_row_size(*type, n_per_row).value();
  size_t diff = 0, total = 0;
  for (int k = 0; k < quant_cases::kind_count; ++k) {
    for (uint64_t seed = 1; seed <= 6; ++seed) {
      const auto x = quant_cases::make_row_data(static_cast<quant_cases::kind>(k), seed * 7919 + k, 8 * n_per_row);
      for (int im = gguf::quantize_requires_imatrix(*type) ? 1 : 0; im <= 3; ++im) {
        const auto w = quant_cases::make_imatrix(seed + 101 * k, n_per_row, im);
        std::vector<uint8_t> a(8 * row_size), b(8 * row_size);
        gguf::detail::set_simd_quantizers(false);
        auto ra = gguf::quantize_rows(*type, x.data(), a.data(), 8, n_per_row, im ? w.data() : nullptr);
        gguf::detail::set_simd_quantizers(true);
        auto rb = gguf::quantize_rows(*type, x.data(), b.data(), 8, n_per_row, im ? w.data() : nullptr);
        ASSERT_TRUE(ra && rb);
        ++total;
        if (a != b) ++diff;
      }
    }
  }
  EXPECT_EQ(diff, 0u) << diff << " of " << total << " inputs quantize differently with SIMD";
}

void replay(const std::string& name, bool simd) {
  struct simd_mode {
    explicit simd_mode(bool on) { gguf::detail::set_simd_quantizers(on); }
    ~simd_mode() { gguf::detail::set_simd_quantizers(true); }
  } mode(simd);
  const auto type = gguf::ggml_type_from_name(name);
  ASSERT_TRUE(type) << name;
  if (!gguf::can_quantize(*type)) GTEST_SKIP() << name << ": quantization not implemented";
  auto it = recording().find(name);
  ASSERT_NE(it, recording().end()) << "no recorded cases for " << name;
  // The recording covers exactly the cases the generator defines now.
  const auto* tr = gguf::ggml_type_traits(*type);
  EXPECT_EQ(it->second.size(), quant_cases::cases_for(name, tr->blck_size, gguf::quantize_requires_imatrix(*type)).size());
  size_t same = 0, deq_same = 0;
  for (const auto& r : it->second) {
    const auto& c = r.c;
    const auto rows = quant_cases::make_row_data(c.k, c.seed, c.nrows * c.n_per_row);
    const auto im = c.imatrix ? quant_cases::make_imatrix(c.seed, c.n_per_row, c.imatrix) : std::vector<float>{};
    const uint64_t row_size = gguf::ggml_row_size(*type, c.n_per_row).value();
    std::vector<uint8_t> q(row_size * c.nrows);
    auto n = gguf::quantize_rows(*type, rows.data(), q.data(), c.nrows, c.n_per_row, c.imatrix ? im.data() : nullptr);
    ASSERT_TRUE(n) << n.error().message();
    EXPECT_EQ(*n, q.size());
    const std::string label = name + " " + std::string(quant_cases::kind_names[int(c.k)]) + " " +
                              std::to_string(c.nrows) + "x" + std::to_string(c.n_per_row) + " imatrix " +
                              std::to_string(c.imatrix);
    if (hex_sha256(q.data(), q.size()) == r.sha_q) {
      ++same;
    } else {
      ADD_FAILURE() << label << ": bytes differ from ggml's";
    }
    std::vector<float> deq(rows.size());
    ASSERT_TRUE(gguf::dequantize_row(*type, std::as_bytes(std::span(q)), deq));
    if (hex_sha256(deq.data(), deq.size() * sizeof(float)) == r.sha_deq) {
      ++deq_same;
    } else {
      ADD_FAILURE() << label << ": dequantized floats differ from ggml's to_float";
    }
  }
  std::printf("[ quant ] %-8s %-6s %zu of %zu cases byte-identical, %zu dequantize identically\n", name.c_str(),
              simd ? "simd" : "scalar", same, it->second.size(), deq_same);
}

INSTANTIATE_TEST_SUITE_P(AllTypes, QuantizeRows, ::testing::ValuesIn(quant_cases::quantized_types),
                         [](const auto& info) { return std::string(info.param); });

TEST(QuantizeRowsErrors, RefusesWhatGgmlRefuses) {
  std::vector<float> x(256, 1.0f);
  std::vector<uint8_t> out(4096);
  auto r = gguf::quantize_rows(ggml_type::q8_1, x.data(), out.data(), 1, 256, nullptr);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, gguf::errc::unsupported);
  r = gguf::quantize_rows(ggml_type::q4_0, x.data(), out.data(), 1, 48, nullptr);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, gguf::errc::partial_block);
  r = gguf::quantize_rows(static_cast<ggml_type>(4), x.data(), out.data(), 1, 32, nullptr);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, gguf::errc::invalid_ggml_type);
  r = gguf::quantize_rows(ggml_type::q4_0, x.data(), out.data(), -1, 32, nullptr);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, gguf::errc::invalid_argument);
  for (auto t : {ggml_type::iq2_xxs, ggml_type::iq2_xs, ggml_type::iq1_s}) {
    EXPECT_TRUE(gguf::quantize_requires_imatrix(t));
    r = gguf::quantize_rows(t, x.data(), out.data(), 1, 256, nullptr);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, gguf::errc::invalid_argument);
    EXPECT_NE(r.error().message().find("importance matrix"), std::string::npos);
  }
  EXPECT_FALSE(gguf::quantize_requires_imatrix(ggml_type::iq1_m));
  EXPECT_FALSE(gguf::can_quantize(ggml_type::q8_K));
  EXPECT_FALSE(gguf::can_quantize(ggml_type::i32));
  r = gguf::quantize_rows(ggml_type::q4_0, x.data(), out.data(), 0, 32, nullptr);
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, 0u);
}

}  // namespace
