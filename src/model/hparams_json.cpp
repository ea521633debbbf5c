// hparams as JSON in llama.cpp's names: the object `gguf info --json` prints as "hparams"
// and the Python package's Model.hparams returns (gguf/model.h, hparams_json).
#include <nlohmann/json.hpp>

#include "gguf/model.h"

namespace gguf {

std::string hparams_json(const hparams& hp) {
  auto per_layer = [](const std::vector<uint32_t>& v) -> nlohmann::ordered_json {
    for (auto x : v) {
      if (x != v.front()) return v;
    }
    return v.empty() ? 0u : v.front();
  };
  nlohmann::ordered_json j;
  j["n_ctx_train"] = hp.n_ctx_train;
  j["n_embd"] = hp.n_embd;
  j["n_layer"] = hp.n_layer;
  j["n_head"] = per_layer(hp.n_head_arr);
  j["n_head_kv"] = per_layer(hp.n_head_kv_arr);
  j["n_ff"] = per_layer(hp.n_ff_arr);
  j["n_rot"] = hp.n_rot_full;
  j["n_embd_head_k"] = hp.n_embd_head_k_full;
  j["n_embd_head_v"] = hp.n_embd_head_v_full;
  j["n_vocab"] = hp.n_vocab;
  j["f_norm_eps"] = hp.f_norm_eps;
  j["f_norm_rms_eps"] = hp.f_norm_rms_eps;
  j["rope_freq_base_train"] = hp.rope_freq_base_train;
  j["rope_freq_scale_train"] = hp.rope_freq_scale_train;
  j["rope_scaling_type"] = std::string(rope_scaling_type_name(hp.rope_scaling_type_train));
  j["n_expert"] = hp.n_expert;
  j["n_expert_used"] = hp.n_expert_used;
  if (hp.n_swa) j["n_swa"] = hp.n_swa;
  if (!hp.swa_layers.empty() || hp.n_embd_head_k_swa != hp.n_embd_head_k_full ||
      hp.n_rot_swa != hp.n_rot_full) {
    // Sliding-window layers (gemma4): their head sizes, rotary dims and rope base.
    j["n_embd_head_k_swa"] = hp.n_embd_head_k_swa;
    j["n_embd_head_v_swa"] = hp.n_embd_head_v_swa;
    j["n_rot_swa"] = hp.n_rot_swa;
    j["rope_freq_base_train_swa"] = hp.rope_freq_base_train_swa;
    auto flags = nlohmann::ordered_json::array();
    for (uint32_t il = 0; il < hp.swa_layers.size(); ++il) flags.push_back(hp.is_swa(il));
    j["swa_layers"] = flags;
  }
  if (hp.n_layer_kv_from_start >= 0) j["n_layer_kv_from_start"] = hp.n_layer_kv_from_start;
  if (hp.n_embd_per_layer) j["n_embd_per_layer"] = hp.n_embd_per_layer;
  if (hp.architecture_version) j["architecture_version"] = hp.architecture_version;
  if (hp.ssm_d_inner) {
    j["ssm_d_conv"] = hp.ssm_d_conv;
    j["ssm_d_inner"] = hp.ssm_d_inner;
    j["ssm_d_state"] = hp.ssm_d_state;
    j["ssm_dt_rank"] = hp.ssm_dt_rank;
  }
  return j.dump();
}

}  // namespace gguf
