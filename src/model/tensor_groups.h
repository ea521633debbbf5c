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
/// `t` also only when `c` holds (a second condition).
constexpr tensor_spec also(tensor_spec t, when c) {
  t.cond2 = c;
  return t;
}
constexpr bool req = true, opt = false;
using enum dim;

/// `t` with every tensor optional (llama.cpp TENSOR_NOT_REQUIRED).
template <size_t N>
constexpr std::array<tensor_spec, N> all_optional(const tensor_spec (&t)[N]) {
  std::array<tensor_spec, N> out{};
  for (size_t i = 0; i < N; ++i) {
    out[i] = t[i];
    out[i].required = false;
  }
  return out;
}
/// `t`'s block tensors in t5's encoder ("enc.blk.N.") or decoder ("dec.blk.N.") stack.
template <size_t N>
constexpr std::array<tensor_spec, N> on_stack(std::array<tensor_spec, N> t, layer_stack s) {
  for (tensor_spec& x : t) x.stack = s;
  return t;
}

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
inline constexpr auto output_norm_bias_opt = all_optional(output_norm_bias);
inline constexpr tensor_spec pos_embd[] = {g("position_embd.weight", req, n_embd, n_ctx_train)};
inline constexpr auto pos_embd_opt = all_optional(pos_embd);
inline constexpr tensor_spec rope_freqs_opt[] = {g("rope_freqs.weight", opt, n_rot_half),
                                                 g("rope_factors_long.weight", opt, n_rot_half),
                                                 g("rope_factors_short.weight", opt, n_rot_half)};
inline constexpr tensor_spec embd_norm_ln[] = {g("token_embd_norm.weight", req, n_embd),
                                               g("token_embd_norm.bias", req, n_embd)};
/// The classifier head of rerankers (qwen3): [n_embd, n_cls_out], n_cls_out from the
/// length of classifier.output_labels (not checked).
inline constexpr tensor_spec cls_out_opt[] = {g("cls.output.weight", opt, n_embd, any)};
inline constexpr tensor_spec token_types_opt[] = {g("token_types.weight", opt, n_embd, any)};

// ---- attention ------------------------------------------------------------------------

inline constexpr tensor_spec attn_norm[] = {l("attn_norm.weight", req, n_embd)};
inline constexpr tensor_spec attn_norm_bias[] = {l("attn_norm.bias", req, n_embd)};
inline constexpr auto attn_norm_bias_opt = all_optional(attn_norm_bias);
/// llama.cpp create_tensor_qkv(n_embd, q, k, v, flags): a fused attn_qkv [n_embd, q + k + v]
/// (`fused`; bias optional) when the file has one, else attn_q/k/v [n_embd, q|k|v], required
/// unless `split` is opt (TENSOR_NOT_REQUIRED, as phi3 passes).
constexpr std::array<tensor_spec, 5> qkv_proj(dim fused, dim q, dim k, dim v, bool split = req) {
  return {l("attn_qkv.weight", req, n_embd, fused, one, when::qkv_fused),
          l("attn_qkv.bias", opt, fused, one, one, when::qkv_fused),
          l("attn_q.weight", split, n_embd, q, one, when::qkv_split),
          l("attn_k.weight", split, n_embd, k, one, when::qkv_split),
          l("attn_v.weight", split, n_embd, v, one, when::qkv_split)};
}
/// The optional biases of split q/k/v projections.
constexpr std::array<tensor_spec, 3> qkv_bias_opt(dim q, dim k, dim v) {
  return {l("attn_q.bias", opt, q, one, one, when::qkv_split), l("attn_k.bias", opt, k, one, one, when::qkv_split),
          l("attn_v.bias", opt, v, one, one, when::qkv_split)};
}
/// attn_output [in, n_embd].
constexpr tensor_spec attn_output(dim in) { return l("attn_output.weight", req, in, n_embd); }

/// create_tensor_qkv(n_embd, n_embd_head_k * n_head, n_embd_k_gqa, n_embd_v_gqa); their
/// biases are optional (attn_qkvo_bias_opt). attn_output is [n_embd_head_k * n_head, n_embd].
inline constexpr auto attn_q_k_v_o = join<tensor_spec>(qkv_proj(qkv_dim, q_dim, k_gqa, v_gqa), attn_output(q_dim));
inline constexpr auto attn_qkvo_bias_opt =
    join<tensor_spec>(qkv_bias_opt(q_dim, k_gqa, v_gqa), l("attn_output.bias", opt, n_embd));
