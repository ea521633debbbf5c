// The registry lookup, the tensor map (expected names and shapes against the file's
// tensors, as llama.cpp's load_tensors checks them), and gguf::model.
#include <algorithm>
#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "arch.h"
#include "gguf/keys.h"
#include "gguf/quant.h"

namespace gguf {

namespace detail {

namespace {
// llama.cpp llama_hparams::is_mla / n_embd_head_k_mla / n_embd_head_v_mla.
bool is_mla(const hparams& hp) { return hp.n_embd_head_k_mla != 0 && hp.n_embd_head_v_mla != 0; }
uint64_t head_k_mla(const hparams& hp) { return is_mla(hp) ? hp.n_embd_head_k_mla : hp.n_embd_head_k_full; }
uint64_t head_v_mla(const hparams& hp) { return is_mla(hp) ? hp.n_embd_head_v_mla : hp.n_embd_head_v_full; }
}  // namespace

uint64_t dim_value(dim d, const hparams& hp, uint32_t il) noexcept {
  const uint64_t n_head = hp.n_head(il);
  switch (d) {
    case dim::one: return 1;
    case dim::any: return 0;
    case dim::n_embd: return hp.n_embd;
    case dim::n_embd_x2: return 2ull * hp.n_embd;
    case dim::n_vocab: return hp.n_vocab;
    case dim::n_ctx_train: return hp.n_ctx_train;
    case dim::n_ff: return hp.n_ff(il);
    case dim::n_ff_x2: return 2ull * hp.n_ff(il);
    case dim::q_dim: return uint64_t{hp.n_embd_head_k(il)} * n_head;
    case dim::o_dim: return uint64_t{hp.n_embd_head_v(il)} * n_head;
    case dim::k_gqa: return uint64_t{hp.n_embd_head_k(il)} * hp.n_head_kv(il);
    case dim::v_gqa: return uint64_t{hp.n_embd_head_v(il)} * hp.n_head_kv(il);
    case dim::qkv_dim:
      return uint64_t{hp.n_embd_head_k(il)} * n_head + uint64_t{hp.n_embd_head_k(il)} * hp.n_head_kv(il) +
             uint64_t{hp.n_embd_head_v(il)} * hp.n_head_kv(il);
    case dim::qkv_dim_v:
      return uint64_t{hp.n_embd_head_k(il)} * n_head + 2ull * hp.n_embd_head_v(il) * hp.n_head_kv(il);
    case dim::head_k: return hp.n_embd_head_k(il);
    case dim::head_k_full_half: return hp.n_embd_head_k_full / 2;
    case dim::n_embd_per_layer: return hp.n_embd_per_layer;
    case dim::n_embd_per_layer_all: return uint64_t{hp.n_embd_per_layer} * hp.n_layer;
    case dim::n_head: return n_head;
    case dim::n_head_kv: return hp.n_head_kv(il);
    case dim::n_rot_half: return hp.n_rot(il) / 2;
    case dim::n_expert: return hp.n_expert;
    case dim::n_ff_exp: return hp.n_ff_exp ? hp.n_ff_exp : hp.n_ff(il);
    case dim::n_ff_exp_x2: return 2ull * (hp.n_ff_exp ? hp.n_ff_exp : hp.n_ff(il));
    case dim::ssm_d_inner: return hp.ssm_d_inner;
    case dim::ssm_d_inner_x2: return 2ull * hp.ssm_d_inner;
    case dim::ssm_d_conv: return hp.ssm_d_conv;
    case dim::ssm_d_state: return hp.ssm_d_state;
    case dim::ssm_dt_rank: return hp.ssm_dt_rank;
    case dim::ssm_x_dim: return uint64_t{hp.ssm_dt_rank} + 2ull * hp.ssm_d_state;
    case dim::v_gqa_qkv: return hp.n_embd + 2ull * hp.n_embd_head_v(il) * hp.n_head_kv(il);
    case dim::n_ff_exp_used:
      if (hp.n_ff_exp) return hp.n_ff_exp;
      return hp.n_expert_used ? hp.n_ff(il) / hp.n_expert_used : 0;
    case dim::n_ff_shexp: return hp.n_ff_shexp ? hp.n_ff_shexp : hp.n_ff(il);
    case dim::n_lora_q: return hp.n_lora_q;
    case dim::n_lora_kv: return hp.n_lora_kv;
    case dim::q_dim_mla: return n_head * head_k_mla(hp);
    case dim::o_dim_mla: return n_head * head_v_mla(hp);
    case dim::head_v_mla: return head_v_mla(hp);
    case dim::head_qk_nope: return head_k_mla(hp) > hp.n_rot_full ? head_k_mla(hp) - hp.n_rot_full : 0;
    case dim::kv_a_dim: return uint64_t{hp.n_lora_kv} + hp.n_rot_full;
    case dim::kv_b_dim:
      return n_head * ((head_k_mla(hp) > hp.n_rot_full ? head_k_mla(hp) - hp.n_rot_full : 0) + head_v_mla(hp));
    case dim::n_ff_shexp_ds: return uint64_t{hp.n_ff_exp} * hp.n_expert_shared;
    case dim::n_rel_attn_bkts: return hp.n_rel_attn_bkts;
    case dim::ssm_n_group: return hp.ssm_n_group;
    case dim::ssm_conv_dim: return hp.ssm_d_inner + 2ull * hp.ssm_n_group * hp.ssm_d_state;
    case dim::ssm_in_proj_dim: return 2ull * hp.ssm_d_inner + 2ull * hp.ssm_n_group * hp.ssm_d_state + hp.ssm_dt_rank;
    case dim::ssm_group_width: return hp.ssm_n_group ? hp.ssm_d_inner / hp.ssm_n_group : 0;
    case dim::five: return 5;
    case dim::time_mix_extra_dim: return hp.time_mix_extra_dim;
    case dim::time_mix_extra_dim_x5: return 5ull * hp.time_mix_extra_dim;
    case dim::time_decay_extra_dim: return hp.time_decay_extra_dim;
    case dim::wkv_head_size: return hp.wkv_head_size;
    case dim::wkv_n_head: return hp.wkv_head_size ? hp.n_embd / hp.wkv_head_size : 0;
    case dim::six: return 6;
    case dim::n_lora_decay: return hp.n_lora_decay;
    case dim::n_lora_iclr: return hp.n_lora_iclr;
    case dim::n_lora_value_res_mix: return hp.n_lora_value_res_mix;
    case dim::n_lora_gate: return hp.n_lora_gate;
  }
  return 0;
}

}  // namespace detail

namespace {

// The built-in rows followed by the registered ones; the capacity is fixed so that a
// registration never moves an entry (gguf::model keeps a pointer to its architecture).
constexpr size_t max_architectures = 256;

architecture entry(const detail::arch_row& row) {
  const arch_info* facts = find_architecture(row.name);
  return architecture{row.name, facts && facts->in_spec, !row.tensors.empty(), &row};
}

std::vector<architecture>& registry() {
  static std::vector<architecture> r = [] {
    std::vector<architecture> v;
    v.reserve(max_architectures);
    for (const auto& row : detail::arch_rows()) v.push_back(entry(row));
    return v;
  }();
  return r;
}

std::string shape_text(const std::array<uint64_t, 4>& ne, uint32_t n_dims) {
  std::string s = "[";
  for (uint32_t d = 0; d < n_dims; ++d) s += (d ? ", " : "") + (ne[d] == 0 ? std::string("*") : std::to_string(ne[d]));
  return s + "]";
}

/// llama.cpp's generic pass after every architecture's load_arch_tensors: each block
/// projection it loaded may come with an optional ".scale" (the weight's scale, e.g.
/// NVFP4's second-level scale) and ".input_scale" tensor: [1] per tensor, [n_expert] for
/// the routed experts; output.weight gets them only when it is stored as nvfp4.
void add_scale_companions(const file& f, const hparams& h, std::vector<model_tensor>& tensors) {
  struct projection {
    std::string_view name;
    bool per_expert;
  };
  static constexpr projection projections[] = {
      {"attn_q", false},         {"attn_k", false},         {"attn_v", false},        {"attn_output", false},
      {"attn_qkv", false},       {"attn_gate", false},      {"ffn_gate", false},      {"ffn_down", false},
      {"ffn_up", false},         {"ffn_gate_shexp", false}, {"ffn_down_shexp", false}, {"ffn_up_shexp", false},
      {"ffn_gate_exps", true},   {"ffn_down_exps", true},   {"ffn_up_exps", true},    {"ssm_in", false},
      {"ssm_out", false},        {"ssm_alpha", false},      {"ssm_beta", false},      {"nextn.eh_proj", false},
      {"nextn.shared_head_head", false}};
  std::unordered_set<std::string> known;
  for (const auto& t : tensors) known.insert(t.name);
  auto add = [&](std::string name, int32_t layer, uint64_t n) {
    if (!known.insert(name).second) return;  // the architecture's own table has it
    model_tensor t;
    t.name = std::move(name);
    t.layer = layer;
    t.n_dims = 1;
    t.ne = {n, 1, 1, 1};
    t.required = false;
    tensors.push_back(std::move(t));
  };
  const size_t n_table = tensors.size();
  for (size_t i = 0; i < n_table; ++i) {
    const std::string tname = tensors[i].name;  // a copy: add() may reallocate `tensors`
    const int32_t layer = tensors[i].layer;
    std::string_view name = tname;
    if (layer < 0 || !name.starts_with("blk.") || !name.ends_with(".weight") || !f.find_tensor(tname)) continue;
    std::string_view rest = name.substr(4);
    rest = rest.substr(rest.find('.') + 1);  // after "blk.N."
    rest.remove_suffix(std::string_view(".weight").size());
    for (const auto& p : projections) {
      if (p.name != rest) continue;
      std::string base(name.substr(0, name.size() - std::string_view(".weight").size()));
      const uint64_t n = p.per_expert ? h.n_expert : 1;
      add(base + ".scale", layer, n);
      add(base + ".input_scale", layer, n);
      break;
    }
  }
  if (const tensor_info* out = f.find_tensor("output.weight"); out && out->type == ggml_type::nvfp4) {
    add("output.scale", -1, 1);
    add("output.input_scale", -1, 1);
  }
}

}  // namespace

std::span<const architecture> model_architectures() noexcept { return registry(); }

const architecture* detail::register_arch_row(const detail::arch_row& row) noexcept {
  static std::deque<detail::arch_row> rows;  // stable addresses for architecture::row
  auto& r = registry();
  if (!find_architecture(row.name) || find_model_architecture(row.name) || r.size() == r.capacity()) return nullptr;
  rows.push_back(row);
  r.push_back(entry(rows.back()));
  return &r.back();
}

const architecture* find_model_architecture(std::string_view name) noexcept {
  for (const auto& a : registry()) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

result<model> model::load(const file& f) {
  auto name_v = f.find("general.architecture");
  if (!name_v) return make_error(errc::invalid_model, no_offset, "missing required key", "general.architecture");
  auto name = name_v->get<std::string_view>();
  if (!name) {
    return make_error(errc::invalid_model, name_v->offset(), "expected a string", "general.architecture");
  }
  const architecture* arch = find_model_architecture(*name);
  if (!arch) {
    return make_error(errc::unsupported, name_v->offset(),
                      "unknown model architecture: '" + std::string(*name) + "'", "general.architecture");
  }
  auto hp = load_hparams(f, *arch);
  if (!hp) return hp.error();

  model m(f);
  m.arch_ = arch;
  m.hparams_ = std::move(*hp);
  if (m.hparams_.vocab_only || arch->row->tensors.empty()) return m;

  // Instantiate the table for every layer, then match it against the file. The vocabulary
  // dimension is llama_vocab::n_tokens (the length of tokenizer.ggml.tokens) as llama.cpp's
  // load_tensors uses it, whatever [arch].vocab_size says (issue 29, item 4).
  gguf::hparams h = m.hparams_;
  if (auto t = f.find("tokenizer.ggml.tokens"); t && t->type() == value_type::array)
    if (auto a = t->array(); a) h.n_vocab = static_cast<uint32_t>(std::min<uint64_t>(a->size(), UINT32_MAX));
  auto applies = [&](detail::when c, uint32_t il) {
    using detail::when;
    const bool moe_layer = h.moe_every_n_layers > 0 && il % h.moe_every_n_layers == 1;
    const bool mla = h.n_embd_head_k_mla != 0 && h.n_embd_head_v_mla != 0;
    switch (c) {
      case when::lead_dense: return il < h.n_layer_dense_lead;
      case when::after_lead: return il >= h.n_layer_dense_lead;
      case when::q_lora: return h.n_lora_q > 0;
      case when::no_q_lora: return h.n_lora_q == 0;
      case when::mla: return mla;
      case when::not_mla: return !mla;
      case when::first_layer: return il == 0;
      case when::later_layer: return il > 0;
      case when::lerp_fused:
      case when::lerp_unfused: {
        bool fused = f.find_tensor("blk." + std::to_string(il) + ".time_mix_lerp_fused.weight") != nullptr;
        return fused == (c == when::lerp_fused);
      }
      case when::gate_up_fused:
      case when::gate_up_split: {
        bool fused = f.find_tensor("blk." + std::to_string(il) + ".ffn_gate_up_exps.weight") != nullptr;
        return fused == (c == when::gate_up_fused);
      }
      case when::always: return true;
      case when::dense: return h.n_expert == 0;
      case when::moe: return h.n_expert > 0;
      case when::qkv_fused:
      case when::qkv_split: {
        bool fused = f.find_tensor("blk." + std::to_string(il) + ".attn_qkv.weight") != nullptr;
        return fused == (c == when::qkv_fused);
      }
      case when::swa_layer: return h.is_swa(il);
      case when::full_layer: return !h.is_swa(il);
      case when::any_full_layer: {
        for (uint32_t l = 0; l < h.n_layer; ++l) {
          if (!h.is_swa(l)) return true;
        }
        return false;
      }
      case when::kv_layer: return h.has_kv(il);
      case when::shared_kv_layer: return !h.has_kv(il);
      case when::per_layer_inp: return h.n_embd_per_layer > 0;
      case when::gate_inp: return f.find_tensor("blk." + std::to_string(il) + ".ffn_gate_inp.weight") != nullptr;
      case when::moe_layer: return moe_layer;
      case when::dense_layer: return !moe_layer;
    }
    return true;
  };
  for (const auto& group : arch->row->tensors) {
    for (const auto& spec : group) {
      using detail::layer_stack;
      const uint32_t n_blocks = spec.stack == layer_stack::dec ? h.dec_n_layer : h.n_layer;
      const char* prefix = spec.stack == layer_stack::enc ? "enc.blk." : spec.stack == layer_stack::dec ? "dec.blk." : "blk.";
      uint32_t n_inst = spec.per_layer ? n_blocks : 1;
      for (uint32_t il = 0; il < n_inst; ++il) {
        if (!applies(spec.cond, il) || !applies(spec.cond2, il)) continue;
        model_tensor t;
        t.name = spec.per_layer ? prefix + std::to_string(il) + "." + std::string(spec.name) : std::string(spec.name);
        t.layer = spec.per_layer ? static_cast<int32_t>(il) : -1;
        t.n_dims = spec.n_dims;
        t.required = spec.required;
        // t5's loader sizes both stacks with the layer-0 values (LLAMA_LOAD_LOCALS).
        const uint32_t il_dims = spec.stack == layer_stack::blk ? il : 0;
        for (uint32_t d = 0; d < 4; ++d) t.ne[d] = detail::dim_value(spec.ne[d], h, il_dims);
        m.tensors_.push_back(std::move(t));
      }
    }
  }
  add_scale_companions(f, h, m.tensors_);
  std::unordered_set<std::string_view> used;
  for (auto& t : m.tensors_) {
    t.info = f.find_tensor(t.name);
    if (!t.info) {
      if (t.required) {
        m.diagnostics_.push_back({severity::error, errc::invalid_model, t.name, no_offset,
                                  "missing required tensor, expected shape " + shape_text(t.ne, t.n_dims)});
      }
      continue;
    }
    used.insert(t.info->name);
    // llama.cpp: every dimension equal, dimensions past the expected ones equal to 1.
    bool ok = true;
    for (uint32_t d = 0; d < 4; ++d) {
      if (t.ne[d] != 0 && t.info->ne[d] != t.ne[d]) ok = false;
    }
    if (!ok) {
      m.diagnostics_.push_back({severity::error, errc::invalid_model, t.name, t.info->info_offset,
                                "wrong shape; expected " + shape_text(t.ne, t.n_dims) + ", got " +
                                    shape_text(t.info->ne, t.info->n_dims)});
    }
  }
  for (const auto& ti : f.tensors()) {
    if (used.count(ti.name)) continue;
    m.diagnostics_.push_back(
        {arch->row->tensors_complete ? severity::error : severity::warning, errc::invalid_model,
         std::string(ti.name), ti.info_offset,
         "tensor not used by architecture '" + std::string(arch->name) + "'" +
             (arch->row->tensors_complete ? " (llama.cpp: wrong number of tensors)" : "")});
  }
  return m;
}

result<void> model::check() const {
  for (const auto& d : diagnostics_) {
    if (d.severity == severity::error) return make_error(d.code, d.offset, d.message, d.tensor, true);
  }
  return {};
}

uint64_t model::n_params() const noexcept {
  uint64_t n = 0;
  for (const auto& t : file_.tensors()) n += t.nelements();
  return n;
}

result<const tensor_info*> model::token_embd() const {
  const tensor_info* t = file_.find_tensor("token_embd.weight");
  if (!t) return make_error(errc::tensor_not_found, no_offset, "no token embeddings", "token_embd.weight", true);
  const gguf::hparams& h = hparams_;
  bool ok = t->n_dims == 2 && (h.n_embd == 0 || t->ne[0] == h.n_embd) && (h.n_vocab == 0 || t->ne[1] == h.n_vocab);
  if (!ok) {
    return make_error(errc::invalid_model, t->info_offset,
                      "wrong shape; expected [" + std::to_string(h.n_embd) + ", " + std::to_string(h.n_vocab) +
                          "], got " + shape_text(t->ne, t->n_dims),
                      "token_embd.weight", true);
  }
  return t;
}

result<void> model::get_token_embeddings(std::span<const int32_t> ids, std::span<float> out) const {
  auto t = token_embd();
  if (!t) return t.error();
  return get_rows(file_, **t, ids, out);
}

}  // namespace gguf
