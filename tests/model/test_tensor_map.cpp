// Tensor map: expected names and shapes against a handcrafted file's tensors.
#include <gtest/gtest.h>

#include <set>

#include "gguf/model.h"
#include "tensor_map_support.h"

namespace {

using namespace gguf::test;

// A one-block llama's keys: n_embd 8, n_head 2, n_head_kv 1, n_ff 16, 3 tokens.
gguf_builder llama_hparam_keys(uint32_t n_expert = 0) {
  gguf_builder b = arch_keys("llama", {.n_head_kv = 1, .rms_eps = 1e-6f});
  if (n_expert) b.u32("llama.expert_count", n_expert).u32("llama.expert_used_count", 2);
  return b;
}

// The same with the tensors of every llama but the FFN's.
gguf_builder llama_keys(uint32_t n_expert = 0) {
  gguf_builder b = llama_hparam_keys(n_expert);
  b.tensor("token_embd.weight", {8, 3}).tensor("output_norm.weight", {8}).tensor("output.weight", {8, 3});
  b.tensor("blk.0.attn_norm.weight", {8})
      .tensor("blk.0.attn_q.weight", {8, 8})
      .tensor("blk.0.attn_k.weight", {8, 4})
      .tensor("blk.0.attn_v.weight", {8, 4})
      .tensor("blk.0.attn_output.weight", {8, 8})
      .tensor("blk.0.ffn_norm.weight", {8});
  return b;
}

TEST(ModelTensorMap, DenseLlamaMatchesWithGqaShapes) {
  auto b = llama_keys();
  b.tensor("blk.0.ffn_gate.weight", {8, 16}).tensor("blk.0.ffn_down.weight", {16, 8}).tensor("blk.0.ffn_up.weight", {8, 16});
  auto m = load(b);
  EXPECT_TRUE(m.diagnostics().empty()) << m.diagnostics()[0].tensor << ": " << m.diagnostics()[0].message;
  bool saw_k = false;
  for (const auto& t : m.tensors()) {
    if (t.name == "blk.0.attn_k.weight") {
      saw_k = true;
      EXPECT_EQ(t.ne[0], 8u);
      EXPECT_EQ(t.ne[1], 4u);  // n_embd_head_k * n_head_kv
      ASSERT_NE(t.info, nullptr);
      EXPECT_EQ(t.layer, 0);
    }
    if (t.name == "output.weight") {
      EXPECT_FALSE(t.required);  // tied to token_embd when absent
    }
  }
  EXPECT_TRUE(saw_k);
}

TEST(ModelTensorMap, MissingWrongShapeAndUnknownTensors) {
  auto b = llama_keys();
  b.tensor("blk.0.ffn_gate.weight", {8, 16})
      .tensor("blk.0.ffn_down.weight", {8, 16})  // transposed
      .tensor("blk.0.ffn_extra.weight", {8});    // not a llama tensor
  auto m = load(b);  // ffn_up missing
  const auto* missing = find_diag(m, "blk.0.ffn_up.weight");
  ASSERT_NE(missing, nullptr);
  EXPECT_EQ(missing->severity, gguf::severity::error);
  EXPECT_NE(missing->message.find("missing"), std::string::npos);
  const auto* shape = find_diag(m, "blk.0.ffn_down.weight");
  ASSERT_NE(shape, nullptr);
  EXPECT_EQ(shape->severity, gguf::severity::error);
  EXPECT_NE(shape->message.find("expected [16, 8], got [8, 16]"), std::string::npos) << shape->message;
  EXPECT_NE(shape->offset, gguf::no_offset);
  const auto* unknown = find_diag(m, "blk.0.ffn_extra.weight");
  ASSERT_NE(unknown, nullptr);
  EXPECT_EQ(unknown->severity, gguf::severity::error);  // llama.cpp: wrong number of tensors
  EXPECT_EQ(m.diagnostics().size(), 3u);
  EXPECT_FALSE(m.check().ok());
}

TEST(ModelTensorMap, MixtureOfExpertsUsesExpertTensors) {
  auto b = llama_keys(4);
  b.tensor("blk.0.ffn_gate_inp.weight", {8, 4})
      .tensor("blk.0.ffn_gate_exps.weight", {8, 16, 4})
      .tensor("blk.0.ffn_down_exps.weight", {16, 8, 4})
      .tensor("blk.0.ffn_up_exps.weight", {8, 16, 3});  // 3 experts, not 4
  auto m = load(b);
  ASSERT_EQ(m.diagnostics().size(), 1u) << m.diagnostics()[0].tensor;
  EXPECT_EQ(m.diagnostics()[0].tensor, "blk.0.ffn_up_exps.weight");
  EXPECT_NE(m.diagnostics()[0].message.find("expected [8, 16, 4]"), std::string::npos);
}

TEST(ModelTensorMap, TokenEmbdShapeIsChecked) {
  auto b = llama_keys();
  b.without("tokenizer.ggml.tokens").arr_str("tokenizer.ggml.tokens", {"a", "b"});  // 2 tokens, tensor has 3 rows
  auto f = gguf::file::from_buffer(b.build());
  auto m = gguf::model::load(*f);
  ASSERT_TRUE(m.ok());
  auto te = m->token_embd();
  ASSERT_FALSE(te.ok());
  EXPECT_EQ(te.error().code, gguf::errc::invalid_model);
  EXPECT_EQ(te.error().subject, "token_embd.weight");
}

TEST(ModelTensorMap, FusedQkvReplacesSeparateProjections) {
  // llama.cpp create_tensor_qkv: blk.N.attn_qkv [n_embd, q + k + v] instead of attn_q/k/v.
  gguf_builder b = llama_hparam_keys();
  b.tensor("token_embd.weight", {8, 3})
      .tensor("output_norm.weight", {8})
      .tensor("blk.0.attn_norm.weight", {8})
      .tensor("blk.0.attn_qkv.weight", {8, 16})  // 8 + 4 + 4
      .tensor("blk.0.attn_output.weight", {8, 8})
      .tensor("blk.0.ffn_norm.weight", {8})
      .tensor("blk.0.ffn_gate.weight", {8, 16})
      .tensor("blk.0.ffn_down.weight", {16, 8})
      .tensor("blk.0.ffn_up.weight", {8, 16});
  auto m = load(b);
  EXPECT_TRUE(m.diagnostics().empty()) << m.diagnostics()[0].tensor << ": " << m.diagnostics()[0].message;
}

TEST(ModelTensorMap, Gpt2ShapesFromLlamaCppLoader) {
  // Shapes of llama.cpp src/models/gpt2.cpp load_arch_tensors for n_embd 8, n_ff 32, ctx 16.
  auto make = [](bool with_pos) {
    gguf_builder b = arch_keys("gpt2", {.n_ctx = 16, .n_ff = 32, .ln_eps = 1e-5f});
    b.tensor("token_embd.weight", {8, 3});
    if (with_pos) b.tensor("position_embd.weight", {8, 16});
    add(b, with_biases({{"output_norm", {8}},
                        {"blk.0.attn_norm", {8}},
                        {"blk.0.attn_qkv", {8, 24}},
                        {"blk.0.attn_output", {8, 8}},
                        {"blk.0.ffn_norm", {8}},
                        {"blk.0.ffn_down", {32, 8}},
                        {"blk.0.ffn_up", {8, 32}}}));
    return b;
  };
  auto ok = load(make(true));
  EXPECT_TRUE(ok.diagnostics().empty()) << ok.diagnostics()[0].tensor << ": " << ok.diagnostics()[0].message;
  auto missing = load(make(false));
  ASSERT_EQ(missing.diagnostics().size(), 1u);
  EXPECT_EQ(missing.diagnostics()[0].tensor, "position_embd.weight");
  EXPECT_EQ(missing.diagnostics()[0].severity, gguf::severity::error);
}

TEST(ModelTensorMap, NomicBertMoeAlternatesExpertLayers) {
  // bert.cpp: layer il is MoE when il % moe_every_n_layers == 1.
  gguf_builder b = arch_keys("nomic-bert-moe", {.n_ctx = 16, .n_layer = 2, .ln_eps = 1e-5f});
  b.boolean("nomic-bert-moe.attention.causal", false)
      .u32("nomic-bert-moe.pooling_type", 1)
      .u32("nomic-bert-moe.moe_every_n_layers", 2)
      .u32("nomic-bert-moe.expert_count", 4)
      .u32("nomic-bert-moe.expert_used_count", 2);
  auto m = load(b.tensor("token_embd.weight", {8, 3}).tensor("blk.1.attn_output_norm.weight", {8}));
  std::set<std::string> names;
  for (const auto& t : m.tensors()) names.insert(t.name);
  EXPECT_TRUE(names.count("blk.0.ffn_up.weight"));
  EXPECT_FALSE(names.count("blk.0.ffn_up_exps.weight"));
  EXPECT_TRUE(names.count("blk.1.ffn_up_exps.weight"));
  EXPECT_FALSE(names.count("blk.1.ffn_up.weight"));
  EXPECT_FALSE(m.check().ok());  // the block tensors are missing
}

}  // namespace