/// The same without attn_output.bias (gemma2).
inline constexpr auto attn_qkv_bias_opt = qkv_bias_opt(q_dim, k_gqa, v_gqa);
/// qwen3: create_tensor_qkv(n_embd, n_embd_head_k * n_head, n_embd_gqa, n_embd_gqa) (llama.cpp's
/// n_embd_gqa is n_embd_v_gqa), attn_output [n_embd_head_k * n_head, n_embd].
inline constexpr auto attn_qkv_q_dim = join<tensor_spec>(qkv_proj(qkv_dim_v, q_dim, v_gqa, v_gqa),
                                                         qkv_bias_opt(q_dim, v_gqa, v_gqa), attn_output(q_dim));
inline constexpr tensor_spec attn_qk_norm[] = {l("attn_q_norm.weight", req, head_k),
                                               l("attn_k_norm.weight", req, head_k)};
/// command-r: per-head q/k norms (llama.cpp creates them, required, when n_layer >= 64).
inline constexpr tensor_spec attn_qk_norm_heads_opt[] = {l("attn_q_norm.weight", opt, head_k, n_head),
                                                         l("attn_k_norm.weight", opt, head_k, n_head_kv)};
/// Fused QKV projection (gpt2, gptneox, bloom, falcon, mpt): [n_embd, n_embd + 2 * n_embd_gqa]
/// (llama.cpp's n_embd_gqa is n_embd_v_gqa).
inline constexpr tensor_spec attn_fused[] = {l("attn_qkv.weight", req, n_embd, v_gqa_qkv),
                                             l("attn_output.weight", req, n_embd, n_embd)};
inline constexpr tensor_spec attn_fused_bias[] = {l("attn_qkv.bias", req, v_gqa_qkv),
                                                  l("attn_output.bias", req, n_embd)};
inline constexpr auto attn_fused_bias_opt = all_optional(attn_fused_bias);
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
inline constexpr auto ffn_norm_bias_opt = all_optional(ffn_norm_bias);
/// SwiGLU MLP (gate, down, up) in the layers where `c` holds.
constexpr std::array<tensor_spec, 3> swiglu(when c = when::always) {
  return {l("ffn_gate.weight", req, n_embd, n_ff, one, c), l("ffn_down.weight", req, n_ff, n_embd, one, c),
          l("ffn_up.weight", req, n_embd, n_ff, one, c)};
}
/// llama.cpp create_tensor_gate_up_exps, in the layers where `c` holds: a fused
/// ffn_gate_up_exps [n_embd, 2 * n_ff_exp, n_expert] when the file has one, else
/// ffn_gate_exps and ffn_up_exps [n_embd, n_ff_exp, n_expert].
constexpr std::array<tensor_spec, 3> gate_up_exps(when c) {
  return {also(l("ffn_gate_up_exps.weight", req, n_embd, n_ff_exp_x2, n_expert, c), when::gate_up_fused),
          also(l("ffn_gate_exps.weight", req, n_embd, n_ff_exp, n_expert, c), when::gate_up_split),
          also(l("ffn_up_exps.weight", req, n_embd, n_ff_exp, n_expert, c), when::gate_up_split)};
}
/// The router of MoE layers: [n_embd, n_expert].
constexpr tensor_spec gate_inp(when c) { return l("ffn_gate_inp.weight", req, n_embd, n_expert, one, c); }
/// SwiGLU MLP of dense layers; llama-style MoE experts when n_expert > 0.
inline constexpr auto ffn_gated = join<tensor_spec>(
    swiglu(when::dense), gate_inp(when::moe), l("ffn_gate_exps.weight", opt, n_embd, n_ff_exp, n_expert, when::moe),
    l("ffn_gate_up_exps.weight", opt, n_embd, n_ff_exp_x2, n_expert, when::moe),
    l("ffn_down_exps.weight", req, n_ff_exp, n_embd, n_expert, when::moe),
    l("ffn_up_exps.weight", req, n_embd, n_ff_exp, n_expert, when::moe));
