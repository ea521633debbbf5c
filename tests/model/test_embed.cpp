// gguf::model::get_token_embeddings (ggml_get_rows over token_embd.weight) equals
// dequantizing the whole tensor and taking the rows, bit for bit; bad ids are errors.
#include <gtest/gtest.h>

#include <cstring>

#include "gguf/model.h"
#include "gguf/quant.h"
#include "test_support.h"

namespace {

uint32_t bits(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  return u;
}

TEST(ModelEmbedData, LibraryLookupMatchesTensorRows) {
  // get_token_embeddings equals dequantizing the whole token_embd and taking the rows.
  GGUF_REQUIRE_DATA();
  auto f = gguf::file::open(gguf::test::data_file("models/stories260K-Q4_0.gguf"));
  ASSERT_TRUE(f.ok());
  auto m = gguf::model::load(*f);
  ASSERT_TRUE(m.ok()) << m.error().message();
  auto te = m->token_embd();
  ASSERT_TRUE(te.ok());
  auto all = gguf::dequantize_tensor(*f, **te);
  ASSERT_TRUE(all.ok());
  const size_t n_embd = m->hparams().n_embd;
  std::vector<int32_t> ids = {0, 1, 511, 7, 7};
  std::vector<float> out(ids.size() * n_embd);
  ASSERT_TRUE(m->get_token_embeddings(ids, out).ok());
  for (size_t i = 0; i < ids.size(); ++i) {
    for (size_t j = 0; j < n_embd; ++j) ASSERT_EQ(bits(out[i * n_embd + j]), bits((*all)[ids[i] * n_embd + j]));
  }
  std::vector<int32_t> bad = {512};
  std::vector<float> one(n_embd);
  auto r = m->get_token_embeddings(bad, one);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, gguf::errc::out_of_range);
  std::vector<float> small(1);
  EXPECT_FALSE(m->get_token_embeddings(ids, small).ok());
}

}  // namespace
