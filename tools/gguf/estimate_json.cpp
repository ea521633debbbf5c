// The JSON of `gguf estimate --json`, also served by `gguf serve`'s /api/estimate.
#include "estimate_json.h"

#include <algorithm>

namespace gguf::cli {

nlohmann::ordered_json estimate_json(const estimate_result& e, const estimate_params& p) {
  nlohmann::ordered_json j;
  j["n_ctx"] = e.n_ctx;
  j["n_ctx_seq"] = e.n_ctx_seq;
  j["n_batch"] = e.n_batch;
  j["n_ubatch"] = e.n_ubatch;
  j["n_seq_max"] = std::max(1u, p.n_seq_max);
  j["kv_unified"] = p.kv_unified;
  j["type_k"] = std::string(ggml_type_name(p.type_k));
  j["type_v"] = std::string(ggml_type_name(p.type_v));
  j["flash_attn"] = e.flash_attn;
  j["memory"] = e.memory;
  if (e.n_ctx_swa) j["n_ctx_swa"] = e.n_ctx_swa;
  j["weights_bytes"] = e.weights_bytes;
  j["kv_bytes"] = e.kv_bytes;
  j["k_bytes"] = e.k_bytes;
  j["v_bytes"] = e.v_bytes;
  j["output_bytes"] = e.output_bytes;
  j["compute_bytes"] = e.compute_bytes;
  j["total_bytes"] = e.total_bytes;
  j["refused"] = e.refused.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(e.refused);
  j["vocab_only"] = e.vocab_only;
  auto devs = nlohmann::ordered_json::array();
  for (const auto& d : e.devices) {
    devs.push_back({{"name", d.name},
                    {"weights_bytes", d.weights_bytes},
                    {"kv_bytes", d.kv_bytes},
                    {"output_bytes", d.output_bytes},
                    {"compute_bytes", d.compute_bytes},
                    {"total_bytes", d.total_bytes}});
  }
  j["devices"] = devs;
  auto layers = nlohmann::ordered_json::array();
  for (const auto& l : e.layers) {
    layers.push_back({{"il", l.il},
                      {"kind", l.kind},
                      {"cells", l.cells},
                      {"k_bytes", l.k_bytes},
                      {"v_bytes", l.v_bytes},
                      {"weights_bytes", l.weights_bytes},
                      {"device", l.gpu ? "GPU" : "CPU"}});
  }
  j["layers"] = layers;
  return j;
}

std::optional<ggml_type> cache_type(const std::string& s) {
  // the cache types llama.cpp's --cache-type-k / --cache-type-v accept
  static const char* const allowed[] = {"f32", "f16", "bf16", "q8_0", "q4_0", "q4_1", "iq4_nl", "q5_0", "q5_1"};
  for (const char* a : allowed) {
    if (s == a) return ggml_type_from_name(s);
  }
  return std::nullopt;
}

std::optional<flash_attn_type> flash_attn_from_name(const std::string& s) {
  if (s == "on" || s == "1" || s == "true") return flash_attn_type::enabled;
  if (s == "off" || s == "0" || s == "false") return flash_attn_type::disabled;
  if (s == "auto" || s == "-1") return flash_attn_type::automatic;
  return std::nullopt;
}

}  // namespace gguf::cli