/// SwiGLU MLP in every layer, no experts whatever expert_count says (qwen2, qwen3, gemma*).
inline constexpr auto ffn_swiglu = swiglu();
/// refact (llama.cpp src/models/refact.cpp): llama's MLP or, with experts, gate_inp, an
/// optional ffn_gate_exps and the down/up experts, n_ff wide; no fused gate+up experts
/// (n_ff_shexp is never read for refact, so no shared experts).
inline constexpr auto ffn_refact = join<tensor_spec>(
    swiglu(when::dense), gate_inp(when::moe), l("ffn_gate_exps.weight", opt, n_embd, n_ff, n_expert, when::moe),
    l("ffn_down_exps.weight", req, n_ff, n_embd, n_expert, when::moe),
    l("ffn_up_exps.weight", req, n_embd, n_ff, n_expert, when::moe));
inline constexpr tensor_spec ffn_gated_bias_opt[] = {
    l("ffn_gate.bias", opt, n_ff, one, one, when::dense),
    l("ffn_down.bias", opt, n_embd, one, one, when::dense),
    l("ffn_up.bias", opt, n_ff, one, one, when::dense)};
/// Plain two-matrix MLP (gpt2, gptneox, bloom, falcon, mpt, starcoder2).
inline constexpr tensor_spec ffn_plain[] = {l("ffn_down.weight", req, n_ff, n_embd),
                                            l("ffn_up.weight", req, n_embd, n_ff)};
inline constexpr tensor_spec ffn_plain_bias[] = {l("ffn_down.bias", req, n_embd),
                                                 l("ffn_up.bias", req, n_ff)};
inline constexpr auto ffn_plain_bias_opt = all_optional(ffn_plain_bias);
inline constexpr tensor_spec ffn_post_norm[] = {l("post_ffw_norm.weight", req, n_embd)};
/// The GPT-2 style block (gpt2, gptneox, bloom): LayerNorms, fused QKV and a plain MLP,
/// all with biases.
inline constexpr auto block_gpt2 = join<tensor_spec>(attn_norm, attn_norm_bias, attn_fused, attn_fused_bias, ffn_norm,
                                                     ffn_norm_bias, ffn_plain, ffn_plain_bias);

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

// ---- phi3, qwen2moe (llama.cpp src/models/phi3.cpp, qwen2moe.cpp) ---------------------

/// create_tensor_qkv(n_embd, n_embd, n_embd_gqa, n_embd_gqa, flags) (phi3, qwen2, qwen2moe,
/// baichuan, bert): fused attn_qkv [n_embd, n_embd + 2 * n_embd_gqa] or attn_q/k/v, biases
/// optional, attn_output [n_embd, n_embd]; phi3 passes TENSOR_NOT_REQUIRED (the _opt table).
constexpr auto qkv_embd(bool split) {
  return join<tensor_spec>(qkv_proj(v_gqa_qkv, n_embd, v_gqa, v_gqa, split), qkv_bias_opt(n_embd, v_gqa, v_gqa),
                           attn_output(n_embd));
}
inline constexpr auto attn_qkv_embd_opt = qkv_embd(opt);
inline constexpr auto attn_qkv_embd = qkv_embd(req);
/// phi3: one ffn_up holding gate and up [n_embd, 2 * n_ff], no ffn_gate.
inline constexpr tensor_spec ffn_phi3[] = {l("ffn_down.weight", req, n_ff, n_embd),
                                           l("ffn_up.weight", req, n_embd, n_ff_x2)};
/// phi3's long-context rope factors: created per layer, but the name has no block
/// number, so they are one pair of global tensors (TENSOR_DUPLICATED after layer 0).
inline constexpr tensor_spec rope_factors_opt[] = {g("rope_factors_long.weight", opt, n_rot_half),
                                                   g("rope_factors_short.weight", opt, n_rot_half)};
