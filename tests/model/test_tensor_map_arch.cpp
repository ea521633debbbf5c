// Tensor tables of phi3, qwen2moe, deepseek2, t5, gemma4 and gptj: handcrafted files with the tensors
// llama.cpp's loader creates (shapes worked out by hand from src/models/<arch>.cpp
// load_arch_tensors for the small hparams below) load without diagnostics; a missing
// required tensor, a wrong shape and an unknown tensor are reported. The recurrent
// architectures (mamba2, rwkv6, rwkv7) are in test_tensor_map_recurrent.cpp.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "gguf/model.h"
#include "model_errors.h"
#include "tensor_map_support.h"

namespace {

using namespace gguf::test;

// ---- phi3 --------------------------------------------------------------------------------
// n_embd 8, n_head 2, n_head_kv 1 (head 4, n_embd_gqa 4), n_ff 16, n_rot 4.

gguf_builder phi3_keys() {
  return arch_keys("phi3", {.n_head_kv = 1, .rms_eps = 1e-5f});
}

shapes phi3_tensors() {
  return {{"token_embd.weight", {8, 3}},         {"output_norm.weight", {8}},
          {"rope_factors_long.weight", {2}},     {"rope_factors_short.weight", {2}},
          {"blk.0.attn_norm.weight", {8}},       {"blk.0.attn_qkv.weight", {8, 16}},  // 8 + 2 * 4
          {"blk.0.attn_output.weight", {8, 8}},  {"blk.0.ffn_norm.weight", {8}},
          {"blk.0.ffn_down.weight", {16, 8}},    {"blk.0.ffn_up.weight", {8, 32}}};  // gate + up
}

TEST(ModelTensorMapArch, Phi3FusedQkvAndGateUp) {
  auto m = load_clean(phi3_keys(), phi3_tensors());
  EXPECT_TRUE(m.check().ok());
  EXPECT_FALSE(has_tensor(m, "blk.0.attn_q.weight"));  // fused file: no split projections
}

TEST(ModelTensorMapArch, Phi3SplitQkvIsOptional) {
  // create_tensor_qkv(..., TENSOR_NOT_REQUIRED): without attn_qkv, attn_q/k/v are looked
  // up but not required; present ones are shape-checked.
  auto t = phi3_tensors();
  t.erase("blk.0.attn_qkv.weight");
  t["blk.0.attn_q.weight"] = {8, 8};
  t["blk.0.attn_k.weight"] = {8, 4};
  t["blk.0.attn_v.weight"] = {8, 8};  // wrong: n_embd_gqa is 4
  expect_errors(load(phi3_keys(), t), {{"blk.0.attn_v.weight", "expected [8, 4], got [8, 8]"}});
}

TEST(ModelTensorMapArch, Phi3MissingWrongShapeUnknown) {
  auto t = phi3_tensors();
  t.erase("blk.0.ffn_down.weight");
  t["blk.0.ffn_up.weight"] = {8, 16};  // a plain up projection, not gate + up
  t["blk.0.ffn_gate.weight"] = {8, 16};  // phi3 has no ffn_gate
  expect_errors(load(phi3_keys(), t), {{"blk.0.ffn_down.weight", "missing required tensor, expected shape [16, 8]"},
                                       {"blk.0.ffn_up.weight", "expected [8, 32], got [8, 16]"},
                                       {"blk.0.ffn_gate.weight", "wrong number of tensors"}});
}

// ---- qwen2moe ----------------------------------------------------------------------------
// n_embd 8, n_head 2 (n_head_kv 2), n_ff 16, 4 experts, 2 used: n_ff_exp = 16 / 2 = 8,
// n_ff_shexp = n_ff = 16 when the expert lengths are absent.

gguf_builder qwen2moe_keys() {
  return arch_keys("qwen2moe", {.rms_eps = 1e-6f}).u32("qwen2moe.expert_count", 4).u32("qwen2moe.expert_used_count", 2);
}

shapes qwen2moe_tensors() {
  return {{"token_embd.weight", {8, 3}},
          {"output_norm.weight", {8}},
          {"output.weight", {8, 3}},
          {"blk.0.attn_norm.weight", {8}},
          {"blk.0.attn_q.weight", {8, 8}},
          {"blk.0.attn_k.weight", {8, 8}},
          {"blk.0.attn_v.weight", {8, 8}},
          {"blk.0.attn_q.bias", {8}},
          {"blk.0.attn_k.bias", {8}},
          {"blk.0.attn_v.bias", {8}},
          {"blk.0.attn_output.weight", {8, 8}},
          {"blk.0.ffn_norm.weight", {8}},
          {"blk.0.ffn_gate_inp.weight", {8, 4}},
          {"blk.0.ffn_gate_exps.weight", {8, 8, 4}},
          {"blk.0.ffn_down_exps.weight", {8, 8, 4}},
          {"blk.0.ffn_up_exps.weight", {8, 8, 4}},
          {"blk.0.ffn_gate_inp_shexp.weight", {8}},
          {"blk.0.ffn_gate_shexp.weight", {8, 16}},
          {"blk.0.ffn_down_shexp.weight", {16, 8}},
          {"blk.0.ffn_up_shexp.weight", {8, 16}}};
}

TEST(ModelTensorMapArch, Qwen2moeExpertSizesDefaultFromNff) {
  auto m = load_clean(qwen2moe_keys(), qwen2moe_tensors());
}

// llama.cpp's generic pass: optional ".scale" / ".input_scale" companions of the loaded
// projections ([1], [n_expert] for routed experts) are accepted in a complete table; a
// companion of a projection the file lacks, or of the wrong size, is not.
TEST(ModelTensorMapArch, ScaleCompanionsOfLoadedProjections) {
  auto t = qwen2moe_tensors();
  t["blk.0.attn_q.scale"] = {1};
  t["blk.0.attn_q.input_scale"] = {1};
  t["blk.0.ffn_down_exps.scale"] = {4};
  t["blk.0.ffn_up_shexp.input_scale"] = {1};
  {
    auto b = qwen2moe_keys();
    auto m = load_clean(b, t);
    EXPECT_TRUE(has_tensor(m, "blk.0.ffn_gate_exps.input_scale"));  // offered, optional
    EXPECT_FALSE(has_tensor(m, "blk.0.attn_qkv.scale"));            // attn_qkv is not loaded
  }
  t["blk.0.ffn_gate_exps.scale"] = {1};  // per expert: [4]
  t["blk.0.attn_qkv.scale"] = {1};       // the file has split q/k/v
  t["output.scale"] = {1};               // output.weight is f32, not nvfp4
  expect_errors(load(qwen2moe_keys(), t), {{"blk.0.ffn_gate_exps.scale", "expected [4], got [1]"},
                                           {"blk.0.attn_qkv.scale", "wrong number of tensors"},
                                           {"output.scale", "wrong number of tensors"}});
}

TEST(ModelTensorMapArch, Qwen2moeExpertLengthKeysAndMissingOutput) {
  auto t = qwen2moe_tensors();
  t.erase("output.weight");  // required for qwen2moe (not tied)
  auto b = qwen2moe_keys();
  b.u32("qwen2moe.expert_feed_forward_length", 8).u32("qwen2moe.expert_shared_feed_forward_length", 12);
  add(b, t);
  // The shared expert is now 12 wide: the three 16-wide shexp tensors are wrong.
  expect_errors(load(b), {{"output.weight", "missing required tensor"},
                          {"blk.0.ffn_gate_shexp.weight", "expected [8, 12], got [8, 16]"},
                          {"blk.0.ffn_down_shexp.weight", "expected [12, 8], got [16, 8]"},
                          {"blk.0.ffn_up_shexp.weight", "expected [8, 12], got [8, 16]"}});
}

// ---- deepseek2 ---------------------------------------------------------------------------
// n_embd 8, n_head 2, 2 blocks, the first dense; q_lora_rank 4, kv_lora_rank 6,
// key_length_mla 6, value_length_mla 4, n_rot 2 (so qk_nope 4), 4 experts of 3, 2 shared.

gguf_builder deepseek2_keys() {
  gguf_builder b = arch_keys("deepseek2", {.n_layer = 2, .rms_eps = 1e-6f});
  b.u32("deepseek2.rope.dimension_count", 2)
      .u32("deepseek2.leading_dense_block_count", 1)
      .u32("deepseek2.attention.q_lora_rank", 4)
      .u32("deepseek2.attention.kv_lora_rank", 6)
      .u32("deepseek2.attention.key_length_mla", 6)
      .u32("deepseek2.attention.value_length_mla", 4)
      .u32("deepseek2.expert_count", 4)
      .u32("deepseek2.expert_used_count", 2)
      .u32("deepseek2.expert_feed_forward_length", 3)
      .u32("deepseek2.expert_shared_count", 2)
      .f32("deepseek2.expert_weights_scale", 1.0f);
  return b;
}

shapes deepseek2_tensors() {
  shapes t = {{"token_embd.weight", {8, 3}}, {"output_norm.weight", {8}}};
  for (std::string p : {"blk.0.", "blk.1."}) {
    t[p + "attn_norm.weight"] = {8};
    t[p + "attn_q_a_norm.weight"] = {4};
    t[p + "attn_kv_a_norm.weight"] = {6};
    t[p + "attn_q_a.weight"] = {8, 4};
    t[p + "attn_q_b.weight"] = {4, 12};        // n_head * key_length_mla
    t[p + "attn_kv_a_mqa.weight"] = {8, 8};    // kv_lora_rank + n_rot
    t[p + "attn_k_b.weight"] = {4, 6, 2};      // qk_nope, kv_lora_rank, n_head
    t[p + "attn_v_b.weight"] = {6, 4, 2};      // kv_lora_rank, value_length_mla, n_head
    t[p + "attn_output.weight"] = {8, 8};      // n_head * value_length_mla
    t[p + "ffn_norm.weight"] = {8};
  }
  t["blk.0.ffn_gate.weight"] = {8, 16};
  t["blk.0.ffn_down.weight"] = {16, 8};
  t["blk.0.ffn_up.weight"] = {8, 16};
  t["blk.1.ffn_gate_inp.weight"] = {8, 4};
  t["blk.1.exp_probs_b.bias"] = {4};
  t["blk.1.ffn_down_exps.weight"] = {3, 8, 4};
  t["blk.1.ffn_gate_exps.weight"] = {8, 3, 4};
  t["blk.1.ffn_up_exps.weight"] = {8, 3, 4};
  t["blk.1.ffn_gate_shexp.weight"] = {8, 6};  // n_ff_exp * n_expert_shared
  t["blk.1.ffn_down_shexp.weight"] = {6, 8};
  t["blk.1.ffn_up_shexp.weight"] = {8, 6};
  return t;
}

TEST(ModelTensorMapArch, Deepseek2LatentAttentionLeadingDenseAndExperts) {
  auto m = load_clean(deepseek2_keys(), deepseek2_tensors());
  EXPECT_TRUE(has_tensor(m, "blk.0.ffn_gate.weight"));
  EXPECT_FALSE(has_tensor(m, "blk.0.ffn_gate_inp.weight"));
  EXPECT_TRUE(has_tensor(m, "blk.1.ffn_gate_inp.weight"));
  EXPECT_FALSE(has_tensor(m, "blk.1.ffn_gate.weight"));
}

TEST(ModelTensorMapArch, Deepseek2FusedGateUpExperts) {
  auto t = deepseek2_tensors();
  t.erase("blk.1.ffn_gate_exps.weight");
  t.erase("blk.1.ffn_up_exps.weight");
  t["blk.1.ffn_gate_up_exps.weight"] = {8, 6, 4};
  auto b = deepseek2_keys();
  auto m = load_clean(b, t);
  EXPECT_FALSE(has_tensor(m, "blk.1.ffn_up_exps.weight"));
}

TEST(ModelTensorMapArch, Deepseek2WithoutQLoraAndLegacyKvB) {
  // q_lora_rank 0: one attn_q [n_embd, n_head * head_k]; no *_mla lengths: the legacy
  // attn_kv_b [kv_lora_rank, n_head * (qk_nope + head_v)] with head_k = head_v = 8 / 2.
  auto t = deepseek2_tensors();
  for (std::string p : {"blk.0.", "blk.1."}) {
    for (auto n : {"attn_q_a_norm.weight", "attn_q_a.weight", "attn_q_b.weight", "attn_k_b.weight", "attn_v_b.weight"})
      t.erase(p + n);
    t[p + "attn_q.weight"] = {8, 8};
    t[p + "attn_kv_b.weight"] = {6, 12};  // 2 * ((4 - 2) + 4)
  }
  auto b = deepseek2_keys();
  b.without("deepseek2.attention.q_lora_rank").u32("deepseek2.attention.q_lora_rank", 0);
  b.without("deepseek2.attention.key_length_mla").without("deepseek2.attention.value_length_mla");
  load_clean(b, t);
}

TEST(ModelTensorMapArch, Deepseek2MissingAndWrongShape) {
  auto t = deepseek2_tensors();
  t.erase("blk.1.attn_kv_a_mqa.weight");
  t["blk.0.attn_k_b.weight"] = {6, 4, 2};   // transposed
  t["blk.1.ffn_up_shexp.weight"] = {8, 3};  // one shared expert's width, not two
  expect_errors(load(deepseek2_keys(), t),
                {{"blk.1.attn_kv_a_mqa.weight", "missing required tensor, expected shape [8, 8]"},
                 {"blk.0.attn_k_b.weight", "expected [4, 6, 2], got [6, 4, 2]"},
                 {"blk.1.ffn_up_shexp.weight", "expected [8, 6], got [8, 3]"}});
}

// ---- t5 ----------------------------------------------------------------------------------
// n_embd 8, n_head 2, n_ff 16, 1 encoder block, 2 decoder blocks, 32 relative buckets.

gguf_builder t5_keys() {
  return arch_keys("t5", {.n_ctx = 512, .rms_eps = 1e-6f})
      .u32("t5.decoder_block_count", 2)
      .u32("t5.attention.relative_buckets_count", 32);
}

shapes t5_tensors() {
  shapes t = {{"token_embd.weight", {8, 3}},           {"enc.output_norm.weight", {8}},
              {"dec.output_norm.weight", {8}},         {"enc.blk.0.attn_norm.weight", {8}},
              {"enc.blk.0.attn_rel_b.weight", {2, 32}}, {"enc.blk.0.attn_q.weight", {8, 8}},
              {"enc.blk.0.attn_k.weight", {8, 8}},     {"enc.blk.0.attn_v.weight", {8, 8}},
              {"enc.blk.0.attn_o.weight", {8, 8}},     {"enc.blk.0.ffn_norm.weight", {8}},
              {"enc.blk.0.ffn_gate.weight", {8, 16}},  {"enc.blk.0.ffn_down.weight", {16, 8}},
              {"enc.blk.0.ffn_up.weight", {8, 16}}};
  for (std::string p : {"dec.blk.0.", "dec.blk.1."}) {
    for (auto n : {"attn_norm.weight", "cross_attn_norm.weight", "ffn_norm.weight"}) t[p + n] = {8};
    for (auto n : {"attn_q.weight", "attn_k.weight", "attn_v.weight", "attn_o.weight", "cross_attn_q.weight",
                   "cross_attn_k.weight", "cross_attn_v.weight", "cross_attn_o.weight"})
      t[p + n] = {8, 8};
    t[p + "ffn_gate.weight"] = {8, 16};
    t[p + "ffn_down.weight"] = {16, 8};
    t[p + "ffn_up.weight"] = {8, 16};
  }
  t["dec.blk.0.attn_rel_b.weight"] = {2, 32};  // only layer 0 has it, as in converted files
  return t;
}

TEST(ModelTensorMapArch, T5EncoderAndDecoderStacks) {
  auto m = load_clean(t5_keys(), t5_tensors());
  EXPECT_EQ(m.hparams().dec_n_layer, 2u);
  EXPECT_TRUE(has_tensor(m, "dec.blk.1.cross_attn_q.weight"));
  EXPECT_FALSE(has_tensor(m, "enc.blk.1.attn_q.weight"));  // one encoder block
  EXPECT_FALSE(has_tensor(m, "blk.0.attn_q.weight"));
}

TEST(ModelTensorMapArch, T5MissingWrongShapeUnknown) {
  auto t = t5_tensors();
  t.erase("dec.blk.1.cross_attn_q.weight");
  t["enc.blk.0.attn_rel_b.weight"] = {32, 2};
  t["blk.0.attn_q.weight"] = {8, 8};  // decoder-only naming: not a t5 tensor
  expect_errors(load(t5_keys(), t),
                {{"dec.blk.1.cross_attn_q.weight", "missing required tensor, expected shape [8, 8]"},
                 {"enc.blk.0.attn_rel_b.weight", "expected [2, 32], got [32, 2]"},
                 {"blk.0.attn_q.weight", "wrong number of tensors"}});
}

TEST(ModelTensorMapArch, T5DecoderBlockCountDefaultsAndBound) {
  // Without decoder_block_count the decoder has block_count blocks (llama.cpp default).
  auto t = t5_tensors();
  std::erase_if(t, [](const auto& kv) { return kv.first.starts_with("dec.blk.1."); });
  auto b = t5_keys();
  b.without("t5.decoder_block_count");
  add(b, t);
  auto m = load(b);
  EXPECT_EQ(m.hparams().dec_n_layer, 1u);
  EXPECT_TRUE(m.diagnostics().empty()) << diag_text(m);

  auto big = t5_keys();
  big.without("t5.decoder_block_count").u32("t5.decoder_block_count", 100000);
  add(big, t5_tensors());
  expect_key_error(big, "t5.decoder_block_count");
}

// ---- gemma4 ------------------------------------------------------------------------------
// 4 layers, sliding window on layers 0 and 2 ([true, false, true, false]), the last layer
// shares K/V (shared_kv_layers 1). n_embd 8, n_head 2, n_head_kv 1; full layers: head 8
// (q 16, k 8), rope_freqs 4; sliding layers: head 4 (q 8, k 4). n_ff 16; 2 experts of 4 on
// layers 1 (gate/up split) and 3 (fused); per-layer inputs of 2 (2 * 4 layers = 8).

gguf_builder gemma4_keys() {
  gguf_builder b = arch_keys("gemma4", {.n_layer = 4, .n_head_kv = 1, .rms_eps = 1e-6f});
  b.u32("gemma4.attention.key_length", 8)
      .u32("gemma4.attention.value_length", 8)
      .u32("gemma4.attention.key_length_swa", 4)
      .u32("gemma4.attention.value_length_swa", 4)
      .u32("gemma4.rope.dimension_count", 8)
      .u32("gemma4.rope.dimension_count_swa", 4)
      .f32("gemma4.rope.freq_base", 1e6f)
      .f32("gemma4.rope.freq_base_swa", 1e4f)
      .u32("gemma4.attention.sliding_window", 32)
      .arr_bool("gemma4.attention.sliding_window_pattern", {true, false, true, false})
      .u32("gemma4.attention.shared_kv_layers", 1)
      .u32("gemma4.embedding_length_per_layer_input", 2)
      .u32("gemma4.expert_count", 2)
      .u32("gemma4.expert_used_count", 1)
      .u32("gemma4.expert_feed_forward_length", 4);
  return b;
}

shapes gemma4_tensors() {
  shapes t = {{"token_embd.weight", {8, 3}},           {"output_norm.weight", {8}},
              {"per_layer_token_embd.weight", {8, 3}}, {"per_layer_model_proj.weight", {8, 8}},
              {"per_layer_proj_norm.weight", {2}},     {"rope_freqs.weight", {4}}};
  for (int il = 0; il < 4; ++il) {
    const bool swa = il % 2 == 0;
    const uint64_t head = swa ? 4 : 8;
    const std::string p = "blk." + std::to_string(il) + ".";
    t[p + "attn_norm.weight"] = {8};
    t[p + "attn_q.weight"] = {8, 2 * head};
    if (il < 3) {  // layer 3 reuses layer 2's K/V
      t[p + "attn_k.weight"] = {8, head};
      t[p + "attn_k_norm.weight"] = {head};
    }
    t[p + "attn_output.weight"] = {2 * head, 8};
    t[p + "attn_q_norm.weight"] = {head};
    t[p + "post_attention_norm.weight"] = {8};
    t[p + "layer_output_scale.weight"] = {1};
    t[p + "ffn_norm.weight"] = {8};
    t[p + "ffn_gate.weight"] = {8, 16};
    t[p + "ffn_up.weight"] = {8, 16};
    t[p + "ffn_down.weight"] = {16, 8};
    t[p + "post_ffw_norm.weight"] = {8};
    t[p + "inp_gate.weight"] = {8, 2};
    t[p + "proj.weight"] = {2, 8};
    t[p + "post_norm.weight"] = {8};
  }
  for (int il : {1, 3}) {
    const std::string p = "blk." + std::to_string(il) + ".";
    t[p + "ffn_gate_inp.weight"] = {8, 2};
    t[p + "ffn_gate_inp.scale"] = {8};
    t[p + "pre_ffw_norm_2.weight"] = {8};
    t[p + "post_ffw_norm_1.weight"] = {8};
    t[p + "post_ffw_norm_2.weight"] = {8};
    t[p + "ffn_down_exps.weight"] = {4, 8, 2};
  }
  t["blk.1.ffn_gate_exps.weight"] = {8, 4, 2};
  t["blk.1.ffn_up_exps.weight"] = {8, 4, 2};
  t["blk.3.ffn_gate_up_exps.weight"] = {8, 8, 2};
  return t;
}

TEST(ModelTensorMapArch, Gemma4SlidingWindowSharedKvAndExperts) {
  auto m = load_clean(gemma4_keys(), gemma4_tensors());
  const auto& hp = m.hparams();
  EXPECT_TRUE(hp.is_swa(0));
  EXPECT_FALSE(hp.is_swa(1));
  EXPECT_EQ(hp.n_layer_kv_from_start, 3);
  EXPECT_TRUE(hp.has_kv(2));
  EXPECT_FALSE(hp.has_kv(3));
  EXPECT_EQ(hp.n_embd_head_k(0), 4u);
  EXPECT_EQ(hp.n_embd_head_k(1), 8u);
  EXPECT_EQ(hp.n_rot(0), 4u);
  EXPECT_EQ(hp.n_rot(1), 8u);
  EXPECT_EQ(hp.n_embd_k_gqa(0), 4u);
  EXPECT_EQ(hp.n_embd_k_gqa(1), 8u);
  EXPECT_EQ(hp.rope_freq_base_train, 1e6f);
  EXPECT_EQ(hp.rope_freq_base_train_swa, 1e4f);
  EXPECT_EQ(hp.n_embd_per_layer, 2u);
  // Experts only where the file has a router; no routed experts on dense layers.
  EXPECT_FALSE(has_tensor(m, "blk.0.ffn_down_exps.weight"));
  EXPECT_TRUE(has_tensor(m, "blk.1.ffn_gate_exps.weight"));
  EXPECT_FALSE(has_tensor(m, "blk.3.ffn_gate_exps.weight"));  // fused gate_up there
}

TEST(ModelTensorMapArch, Gemma4LayerShapesFollowThePattern) {
  auto t = gemma4_tensors();
  t["blk.0.attn_q.weight"] = {8, 16};  // a full-attention size on a sliding layer
  t.erase("blk.1.attn_k.weight");      // layer 1 has its own K/V: required
  t.erase("rope_freqs.weight");        // full-attention layers exist: required
  t.erase("blk.1.pre_ffw_norm_2.weight");  // expert layer
  t["blk.2.ffn_gate_exps.weight"] = {8, 4, 2};  // layer 2 has no router
  auto b = gemma4_keys();
  add(b, t);
  auto m = load(b);
  EXPECT_EQ(m.diagnostics().size(), 5u) << diag_text(m);
  auto expect = [&](const std::string& tensor, const std::string& text, gguf::severity sev) {
    const auto* d = find_diag(m, tensor);
    ASSERT_NE(d, nullptr) << tensor << "\n" << diag_text(m);
    EXPECT_EQ(d->severity, sev) << tensor;
    EXPECT_NE(d->message.find(text), std::string::npos) << tensor << ": " << d->message;
  };
  expect("blk.0.attn_q.weight", "expected [8, 8], got [8, 16]", gguf::severity::error);
  expect("blk.1.attn_k.weight", "missing required tensor, expected shape [8, 8]", gguf::severity::error);
  expect("rope_freqs.weight", "missing required tensor, expected shape [4]", gguf::severity::error);
  expect("blk.1.pre_ffw_norm_2.weight", "missing required tensor", gguf::severity::error);
  // gemma4's table is not complete (newer loaders add MTP tensors): a warning.
  expect("blk.2.ffn_gate_exps.weight", "not used by architecture 'gemma4'", gguf::severity::warning);
}

TEST(ModelTensorMapArch, Gemma4AllSlidingNeedsNoRopeFreqs) {
  auto b = gemma4_keys();
  b.without("gemma4.attention.sliding_window_pattern").boolean("gemma4.attention.sliding_window_pattern", true);
  auto t = gemma4_tensors();
  t.erase("rope_freqs.weight");
  for (int il : {1, 3}) {  // now sliding layers: head 4
    const std::string p = "blk." + std::to_string(il) + ".";
    t[p + "attn_q.weight"] = {8, 8};
    t[p + "attn_output.weight"] = {8, 8};
    t[p + "attn_q_norm.weight"] = {4};
  }
  t["blk.1.attn_k.weight"] = {8, 4};
  t["blk.1.attn_k_norm.weight"] = {4};
  auto m = load_clean(b, t);
  EXPECT_FALSE(has_tensor(m, "rope_freqs.weight"));
  EXPECT_EQ(m.hparams().swa_layers, (std::vector<uint8_t>{1, 1, 1, 1}));
}

TEST(ModelTensorMapArch, Gemma4KeyErrors) {
  auto check = [](gguf_builder b, const std::string& key, const std::string& text) {
    add(b, gemma4_tensors());
    auto f = gguf::file::from_buffer(b.build());
    ASSERT_TRUE(f.ok()) << f.error().message();
    auto m = gguf::model::load(*f);
    ASSERT_FALSE(m.ok()) << key;
    EXPECT_EQ(m.error().code, gguf::errc::invalid_model);
    EXPECT_EQ(m.error().subject, key);
    EXPECT_NE(m.error().message().find(text), std::string::npos) << m.error().message();
  };
  check(gemma4_keys().without("gemma4.attention.sliding_window_pattern"), "gemma4.attention.sliding_window_pattern",
        "missing required key");
  check(gemma4_keys().without("gemma4.attention.sliding_window_pattern")
            .arr_bool("gemma4.attention.sliding_window_pattern", {true, false}),
        "gemma4.attention.sliding_window_pattern", "wrong array length; expected 4 (block_count), got 2");
  check(gemma4_keys().without("gemma4.attention.sliding_window_pattern")
            .str("gemma4.attention.sliding_window_pattern", "yes"),
        "gemma4.attention.sliding_window_pattern", "expected bool or an integer");
  check(gemma4_keys().without("gemma4.attention.shared_kv_layers").u32("gemma4.attention.shared_kv_layers", 5),
        "gemma4.attention.shared_kv_layers", "shared_kv_layers 5 above block_count 4");
  check(gemma4_keys().without("gemma4.embedding_length_per_layer_input"), "gemma4.embedding_length_per_layer_input",
        "missing required key");
  check(gemma4_keys().without("gemma4.attention.key_length_swa"), "gemma4.attention.key_length_swa",
        "missing required key");
}

// ---- gptj (names from gguf-py, shapes from GPT-J; no llama.cpp loader) -------------------
// n_embd 8, n_head 2, n_ff 32.

TEST(ModelTensorMapArch, GptjBlock) {
  gguf_builder b = arch_keys("gptj", {.n_ff = 32, .ln_eps = 1e-5f});
  b.u32("gptj.rope.dimension_count", 2);
  shapes t = {{"token_embd.weight", {8, 3}},        {"output_norm.weight", {8}},
              {"output_norm.bias", {8}},            {"output.weight", {8, 3}},
              {"output.bias", {3}},                 {"blk.0.attn_norm.weight", {8}},
              {"blk.0.attn_norm.bias", {8}},        {"blk.0.attn_q.weight", {8, 8}},
              {"blk.0.attn_k.weight", {8, 8}},      {"blk.0.attn_v.weight", {8, 8}},
              {"blk.0.attn_output.weight", {8, 8}}, {"blk.0.ffn_up.weight", {8, 32}},
              {"blk.0.ffn_up.bias", {32}},          {"blk.0.ffn_down.weight", {32, 8}},
              {"blk.0.ffn_down.bias", {8}}};
  {
    gguf_builder ok = b;
    auto m = load_clean(ok, t);
    EXPECT_TRUE(m.arch().has_tensor_table);
  }
  t.erase("output.weight");            // GPT-J's LM head is not tied
  t["blk.0.ffn_up.bias"] = {16};       // n_ff is 32
  t["blk.0.ffn_norm.weight"] = {8};    // parallel block: no ffn_norm
  add(b, t);
  auto m = load(b);
  EXPECT_EQ(m.diagnostics().size(), 3u) << diag_text(m);
  ASSERT_NE(find_diag(m, "output.weight"), nullptr);
  EXPECT_EQ(find_diag(m, "output.weight")->severity, gguf::severity::error);
  ASSERT_NE(find_diag(m, "blk.0.ffn_up.bias"), nullptr);
  EXPECT_NE(find_diag(m, "blk.0.ffn_up.bias")->message.find("expected [32], got [16]"), std::string::npos);
  ASSERT_NE(find_diag(m, "blk.0.ffn_norm.weight"), nullptr);
  EXPECT_EQ(find_diag(m, "blk.0.ffn_norm.weight")->severity, gguf::severity::warning);
}

}  // namespace
