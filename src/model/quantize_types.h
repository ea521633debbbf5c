// Internal: llama-quantize's per-tensor type choice (quantize_types.cpp), used by the
// planner (quantize_plan.cpp). Not installed.
#pragma once

#include <array>
#include <optional>
#include <regex>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gguf/quantize.h"

namespace gguf {

/// llama_ftype numbers (llama.h).
namespace ftypes {
inline constexpr uint32_t f32 = 0, f16 = 1, q4_0 = 2, q4_1 = 3, q8_0 = 7, q5_0 = 8, q5_1 = 9, q2_k = 10,
                          q3_k_s = 11, q3_k_m = 12, q3_k_l = 13, q4_k_s = 14, q4_k_m = 15, q5_k_s = 16,
                          q5_k_m = 17, q6_k = 18, iq2_xxs = 19, iq2_xs = 20, q2_k_s = 21, iq3_xs = 22,
                          iq3_xxs = 23, iq1_s = 24, iq4_nl = 25, iq3_s = 26, iq3_m = 27, iq2_s = 28,
                          iq2_m = 29, iq4_xs = 30, iq1_m = 31, bf16 = 32, tq1_0 = 36, tq2_0 = 37,
                          mxfp4_moe = 38, nvfp4 = 39, q1_0 = 40, q2_0 = 41;
inline constexpr uint32_t guessed = 1024;  ///< LLAMA_FTYPE_GUESSED
}  // namespace ftypes

namespace detail {

/// Why `pattern` is not an ECMAScript regex (std::regex's message), or nothing if it is one.
std::optional<std::string> regex_error_of(const std::string& pattern);

enum class tensor_category {
  token_embd, attn_q, attn_v, attn_k, attn_qkv, attn_kv_b, attn_output, ffn_up, ffn_gate, ffn_down, output, other
};

/// What the rules read of the model (llama_model after load_hparams).
struct model_facts {
  std::string arch;        ///< general.architecture
  uint32_t n_layer = 0;    ///< block_count (hparams.n_layer_all)
  uint32_t n_expert = 0;   ///< expert_count
  uint32_t n_gqa = 0;      ///< n_head(0) / n_head_kv(0), 0 when n_head_kv is 0
  bool is_70b = false;     ///< LLM_TYPE_70B (llama/qwen2/deci/olmo at 80 layers, jais2 at 68)
};

tensor_category tensor_get_category(std::string_view name);
/// tensor_allows_quantization; n_dims is ggml_n_dims (trailing 1s dropped).
bool tensor_allows_quantization(std::string_view name, uint32_t n_dims, const quantize_options& o);
bool tensor_requires_imatrix(std::string_view name, ggml_type t, uint32_t ftype);

/// The state llama_tensor_get_type carries from tensor to tensor (the attn_v and ffn
/// counters): call count() with every output name first, then choose() in output order.
class type_chooser {
 public:
  type_chooser(const quantize_options& o, const model_facts& m);
  void count(std::span<const std::string> names);
  void set_has_imatrix(bool v) { has_imatrix_ = v; }
  /// The output type of a tensor (llama_tensor_get_type); `fell_back` tells whether
  /// tensor_type_fallback changed it. Errors: invalid_model (layer of an expert tensor),
  /// unsupported (no fallback for a type).
  result<ggml_type> choose(std::string_view name, uint32_t n_dims, const std::array<uint64_t, 4>& ne, ggml_type current,
                           ggml_type default_type, bool& fell_back);
  uint32_t n_fallback() const { return n_fallback_; }

 private:
  result<ggml_type> mix(ggml_type t, std::string_view name, const std::array<uint64_t, 4>& ne, tensor_category cat);
  ggml_type fallback(ggml_type t, uint64_t ncols, bool& fell_back);
  result<std::pair<int, int>> layer_info(int i_layer, int n_layer, std::string_view name) const;

  const quantize_options& o_;
  const model_facts& m_;
  std::vector<std::pair<std::regex, ggml_type>> patterns_;
  int n_attention_wv_ = 0, n_ffn_down_ = 0, n_ffn_gate_ = 0, n_ffn_up_ = 0;
  int i_attention_wv_ = 0, i_ffn_down_ = 0, i_ffn_gate_ = 0, i_ffn_up_ = 0;
  uint32_t n_fallback_ = 0;
  bool has_imatrix_ = false;
  bool tied_embeddings_ = true;
};

}  // namespace detail
}  // namespace gguf