/// qwen2moe: every layer MoE, n_ff_exp defaulting to n_ff / n_expert_used, and a gated
/// shared expert (ffn_gate_inp_shexp [n_embd]) of n_ff_shexp (default n_ff).
inline constexpr tensor_spec ffn_qwen2moe[] = {
    l("ffn_gate_inp.weight", req, n_embd, n_expert),
    l("ffn_gate_exps.weight", req, n_embd, n_ff_exp_used, n_expert),
    l("ffn_down_exps.weight", req, n_ff_exp_used, n_embd, n_expert),
    l("ffn_up_exps.weight", req, n_embd, n_ff_exp_used, n_expert),
    l("ffn_gate_inp_shexp.weight", req, n_embd),
    l("ffn_gate_shexp.weight", req, n_embd, n_ff_shexp),
    l("ffn_down_shexp.weight", req, n_ff_shexp, n_embd),
    l("ffn_up_shexp.weight", req, n_embd, n_ff_shexp)};

// ---- deepseek2 (llama.cpp src/models/deepseek2.cpp) ------------------------------------

/// Multi-head latent attention: a low-rank Q (q_lora_rank > 0) or one attn_q; the
/// compressed KV with its rope part; attn_k_b / attn_v_b (key_length_mla and
/// value_length_mla set) or the legacy unsplit attn_kv_b.
inline constexpr tensor_spec attn_mla[] = {
    l("attn_q_a_norm.weight", req, n_lora_q, one, one, when::q_lora),
    l("attn_kv_a_norm.weight", req, n_lora_kv),
    l("attn_q_a.weight", req, n_embd, n_lora_q, one, when::q_lora),
    l("attn_q_b.weight", req, n_lora_q, q_dim_mla, one, when::q_lora),
    l("attn_q.weight", req, n_embd, q_dim_mla, one, when::no_q_lora),
    l("attn_kv_a_mqa.weight", req, n_embd, kv_a_dim),
    l("attn_k_b.weight", req, head_qk_nope, n_lora_kv, n_head, when::mla),
    l("attn_v_b.weight", req, n_lora_kv, head_v_mla, n_head, when::mla),
    l("attn_kv_b.weight", req, n_lora_kv, kv_b_dim, one, when::not_mla),
    l("attn_output.weight", req, o_dim_mla, n_embd)};
/// The first leading_dense_block_count layers have a SwiGLU FFN; the others routed
/// experts (create_tensor_gate_up_exps: fused ffn_gate_up_exps or gate/up) plus
/// n_expert_shared shared experts of n_ff_exp each.
inline constexpr auto ffn_deepseek2 = join<tensor_spec>(
    swiglu(when::lead_dense), gate_inp(when::after_lead),
    l("exp_probs_b.bias", opt, n_expert, one, one, when::after_lead),
    l("ffn_down_exps.weight", req, n_ff_exp, n_embd, n_expert, when::after_lead),
    gate_up_exps(when::after_lead),
    l("ffn_gate_shexp.weight", req, n_embd, n_ff_shexp_ds, one, when::after_lead),
    l("ffn_down_shexp.weight", req, n_ff_shexp_ds, n_embd, one, when::after_lead),
    l("ffn_up_shexp.weight", req, n_embd, n_ff_shexp_ds, one, when::after_lead));

// ---- t5 (llama.cpp src/models/t5.cpp): encoder and decoder stacks ----------------------

inline constexpr tensor_spec t5_outputs[] = {g("enc.output_norm.weight", req, n_embd),
                                             g("dec.output_norm.weight", req, n_embd),
                                             g("output.weight", opt, n_embd, n_vocab)};
/// Relative attention bias is optional per layer (layer 0's is used when absent);
/// ffn_gate only in flan-t5 (gated GELU).
inline constexpr std::array<tensor_spec, 6> t5_self_attn = {
    l("attn_norm.weight", req, n_embd),     l("attn_rel_b.weight", opt, n_head, n_rel_attn_bkts),
    l("attn_q.weight", req, n_embd, k_gqa), l("attn_k.weight", req, n_embd, k_gqa),
    l("attn_v.weight", req, n_embd, v_gqa), l("attn_o.weight", req, v_gqa, n_embd)};
