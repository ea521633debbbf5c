// get_rows on real models against ggml's own token embeddings
// (models/embeddings/NAME.jsonl: "ids" and the "embeddings" rows ggml looked up), and
// big-endian files against their little-endian originals.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gguf/file.h"
#include "gguf/quant.h"
#include "gguf/writer.h"
#include "test_support.h"

namespace {

namespace fs = std::filesystem;

gguf::file open_or_throw(const fs::path& p) {
  auto f = gguf::file::open(p);
  if (!f) throw std::runtime_error(p.string() + ": " + f.error().message());
  return std::move(f).value();
}

std::vector<std::string> embedding_models() {
  std::vector<std::string> names;
  auto dir = gguf::test::data_file("models/embeddings");
  if (dir.empty() || !fs::is_directory(dir)) return {"(no test data)"};
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".jsonl") names.push_back(e.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

class Embeddings : public ::testing::TestWithParam<std::string> {};

TEST_P(Embeddings, GetRowsEqualsGgml) {
  GGUF_REQUIRE_DATA();
  const auto name = GetParam();
  auto f = open_or_throw(gguf::test::data_file("models/" + name + ".gguf"));
  auto t = f.get_tensor("token_embd.weight");
  ASSERT_TRUE(t) << t.error().message();
  const auto& tok = **t;
  ASSERT_TRUE(gguf::can_dequantize(tok.type)) << ggml_type_name(tok.type);
  const size_t n_embd = tok.ne[0];

  std::ifstream in(gguf::test::data_file("models/embeddings/" + name + ".jsonl"));
  ASSERT_TRUE(in);
  std::string line;
  size_t lines = 0, rows_checked = 0;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    ++lines;
    auto j = nlohmann::json::parse(line);
    auto ids = j.at("ids").get<std::vector<int32_t>>();
    const auto& want = j.at("embeddings");
    ASSERT_EQ(want.size(), ids.size());
    std::vector<float> out(ids.size() * n_embd);
    auto r = gguf::get_rows(f, tok, ids, out);
    ASSERT_TRUE(r) << r.error().message();
    for (size_t i = 0; i < ids.size(); ++i) {
      ASSERT_EQ(want[i].size(), n_embd);
      for (size_t k = 0; k < n_embd; ++k) {
        const float w = static_cast<float>(want[i][k].get<double>());
        ASSERT_EQ(std::bit_cast<uint32_t>(out[i * n_embd + k]), std::bit_cast<uint32_t>(w))
            << name << " line " << lines << " token " << ids[i] << " element " << k << ": got "
            << out[i * n_embd + k] << ", ggml " << w;
      }
      ++rows_checked;
    }
  }
  EXPECT_GT(lines, 0u);
  EXPECT_GT(rows_checked, 0u);
}

INSTANTIATE_TEST_SUITE_P(Models, Embeddings, ::testing::ValuesIn(embedding_models()), [](const auto& info) { return gguf::test::test_name(info.param); });

TEST(GetRows, RowsEqualTheWholeTensorsRows) {
  GGUF_REQUIRE_DATA();
  auto f = open_or_throw(gguf::test::data_file("models/synth-llama-256-Q4_K_M.gguf"));
  const auto& t = **f.get_tensor("token_embd.weight");
  auto all = gguf::dequantize_tensor(f, t);
  ASSERT_TRUE(all) << all.error().message();
  const size_t ne0 = t.ne[0];
  const std::vector<int32_t> ids = {31999, 0, 7, 7, 12345};
  std::vector<float> out(ids.size() * ne0);
  ASSERT_TRUE(gguf::get_rows(f, t, ids, out));
  for (size_t i = 0; i < ids.size(); ++i) {
    for (size_t k = 0; k < ne0; ++k) {
      ASSERT_EQ(std::bit_cast<uint32_t>(out[i * ne0 + k]), std::bit_cast<uint32_t>((*all)[ids[i] * ne0 + k]));
    }
  }
}

TEST(GetRows, IdsOutOfRangeNameTheTensor) {
  GGUF_REQUIRE_DATA();
  auto f = open_or_throw(gguf::test::data_file("models/stories260K-Q8_0.gguf"));
  const auto& t = **f.get_tensor("token_embd.weight");  // [64, 512]
  std::vector<float> out(2 * 64);
  for (int32_t bad : {-1, 512, INT32_MAX, INT32_MIN}) {
    const std::vector<int32_t> ids = {3, bad};
    auto r = gguf::get_rows(f, t, ids, out);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().code, gguf::errc::out_of_range);
    EXPECT_EQ(r.error().subject, "token_embd.weight");
    EXPECT_TRUE(r.error().subject_is_tensor);
    EXPECT_NE(r.error().detail.find(std::to_string(bad)), std::string::npos) << r.error().detail;
  }
  const std::vector<int32_t> ok = {0, 511};
  EXPECT_TRUE(gguf::get_rows(f, t, ok, out));
}

