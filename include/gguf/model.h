// gguf/model.h — llama.cpp's model loading stage without the compute: the architecture
// registry, the hyperparameters (hparams) read from `[arch].*` keys, and the tensor map
// (standardized tensor names matched against shapes computed from the hparams).
//
//   auto f = gguf::file::open("model.gguf").value();
//   auto m = gguf::model::load(f);                    // result<model>
//   if (!m) std::cerr << m.error().message();         // invalid_model / unsupported
//   m->hparams().n_embd;                              // 4096
//   for (const auto& d : m->diagnostics()) ...        // missing / unknown / wrong shape
//
// Sources: llama.cpp src/llama-model.cpp (llama_model::load_hparams: which keys are read,
// which are required, their defaults; load_tensors: tensor shapes), src/llama-arch.cpp
// (key and tensor names), src/llama-hparams.h (field names), and the GGUF specification
// (ggml docs/gguf.md, "LLM" and "Whisper" sections) for the spec-only architectures.
// An architecture is one facts row in src/schema/keys.cpp (name, required keys; shared with
// gguf validate) and one bindings row of the same name in src/model/arch_table.cpp
// (key -> hparams field, defaults, tensors); see docs/adding-an-architecture.md.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gguf/error.h"
#include "gguf/file.h"
#include "gguf/schema.h"  // gguf::severity

#pragma GCC visibility push(default)  // public API: exported from the shared library
namespace gguf {

/// llama.cpp's LLAMA_MAX_LAYERS: block_count and per-layer arrays above it are refused.
inline constexpr uint32_t max_layers = 512;
/// llama.cpp's LLAMA_MAX_EXPERTS.
inline constexpr uint32_t max_experts = 512;

/// llama.cpp's llama_rope_scaling_type, from `[arch].rope.scaling.type`.
enum class rope_scaling_type : uint8_t { none, linear, yarn, longrope };
/// "none" "linear" "yarn" "longrope".
std::string_view rope_scaling_type_name(rope_scaling_type t) noexcept;

/// Hyperparameters, with llama.cpp's names (llama_hparams) and llama.cpp's defaults.
/// Counts are uint32 as in llama.cpp; the file may store them as any integer type whose
/// value fits (the spec allows uint32 or uint64 for counts).
struct hparams {
  bool vocab_only = false;  ///< the file has no tensors: missing required keys are not errors

  uint32_t n_ctx_train = 0;  ///< [arch].context_length
  uint32_t n_embd = 0;       ///< [arch].embedding_length
  uint32_t n_layer = 0;      ///< [arch].block_count
  uint32_t n_vocab = 0;      ///< [arch].vocab_size, else the length of tokenizer.ggml.tokens

  /// Per layer (n_layer entries, or 1 entry when n_layer is 0): [arch].attention.head_count,
  /// .head_count_kv (defaults to head_count), .feed_forward_length; a scalar key fills
  /// every layer, an array gives one value per layer.
  std::vector<uint32_t> n_head_arr, n_head_kv_arr, n_ff_arr;
  uint32_t n_head(uint32_t il = 0) const noexcept { return at(n_head_arr, il); }
  uint32_t n_head_kv(uint32_t il = 0) const noexcept { return at(n_head_kv_arr, il); }
  uint32_t n_ff(uint32_t il = 0) const noexcept { return at(n_ff_arr, il); }
  /// n_embd_head_k(il) * n_head_kv(il): the width of a layer's K projection.
  uint32_t n_embd_k_gqa(uint32_t il = 0) const noexcept { return n_embd_head_k(il) * n_head_kv(il); }
  uint32_t n_embd_v_gqa(uint32_t il = 0) const noexcept { return n_embd_head_v(il) * n_head_kv(il); }

  /// Head sizes and rotary dimensions of full-attention layers (llama.cpp's *_full) and of
  /// sliding-window layers (*_swa, which default to the full values). The per-layer
  /// accessors below pick one by is_swa(il).
  uint32_t n_embd_head_k_full = 0;  ///< [arch].attention.key_length, default n_embd / n_head
  uint32_t n_embd_head_v_full = 0;  ///< [arch].attention.value_length, default n_embd / n_head
  uint32_t n_rot_full = 0;          ///< [arch].rope.dimension_count, default n_embd_head_k_full
  uint32_t n_embd_head_k_swa = 0;   ///< [arch].attention.key_length_swa, default n_embd_head_k_full
  uint32_t n_embd_head_v_swa = 0;   ///< [arch].attention.value_length_swa, default n_embd_head_v_full
  uint32_t n_rot_swa = 0;           ///< [arch].rope.dimension_count_swa, default n_rot_full
  uint32_t n_embd_head_k(uint32_t il = 0) const noexcept { return is_swa(il) ? n_embd_head_k_swa : n_embd_head_k_full; }
  uint32_t n_embd_head_v(uint32_t il = 0) const noexcept { return is_swa(il) ? n_embd_head_v_swa : n_embd_head_v_full; }
  uint32_t n_rot(uint32_t il = 0) const noexcept { return is_swa(il) ? n_rot_swa : n_rot_full; }