inline constexpr std::array<tensor_spec, 6> t5_cross_attn = {
    l("cross_attn_norm.weight", req, n_embd),     l("cross_attn_rel_b.weight", opt, n_head, n_rel_attn_bkts),
    l("cross_attn_q.weight", req, n_embd, k_gqa), l("cross_attn_k.weight", req, n_embd, k_gqa),
    l("cross_attn_v.weight", req, n_embd, v_gqa), l("cross_attn_o.weight", req, v_gqa, n_embd)};
inline constexpr std::array<tensor_spec, 4> t5_ffn = {
    l("ffn_norm.weight", req, n_embd), l("ffn_gate.weight", opt, n_embd, n_ff), l("ffn_down.weight", req, n_ff, n_embd),
    l("ffn_up.weight", req, n_embd, n_ff)};
inline constexpr auto t5_encoder = on_stack(join<tensor_spec>(t5_self_attn, t5_ffn), layer_stack::enc);
inline constexpr auto t5_decoder = on_stack(join<tensor_spec>(t5_self_attn, t5_cross_attn, t5_ffn), layer_stack::dec);

// ---- mamba2 (llama.cpp src/models/mamba2.cpp) ------------------------------------------

/// ssm_in projects to z, x, B, C and dt at once; the conv covers x, B, C; ssm_a / ssm_d
/// (no ".weight") are [1, dt_rank] (one value per head); ssm_norm is grouped.
inline constexpr tensor_spec ssm2[] = {
    l("ssm_in.weight", req, n_embd, ssm_in_proj_dim),
    l("ssm_conv1d.weight", req, ssm_d_conv, ssm_conv_dim),
    l("ssm_conv1d.bias", req, ssm_conv_dim),
    l("ssm_dt.bias", req, ssm_dt_rank),
    l("ssm_a", req, one, ssm_dt_rank),
    l("ssm_d", req, one, ssm_dt_rank),
    l("ssm_norm.weight", req, ssm_group_width, ssm_n_group),
    l("ssm_out.weight", req, ssm_d_inner, n_embd)};

// ---- rwkv6 (llama.cpp src/models/rwkv6.cpp) ---------------------------------------------

inline constexpr tensor_spec rwkv_embd_norm[] = {g("token_embd_norm.weight", req, n_embd),
                                                 g("token_embd_norm.bias", req, n_embd)};
/// The token-shift interpolations: time_mix_lerp_fused [n_embd, 1, 1, 5] or the separate
/// lerp_w/k/v/r/g [n_embd, 1, 1] (llama.cpp asserts one of lerp_fused, lerp_w exists).
constexpr tensor_spec lerp_fused_spec() {
  tensor_spec t = l("time_mix_lerp_fused.weight", opt, n_embd);
  t.n_dims = 4;
  t.ne[3] = five;
  return t;
}
/// A low-rank pair: `down` [n_embd, rank], then `up` [rank, n_embd], where `c` holds.
constexpr std::array<tensor_spec, 2> lora(std::string_view down, std::string_view up, dim rank, when c = when::always) {
  return {l(down, req, n_embd, rank, one, c), l(up, req, rank, n_embd, one, c)};
}
/// The layer norms of an rwkv block (before time mix and channel mix).
inline constexpr std::array<tensor_spec, 4> rwkv_norms = {
    l("attn_norm.weight", req, n_embd), l("attn_norm.bias", req, n_embd), l("attn_norm_2.weight", req, n_embd),
    l("attn_norm_2.bias", req, n_embd)};
/// The time mix's key, value and receptance projections [n_embd, n_embd].
inline constexpr std::array<tensor_spec, 3> time_mix_kvr = {l("time_mix_key.weight", req, n_embd, n_embd),
                                                            l("time_mix_value.weight", req, n_embd, n_embd),
                                                            l("time_mix_receptance.weight", req, n_embd, n_embd)};
/// The time mix's group norm and output projection.
inline constexpr std::array<tensor_spec, 3> time_mix_out = {l("time_mix_ln.weight", req, n_embd),
                                                            l("time_mix_ln.bias", req, n_embd),
                                                            l("time_mix_output.weight", req, n_embd, n_embd)};
/// channel_mix key [n_embd, n_ff] and value [n_ff, n_embd].
inline constexpr std::array<tensor_spec, 2> channel_mix_kv = {l("channel_mix_key.weight", req, n_embd, n_ff),
                                                              l("channel_mix_value.weight", req, n_ff, n_embd)};