TEST(GetRows, OutputSizeMustMatch) {
  GGUF_REQUIRE_DATA();
  auto f = open_or_throw(gguf::test::data_file("models/stories260K.gguf"));
  const auto& t = **f.get_tensor("token_embd.weight");
  const std::vector<int32_t> ids = {1, 2};
  std::vector<float> out(127);
  auto r = gguf::get_rows(f, t, ids, out);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, gguf::errc::invalid_argument);
  std::vector<float> none;
  EXPECT_TRUE(gguf::get_rows(f, t, {}, none));
}

TEST(DequantizeTensor, OutputSizeMustMatch) {
  GGUF_REQUIRE_DATA();
  auto f = open_or_throw(gguf::test::data_file("models/stories260K.gguf"));
  const auto& t = **f.get_tensor("token_embd.weight");
  std::vector<float> out(t.nelements() + 1);
  auto r = gguf::dequantize_tensor(f, t, out);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, gguf::errc::invalid_argument);
  EXPECT_EQ(r.error().subject, "token_embd.weight");
}

// compat/*-be.gguf were byte-swapped by gguf-py's endian converter from the models/ files:
// every tensor must dequantize to the same floats.
void expect_same_floats(const std::string& be_path, const std::string& le_path) {
  auto be = open_or_throw(gguf::test::data_file(be_path));
  auto le = open_or_throw(gguf::test::data_file(le_path));
  ASSERT_EQ(be.byte_order(), gguf::byte_order::big);
  ASSERT_EQ(le.byte_order(), gguf::byte_order::little);
  ASSERT_EQ(be.tensor_count(), le.tensor_count());
  size_t compared = 0;
  for (const auto& tb : be.tensors()) {
    const auto* tl = le.find_tensor(tb.name);
    ASSERT_NE(tl, nullptr) << tb.name;
    ASSERT_EQ(tb.type, tl->type) << tb.name;
    ASSERT_EQ(tb.ne, tl->ne) << tb.name;
    auto a = gguf::dequantize_tensor(be, tb);
    ASSERT_TRUE(a) << a.error().message();
    auto b = gguf::dequantize_tensor(le, *tl);
    ASSERT_TRUE(b) << b.error().message();
    for (size_t i = 0; i < a->size(); ++i) {
      ASSERT_EQ(std::bit_cast<uint32_t>((*a)[i]), std::bit_cast<uint32_t>((*b)[i])) << tb.name << " element " << i;
    }
    // Rows through get_rows too, for 2-D tensors.
    if (tb.n_dims == 2) {
      const std::vector<int32_t> ids = {static_cast<int32_t>(tb.ne[1] - 1), 0};
      std::vector<float> ra(2 * tb.ne[0]), rb(2 * tb.ne[0]);
      ASSERT_TRUE(gguf::get_rows(be, tb, ids, ra));
      ASSERT_TRUE(gguf::get_rows(le, *tl, ids, rb));
      EXPECT_EQ(std::memcmp(ra.data(), rb.data(), ra.size() * sizeof(float)), 0) << tb.name;
    }
    ++compared;
  }
  EXPECT_EQ(compared, le.tensor_count());
}

TEST(BigEndian, F32ModelMatchesLittleEndian) {
  GGUF_REQUIRE_DATA();
  expect_same_floats("compat/stories260K-be.gguf", "models/stories260K.gguf");
}

TEST(BigEndian, Q8_0ModelMatchesLittleEndian) {
  GGUF_REQUIRE_DATA();
  expect_same_floats("compat/stories260K-Q8_0-be.gguf", "models/stories260K-Q8_0.gguf");
}