  /// Sliding-window layers: one flag per layer (n_layer entries; empty when the
  /// architecture has no per-layer pattern, then no layer is a sliding-window one), from
  /// [arch].attention.sliding_window_pattern (an array of bools, or one value for all
  /// layers; llama.cpp's swa_layers).
  std::vector<uint8_t> swa_layers;
  bool is_swa(uint32_t il) const noexcept { return il < swa_layers.size() && swa_layers[il] != 0; }
  /// If >= 0, only the first n_layer_kv_from_start layers have their own K/V (the others
  /// reuse earlier layers' caches): n_layer - [arch].attention.shared_kv_layers (gemma4).
  int32_t n_layer_kv_from_start = -1;
  bool has_kv(uint32_t il) const noexcept {
    return n_layer_kv_from_start < 0 || il < static_cast<uint32_t>(n_layer_kv_from_start);
  }
  /// [arch].embedding_length_per_layer_input: width of gemma4's per-layer token
  /// embeddings (0: none).
  uint32_t n_embd_per_layer = 0;

  float f_norm_eps = 0.0f;      ///< [arch].attention.layer_norm_epsilon
  float f_norm_rms_eps = 0.0f;  ///< [arch].attention.layer_norm_rms_epsilon

  float rope_freq_base_train = 10000.0f;  ///< [arch].rope.freq_base
  /// [arch].rope.freq_base_swa (sliding-window layers), default rope_freq_base_train.
  float rope_freq_base_train_swa = 10000.0f;
  /// 1 / [arch].rope.scaling.factor, or 1 / the old [arch].rope.scale_linear; 1 if absent or 0.
  float rope_freq_scale_train = 1.0f;
  rope_scaling_type rope_scaling_type_train = rope_scaling_type::linear;  ///< .rope.scaling.type
  float rope_attn_factor = 1.0f;  ///< [arch].rope.scaling.attn_factor
  uint32_t n_ctx_orig_yarn = 0;   ///< .rope.scaling.original_context_length, default n_ctx_train
  bool rope_finetuned = false;    ///< [arch].rope.scaling.finetuned

  uint32_t n_expert = 0;         ///< [arch].expert_count
  uint32_t n_expert_used = 0;    ///< [arch].expert_used_count
  uint32_t n_expert_shared = 0;  ///< [arch].expert_shared_count
  uint32_t n_ff_exp = 0;         ///< [arch].expert_feed_forward_length
  uint32_t n_ff_shexp = 0;       ///< [arch].expert_shared_feed_forward_length
  uint32_t n_layer_dense_lead = 0;  ///< [arch].leading_dense_block_count
  float expert_weights_scale = 0.0f;  ///< [arch].expert_weights_scale
  bool expert_weights_norm = false;   ///< [arch].expert_weights_norm
  uint32_t expert_gating_func = 0;    ///< [arch].expert_gating_func (0 none, 1 softmax, 2 sigmoid)
  uint32_t moe_every_n_layers = 0;    ///< [arch].moe_every_n_layers
  uint32_t n_lora_q = 0;   ///< [arch].attention.q_lora_rank
  uint32_t n_lora_kv = 0;  ///< [arch].attention.kv_lora_rank
  uint32_t n_embd_head_k_mla = 0;  ///< [arch].attention.key_length_mla
  uint32_t n_embd_head_v_mla = 0;  ///< [arch].attention.value_length_mla

  uint32_t ssm_d_conv = 0;   ///< [arch].ssm.conv_kernel
  uint32_t ssm_d_inner = 0;  ///< [arch].ssm.inner_size
  uint32_t ssm_d_state = 0;  ///< [arch].ssm.state_size
  uint32_t ssm_dt_rank = 0;  ///< [arch].ssm.time_step_rank
  uint32_t ssm_n_group = 0;  ///< [arch].ssm.group_count
  bool ssm_dt_b_c_rms = false;  ///< [arch].ssm.dt_b_c_rms

  uint32_t wkv_head_size = 0;           ///< [arch].wkv.head_size
  uint32_t time_mix_extra_dim = 0;      ///< [arch].time_mix_extra_dim
  uint32_t time_decay_extra_dim = 0;    ///< [arch].time_decay_extra_dim
  uint32_t rescale_every_n_layers = 0;  ///< [arch].rescale_every_n_layers
  uint32_t token_shift_count = 2;       ///< [arch].token_shift_count
  uint32_t n_lora_decay = 0;            ///< [arch].attention.decay_lora_rank
  uint32_t n_lora_iclr = 0;             ///< [arch].attention.iclr_lora_rank
  uint32_t n_lora_value_res_mix = 0;    ///< [arch].attention.value_residual_mix_lora_rank
  uint32_t n_lora_gate = 0;             ///< [arch].attention.gate_lora_rank

