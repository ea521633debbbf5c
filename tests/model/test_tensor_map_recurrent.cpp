// Tensor tables of the recurrent architectures (mamba2's state space, rwkv6, rwkv7):
// handcrafted files with the tensors llama.cpp's loader creates (shapes worked out by hand
// from src/models/<arch>.cpp load_arch_tensors for the small hparams below) load without
// diagnostics; a missing required tensor, a wrong shape and an unknown tensor are reported.
// The attention architectures are in test_tensor_map_arch.cpp.
#include <gtest/gtest.h>

#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "gguf/model.h"
#include "tensor_map_support.h"

namespace {

using namespace gguf::test;

// ---- mamba2 ------------------------------------------------------------------------------
// n_embd 8, d_inner 16, d_state 4, d_conv 4, dt_rank (heads) 2, 2 groups:
// conv_dim = 16 + 2*2*4 = 32, in_proj = 16 + 32 + 2 = 50, ssm_norm [16 / 2, 2].

gguf_builder mamba2_keys() {
  return arch_keys("mamba2", {.n_ctx = 1024, .n_ff = std::nullopt, .n_head = std::nullopt, .rms_eps = 1e-5f})
      .u32("mamba2.ssm.conv_kernel", 4)
      .u32("mamba2.ssm.inner_size", 16)
      .u32("mamba2.ssm.state_size", 4)
      .u32("mamba2.ssm.time_step_rank", 2)
      .u32("mamba2.ssm.group_count", 2);
}

shapes mamba2_tensors() {
  return {{"token_embd.weight", {8, 3}},          {"output_norm.weight", {8}},
          {"blk.0.attn_norm.weight", {8}},        {"blk.0.ssm_in.weight", {8, 50}},
          {"blk.0.ssm_conv1d.weight", {4, 32}},   {"blk.0.ssm_conv1d.bias", {32}},
          {"blk.0.ssm_dt.bias", {2}},             {"blk.0.ssm_a", {1, 2}},
          {"blk.0.ssm_d", {1, 2}},                {"blk.0.ssm_norm.weight", {8, 2}},
          {"blk.0.ssm_out.weight", {16, 8}}};
}

TEST(ModelTensorMapArch, Mamba2MissingWrongShapeUnknown) {
  auto t = mamba2_tensors();
  t.erase("blk.0.ssm_dt.bias");
  t["blk.0.ssm_in.weight"] = {8, 32};   // mamba1's 2 * d_inner
  t["blk.0.ssm_x.weight"] = {16, 10};   // mamba1 only
  expect_errors(load(mamba2_keys(), t), {{"blk.0.ssm_dt.bias", "missing required tensor, expected shape [2]"},
                                         {"blk.0.ssm_in.weight", "expected [8, 50], got [8, 32]"},
                                         {"blk.0.ssm_x.weight", "wrong number of tensors"}});
}

// ---- rwkv6 -------------------------------------------------------------------------------
// n_embd 8, n_ff 16, head size 4 (2 heads), time_mix_extra_dim 2, time_decay_extra_dim 3.

gguf_builder rwkv6_keys() {
  return arch_keys("rwkv6", {.n_ctx = 1024, .n_head = 0, .ln_eps = 1e-5f})
      .u32("rwkv6.wkv.head_size", 4)
      .u32("rwkv6.time_mix_extra_dim", 2)
      .u32("rwkv6.time_decay_extra_dim", 3);
}

// rwkv6/7's tensors outside the blocks: token_embd with its LayerNorm, output_norm, an
// untied output.
shapes rwkv_outer() {
  shapes t = with_biases({{"token_embd_norm", {8}}, {"output_norm", {8}}});
  t["token_embd.weight"] = {8, 3};
  t["output.weight"] = {8, 3};
  return t;
}

shapes rwkv6_tensors() {
  shapes t = rwkv_outer();
  const std::string p = "blk.0.";
  for (auto n : {"attn_norm.weight", "attn_norm.bias", "attn_norm_2.weight", "attn_norm_2.bias",
                 "time_mix_lerp_x.weight", "time_mix_decay.weight", "time_mix_ln.weight", "time_mix_ln.bias",
                 "channel_mix_lerp_k.weight", "channel_mix_lerp_r.weight"})
    t[p + n] = {8};
  t[p + "time_mix_lerp_fused.weight"] = {8, 1, 1, 5};
  t[p + "time_mix_w1.weight"] = {8, 10};
  t[p + "time_mix_w2.weight"] = {2, 8, 5};
  t[p + "time_mix_first.weight"] = {4, 2};
  t[p + "time_mix_decay_w1.weight"] = {8, 3};
  t[p + "time_mix_decay_w2.weight"] = {3, 8};
  for (auto n : {"time_mix_key.weight", "time_mix_value.weight", "time_mix_receptance.weight", "time_mix_gate.weight",
                 "time_mix_output.weight", "channel_mix_receptance.weight"})
    t[p + n] = {8, 8};
  t[p + "channel_mix_key.weight"] = {8, 16};
  t[p + "channel_mix_value.weight"] = {16, 8};
  return t;
}

TEST(ModelTensorMapArch, Rwkv6SeparateLerpsNeedLerpW) {
  auto t = rwkv6_tensors();
  t.erase("blk.0.time_mix_lerp_fused.weight");
  for (auto n : {"k", "v", "r", "g"}) t[std::string("blk.0.time_mix_lerp_") + n + ".weight"] = {8, 1, 1};
  // Neither lerp_fused nor lerp_w: llama.cpp asserts; we report lerp_w missing.
  expect_errors(load(rwkv6_keys(), t),
                {{"blk.0.time_mix_lerp_w.weight", "missing required tensor, expected shape [8]"}});
  t["blk.0.time_mix_lerp_w.weight"] = {8, 1, 1};
  load_clean(rwkv6_keys(), t);
}

TEST(ModelTensorMapArch, Rwkv6WrongShapesAndMissing) {
  auto t = rwkv6_tensors();
  t.erase("output.weight");  // rwkv6's output is not tied
  t["blk.0.time_mix_w2.weight"] = {2, 8, 4};     // four interpolations, not five
  t["blk.0.time_mix_first.weight"] = {2, 4};     // [head_size, n_embd / head_size]
  expect_errors(load(rwkv6_keys(), t), {{"output.weight", "missing required tensor"},
                                        {"blk.0.time_mix_w2.weight", "expected [2, 8, 5], got [2, 8, 4]"},
                                        {"blk.0.time_mix_first.weight", "expected [4, 2], got [2, 4]"}});
}

// ---- rwkv7 -------------------------------------------------------------------------------
// n_embd 8, n_ff 16, 2 blocks; lora ranks: decay 2, iclr 3, value residual 4, gate 5.

gguf_builder rwkv7_keys() {
  return arch_keys("rwkv7", {.n_ctx = 1024, .n_layer = 2, .n_head = 0, .ln_eps = 1e-5f})
      .u32("rwkv7.wkv.head_size", 4)
      .u32("rwkv7.attention.decay_lora_rank", 2)
      .u32("rwkv7.attention.iclr_lora_rank", 3)
      .u32("rwkv7.attention.value_residual_mix_lora_rank", 4)
      .u32("rwkv7.attention.gate_lora_rank", 5);
}

shapes rwkv7_tensors() {
  shapes t = rwkv_outer();
  for (std::string p : {"blk.0.", "blk.1."}) {
    for (auto n : {"attn_norm.weight", "attn_norm.bias", "attn_norm_2.weight", "attn_norm_2.bias", "time_mix_w0.weight",
                   "time_mix_a0.weight", "time_mix_v0.weight", "time_mix_k_k.weight", "time_mix_k_a.weight",
                   "time_mix_r_k.weight", "time_mix_ln.weight", "time_mix_ln.bias", "channel_mix_lerp_k.weight"})
      t[p + n] = {8};
    t[p + "time_mix_w1.weight"] = {8, 2};
    t[p + "time_mix_w2.weight"] = {2, 8};
    t[p + "time_mix_a1.weight"] = {8, 3};
    t[p + "time_mix_a2.weight"] = {3, 8};
    t[p + "time_mix_g1.weight"] = {8, 5};
    t[p + "time_mix_g2.weight"] = {5, 8};
    t[p + "time_mix_lerp_fused.weight"] = {8, 1, 1, 6};
    for (auto n :
         {"time_mix_key.weight", "time_mix_value.weight", "time_mix_receptance.weight", "time_mix_output.weight"})
      t[p + n] = {8, 8};
    t[p + "channel_mix_key.weight"] = {8, 16};
    t[p + "channel_mix_value.weight"] = {16, 8};
  }
  t["blk.0.time_mix_v1.weight"] = {8, 3};  // block 0: iclr rank
  t["blk.0.time_mix_v2.weight"] = {3, 8};
  t["blk.1.time_mix_v1.weight"] = {8, 4};  // later blocks: value residual rank
  t["blk.1.time_mix_v2.weight"] = {4, 8};
  return t;
}

TEST(ModelTensorMapArch, Rwkv7MissingWrongShapeUnknown) {
  auto t = rwkv7_tensors();
  t.erase("blk.1.time_mix_k_a.weight");
  t["blk.1.time_mix_v1.weight"] = {8, 3};              // the iclr rank is block 0's only
  t["blk.0.time_mix_lerp_fused.weight"] = {8, 1, 1, 5};  // rwkv6's five
  t["blk.0.time_mix_gate.weight"] = {8, 8};             // rwkv6 only
  expect_errors(load(rwkv7_keys(), t), {{"blk.1.time_mix_k_a.weight", "missing required tensor, expected shape [8]"},
                                        {"blk.1.time_mix_v1.weight", "expected [8, 4], got [8, 3]"},
                                        {"blk.0.time_mix_lerp_fused.weight", "expected [8, 1, 1, 6], got [8, 1, 1, 5]"},
                                        {"blk.0.time_mix_gate.weight", "wrong number of tensors"}});
}

// ---- each table as it stands loads without a diagnostic ----------------------------------

struct recurrent_table {
  const char* test;  ///< the case's name
  gguf_builder (*keys)();
  shapes (*tensors)();
};

void PrintTo(const recurrent_table& t, std::ostream* os) { *os << t.test; }

class ModelTensorMapRecurrent : public ::testing::TestWithParam<recurrent_table> {};

TEST_P(ModelTensorMapRecurrent, LoadsWithoutDiagnostics) { load_clean(GetParam().keys(), GetParam().tensors()); }

INSTANTIATE_TEST_SUITE_P(Arch, ModelTensorMapRecurrent,
                         ::testing::Values(recurrent_table{"Mamba2GroupedStateSpaceShapes", mamba2_keys,
                                                           mamba2_tensors},
                                           recurrent_table{"Rwkv6FusedLerp", rwkv6_keys, rwkv6_tensors},
                                           recurrent_table{"Rwkv7LowRankPairsPerBlock", rwkv7_keys, rwkv7_tensors}),
                         [](const auto& info) { return std::string(info.param.test); });

}  // namespace
