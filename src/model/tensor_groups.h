// Internal: groups of standardized tensors (llama.cpp src/llama-arch.cpp names, shapes
// from src/llama-model.cpp load_tensors), composed into architecture rows in
// arch_table.cpp. ne[0] is the contiguous dimension, as in ggml.
#pragma once

#include "arch.h"

namespace gguf::detail::tensors {

constexpr tensor_spec g(std::string_view n, bool req, dim d0, dim d1 = dim::one, dim d2 = dim::one) {
  tensor_spec t{n, false, req, when::always, 1, {d0, d1, d2, dim::one}};
  t.n_dims = d2 != dim::one ? 3 : d1 != dim::one ? 2 : 1;
  return t;
}
constexpr tensor_spec l(std::string_view n, bool req, dim d0, dim d1 = dim::one, dim d2 = dim::one,
                        when c = when::always) {
  tensor_spec t = g(n, req, d0, d1, d2);
  t.per_layer = true;
  t.cond = c;
  return t;
}
constexpr bool req = true, opt = false;
using enum dim;

// ---- outside the blocks -------------------------------------------------------------

inline constexpr tensor_spec token_embd[] = {g("token_embd.weight", req, n_embd, n_vocab)};
/// output.weight may be absent: llama.cpp then uses token_embd (tied embeddings).
inline constexpr tensor_spec output_tied[] = {g("output_norm.weight", req, n_embd),
                                              g("output.weight", opt, n_embd, n_vocab)};
inline constexpr tensor_spec output_untied[] = {g("output_norm.weight", req, n_embd),
                                                g("output.weight", req, n_embd, n_vocab)};
inline constexpr tensor_spec output_bias_opt[] = {g("output.bias", opt, n_vocab)};
inline constexpr tensor_spec output_norm_only[] = {g("output_norm.weight", req, n_embd)};
inline constexpr tensor_spec output_norm_bias[] = {g("output_norm.bias", req, n_embd)};
inline constexpr tensor_spec output_norm_bias_opt[] = {g("output_norm.bias", opt, n_embd)};
inline constexpr tensor_spec pos_embd[] = {g("position_embd.weight", req, n_embd, n_ctx_train)};
inline constexpr tensor_spec pos_embd_opt[] = {g("position_embd.weight", opt, n_embd, n_ctx_train)};
inline constexpr tensor_spec rope_freqs_opt[] = {g("rope_freqs.weight", opt, n_rot_half),
                                                 g("rope_factors_long.weight", opt, n_rot_half),
                                                 g("rope_factors_short.weight", opt, n_rot_half)};
inline constexpr tensor_spec embd_norm_ln[] = {g("token_embd_norm.weight", req, n_embd),
                                               g("token_embd_norm.bias", req, n_embd)};
inline constexpr tensor_spec token_types_opt[] = {g("token_types.weight", opt, n_embd, any)};

// ---- attention ------------------------------------------------------------------------

inline constexpr tensor_spec attn_norm[] = {l("attn_norm.weight", req, n_embd)};
inline constexpr tensor_spec attn_norm_bias[] = {l("attn_norm.bias", req, n_embd)};
inline constexpr tensor_spec attn_norm_bias_opt[] = {l("attn_norm.bias", opt, n_embd)};
/// llama.cpp create_tensor_qkv: a fused attn_qkv when the file has one, else attn_q/k/v;
/// their biases are optional. attn_output is [n_embd_head_k * n_head, n_embd].
inline constexpr tensor_spec attn_q_k_v_o[] = {
    l("attn_qkv.weight", req, n_embd, qkv_dim, one, when::qkv_fused),
    l("attn_qkv.bias", opt, qkv_dim, one, one, when::qkv_fused),
    l("attn_q.weight", req, n_embd, q_dim, one, when::qkv_split),
    l("attn_k.weight", req, n_embd, k_gqa, one, when::qkv_split),
    l("attn_v.weight", req, n_embd, v_gqa, one, when::qkv_split),
    l("attn_output.weight", req, q_dim, n_embd)};
inline constexpr tensor_spec attn_qkvo_bias_opt[] = {
    l("attn_q.bias", opt, q_dim, one, one, when::qkv_split), l("attn_k.bias", opt, k_gqa, one, one, when::qkv_split),
    l("attn_v.bias", opt, v_gqa, one, one, when::qkv_split), l("attn_output.bias", opt, n_embd)};
/// bert.cpp: create_tensor_qkv(n_embd, n_embd, n_embd_gqa, n_embd_gqa), output separate.
inline constexpr tensor_spec attn_q_k_v_o_bert[] = {
    l("attn_qkv.weight", req, n_embd, qkv_dim, one, when::qkv_fused),
    l("attn_qkv.bias", opt, qkv_dim, one, one, when::qkv_fused),
    l("attn_q.weight", req, n_embd, q_dim, one, when::qkv_split),
    l("attn_k.weight", req, n_embd, k_gqa, one, when::qkv_split),
    l("attn_v.weight", req, n_embd, v_gqa, one, when::qkv_split),
    l("attn_q.bias", opt, q_dim, one, one, when::qkv_split),
    l("attn_k.bias", opt, k_gqa, one, one, when::qkv_split),
    l("attn_v.bias", opt, v_gqa, one, one, when::qkv_split)};
inline constexpr tensor_spec attn_qk_norm[] = {l("attn_q_norm.weight", req, head_k),
                                               l("attn_k_norm.weight", req, head_k)};
inline constexpr tensor_spec attn_qk_norm_heads_opt[] = {l("attn_q_norm.weight", opt, head_k, n_head),
                                                         l("attn_k_norm.weight", opt, head_k, n_head)};
/// Fused QKV projection (gpt2, gptneox, bloom, falcon, mpt, ...).
inline constexpr tensor_spec attn_fused[] = {l("attn_qkv.weight", req, n_embd, qkv_dim),
                                             l("attn_output.weight", req, n_embd, n_embd)};
inline constexpr tensor_spec attn_fused_bias[] = {l("attn_qkv.bias", req, qkv_dim),
                                                  l("attn_output.bias", req, n_embd)};
inline constexpr tensor_spec attn_fused_bias_opt[] = {l("attn_qkv.bias", opt, qkv_dim),
                                                      l("attn_output.bias", opt, n_embd)};
inline constexpr tensor_spec attn_norm_2_opt[] = {l("attn_norm_2.weight", opt, n_embd),
                                                  l("attn_norm_2.bias", opt, n_embd)};
inline constexpr tensor_spec attn_qk_layernorm_opt[] = {
    l("attn_q_norm.weight", opt, n_embd), l("attn_q_norm.bias", opt, n_embd),
    l("attn_k_norm.weight", opt, n_embd), l("attn_k_norm.bias", opt, n_embd)};
inline constexpr tensor_spec ffn_act_opt[] = {l("ffn_act.scales", opt, n_ff)};
inline constexpr tensor_spec attn_post_norm[] = {l("post_attention_norm.weight", req, n_embd)};

// ---- feed-forward ---------------------------------------------------------------------

inline constexpr tensor_spec ffn_norm[] = {l("ffn_norm.weight", req, n_embd)};
inline constexpr tensor_spec ffn_norm_bias[] = {l("ffn_norm.bias", req, n_embd)};
inline constexpr tensor_spec ffn_norm_bias_opt[] = {l("ffn_norm.bias", opt, n_embd)};
/// SwiGLU MLP of dense layers; llama-style MoE experts when n_expert > 0.
inline constexpr tensor_spec ffn_gated[] = {
    l("ffn_gate.weight", req, n_embd, n_ff, one, when::dense),
    l("ffn_down.weight", req, n_ff, n_embd, one, when::dense),
    l("ffn_up.weight", req, n_embd, n_ff, one, when::dense),
    l("ffn_gate_inp.weight", req, n_embd, n_expert, one, when::moe),
    l("ffn_gate_exps.weight", opt, n_embd, n_ff_exp, n_expert, when::moe),
    l("ffn_gate_up_exps.weight", opt, n_embd, n_ff_exp_x2, n_expert, when::moe),
    l("ffn_down_exps.weight", req, n_ff_exp, n_embd, n_expert, when::moe),
    l("ffn_up_exps.weight", req, n_embd, n_ff_exp, n_expert, when::moe)};
inline constexpr tensor_spec ffn_gated_bias_opt[] = {
    l("ffn_gate.bias", opt, n_ff, one, one, when::dense),
    l("ffn_down.bias", opt, n_embd, one, one, when::dense),
    l("ffn_up.bias", opt, n_ff, one, one, when::dense)};
/// Plain two-matrix MLP (gpt2, gptneox, bloom, falcon, mpt, starcoder2).
inline constexpr tensor_spec ffn_plain[] = {l("ffn_down.weight", req, n_ff, n_embd),
                                            l("ffn_up.weight", req, n_embd, n_ff)};
inline constexpr tensor_spec ffn_plain_bias[] = {l("ffn_down.bias", req, n_embd),
                                                 l("ffn_up.bias", req, n_ff)};
inline constexpr tensor_spec ffn_plain_bias_opt[] = {l("ffn_down.bias", opt, n_embd),
                                                     l("ffn_up.bias", opt, n_ff)};
inline constexpr tensor_spec ffn_post_norm[] = {l("post_ffw_norm.weight", req, n_embd)};

// ---- state-space (mamba) ---------------------------------------------------------------

inline constexpr tensor_spec ssm[] = {
    l("ssm_in.weight", req, n_embd, ssm_d_inner_x2),
    l("ssm_conv1d.weight", req, ssm_d_conv, ssm_d_inner),
    l("ssm_conv1d.bias", req, ssm_d_inner),
    l("ssm_x.weight", req, ssm_d_inner, ssm_x_dim),
    l("ssm_dt.weight", req, ssm_dt_rank, ssm_d_inner),
    l("ssm_dt.bias", req, ssm_d_inner),
    l("ssm_a", req, ssm_d_state, ssm_d_inner),
    l("ssm_d", req, ssm_d_inner),
    l("ssm_out.weight", req, ssm_d_inner, n_embd)};

// ---- encoders (bert) ---------------------------------------------------------------------

/// llama.cpp src/models/bert.cpp (bert, nomic-bert, nomic-bert-moe): attention through
/// create_tensor_qkv, MoE layers every moe_every_n_layers.
inline constexpr tensor_spec bert_attn[] = {
    l("attn_output.weight", req, n_embd, n_embd), l("attn_output.bias", opt, n_embd),
    l("attn_output_norm.weight", req, n_embd),    l("attn_output_norm.bias", req, n_embd),
    l("layer_output_norm.weight", req, n_embd),   l("layer_output_norm.bias", req, n_embd)};
inline constexpr tensor_spec bert_ffn[] = {
    l("ffn_up_exps.weight", req, n_embd, n_ff, n_expert, when::moe_layer),
    l("ffn_down_exps.weight", req, n_ff, n_embd, n_expert, when::moe_layer),
    l("ffn_gate_inp.weight", req, n_embd, n_expert, one, when::moe_layer),
    l("ffn_up.weight", req, n_embd, n_ff, one, when::dense_layer),
    l("ffn_up.bias", opt, n_ff, one, one, when::dense_layer),
    l("ffn_down.weight", req, n_ff, n_embd, one, when::dense_layer),
    l("ffn_down.bias", opt, n_embd, one, one, when::dense_layer)};
inline constexpr tensor_spec nomic_bert_gate[] = {l("ffn_gate.weight", req, n_embd, n_ff, one, when::dense_layer)};
inline constexpr tensor_spec bert_cls_opt[] = {g("cls.weight", opt, n_embd, n_embd), g("cls.bias", opt, n_embd),
                                               g("cls.output.weight", opt, n_embd, any), g("cls.output.bias", opt, any)};

}  // namespace gguf::detail::tensors