  bool causal_attn = true;       ///< [arch].attention.causal
  uint32_t pooling_type = 0;     ///< [arch].pooling_type (llama_pooling_type; 0 none)
  bool use_par_res = false;      ///< [arch].use_parallel_residual
  float f_clamp_kqv = 0.0f;      ///< [arch].attention.clamp_kqv
  float f_max_alibi_bias = 0.0f; ///< [arch].attention.max_alibi_bias (8 for bloom/refact/baichuan-13B)
  float f_logit_scale = 0.0f;    ///< [arch].logit_scale
  float f_attn_logit_softcapping = 50.0f;   ///< [arch].attn_logit_softcapping
  float f_final_logit_softcapping = 30.0f;  ///< [arch].final_logit_softcapping
  uint32_t n_swa = 0;            ///< [arch].attention.sliding_window
  uint32_t n_rel_attn_bkts = 0;  ///< [arch].attention.relative_buckets_count (t5)
  uint32_t dec_n_layer = 0;      ///< [arch].decoder_block_count (t5), default n_layer
  int32_t dec_start_token_id = -1;  ///< [arch].decoder_start_token_id (t5)

  /// rwkv.architecture_version (spec only: the RWKV version; the spec allows only 4).
  uint32_t architecture_version = 0;

  // Whisper (spec only; not a llama.cpp architecture): encoder fields are n_ctx_train,
  // n_embd, n_layer, n_head (from whisper.encoder.*); the decoder's are these.
  uint32_t n_mels = 0;        ///< whisper.encoder.mels_count
  uint32_t dec_n_ctx = 0;     ///< whisper.decoder.context_length
  uint32_t dec_n_embd = 0;    ///< whisper.decoder.embedding_length
  uint32_t dec_n_head = 0;    ///< whisper.decoder.attention.head_count

 private:
  static uint32_t at(const std::vector<uint32_t>& v, uint32_t il) noexcept {
    return il < v.size() ? v[il] : 0;
  }
};

namespace detail {
struct arch_row;
}

/// One architecture of the registry.
struct architecture {
  std::string_view name;     ///< the value of general.architecture, e.g. "llama"
  bool from_spec = false;    ///< one of the GGUF specification's architectures
  bool has_tensor_table = false;  ///< its tensor names and shapes are known (tensor map)
  const detail::arch_row* row = nullptr;  ///< internal
};

/// Every architecture the registry knows, in table order.
std::span<const architecture> model_architectures() noexcept;
/// The architecture named `name` (general.architecture), or nullptr.
const architecture* find_model_architecture(std::string_view name) noexcept;

/// Reads the hparams of `f`'s architecture as llama.cpp's load_hparams does.
/// A file without tensors is vocab-only (as llama.cpp's vocab_only load): the keys that
/// are present are read and checked, missing required keys are allowed.
/// Errors (with the key and its byte offset):
///  - invalid_model: general.architecture missing or not a string; a required key missing;
///    a key of the wrong type (counts: any integer type whose value fits uint32; floats:
///    float32 or float64; flags: bool); a per-layer array whose length is not n_layer;
///    block_count above max_layers, or above the blk.N tensors present; n_embd not
///    divisible by n_head (without attention.key_length); n_rot != n_embd_head_k for
///    llama/falcon; expert counts out of range; unknown rope.scaling.type; a negative or
///    non-finite epsilon.
///  - unsupported: an architecture the registry does not know ("unknown model
///    architecture: 'x'", as llama.cpp).
result<gguf::hparams> load_hparams(const file& f, const architecture& arch);

// How a tensor-map finding counts: gguf::severity of schema.h (a model diagnostic is a
// warning or an error, never a note).

/// One problem found while matching the file's tensors to the architecture's table.
struct model_diagnostic {
  gguf::severity severity = severity::error;
  errc code = errc::invalid_model;
  std::string tensor;            ///< tensor name
  uint64_t offset = no_offset;   ///< byte offset of the tensor info, if the tensor exists
  std::string message;           ///< e.g. "missing required tensor", "wrong shape ..."
};

/// One tensor of the architecture's table, instantiated for a layer.
struct model_tensor {
  std::string name;        ///< e.g. "blk.3.attn_q.weight"
  int32_t layer = -1;      ///< block index, -1 outside the blocks
  uint32_t n_dims = 0;
  std::array<uint64_t, 4> ne{1, 1, 1, 1};  ///< expected shape (from the hparams)
  bool required = true;
  const tensor_info* info = nullptr;  ///< the file's tensor, or nullptr when absent
};

/// A loaded model: architecture, hparams, tensor map.
class model {
 public:
  /// Loads the architecture and hparams (errors as load_hparams; a file without
  /// general.architecture: invalid_model), then matches the tensors. Tensor problems do
  /// not fail the load: they are collected in diagnostics(), with the severity llama.cpp
  /// gives them (a missing required tensor, a wrong shape and, for architectures whose
  /// table is complete, a tensor the architecture does not use are errors: llama.cpp
  /// refuses such files; missing optional tensors are not reported).
  static result<model> load(const file& f);