// Swap-while-reading of the block types, on data we byte-swap ourselves the way the
// converter does (only the f16 fields), from the fixture's real blocks.
TEST(BigEndian, SwappedBlocksOfEachConvertibleType) {
  GGUF_REQUIRE_DATA();
  auto f = open_or_throw(gguf::test::data_file("quant/quant-fixture.gguf"));
  struct case_t {
    const char* type;
    std::vector<size_t> u16_offsets;  // f16 fields per block (gguf_convert_endian.py)
  };
  const std::vector<case_t> cases = {{"q4_0", {0}}, {"q8_0", {0}}, {"q4_K", {0, 2}}, {"q6_K", {208}},
                                     {"mxfp4", {}}, {"f16", {0}},  {"bf16", {0}}};
  for (const auto& c : cases) {
    const auto* q = f.find_tensor(std::string("q.") + c.type);
    ASSERT_NE(q, nullptr) << c.type;
    const auto* tr = gguf::ggml_type_traits(q->type);
    std::vector<std::byte> swapped(q->data.begin(), q->data.end());
    for (size_t b = 0; b < swapped.size(); b += tr->type_size) {
      for (size_t off : c.u16_offsets) std::swap(swapped[b + off], swapped[b + off + 1]);
    }
    std::vector<float> got(q->nelements()), want(q->nelements());
    auto r = gguf::dequantize_row(q->type, swapped, got, gguf::byte_order::big);
    ASSERT_TRUE(r) << c.type << ": " << r.error().message();
    ASSERT_TRUE(gguf::dequantize_row(q->type, q->data, want));
    EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0) << c.type;
  }
}

}  // namespace

// ggml_get_rows on a 3-D tensor (e.g. experts [ne0, ne1, n_expert]): ids come as ggml's
// [n, ne2] ids tensor, n per matrix, each a row of its own matrix.
TEST(GetRows, ThreeDimensionalTensorIdsPerMatrix) {
  GGUF_REQUIRE_DATA();
  // Real q8_0 blocks (from a real model) laid out as [32, 3, 2]: 6 rows of one block each.
  auto src = open_or_throw(gguf::test::data_file("models/stories260K-Q8_0.gguf"));
  const auto& emb = **src.get_tensor("token_embd.weight");  // [64, 512] q8_0: 2 blocks a row
  ASSERT_EQ(emb.type, gguf::ggml_type::q8_0);
  const size_t block = 34;  // q8_0: f16 scale + 32 int8
  std::vector<std::byte> data(emb.data.begin(), emb.data.begin() + 6 * block);
  gguf::writer w;
  const std::vector<uint64_t> ne = {32, 3, 2};
  ASSERT_TRUE(w.add_tensor("blk.0.ffn_down_exps.weight", gguf::ggml_type::q8_0, ne, data));
  auto f = gguf::file::from_buffer(w.to_bytes());
  ASSERT_TRUE(f) << f.error().message();
  const auto& t = **f->get_tensor("blk.0.ffn_down_exps.weight");
  auto all = gguf::dequantize_tensor(*f, t);
  ASSERT_TRUE(all) << all.error().message();

  const std::vector<int32_t> ids = {2, 0, 2, 1, 1, 0};  // matrix 0: 2 0 2; matrix 1: 1 1 0
  std::vector<float> out(ids.size() * 32);
  ASSERT_TRUE(gguf::get_rows(*f, t, ids, out));
  for (size_t i = 0; i < ids.size(); ++i) {
    const size_t row = (i / 3) * 3 + ids[i];
    for (size_t k = 0; k < 32; ++k) {
      ASSERT_EQ(std::bit_cast<uint32_t>(out[i * 32 + k]), std::bit_cast<uint32_t>((*all)[row * 32 + k])) << i;
    }
  }
  // Rows of matrix 1 differ from matrix 0's (the blocks are different real blocks).
  EXPECT_NE(std::memcmp(out.data(), out.data() + 3 * 32, 32 * sizeof(float)), 0);

  // The ids must split evenly over the 2 matrices; ids index rows within a matrix (0..2).
  const std::vector<int32_t> odd = {0, 1, 2};
  std::vector<float> out3(3 * 32);
  auto r = gguf::get_rows(*f, t, odd, out3);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, gguf::errc::invalid_argument);
  const std::vector<int32_t> beyond = {0, 3};
  std::vector<float> out2(2 * 32);
  r = gguf::get_rows(*f, t, beyond, out2);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, gguf::errc::out_of_range);
}