inline constexpr auto rwkv6_time_mix = join<tensor_spec>(
    l("time_mix_w1.weight", req, n_embd, time_mix_extra_dim_x5),
    l("time_mix_w2.weight", req, time_mix_extra_dim, n_embd, five),
    l("time_mix_lerp_x.weight", req, n_embd),
    l("time_mix_lerp_w.weight", req, n_embd, one, one, when::lerp_unfused),
    l("time_mix_lerp_w.weight", opt, n_embd, one, one, when::lerp_fused),
    l("time_mix_lerp_k.weight", opt, n_embd),
    l("time_mix_lerp_v.weight", opt, n_embd),
    l("time_mix_lerp_r.weight", opt, n_embd),
    l("time_mix_lerp_g.weight", opt, n_embd),
    lerp_fused_spec(),
    l("time_mix_first.weight", req, wkv_head_size, wkv_n_head),
    l("time_mix_decay.weight", req, n_embd),
    lora("time_mix_decay_w1.weight", "time_mix_decay_w2.weight", time_decay_extra_dim));
inline constexpr auto rwkv6_block = join<tensor_spec>(
    rwkv_norms, rwkv6_time_mix, time_mix_kvr, l("time_mix_gate.weight", req, n_embd, n_embd), time_mix_out,
    l("channel_mix_lerp_k.weight", req, n_embd), l("channel_mix_lerp_r.weight", req, n_embd), channel_mix_kv,
    l("channel_mix_receptance.weight", req, n_embd, n_embd));

// ---- rwkv7 (llama.cpp src/models/rwkv7.cpp) ---------------------------------------------

constexpr tensor_spec lerp_fused6_spec() {
  tensor_spec t = l("time_mix_lerp_fused.weight", req, n_embd);
  t.n_dims = 4;
  t.ne[3] = six;
  return t;
}
/// Decay (w), in-context learning rate (a), value residual (v; block 0 sized by the iclr
/// rank, "actually not used" there) and gate (g) low-rank pairs, then the usual mixes.
inline constexpr auto rwkv7_time_mix = join<tensor_spec>(
    l("time_mix_w0.weight", req, n_embd), lora("time_mix_w1.weight", "time_mix_w2.weight", n_lora_decay),
    l("time_mix_a0.weight", req, n_embd), lora("time_mix_a1.weight", "time_mix_a2.weight", n_lora_iclr),
    l("time_mix_v0.weight", req, n_embd),
    lora("time_mix_v1.weight", "time_mix_v2.weight", n_lora_iclr, when::first_layer),
    lora("time_mix_v1.weight", "time_mix_v2.weight", n_lora_value_res_mix, when::later_layer),
    lora("time_mix_g1.weight", "time_mix_g2.weight", n_lora_gate), lerp_fused6_spec(),
    l("time_mix_k_k.weight", req, n_embd), l("time_mix_k_a.weight", req, n_embd), l("time_mix_r_k.weight", req, n_embd));
inline constexpr auto rwkv7_block = join<tensor_spec>(rwkv_norms, rwkv7_time_mix, time_mix_kvr, time_mix_out,
                                                      l("channel_mix_lerp_k.weight", req, n_embd), channel_mix_kv);

// ---- encoders (bert) ---------------------------------------------------------------------

