// The architecture registry: one row per architecture.
//
// Every row reads the common keys first (context_length, embedding_length, block_count,
// feed_forward_length, attention.head_count[_kv], rope.*, attention.key/value_length,
// expert_count, expert_used_count, vocab_size; see hparams.cpp), then its own keys below.
// Which keys are required is the schema layer's fact (arch_table in src/schema/keys.cpp,
// gguf::find_architecture); a row here has the same name (the constants of
// src/schema/arch_names.h, written once for both tables) and adds only how the keys bind
// to hparams fields, the defaults of llama.cpp's llama_model::load_hparams
// (src/llama-model.cpp) and the tensors.
// Tensor groups (tensor_groups.h) follow llama.cpp's load_tensors.
#include <array>

#include "arch.h"
#include "schema/arch_names.h"
#include "tensor_groups.h"

namespace gguf::detail {
namespace {

using H = gguf::hparams;
using namespace tensors;
using tensor_list = std::span<const tensor_spec>;

// ---- keys shared by several rows ----------------------------------------------------

constexpr key_spec rms_eps = bind_key("attention.layer_norm_rms_epsilon", &H::f_norm_rms_eps);
constexpr key_spec ln_eps = bind_key("attention.layer_norm_epsilon", &H::f_norm_eps);
constexpr key_spec pooling = bind_key("pooling_type", &H::pooling_type);

constexpr key_spec k_rms[] = {rms_eps};
constexpr key_spec k_ln[] = {ln_eps};
constexpr key_spec k_qwen[] = {pooling, rms_eps};
constexpr key_spec k_qwen2moe[] = {bind_key("expert_feed_forward_length", &H::n_ff_exp),
                                   bind_key("expert_shared_feed_forward_length", &H::n_ff_shexp),
                                   rms_eps};
constexpr key_spec k_mpt[] = {ln_eps, bind_key("attention.clamp_kqv", &H::f_clamp_kqv),
                              bind_key("attention.max_alibi_bias", &H::f_max_alibi_bias)};
constexpr key_spec k_gptneox[] = {ln_eps, bind_key("use_parallel_residual", &H::use_par_res)};
constexpr key_spec ssm_shape[] = {bind_key("ssm.conv_kernel", &H::ssm_d_conv),
                                  bind_key("ssm.inner_size", &H::ssm_d_inner),
                                  bind_key("ssm.state_size", &H::ssm_d_state),
                                  bind_key("ssm.time_step_rank", &H::ssm_dt_rank)};
constexpr key_spec mamba_own[] = {bind_key("ssm.dt_b_c_rms", &H::ssm_dt_b_c_rms), rms_eps};
constexpr key_spec mamba2_own[] = {bind_key("ssm.group_count", &H::ssm_n_group), rms_eps};
constexpr auto k_mamba = join<key_spec>(ssm_shape, mamba_own);
constexpr auto k_mamba2 = join<key_spec>(ssm_shape, mamba2_own);

constexpr key_spec rwkv_common[] = {ln_eps, rms_eps, bind_key("wkv.head_size", &H::wkv_head_size)};
constexpr key_spec token_shift[] = {bind_key("token_shift_count", &H::token_shift_count)};
constexpr key_spec rwkv6_own[] = {bind_key("time_mix_extra_dim", &H::time_mix_extra_dim),
                                  bind_key("time_decay_extra_dim", &H::time_decay_extra_dim),
                                  bind_key("rescale_every_n_layers", &H::rescale_every_n_layers)};
constexpr key_spec rwkv7_own[] = {bind_key("attention.decay_lora_rank", &H::n_lora_decay),
                                  bind_key("attention.iclr_lora_rank", &H::n_lora_iclr),
                                  bind_key("attention.value_residual_mix_lora_rank", &H::n_lora_value_res_mix),
                                  bind_key("attention.gate_lora_rank", &H::n_lora_gate)};
constexpr auto k_rwkv6 = join<key_spec>(rwkv_common, rwkv6_own, token_shift);
constexpr auto k_rwkv7 = join<key_spec>(rwkv_common, rwkv7_own, token_shift);
// The spec's RWKV section: "The only allowed value currently is 4" (checked in finish).
constexpr key_spec k_rwkv[] = {bind_key("architecture_version", &H::architecture_version)};
constexpr key_spec k_whisper[] = {bind_key("encoder.mels_count", &H::n_mels),
                                  bind_key("decoder.context_length", &H::dec_n_ctx),
                                  bind_key("decoder.embedding_length", &H::dec_n_embd),
                                  bind_key("decoder.block_count", &H::dec_n_layer),
                                  bind_key("decoder.attention.head_count", &H::dec_n_head)};
constexpr key_spec k_phi3[] = {rms_eps, bind_key("attention.sliding_window", &H::n_swa)};
constexpr key_spec k_gemma2[] = {bind_key("attention.sliding_window", &H::n_swa), rms_eps,
                                 bind_key("attn_logit_softcapping", &H::f_attn_logit_softcapping),
                                 bind_key("final_logit_softcapping", &H::f_final_logit_softcapping)};
constexpr key_spec k_gemma3[] = {bind_key("attention.sliding_window", &H::n_swa), rms_eps};
// gemma4 (llama.cpp llama_model_gemma4::load_arch_hparams); attention.sliding_window_pattern
// and attention.shared_kv_layers are read through the row's swa_layers_key.
constexpr key_spec k_gemma4[] = {bind_key("rope.freq_base_swa", &H::rope_freq_base_train_swa),
                                 bind_key("expert_feed_forward_length", &H::n_ff_exp),
                                 bind_key("attention.sliding_window", &H::n_swa), rms_eps,
                                 bind_key("embedding_length_per_layer_input", &H::n_embd_per_layer),
                                 bind_key("attention.key_length_swa", &H::n_embd_head_k_swa),
                                 bind_key("attention.value_length_swa", &H::n_embd_head_v_swa),
                                 bind_key("final_logit_softcapping", &H::f_final_logit_softcapping)};
constexpr key_spec k_bert[] = {ln_eps, bind_key("attention.causal", &H::causal_attn), pooling};
constexpr key_spec k_nomic_bert[] = {ln_eps, bind_key("attention.causal", &H::causal_attn), pooling,
                                     bind_key("moe_every_n_layers", &H::moe_every_n_layers)};
constexpr key_spec k_t5[] = {rms_eps,
                             bind_key("attention.relative_buckets_count", &H::n_rel_attn_bkts),
                             bind_key("decoder_start_token_id", &H::dec_start_token_id),
                             bind_key("decoder_block_count", &H::dec_n_layer)};
constexpr key_spec k_command_r[] = {bind_key("logit_scale", &H::f_logit_scale), ln_eps};

bool deepseek2_not_lite(const H& hp) { return hp.n_layer != 27; }
constexpr key_spec k_deepseek2[] = {
    rms_eps,
    bind_key("leading_dense_block_count", &H::n_layer_dense_lead),
    [] {
      key_spec k = bind_key("attention.q_lora_rank", &H::n_lora_q);
      k.required_if = deepseek2_not_lite;
      return k;
    }(),
    bind_key("attention.kv_lora_rank", &H::n_lora_kv),
    bind_key("attention.key_length_mla", &H::n_embd_head_k_mla),
    bind_key("attention.value_length_mla", &H::n_embd_head_v_mla),
    bind_key("expert_feed_forward_length", &H::n_ff_exp),
    bind_key("expert_shared_count", &H::n_expert_shared),
    bind_key("expert_weights_scale", &H::expert_weights_scale),
    bind_key("expert_weights_norm", &H::expert_weights_norm),
    bind_key("expert_gating_func", &H::expert_gating_func)};

// ---- defaults set before the architecture's own keys (llama.cpp) ---------------------

// llama.cpp: DeepSeek V2/V2.5 files without expert_gating_func use softmax.
void deepseek2_finish(H& hp) {
  if (hp.expert_gating_func == 0) hp.expert_gating_func = 1;
}
void alibi_8(H& hp) { hp.f_max_alibi_bias = 8.0f; }
void gemma2_defaults(H& hp) { hp.n_swa = 4096; }
void t5_defaults(H& hp) { hp.dec_n_layer = hp.n_layer; }
void baichuan_defaults(H& hp) {
  if (hp.n_layer == 40) hp.f_max_alibi_bias = 8.0f;  // the 13B model
}

// ---- tensor tables -----------------------------------------------------------------------

constexpr tensor_list t_llama[] = {token_embd,   output_tied, rope_freqs_opt,     attn_norm,
                                   attn_q_k_v_o, attn_qkvo_bias_opt, ffn_norm, ffn_gated,
                                   ffn_gated_bias_opt};
// refact.cpp: llama's tensors through create_tensor_qkv(n_embd, n_embd_head_k * n_head,
// n_embd_k_gqa, n_embd_v_gqa) and optional attn_output.bias, without fused gate+up experts.
constexpr tensor_list t_refact[] = {token_embd, output_tied, rope_freqs_opt, attn_norm, attn_q_k_v_o,
                                    attn_qkvo_bias_opt, ffn_norm, ffn_refact, ffn_gated_bias_opt};
// baichuan: untied output; newer llama.cpp may create q/k/v through create_tensor_qkv.
constexpr tensor_list t_baichuan[] = {token_embd, output_untied, attn_norm, attn_qkv_embd, ffn_norm, ffn_swiglu};
// qwen2.cpp: create_tensor_qkv(n_embd, n_embd, n_embd_gqa, n_embd_gqa) (biases optional; older
// llama.cpp required them), attn_output [n_embd, n_embd] without bias, optional output.bias.
constexpr tensor_list t_qwen2[] = {token_embd, output_tied, output_bias_opt, attn_norm, attn_qkv_embd,
                                   ffn_norm,   ffn_swiglu};
// qwen3.cpp: an optional reranker head (cls.output), per-head q/k norms.
constexpr tensor_list t_qwen3[] = {token_embd, output_tied, cls_out_opt, attn_norm, attn_qkv_q_dim, attn_qk_norm,
                                   ffn_norm,   ffn_swiglu};
constexpr tensor_list t_gemma[] = {token_embd, output_norm_only, attn_norm, attn_q_k_v_o, ffn_norm, ffn_swiglu};
// gemma2.cpp: output is always token_embd (no output.weight), create_tensor_qkv.
constexpr tensor_list t_gemma2[] = {token_embd, output_norm_only, attn_norm,  attn_q_k_v_o, attn_qkv_bias_opt,
                                    attn_post_norm, ffn_norm,     ffn_swiglu, ffn_post_norm};
constexpr tensor_list t_gemma3[] = {token_embd, output_tied, attn_norm, attn_q_k_v_o, attn_qk_norm,
                                    attn_post_norm, ffn_norm, ffn_swiglu, ffn_post_norm};
constexpr tensor_list t_gemma4[] = {gemma4_global, gemma4_block};
constexpr tensor_list t_gptj[] = {gptj};
constexpr tensor_list t_command_r[] = {token_embd, output_norm_only, attn_norm, attn_q_k_v_o,
                                       attn_qk_norm_heads_opt, ffn_gated};
constexpr tensor_list t_starcoder2[] = {token_embd,   output_tied,        output_norm_bias, attn_norm,
                                        attn_norm_bias, attn_q_k_v_o, attn_qkvo_bias_opt, ffn_norm,
                                        ffn_norm_bias, ffn_plain,     ffn_plain_bias};
constexpr tensor_list t_gpt2[] = {token_embd, pos_embd, output_tied, output_norm_bias, block_gpt2};
constexpr tensor_list t_gptneox[] = {token_embd, output_untied, output_norm_bias, block_gpt2};
constexpr tensor_list t_bloom[] = {token_embd, embd_norm_ln, output_tied, output_norm_bias, block_gpt2};
constexpr tensor_list t_falcon[] = {token_embd, output_tied, output_norm_bias, attn_norm, attn_norm_bias,
                                    attn_norm_2_opt, attn_fused, ffn_plain};
constexpr tensor_list t_mpt[] = {token_embd, pos_embd_opt, output_tied, output_norm_bias_opt,
                                 attn_norm,  attn_norm_bias_opt, attn_fused, attn_fused_bias_opt,
                                 ffn_norm,   ffn_norm_bias_opt,  ffn_plain,  ffn_plain_bias_opt,
                                 attn_qk_layernorm_opt, ffn_act_opt};
constexpr tensor_list t_mamba[] = {token_embd, output_tied, attn_norm, ssm};
// bert.cpp: create_tensor_qkv(n_embd, n_embd, n_embd_gqa, n_embd_gqa); biases of the split
// projections, attn_output.bias and the MLP biases optional (older llama.cpp required them).
constexpr tensor_list t_bert[] = {token_embd,    token_types_opt, pos_embd, bert_cls_opt, embd_norm_ln,
                                  attn_qkv_embd, bert_attn,       bert_ffn};
constexpr tensor_list t_nomic_bert[] = {token_embd, token_types_opt, embd_norm_ln, attn_qkv_embd,
                                        bert_attn,  bert_ffn,        nomic_bert_gate};
constexpr tensor_list t_nomic_bert_moe[] = {token_embd, token_types_opt, embd_norm_ln, attn_qkv_embd,
                                            bert_attn,  bert_ffn};
// phi3.cpp: tied output, create_tensor_qkv with TENSOR_NOT_REQUIRED, fused gate+up.
constexpr tensor_list t_phi3[] = {token_embd,        output_tied, rope_factors_opt, attn_norm,
                                  attn_qkv_embd_opt, ffn_norm,    ffn_phi3};
constexpr tensor_list t_qwen2moe[] = {token_embd, output_untied, attn_norm, attn_qkv_embd, ffn_norm, ffn_qwen2moe};
constexpr tensor_list t_deepseek2[] = {token_embd, output_tied, attn_norm, attn_mla, ffn_norm, ffn_deepseek2};
constexpr tensor_list t_t5[] = {token_embd, t5_outputs, t5_encoder, t5_decoder};
constexpr tensor_list t_mamba2[] = {token_embd, output_tied, attn_norm, ssm2};
constexpr tensor_list t_rwkv7[] = {token_embd,  rwkv_embd_norm, output_untied, output_norm_bias, rwkv7_block};
constexpr tensor_list t_rwkv6[] = {token_embd,  rwkv_embd_norm, output_untied, output_norm_bias, rwkv6_block};

constexpr arch_row rows[] = {
    {.name = arch_names::llama, .keys = k_rms, .check_n_rot = true, .tensors = t_llama, .tensors_complete = true},
    {.name = arch_names::mpt, .keys = k_mpt, .tensors = t_mpt},
    {.name = arch_names::gptneox, .keys = k_gptneox, .tensors = t_gptneox, .tensors_complete = true},
    {.name = arch_names::gptj, .keys = k_ln, .tensors = t_gptj},
    {.name = arch_names::gpt2, .keys = k_ln, .tensors = t_gpt2},
    {.name = arch_names::bloom, .keys = k_ln, .defaults = alibi_8, .tensors = t_bloom},
    {.name = arch_names::falcon, .keys = k_ln, .check_n_rot = true, .tensors = t_falcon, .tensors_complete = true},
    {.name = arch_names::mamba, .keys = k_mamba, .tensors = t_mamba, .tensors_complete = true},
    {.name = arch_names::rwkv, .keys = k_rwkv},
    {.name = arch_names::whisper, .keys = k_whisper, .key_infix = "encoder."},
    {.name = arch_names::mamba2, .keys = k_mamba2, .tensors = t_mamba2, .tensors_complete = true},
    {.name = arch_names::rwkv6, .keys = k_rwkv6, .tensors = t_rwkv6, .tensors_complete = true},
    {.name = arch_names::rwkv7, .keys = k_rwkv7, .tensors = t_rwkv7, .tensors_complete = true},
    {.name = arch_names::baichuan, .keys = k_rms, .defaults = baichuan_defaults, .tensors = t_baichuan},
    {.name = arch_names::refact, .keys = k_rms, .defaults = alibi_8, .tensors = t_refact, .tensors_complete = true},
    {.name = arch_names::qwen2, .keys = k_qwen, .tensors = t_qwen2, .tensors_complete = true},
    {.name = arch_names::qwen2moe, .keys = k_qwen2moe, .tensors = t_qwen2moe, .tensors_complete = true},
    {.name = arch_names::qwen3, .keys = k_qwen, .tensors = t_qwen3, .tensors_complete = true},
    {.name = arch_names::phi3, .keys = k_phi3, .tensors = t_phi3, .tensors_complete = true},
    {.name = arch_names::gemma, .keys = k_rms, .tensors = t_gemma},
    {.name = arch_names::gemma2, .keys = k_gemma2, .defaults = gemma2_defaults, .tensors = t_gemma2, .tensors_complete = true},
    {.name = arch_names::gemma3, .keys = k_gemma3, .tensors = t_gemma3},
    {.name = arch_names::gemma4, .keys = k_gemma4, .swa_layers_key = true, .tensors = t_gemma4},
    {.name = arch_names::starcoder2, .keys = k_ln, .tensors = t_starcoder2},
    {.name = arch_names::bert, .keys = k_bert, .tensors = t_bert, .tensors_complete = true},
    {.name = arch_names::nomic_bert, .keys = k_nomic_bert, .tensors = t_nomic_bert},
    {.name = arch_names::nomic_bert_moe, .keys = k_nomic_bert, .tensors = t_nomic_bert_moe},
    {.name = arch_names::t5, .keys = k_t5, .defaults = t5_defaults, .tensors = t_t5, .tensors_complete = true},
    {.name = arch_names::command_r, .keys = k_command_r, .tensors = t_command_r},
    // deepseek2: not complete (newer llama.cpp also loads NextN/MTP blocks): unknown tensors warn.
    {.name = arch_names::deepseek2, .keys = k_deepseek2, .finish = deepseek2_finish, .tensors = t_deepseek2},
};

}  // namespace

std::span<const arch_row> arch_rows() noexcept { return rows; }

}  // namespace gguf::detail
