// Complete tensor tables of qwen2, qwen3, gemma2, refact, gptneox, falcon, mamba and bert:
// a handcrafted file with every tensor llama.cpp's loader creates for one block (shapes
// worked out by hand from its load_arch_tensors / load_tensors case for the small hparams
// below) loads with no diagnostics, and one tensor more is an error, as llama.cpp refuses
// such a file ("wrong number of tensors"). Then the discrepancies the tables had before.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "gguf/model.h"
#include "tensor_map_support.h"

namespace {

using namespace gguf::test;

// Common hparams: n_embd 8, n_head 2, n_head_kv 1 (head 4, n_embd_gqa 4), n_ff 16, 3 tokens,
// n_ctx_train 64, 1 block.
gguf_builder keys(const std::string& arch, const std::function<void(gguf_builder&)>& extra) {
  gguf_builder b = arch_keys(arch, {.n_head_kv = 1});
  extra(b);
  return b;
}

void rms(gguf_builder& b, const std::string& arch) { b.f32(arch + ".attention.layer_norm_rms_epsilon", 1e-6f); }
void ln(gguf_builder& b, const std::string& arch) { b.f32(arch + ".attention.layer_norm_epsilon", 1e-5f); }

struct arch_case {
  std::string arch;
  std::function<void(gguf_builder&)> extra;
  shapes tensors;
};

gguf::model load(const arch_case& c, const shapes& t) {
  auto b = keys(c.arch, c.extra);
  for (const auto& [name, ne] : t) b.tensor(name, ne);
  return load(b);
}

// A llama-style model of one block: token_embd [8, 3], output_norm (no output.weight: tied),
// split q/k/v of n_embd 8 (q 8, k/v 4), SwiGLU MLP of 16.
shapes swiglu_model() {
  return {{"token_embd.weight", {8, 3}},        {"output_norm.weight", {8}},     {"blk.0.attn_norm.weight", {8}},
          {"blk.0.attn_q.weight", {8, 8}},      {"blk.0.attn_k.weight", {8, 4}}, {"blk.0.attn_v.weight", {8, 4}},
          {"blk.0.attn_output.weight", {8, 8}}, {"blk.0.ffn_norm.weight", {8}},  {"blk.0.ffn_gate.weight", {8, 16}},
          {"blk.0.ffn_down.weight", {16, 8}},   {"blk.0.ffn_up.weight", {8, 16}}};
}

shapes merged(shapes a, const shapes& b) {
  a.insert(b.begin(), b.end());
  return a;
}

std::vector<arch_case> complete_cases() {
  std::vector<arch_case> v;
  // qwen2.cpp: tied output with an optional bias, q/k/v biases.
  v.push_back({"qwen2", [](gguf_builder& b) { rms(b, "qwen2"); },
               merged(swiglu_model(), {{"output.weight", {8, 3}},
                                       {"output.bias", {3}},
                                       {"blk.0.attn_q.bias", {8}},
                                       {"blk.0.attn_k.bias", {4}},
                                       {"blk.0.attn_v.bias", {4}}})});
  // qwen3.cpp: tied output, reranker head [n_embd, n_cls_out], per-head q/k norms.
  v.push_back(
      {"qwen3", [](gguf_builder& b) { rms(b, "qwen3"); },
       merged(swiglu_model(),
              {{"cls.output.weight", {8, 1}}, {"blk.0.attn_q_norm.weight", {4}}, {"blk.0.attn_k_norm.weight", {4}}})});
  // gemma2.cpp: output is token_embd; post-attention and post-FFN norms.
  v.push_back(
      {"gemma2", [](gguf_builder& b) { rms(b, "gemma2"); },
       merged(swiglu_model(), {{"blk.0.post_attention_norm.weight", {8}}, {"blk.0.post_ffw_norm.weight", {8}}})});
  // refact.cpp: llama's tensors, optional rope_freqs [n_rot / 2] and biases.
  v.push_back({"refact", [](gguf_builder& b) { rms(b, "refact"); },
               merged(swiglu_model(), {{"output.weight", {8, 3}},
                                       {"rope_freqs.weight", {2}},
                                       {"blk.0.attn_output.bias", {8}},
                                       {"blk.0.ffn_up.bias", {16}}})});
  // gptneox: untied output, LayerNorms with biases, fused QKV [n_embd, n_embd + 2 * 4].
  v.push_back(
      {"gptneox",
       [](gguf_builder& b) {
         ln(b, "gptneox");
         b.boolean("gptneox.use_parallel_residual", true);
       },
       merged({{"token_embd.weight", {8, 3}}, {"output.weight", {8, 3}}}, with_biases({{"output_norm", {8}},
                                                                                       {"blk.0.attn_norm", {8}},
                                                                                       {"blk.0.attn_qkv", {8, 16}},
                                                                                       {"blk.0.attn_output", {8, 8}},
                                                                                       {"blk.0.ffn_norm", {8}},
                                                                                       {"blk.0.ffn_down", {16, 8}},
                                                                                       {"blk.0.ffn_up", {8, 16}}}))});
  // falcon: tied output, falcon-40B's optional attn_norm_2, fused QKV without bias, no ffn_norm.
  v.push_back({"falcon", [](gguf_builder& b) { ln(b, "falcon"); },
               merged({{"token_embd.weight", {8, 3}},
                       {"blk.0.attn_qkv.weight", {8, 16}},
                       {"blk.0.attn_output.weight", {8, 8}},
                       {"blk.0.ffn_down.weight", {16, 8}},
                       {"blk.0.ffn_up.weight", {8, 16}}},
                      with_biases({{"output_norm", {8}}, {"blk.0.attn_norm", {8}}, {"blk.0.attn_norm_2", {8}}}))});
  // mamba: d_inner 16 (= 2 * n_embd), d_state 4, dt_rank 2, d_conv 4.
  v.push_back({"mamba",
               [](gguf_builder& b) {
                 rms(b, "mamba");
                 b.u32("mamba.ssm.conv_kernel", 4)
                     .u32("mamba.ssm.inner_size", 16)
                     .u32("mamba.ssm.state_size", 4)
                     .u32("mamba.ssm.time_step_rank", 2);
               },
               {{"token_embd.weight", {8, 3}},
                {"output_norm.weight", {8}},
                {"output.weight", {8, 3}},
                {"blk.0.attn_norm.weight", {8}},
                {"blk.0.ssm_in.weight", {8, 32}},
                {"blk.0.ssm_conv1d.weight", {4, 16}},
                {"blk.0.ssm_conv1d.bias", {16}},
                {"blk.0.ssm_x.weight", {16, 10}},  // dt_rank + 2 * d_state
                {"blk.0.ssm_dt.weight", {2, 16}},
                {"blk.0.ssm_dt.bias", {16}},
                {"blk.0.ssm_a", {4, 16}},
                {"blk.0.ssm_d", {16}},
                {"blk.0.ssm_out.weight", {16, 8}}}});
  // bert.cpp: token types, positions, classifier heads, fused QKV, output LayerNorms.
  v.push_back(
      {"bert",
       [](gguf_builder& b) {
         ln(b, "bert");
         b.boolean("bert.attention.causal", false);
       },
       merged({{"token_embd.weight", {8, 3}}, {"token_types.weight", {8, 2}}, {"position_embd.weight", {8, 64}}},
              with_biases({{"cls", {8, 8}},
                           {"cls.output", {8, 1}},
                           {"token_embd_norm", {8}},
                           {"blk.0.attn_qkv", {8, 16}},
                           {"blk.0.attn_output", {8, 8}},
                           {"blk.0.attn_output_norm", {8}},
                           {"blk.0.ffn_up", {8, 16}},
                           {"blk.0.ffn_down", {16, 8}},
                           {"blk.0.layer_output_norm", {8}}}))});
  return v;
}

TEST(ModelTensorTablesComplete, EveryLoaderTensorLoadsWithoutDiagnostics) {
  for (const auto& c : complete_cases()) {
    SCOPED_TRACE(c.arch);
    auto m = load(c, c.tensors);
    EXPECT_TRUE(m.diagnostics().empty()) << diag_text(m);
    EXPECT_TRUE(m.check().ok());
  }
}

TEST(ModelTensorTablesComplete, OneUnknownTensorIsAnError) {
  for (const auto& c : complete_cases()) {
    SCOPED_TRACE(c.arch);
    auto t = c.tensors;
    t["blk.0.extra.weight"] = {8};
    expect_errors(load(c, t), {{"blk.0.extra.weight", "wrong number of tensors"}});
  }
}

const arch_case& find_case(const std::vector<arch_case>& v, const std::string& arch) {
  for (const auto& c : v) {
    if (c.arch == arch) return c;
  }
  throw std::runtime_error("no case " + arch);
}

// ---- what the tables said before ------------------------------------------------------

TEST(ModelTensorTablesComplete, TensorsLlamaCppNeverCreates) {
  const auto cases = complete_cases();
  // qwen2.cpp has no attn_output.bias; gemma2.cpp no output.weight (always token_embd);
  // qwen2, qwen3 and gemma2 have no expert tensors whatever expert_count says.
  auto qwen2 = find_case(cases, "qwen2");
  auto t = qwen2.tensors;
  t["blk.0.attn_output.bias"] = {8};
  expect_errors(load(qwen2, t), {{"blk.0.attn_output.bias", "wrong number of tensors"}});

  auto gemma2 = find_case(cases, "gemma2");
  t = gemma2.tensors;
  t["output.weight"] = {8, 3};
  expect_errors(load(gemma2, t), {{"output.weight", "wrong number of tensors"}});

  auto qwen3 = find_case(cases, "qwen3");
  qwen3.extra = [](gguf_builder& b) {
    rms(b, "qwen3");
    b.u32("qwen3.expert_count", 4).u32("qwen3.expert_used_count", 2);
  };
  auto m = load(qwen3, qwen3.tensors);
  EXPECT_TRUE(m.diagnostics().empty()) << diag_text(m);

  // refact.cpp creates no fused gate+up experts.
  auto refact = find_case(cases, "refact");
  refact.extra = [](gguf_builder& b) {
    rms(b, "refact");
    b.u32("refact.expert_count", 2).u32("refact.expert_used_count", 1);
  };
  t = refact.tensors;
  for (auto n : {"blk.0.ffn_gate.weight", "blk.0.ffn_down.weight", "blk.0.ffn_up.weight", "blk.0.ffn_up.bias"})
    t.erase(n);
  t["blk.0.ffn_gate_inp.weight"] = {8, 2};
  t["blk.0.ffn_down_exps.weight"] = {16, 8, 2};
  t["blk.0.ffn_up_exps.weight"] = {8, 16, 2};
  m = load(refact, t);
  EXPECT_TRUE(m.diagnostics().empty()) << diag_text(m);
  t["blk.0.ffn_gate_up_exps.weight"] = {8, 32, 2};
  expect_errors(load(refact, t), {{"blk.0.ffn_gate_up_exps.weight", "wrong number of tensors"}});
}

TEST(ModelTensorTablesComplete, CreateTensorQkvAlternatives) {
  const auto cases = complete_cases();
  // qwen3: a fused attn_qkv [n_embd, n_embd_head_k * n_head + 2 * n_embd_gqa] instead of q/k/v.
  auto qwen3 = find_case(cases, "qwen3");
  auto t = qwen3.tensors;
  for (auto n : {"blk.0.attn_q.weight", "blk.0.attn_k.weight", "blk.0.attn_v.weight"}) t.erase(n);
  t["blk.0.attn_qkv.weight"] = {8, 16};
  t["blk.0.attn_qkv.bias"] = {16};
  auto m = load(qwen3, t);
  EXPECT_TRUE(m.diagnostics().empty()) << diag_text(m);

  // gemma2: optional biases of the split projections, none on attn_output.
  auto gemma2 = find_case(cases, "gemma2");
  t = gemma2.tensors;
  t["blk.0.attn_q.bias"] = {8};
  t["blk.0.attn_k.bias"] = {4};
  t["blk.0.attn_v.bias"] = {4};
  m = load(gemma2, t);
  EXPECT_TRUE(m.diagnostics().empty()) << diag_text(m);
  t["blk.0.attn_output.bias"] = {8};
  expect_errors(load(gemma2, t), {{"blk.0.attn_output.bias", "wrong number of tensors"}});

  // bert: split q/k/v (q [n_embd, n_embd], k/v [n_embd, n_embd_gqa]) with their biases.
  auto bert = find_case(cases, "bert");
  t = bert.tensors;
  t.erase("blk.0.attn_qkv.weight");
  t.erase("blk.0.attn_qkv.bias");
  m = load(bert, merged(t, with_biases({{"blk.0.attn_q", {8, 8}}, {"blk.0.attn_k", {8, 4}}, {"blk.0.attn_v", {8, 4}}})));
  EXPECT_TRUE(m.diagnostics().empty()) << diag_text(m);
}

TEST(ModelTensorTablesComplete, FusedQkvIsNembdPlusTwoGqa) {
  // llama.cpp sizes a fused QKV [n_embd, n_embd + 2 * n_embd_v_gqa], whatever key_length says:
  // key_length 2 and value_length 6 give [8, 8 + 2 * 6].
  auto falcon = find_case(complete_cases(), "falcon");
  falcon.extra = [](gguf_builder& b) {
    ln(b, "falcon");
    b.u32("falcon.attention.key_length", 2).u32("falcon.attention.value_length", 6);
  };
  auto t = falcon.tensors;
  t["blk.0.attn_qkv.weight"] = {8, 20};
  auto m = load(falcon, t);
  EXPECT_TRUE(m.diagnostics().empty()) << diag_text(m);
}

TEST(ModelTensorTablesComplete, CommandRKeyNormHasKvHeads) {
  // command-r: attn_k_norm is [n_embd_head_k, n_head_kv] (not complete: unknown tensors warn).
  auto b = keys("command-r", [](gguf_builder& k) {
    ln(k, "command-r");
    k.f32("command-r.logit_scale", 0.0625f);
  });
  shapes t = swiglu_model();
  t.erase("blk.0.ffn_norm.weight");
  t["blk.0.attn_q_norm.weight"] = {4, 2};
  t["blk.0.attn_k_norm.weight"] = {4, 1};
  load_clean(b, t);
}

TEST(ModelTensorTablesComplete, BaichuanOutputIsRequired) {
  auto b = keys("baichuan", [](gguf_builder& k) { rms(k, "baichuan"); });
  expect_errors(load(b, swiglu_model()), {{"output.weight", "missing required tensor"}});
}

}  // namespace
