// Tables of standardized keys, draft key names, architectures, tokenizer models and
// tensor names (GGUF specification, ggml docs/gguf.md; llama.cpp src/llama-arch.cpp,
// src/llama-model.cpp load_hparams, src/llama-vocab.cpp load).
#include <algorithm>
#include <array>
#include <charconv>
#include <vector>

#include "gguf/keys.h"
#include "schema/arch_names.h"

namespace gguf {
namespace {

using vt = value_type;
constexpr type_set b(vt t) { return type_bit(t); }
constexpr type_set str = b(vt::string);
constexpr type_set u32 = b(vt::uint32);
constexpr type_set f32 = b(vt::float32);
constexpr type_set boolean = b(vt::boolean);
constexpr type_set arr = b(vt::array);
constexpr type_set cnt = count_types;
// Per-layer hparams llama.cpp reads with get_key_or_arr: a count or an integer array.
constexpr type_set cnt_or_arr = count_types | arr;

constexpr key_info key_table[] = {
    // General, required
    {"general.architecture", str, 0, "string"},
    {"general.quantization_version", u32, 0, "uint32"},
    {"general.alignment", u32, 0, "uint32"},
    // General metadata
    {"general.name", str, 0, "string"},
    {"general.author", str, 0, "string"},
    {"general.version", str, 0, "string"},
    {"general.organization", str, 0, "string"},
    {"general.basename", str, 0, "string"},
    {"general.finetune", str, 0, "string"},
    {"general.description", str, 0, "string"},
    {"general.quantized_by", str, 0, "string"},
    {"general.size_label", str, 0, "string"},
    {"general.license", str, 0, "string"},
    {"general.license.name", str, 0, "string"},
    {"general.license.link", str, 0, "string"},
    {"general.url", str, 0, "string"},
    {"general.doi", str, 0, "string"},
    {"general.uuid", str, 0, "string"},
    {"general.repo_url", str, 0, "string"},
    {"general.type", str, 0, "string"},
    {"general.tags", arr, str, "array[string]"},
    {"general.languages", arr, str, "array[string]"},
    {"general.datasets", arr, str, "array[string]"},
    {"general.file_type", u32, 0, "uint32"},
    {"general.source.url", str, 0, "string"},
    {"general.source.doi", str, 0, "string"},
    {"general.source.uuid", str, 0, "string"},
    {"general.source.repo_url", str, 0, "string"},
    {"general.base_model.count", u32, 0, "uint32"},
    // LLM
    {"[llm].context_length", cnt, 0, "uint64"},
    {"[llm].embedding_length", cnt, 0, "uint64"},
    {"[llm].block_count", cnt, 0, "uint64"},
    {"[llm].feed_forward_length", cnt_or_arr, integer_types, "uint64"},
    {"[llm].use_parallel_residual", boolean, 0, "bool"},
    {"[llm].tensor_data_layout", str, 0, "string"},
    {"[llm].expert_count", u32, 0, "uint32"},
    {"[llm].expert_used_count", u32, 0, "uint32"},
    {"[llm].vocab_size", cnt, 0, "uint32"},
    // Attention
    {"[llm].attention.head_count", cnt_or_arr, integer_types, "uint64"},
    {"[llm].attention.head_count_kv", cnt_or_arr, integer_types, "uint64"},
    {"[llm].attention.max_alibi_bias", f32, 0, "float32"},
    {"[llm].attention.clamp_kqv", f32, 0, "float32"},
    {"[llm].attention.layer_norm_epsilon", f32, 0, "float32"},
    {"[llm].attention.layer_norm_rms_epsilon", f32, 0, "float32"},
    {"[llm].attention.key_length", u32, 0, "uint32"},
    {"[llm].attention.value_length", u32, 0, "uint32"},
    {"[llm].attention.causal", boolean, 0, "bool"},
    // RoPE
    {"[llm].rope.dimension_count", cnt, 0, "uint64"},
    {"[llm].rope.freq_base", f32, 0, "float32"},
    {"[llm].rope.scaling.type", str, 0, "string"},
    {"[llm].rope.scaling.factor", f32, 0, "float32"},
    {"[llm].rope.scaling.original_context_length", u32, 0, "uint32"},
    {"[llm].rope.scaling.finetuned", boolean, 0, "bool"},
    {"[llm].rope.scale_linear", f32, 0, "float32"},
    // SSM
    {"[llm].ssm.conv_kernel", u32, 0, "uint32"},
    {"[llm].ssm.inner_size", u32, 0, "uint32"},
    {"[llm].ssm.state_size", u32, 0, "uint32"},
    {"[llm].ssm.time_step_rank", u32, 0, "uint32"},
    // RWKV, Whisper
    {"rwkv.architecture_version", u32, 0, "uint32"},
    {"whisper.encoder.mels_count", cnt, 0, "uint64"},
    // Tokenizer
    {"tokenizer.ggml.model", str, 0, "string"},
    {"tokenizer.ggml.pre", str, 0, "string"},
    {"tokenizer.ggml.tokens", arr, str, "array[string]"},
    {"tokenizer.ggml.scores", arr, f32, "array[float32]"},
    {"tokenizer.ggml.token_type", arr, b(vt::int32), "array[int32]"},
    {"tokenizer.ggml.merges", arr, str, "array[string]"},
    {"tokenizer.ggml.added_tokens", arr, str, "array[string]"},
    {"tokenizer.ggml.bos_token_id", u32, 0, "uint32"},
    {"tokenizer.ggml.eos_token_id", u32, 0, "uint32"},
    {"tokenizer.ggml.unknown_token_id", u32, 0, "uint32"},
    {"tokenizer.ggml.separator_token_id", u32, 0, "uint32"},
    {"tokenizer.ggml.seperator_token_id", u32, 0, "uint32"},
    {"tokenizer.ggml.padding_token_id", u32, 0, "uint32"},
    {"tokenizer.ggml.cls_token_id", u32, 0, "uint32"},
    {"tokenizer.ggml.mask_token_id", u32, 0, "uint32"},
    {"tokenizer.ggml.eot_token_id", u32, 0, "uint32"},
    {"tokenizer.ggml.eom_token_id", u32, 0, "uint32"},
    {"tokenizer.ggml.add_bos_token", boolean, 0, "bool"},
    {"tokenizer.ggml.add_eos_token", boolean, 0, "bool"},
    {"tokenizer.ggml.add_space_prefix", boolean, 0, "bool"},
    {"tokenizer.ggml.remove_extra_whitespaces", boolean, 0, "bool"},
    {"tokenizer.ggml.precompiled_charsmap", arr, 0, "array[uint8]"},
    {"tokenizer.ggml.token_type_count", u32, 0, "uint32"},
    {"tokenizer.huggingface.json", str, 0, "string"},
    {"tokenizer.rwkv.world", str, 0, "string"},
    {"tokenizer.chat_template", str, 0, "string"},
};

constexpr renamed_key renamed_table[] = {
    {"[llm].hidden_size", "[llm].embedding_length", false},
    {"[llm].num_layers", "[llm].block_count", false},
    {"[llm].n_layers", "[llm].block_count", false},
    {"[llm].attention.num_heads", "[llm].attention.head_count", false},
    {"[llm].attention.num_heads_kv", "[llm].attention.head_count_kv", false},
    {"[llm].num_heads", "[llm].attention.head_count", false},
    {"tokenizer.embedded.", "tokenizer.ggml.", true},
};

// ---- architectures ----------------------------------------------------------------
// The three keys llama.cpp's load_hparams reads for every architecture.
#define GGUF_CORE "context_length", "embedding_length", "block_count"

using sv = std::string_view;
constexpr sv req_rms[] = {GGUF_CORE, "attention.layer_norm_rms_epsilon"};
constexpr sv req_eps[] = {GGUF_CORE, "attention.layer_norm_epsilon"};
constexpr sv req_mpt[] = {GGUF_CORE, "attention.layer_norm_epsilon", "attention.max_alibi_bias"};
constexpr sv req_gptneox[] = {GGUF_CORE, "attention.layer_norm_epsilon", "use_parallel_residual"};
constexpr sv req_mamba[] = {GGUF_CORE, "ssm.conv_kernel", "ssm.inner_size", "ssm.state_size",
                            "ssm.time_step_rank", "attention.layer_norm_rms_epsilon"};
constexpr sv req_gemma3[] = {GGUF_CORE, "attention.sliding_window", "attention.layer_norm_rms_epsilon"};
// gemma4: llama.cpp reads these with get_key / get_key_or_arr, required.
constexpr sv req_gemma4[] = {GGUF_CORE,
                             "attention.sliding_window_pattern",
                             "attention.sliding_window",
                             "attention.layer_norm_rms_epsilon",
                             "embedding_length_per_layer_input",
                             "attention.key_length_swa",
                             "attention.value_length_swa"};
constexpr sv req_bert[] = {GGUF_CORE, "attention.layer_norm_epsilon", "attention.causal"};
constexpr sv req_nomic[] = {GGUF_CORE, "attention.layer_norm_epsilon", "attention.causal", "pooling_type"};
constexpr sv req_t5[] = {GGUF_CORE, "attention.layer_norm_rms_epsilon", "attention.relative_buckets_count"};
constexpr sv req_command_r[] = {GGUF_CORE, "logit_scale", "attention.layer_norm_epsilon"};
constexpr sv req_deepseek2[] = {GGUF_CORE,
                                "attention.layer_norm_rms_epsilon",
                                "leading_dense_block_count",
                                "attention.kv_lora_rank",
                                "expert_feed_forward_length",
                                "expert_shared_count",
                                "expert_weights_scale"};

// Spec sections ("LLM" / "Models"): keys listed but not required by llama.cpp.
constexpr sv spec_llama[] = {"feed_forward_length", "rope.dimension_count", "attention.head_count"};
constexpr sv spec_mpt[] = {"attention.head_count", "attention.alibi_bias_max", "attention.clip_kqv"};
constexpr sv spec_gptneox[] = {"rope.dimension_count", "attention.head_count"};
constexpr sv spec_gptj[] = {"rope.dimension_count", "attention.head_count"};
constexpr sv spec_gpt2[] = {"attention.head_count"};
constexpr sv spec_bloom[] = {"feed_forward_length", "attention.head_count"};
constexpr sv spec_falcon[] = {"attention.head_count", "attention.head_count_kv", "attention.use_norm"};
constexpr sv spec_rwkv[] = {"architecture_version", GGUF_CORE, "feed_forward_length"};
constexpr sv spec_whisper[] = {"encoder.context_length",  "encoder.embedding_length",
                               "encoder.block_count",     "encoder.mels_count",
                               "encoder.attention.head_count", "decoder.context_length",
                               "decoder.embedding_length", "decoder.block_count",
                               "decoder.attention.head_count"};
// Architectures only the model loader reads yet (validate reports them as unknown: their
// tensor names are not in the standard list below). llama.cpp load_hparams.
constexpr sv req_mamba2[] = {GGUF_CORE,        "ssm.conv_kernel",   "ssm.inner_size",
                             "ssm.state_size", "ssm.time_step_rank", "ssm.group_count",
                             "attention.layer_norm_rms_epsilon"};
constexpr sv req_rwkv6[] = {GGUF_CORE, "wkv.head_size", "time_mix_extra_dim", "time_decay_extra_dim"};
constexpr sv req_rwkv7[] = {GGUF_CORE, "wkv.head_size", "attention.decay_lora_rank", "attention.iclr_lora_rank",
                            "attention.value_residual_mix_lora_rank"};
#undef GGUF_CORE

constexpr arch_info arch_table[] = {
    {arch_names::llama, req_rms, spec_llama, true},
    {arch_names::mpt, req_mpt, spec_mpt, true},
    {arch_names::gptneox, req_gptneox, spec_gptneox, true},
    {arch_names::gptj, req_eps, spec_gptj, true},
    {arch_names::gpt2, req_eps, spec_gpt2, true},
    {arch_names::bloom, req_eps, spec_bloom, true},
    {arch_names::falcon, req_eps, spec_falcon, true},
    {arch_names::mamba, req_mamba, {}, true},
    {arch_names::rwkv, {}, spec_rwkv, true},
    {arch_names::whisper, {}, spec_whisper, true},
    {arch_names::qwen2, req_rms, {}, false},
    {arch_names::qwen3, req_rms, {}, false},
    {arch_names::phi3, req_rms, {}, false},
    {arch_names::gemma, req_rms, {}, false},
    {arch_names::gemma2, req_rms, {}, false},
    {arch_names::gemma3, req_gemma3, {}, false},
    {arch_names::gemma4, req_gemma4, {}, false},
    {arch_names::starcoder2, req_eps, {}, false},
    {arch_names::bert, req_bert, {}, false},
    {arch_names::nomic_bert, req_nomic, {}, false},
    {arch_names::nomic_bert_moe, req_nomic, {}, false},
    {arch_names::t5, req_t5, {}, false},
    {arch_names::command_r, req_command_r, {}, false},
    {arch_names::deepseek2, req_deepseek2, {}, false},
    {arch_names::mamba2, req_mamba2, {}, false, false},
    {arch_names::rwkv6, req_rwkv6, {}, false, false},
    {arch_names::rwkv7, req_rwkv7, {}, false, false},
    {arch_names::baichuan, req_rms, {}, false, false},
    {arch_names::refact, req_rms, {}, false, false},
    {arch_names::qwen2moe, req_rms, {}, false, false},
};

constexpr std::string_view special_keys[] = {
    "tokenizer.ggml.bos_token_id",     "tokenizer.ggml.eos_token_id",  "tokenizer.ggml.unknown_token_id",
    "tokenizer.ggml.separator_token_id", "tokenizer.ggml.seperator_token_id",
    "tokenizer.ggml.padding_token_id", "tokenizer.ggml.cls_token_id",  "tokenizer.ggml.mask_token_id",
    "tokenizer.ggml.eot_token_id",     "tokenizer.ggml.eom_token_id",
};

// Tensor base names: spec "Standardized tensor names" plus llama.cpp's llm_tensor names.
constexpr std::string_view base_tensors[] = {
    "token_embd", "token_embd_norm", "token_types", "pos_embd", "output_norm", "output",
    "rope_freqs", "rope_factors_long", "rope_factors_short", "cls", "cls.output", "enc.output_norm",
    "dec.output_norm",
};
constexpr std::string_view block_tensors[] = {
    "attn_norm", "attn_norm_2", "attn_qkv", "attn_q", "attn_k", "attn_v", "attn_output",
    "attn_q_norm", "attn_k_norm", "attn_output_norm", "attn_post_norm", "attn_sinks", "attn_rot_embd",
    "attn_q_a", "attn_q_b", "attn_kv_a_mqa", "attn_kv_b", "attn_q_a_norm", "attn_kv_a_norm",
    "attn_k_b", "attn_v_b", "attn_rel_b", "attn_sub_norm", "ffn_norm", "ffn_post_norm", "ffn_gate",
    "ffn_up", "ffn_down", "ffn_gate_inp", "ffn_gate_exp", "ffn_down_exp", "ffn_up_exp",
    "ffn_gate_exps", "ffn_down_exps", "ffn_up_exps", "ffn_gate_shexp", "ffn_up_shexp",
    "ffn_down_shexp", "ffn_gate_inp_shexp", "ffn_exp_probs_b", "ffn_sub_norm", "ffn_act",
    "layer_output_norm", "post_attention_norm", "post_ffw_norm", "ssm_in", "ssm_conv1d", "ssm_x",
    "ssm_a", "ssm_d", "ssm_dt", "ssm_out", "ssm_norm",
};

bool ends_with_param_suffix(std::string_view& name) {
  for (std::string_view suf : {".weight", ".bias", ".scale"}) {
    if (name.size() > suf.size() && name.substr(name.size() - suf.size()) == suf) {
      name.remove_suffix(suf.size());
      return true;
    }
  }
  return false;
}

template <class Range>
bool contains(const Range& r, std::string_view s) {
  return std::find(std::begin(r), std::end(r), s) != std::end(r);
}

}  // namespace

std::span<const key_info> standard_keys() noexcept { return key_table; }

const key_info* find_standard_key(std::string_view key, std::string_view arch) noexcept {
  std::string_view rest;
  bool arch_key = !arch.empty() && key.size() > arch.size() + 1 && key.substr(0, arch.size()) == arch &&
                  key[arch.size()] == '.';
  if (arch_key) rest = key.substr(arch.size() + 1);
  for (const auto& k : key_table) {
    if (k.name == key) return &k;
    if (arch_key && k.name.size() > 6 && k.name.substr(0, 6) == "[llm]." && k.name.substr(6) == rest) return &k;
  }
  return nullptr;
}

std::span<const renamed_key> renamed_keys() noexcept { return renamed_table; }

std::string renamed_key_for(std::string_view key, std::string_view arch) {
  for (const auto& r : renamed_table) {
    if (r.prefix) {
      if (key.substr(0, r.old_name.size()) == r.old_name)
        return std::string(r.new_name) + std::string(key.substr(r.old_name.size()));
      continue;
    }
    std::string_view tail = r.old_name.substr(6);  // after "[llm]."
    // The draft names appear under the file's architecture, or under any prefix when
    // general.architecture is absent.
    if (key.size() <= tail.size() + 1 || key.substr(key.size() - tail.size()) != tail ||
        key[key.size() - tail.size() - 1] != '.')
      continue;
    std::string_view prefix = key.substr(0, key.size() - tail.size() - 1);
    if (!arch.empty() && prefix != arch) continue;
    if (prefix.find('.') != std::string_view::npos) continue;
    return std::string(prefix) + "." + std::string(r.new_name.substr(6));
  }
  return {};
}

namespace {
// The built-in rows followed by those register_architecture added. The capacity is fixed
// so that a registration never moves a row another thread or caller points to.
constexpr size_t max_architectures = 256;
std::vector<arch_info>& arch_registry() {
  static std::vector<arch_info> v = [] {
    std::vector<arch_info> r;
    r.reserve(max_architectures);
    r.assign(std::begin(arch_table), std::end(arch_table));
    return r;
  }();
  return v;
}
}  // namespace

std::span<const arch_info> architectures() noexcept { return arch_registry(); }

const arch_info* find_architecture(std::string_view name) noexcept {
  for (const auto& a : arch_registry())
    if (a.name == name) return &a;
  return nullptr;
}

const arch_info* register_architecture(const arch_info& row) noexcept {
  auto& v = arch_registry();
  if (row.name.empty() || find_architecture(row.name) || v.size() == v.capacity()) return nullptr;
  v.push_back(row);
  return &v.back();
}

std::string_view tokenizer_vocab_type(std::string_view m) noexcept {
  const tokenizer_model_info* row = find_tokenizer_model(m);
  return row ? row->type_name : std::string_view{};
}

std::span<const std::string_view> special_token_keys() noexcept { return special_keys; }

bool is_standard_tensor_name(std::string_view name) noexcept {
  if (!ends_with_param_suffix(name)) return false;
  if (contains(base_tensors, name)) return true;
  for (std::string_view pre : {"blk.", "enc.blk.", "dec.blk."}) {
    if (name.substr(0, pre.size()) != pre) continue;
    std::string_view rest = name.substr(pre.size());
    size_t i = 0;
    while (i < rest.size() && rest[i] >= '0' && rest[i] <= '9') ++i;
    if (i == 0 || i >= rest.size() || rest[i] != '.') return false;
    std::string_view bb = rest.substr(i + 1);
    // Per-expert tensors of the spec: ffn_gate.E / ffn_down.E / ffn_up.E are also seen.
    return contains(block_tensors, bb);
  }
  return false;
}

}  // namespace gguf