  const gguf::file& gguf_file() const noexcept { return file_; }
  const gguf::architecture& arch() const noexcept { return *arch_; }
  const gguf::hparams& hparams() const noexcept { return hparams_; }
  /// The table's tensors (empty for vocab-only files and architectures without a table).
  std::span<const model_tensor> tensors() const noexcept { return tensors_; }
  std::span<const model_diagnostic> diagnostics() const noexcept { return diagnostics_; }
  /// The first error-severity diagnostic as an error, or ok (llama.cpp would load it).
  result<void> check() const;

  /// Sum of nelements over every tensor of the file (llama.cpp's model.n_elements).
  uint64_t n_params() const noexcept;

  /// token_embd.weight, checked to be [n_embd, n_vocab] (ne[0] = n_embd).
  /// Errors: tensor_not_found, invalid_model (wrong shape).
  result<const tensor_info*> token_embd() const;

  /// Token embeddings: fills out[i * n_embd .. (i + 1) * n_embd) with row ids[i] of
  /// token_embd.weight, dequantized straight from the mapped file (ggml_get_rows, bit for
  /// bit as ggml's to_float). `out.size()` must be ids.size() * n_embd, where n_embd is
  /// token_embd's ne[0]. For text, tokenize with gguf::vocab first (see `gguf embed`).
  /// Errors: those of token_embd(); out_of_range for an id outside [0, n_vocab);
  /// invalid_argument for a wrong out.size(); unsupported for a type without a kernel.
  result<void> get_token_embeddings(std::span<const int32_t> ids, std::span<float> out) const;

 private:
  explicit model(gguf::file f) : file_(std::move(f)) {}
  gguf::file file_;
  const architecture* arch_ = nullptr;
  gguf::hparams hparams_;
  std::vector<model_tensor> tensors_;
  std::vector<model_diagnostic> diagnostics_;
};

/// The hparams as one JSON object (text), in llama.cpp's names and in this order:
/// n_ctx_train n_embd n_layer n_head n_head_kv n_ff (one number when every layer has the
/// same value, else an array of n_layer), n_rot n_embd_head_k n_embd_head_v n_vocab
/// f_norm_eps f_norm_rms_eps rope_freq_base_train rope_freq_scale_train rope_scaling_type
/// ("none" "linear" "yarn" "longrope") n_expert n_expert_used; then, only when set: n_swa,
/// the sliding-window fields (n_embd_head_k_swa n_embd_head_v_swa n_rot_swa
/// rope_freq_base_train_swa swa_layers, an array of bools), n_layer_kv_from_start,
/// n_embd_per_layer, architecture_version, the ssm_* fields. Floats are float32 values
/// printed as the double they widen to. `gguf info --json` prints it as "hparams"; Python's
/// Model.hparams returns it as a dict.
///
///   auto j = nlohmann::json::parse(gguf::hparams_json(m->hparams()));   // j["n_embd"]
std::string hparams_json(const hparams& hp);

/// Adds one error diagnostic to `r` when llama.cpp's loader would refuse `f` (what
/// `gguf validate`, the editing commands' "no new errors" check and ggufkit.edit add to
/// gguf::validate's rules; issue 29, item 4):
///  - rule "loader.vocab": gguf::vocab::load fails (unknown pre-tokenizer, missing merges,
///    arrays shorter than the vocabulary, a key of the wrong type, ...) for a file with a
///    tokenizer, or a file with tensors of a registry architecture has no tokenizer.ggml.model
///    (llama.cpp loads the vocabulary of every model);
///  - rule "loader.model": for a file with tensors whose architecture the registry knows
///    (find_model_architecture), the data section does not start at a multiple of 32 (ggml's
///    CPU buffer asserts it), or model::load / model::check fails (missing hparams or tensors,
///    wrong shapes).
/// Nothing is added when `r` already has an error (the schema's error says why), for a later
/// shard of a split model (split.no > 0), and the model check is skipped for any shard of a
/// split (its model is the whole set, see open_model).
void add_loader_diagnostics(const file& f, report& r);

}  // namespace gguf
#pragma GCC visibility pop