/// llama.cpp src/models/bert.cpp (bert, nomic-bert, nomic-bert-moe): attention through
/// create_tensor_qkv, MoE layers every moe_every_n_layers.
/// attn_output.weight comes with attn_qkv_embd.
inline constexpr tensor_spec bert_attn[] = {
    l("attn_output.bias", opt, n_embd),
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

// ---- gemma4 (llama.cpp src/models/gemma4.cpp) --------------------------------------------

/// Tied output, per-layer token embeddings (embedding_length_per_layer_input > 0), and one
/// global rope_freqs for the full-attention layers (created in the first of them, then
/// TENSOR_DUPLICATED; its size is half the full-attention head).
inline constexpr tensor_spec gemma4_global[] = {
    g("output.weight", opt, n_embd, n_vocab),
    g("token_embd.weight", req, n_embd, n_vocab),
    also(g("per_layer_token_embd.weight", req, n_embd_per_layer_all, n_vocab), when::per_layer_inp),
    also(g("per_layer_model_proj.weight", req, n_embd, n_embd_per_layer_all), when::per_layer_inp),
    also(g("per_layer_proj_norm.weight", req, n_embd_per_layer), when::per_layer_inp),
    g("output_norm.weight", req, n_embd),
    also(g("rope_freqs.weight", req, head_k_full_half), when::any_full_layer)};
/// A block: head sizes per layer (sliding-window layers use key_length_swa); layers past
/// n_layer - shared_kv_layers reuse earlier K/V, so their attn_k / attn_k_norm are optional
/// and attn_v is always optional (K doubles as V). A layer with ffn_gate_inp is an expert
/// layer: the dense FFN acts as its shared expert, next to the routed experts.
inline constexpr auto gemma4_block = join<tensor_spec>(
    attn_norm,
    l("attn_q.weight", req, n_embd, q_dim),
    l("attn_k.weight", req, n_embd, k_gqa, one, when::kv_layer),
    l("attn_k.weight", opt, n_embd, k_gqa, one, when::shared_kv_layer),
    l("attn_v.weight", opt, n_embd, v_gqa),
    attn_output(q_dim),
    l("attn_q_norm.weight", req, head_k),
    l("attn_k_norm.weight", req, head_k, one, one, when::kv_layer),
    l("attn_k_norm.weight", opt, head_k, one, one, when::shared_kv_layer),
    attn_post_norm,
    l("layer_output_scale.weight", opt, one),
    ffn_norm,
    l("ffn_gate.weight", req, n_embd, n_ff),
    l("ffn_up.weight", req, n_embd, n_ff),
    l("ffn_down.weight", req, n_ff, n_embd),
    ffn_post_norm,
    l("ffn_gate_inp.weight", opt, n_embd, n_expert),
    l("ffn_gate_inp.scale", req, n_embd, one, one, when::gate_inp),
    l("pre_ffw_norm_2.weight", req, n_embd, one, one, when::gate_inp),
    l("post_ffw_norm_1.weight", req, n_embd, one, one, when::gate_inp),
    l("post_ffw_norm_2.weight", req, n_embd, one, one, when::gate_inp),
    gate_up_exps(when::gate_inp),
    l("ffn_down_exps.weight", req, n_ff_exp, n_embd, n_expert, when::gate_inp),
    l("inp_gate.weight", req, n_embd, n_embd_per_layer, one, when::per_layer_inp),
    l("proj.weight", req, n_embd_per_layer, n_embd, one, when::per_layer_inp),
    l("post_norm.weight", req, n_embd, one, one, when::per_layer_inp));

// ---- gptj (GGUF specification architecture; llama.cpp has no loader) -------------------------

/// Names: gguf-py's MODEL_TENSORS[GPTJ] (token_embd, output_norm, output, attn_norm,
/// attn_q/k/v, attn_output, ffn_up, ffn_down); shapes: GPT-J's parallel block (ggml's
/// gpt-j example): LayerNorms with bias, q/k/v/out projections [n_embd, n_embd] without
/// bias, MLP fc_in [n_embd, n_ff] and fc_out [n_ff, n_embd] with biases, LM head with
/// bias. Biases are optional: no loader requires them.
inline constexpr tensor_spec gptj[] = {
    g("token_embd.weight", req, n_embd, n_vocab),
    g("output_norm.weight", req, n_embd),
    g("output_norm.bias", opt, n_embd),
    g("output.weight", req, n_embd, n_vocab),
    g("output.bias", opt, n_vocab),
    l("attn_norm.weight", req, n_embd),
    l("attn_norm.bias", opt, n_embd),
    l("attn_q.weight", req, n_embd, q_dim),
    l("attn_k.weight", req, n_embd, k_gqa),
    l("attn_v.weight", req, n_embd, v_gqa),
    l("attn_output.weight", req, q_dim, n_embd),
    l("ffn_up.weight", req, n_embd, n_ff),
    l("ffn_up.bias", opt, n_ff),
    l("ffn_down.weight", req, n_ff, n_embd),
    l("ffn_down.bias", opt, n_embd)};

}  // namespace gguf::detail::tensors
