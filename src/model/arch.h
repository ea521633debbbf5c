// Internal: the shape of one architecture row (keys it reads, tensors it expects).
// The rows themselves are in arch_table.cpp; the tensor groups in tensor_groups.h.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <span>
#include <string_view>
#include <variant>

#include "gguf/model.h"

namespace gguf::detail {

// ---- keys ------------------------------------------------------------------------

/// One `[arch].<suffix>` key read into one hparams field. The field's type says how the
/// value is read: uint32_t a count (any integer type that fits), int32_t an integer in the
/// 32-bit range, float a float32/float64, bool a bool.
struct key_spec {
  using field = std::variant<uint32_t hparams::*, int32_t hparams::*, float hparams::*, bool hparams::*>;
  std::string_view suffix;  ///< after "<arch>.", e.g. "attention.layer_norm_rms_epsilon"
  field into{};
  /// Whether the key is required is a fact of the schema layer's architecture row
  /// (gguf::find_architecture(name)->required, keys.h), not of the binding. When set, the
  /// key is also required when this returns true (deepseek2's q_lora_rank, required except
  /// for the 27-layer "lite" model).
  bool (*required_if)(const hparams&) = nullptr;
};

// ---- tables built from shared runs --------------------------------------------------

template <class T, class P>
consteval size_t run_length() {
  if constexpr (std::is_same_v<P, T>) {
    return 1;
  } else if constexpr (std::is_array_v<P>) {
    return std::extent_v<P>;
  } else {
    return std::tuple_size_v<P>;
  }
}

/// The rows of `parts` (arrays of T, std::arrays of T, or single T) one after the other:
/// a table written as the shared runs it is made of.
template <class T, class... P>
constexpr auto join(const P&... parts) {
  std::array<T, (run_length<T, P>() + ...)> out{};
  size_t i = 0;
  auto put = [&](const auto& part) {
    if constexpr (std::is_same_v<std::remove_cvref_t<decltype(part)>, T>) {
      out[i++] = part;
    } else {
      for (const T& x : part) out[i++] = x;
    }
  };
  (put(parts), ...);
  return out;
}

/// The key `suffix` read into `hparams::*m`.
template <class T>
constexpr key_spec bind_key(std::string_view suffix, T hparams::*m) {
  return key_spec{suffix, m};
}

// ---- tensors -----------------------------------------------------------------------

/// A dimension of an expected tensor shape, computed from the hparams of a layer.
enum class dim : uint8_t {
  one,
  any,            ///< not checked (e.g. token_types: its count is the tokenizer's)
  n_embd,
  n_embd_x2,      ///< 2 * n_embd
  n_vocab,
  n_ctx_train,
  n_ff,
  n_ff_x2,        ///< 2 * n_ff (phi3's fused gate+up)
  // per layer: n_embd_head_k(il) etc. differ on sliding-window layers (gemma4)
  q_dim,          ///< n_embd_head_k * n_head
  o_dim,          ///< n_embd_head_v * n_head
  k_gqa,          ///< n_embd_head_k * n_head_kv
  v_gqa,          ///< n_embd_head_v * n_head_kv
  qkv_dim,        ///< q_dim + k_gqa + v_gqa
  qkv_dim_v,      ///< q_dim + 2 * v_gqa (qwen3's create_tensor_qkv with n_embd_gqa for K and V)
  head_k,         ///< n_embd_head_k(il) (the sliding-window size on a sliding-window layer)
  head_k_full_half,  ///< n_embd_head_k_full / 2 (gemma4's rope_freqs)
  n_embd_per_layer,      ///< embedding_length_per_layer_input (gemma4)
  n_embd_per_layer_all,  ///< n_embd_per_layer * n_layer
  n_head,
  n_head_kv,
  n_rot_half,     ///< n_rot(il) / 2
  n_expert,
  n_ff_exp,       ///< n_ff_exp, or n_ff when 0 (llama's MoE)
  n_ff_exp_x2,    ///< 2 * n_ff_exp (fused gate+up experts)
  ssm_d_inner,
  ssm_d_inner_x2,
  ssm_d_conv,
  ssm_d_state,
  ssm_dt_rank,
  ssm_x_dim,      ///< ssm_dt_rank + 2 * ssm_d_state
  // create_tensor_qkv(n_embd, n_embd, n_embd_gqa, n_embd_gqa) (phi3, qwen2moe):
  v_gqa_qkv,      ///< n_embd + 2 * v_gqa (llama.cpp's n_embd_gqa is n_embd_v_gqa)
  // qwen2moe:
  n_ff_exp_used,  ///< n_ff_exp, or n_ff / n_expert_used when 0
  n_ff_shexp,     ///< n_ff_shexp, or n_ff when 0
  // deepseek2 (multi-head latent attention); head_k_mla / head_v_mla are
  // key_length_mla / value_length_mla when both are set (is_mla), else n_embd_head_k / _v:
  n_lora_q,       ///< attention.q_lora_rank
  n_lora_kv,      ///< attention.kv_lora_rank
  q_dim_mla,      ///< n_head * head_k_mla
  o_dim_mla,      ///< n_head * head_v_mla
  head_v_mla,     ///< head_v_mla
  head_qk_nope,   ///< head_k_mla - n_rot
  kv_a_dim,       ///< kv_lora_rank + n_rot
  kv_b_dim,       ///< n_head * (head_qk_nope + head_v_mla)
  n_ff_shexp_ds,  ///< n_ff_exp * n_expert_shared
  // t5:
  n_rel_attn_bkts,  ///< attention.relative_buckets_count
  // mamba2:
  ssm_n_group,      ///< ssm.group_count
  ssm_conv_dim,     ///< ssm_d_inner + 2 * ssm_n_group * ssm_d_state
  ssm_in_proj_dim,  ///< ssm_d_inner + ssm_conv_dim + ssm_dt_rank
  ssm_group_width,  ///< ssm_d_inner / ssm_n_group
  // rwkv6:
  five,             ///< 5 (rwkv6's five token-shift interpolations w, k, v, r, g)
  time_mix_extra_dim,
  time_mix_extra_dim_x5,  ///< 5 * time_mix_extra_dim
  time_decay_extra_dim,
  wkv_head_size,
  wkv_n_head,       ///< n_embd / wkv_head_size
  // rwkv7:
  six,              ///< 6 (rwkv7's fused token-shift interpolations)
  n_lora_decay,     ///< attention.decay_lora_rank
  n_lora_iclr,      ///< attention.iclr_lora_rank
  n_lora_value_res_mix,  ///< attention.value_residual_mix_lora_rank
  n_lora_gate,      ///< attention.gate_lora_rank
};

/// When a tensor exists.
enum class when : uint8_t {
  always,
  dense,       ///< n_expert == 0
  moe,         ///< n_expert > 0
  qkv_fused,   ///< the file has blk.N.attn_qkv.weight (llama.cpp create_tensor_qkv)
  qkv_split,   ///< it does not: separate attn_q / attn_k / attn_v
  moe_layer,   ///< moe_every_n_layers > 0 and N % moe_every_n_layers == 1 (nomic-bert-moe)
  dense_layer, ///< not a moe_layer
  lead_dense,  ///< N < leading_dense_block_count (deepseek2's dense FFN layers)
  after_lead,  ///< N >= leading_dense_block_count (deepseek2's MoE layers)
  q_lora,      ///< attention.q_lora_rank > 0: attn_q_a / attn_q_a_norm / attn_q_b
  no_q_lora,   ///< q_lora_rank == 0: one attn_q
  mla,         ///< key_length_mla and value_length_mla set: split attn_k_b / attn_v_b
  not_mla,     ///< otherwise one attn_kv_b (older files)
  gate_up_fused,  ///< the file has blk.N.ffn_gate_up_exps.weight (create_tensor_gate_up_exps)
  gate_up_split,  ///< it does not: ffn_gate_exps and ffn_up_exps
  lerp_fused,     ///< the file has blk.N.time_mix_lerp_fused.weight (rwkv6)
  lerp_unfused,   ///< it does not: time_mix_lerp_w is then needed (llama.cpp asserts one exists)
  first_layer,    ///< N == 0 (rwkv7's time_mix_v1/v2 use the iclr rank in block 0)
  later_layer,    ///< N > 0
  swa_layer,      ///< hparams.is_swa(N)
  full_layer,     ///< !is_swa(N)
  any_full_layer, ///< some layer is not a sliding-window one (gemma4's global rope_freqs)
  kv_layer,       ///< hparams.has_kv(N): the layer has its own K/V
  shared_kv_layer,  ///< !has_kv(N) (gemma4's shared-KV layers: attn_k / attn_k_norm optional)
  per_layer_inp,  ///< embedding_length_per_layer_input > 0 (gemma4's per-layer embeddings)
  gate_inp,       ///< the file has blk.N.ffn_gate_inp.weight (gemma4's expert layers)
};

/// Which blocks a per-layer tensor belongs to: "blk.N." for N < block_count, or t5's
/// encoder "enc.blk.N." (N < block_count) and decoder "dec.blk.N." (N < decoder_block_count).
enum class layer_stack : uint8_t { blk, enc, dec };

/// One tensor of an architecture: "name" (global) or "blk.N.name" (per_layer; or
/// "enc.blk.N.name" / "dec.blk.N.name", see `stack`).
struct tensor_spec {
  std::string_view name;  ///< with its ".weight"/".bias" suffix
  bool per_layer = false;
  bool required = true;
  when cond = when::always;
  uint8_t n_dims = 1;
  dim ne[4] = {dim::one, dim::one, dim::one, dim::one};
  when cond2 = when::always;  ///< a second condition, both must hold
  layer_stack stack = layer_stack::blk;
};

// ---- one architecture ----------------------------------------------------------------

/// The model layer's half of an architecture: how its keys bind to hparams fields and
/// which tensors it has. The facts (name, required keys, in the spec or not) are the
/// schema layer's row of the same name (gguf::find_architecture, keys.h).
struct arch_row {
  std::string_view name;  ///< the schema row's name (general.architecture)
  std::span<const key_spec> keys{};  ///< architecture-specific keys, read after the common ones
  /// Sets llama.cpp's per-architecture defaults before the keys are read.
  void (*defaults)(hparams&) = nullptr;
  /// Fixes llama.cpp applies after the keys are read (e.g. a default for a zero value).
  void (*finish)(hparams&) = nullptr;
  bool check_n_rot = false;        ///< llama.cpp: n_rot must equal n_embd_head_k
  /// Reads attention.sliding_window_pattern into swa_layers (llama.cpp get_key_or_arr:
  /// required) and attention.shared_kv_layers (optional) into n_layer_kv_from_start (gemma4).
  bool swa_layers_key = false;
  std::string_view key_infix{};    ///< "encoder." for whisper (whisper.encoder.block_count)
  std::span<const std::span<const tensor_spec>> tensors{};  ///< groups; empty: no table
  bool tensors_complete = false;   ///< unknown tensors are errors (llama.cpp refuses them)
};

std::span<const arch_row> arch_rows() noexcept;

/// Adds a row after the built-in ones (a test's made-up architecture). The schema row of
/// the same name must be registered first (gguf::register_architecture): it gives the
/// required keys and from_spec. `row`'s spans must have static storage. Returns the
/// registry entry, or nullptr when the name has no schema row, already has a model row,
/// or the registry is full (256 rows). Not thread-safe: register before loading models.
const architecture* register_arch_row(const arch_row& row) noexcept;

/// Expected size of `d` for layer `il` (0 when it cannot be computed).
uint64_t dim_value(dim d, const hparams& hp, uint32_t il) noexcept;

}  // namespace gguf::detail
