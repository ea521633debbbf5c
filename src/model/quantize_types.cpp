// The per-tensor type choice of llama-quantize v0.5.0 (src/llama-quant.cpp:
// tensor_allows_quantization, llama_tensor_get_type(_impl), tensor_type_fallback,
// tensor_requires_imatrix, llama_ftype_get_default_type) and its file-type table
// (tools/quantize/quantize.cpp QUANT_OPTIONS). Our own code, written from what that
// code does; the rules are facts of the format's ecosystem and carry over unchanged.
#include "model/quantize_types.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <regex>

namespace gguf {

namespace {

using T = ggml_type;
namespace F = ftypes;

constexpr ftype_info ftype_table[] = {
    {"Q1_0", F::q1_0, " 1.125 bpw quantization"},
    {"Q2_0", F::q2_0, " 2.25 bpw quantization (group 64)"},
    {"Q4_0", F::q4_0, " 4.34G, +0.4685 ppl @ Llama-3-8B"},
    {"Q4_1", F::q4_1, " 4.78G, +0.4511 ppl @ Llama-3-8B"},
    {"MXFP4_MOE", F::mxfp4_moe, " MXFP4 MoE"},
    {"Q5_0", F::q5_0, " 5.21G, +0.1316 ppl @ Llama-3-8B"},
    {"Q5_1", F::q5_1, " 5.65G, +0.1062 ppl @ Llama-3-8B"},
    {"IQ2_XXS", F::iq2_xxs, " 2.06 bpw quantization"},
    {"IQ2_XS", F::iq2_xs, " 2.31 bpw quantization"},
    {"IQ2_S", F::iq2_s, " 2.5  bpw quantization"},
    {"IQ2_M", F::iq2_m, " 2.7  bpw quantization"},
    {"IQ1_S", F::iq1_s, " 1.56 bpw quantization"},
    {"IQ1_M", F::iq1_m, " 1.75 bpw quantization"},
    {"TQ1_0", F::tq1_0, " 1.69 bpw ternarization"},
    {"TQ2_0", F::tq2_0, " 2.06 bpw ternarization"},
    {"Q2_K", F::q2_k, " 2.96G, +3.5199 ppl @ Llama-3-8B"},
    {"Q2_K_S", F::q2_k_s, " 2.96G, +3.1836 ppl @ Llama-3-8B"},
    {"IQ3_XXS", F::iq3_xxs, " 3.06 bpw quantization"},
    {"IQ3_S", F::iq3_s, " 3.44 bpw quantization"},
    {"IQ3_M", F::iq3_m, " 3.66 bpw quantization mix"},
    {"Q3_K", F::q3_k_m, "alias for Q3_K_M"},
    {"IQ3_XS", F::iq3_xs, " 3.3 bpw quantization"},
    {"Q3_K_S", F::q3_k_s, " 3.41G, +1.6321 ppl @ Llama-3-8B"},
    {"Q3_K_M", F::q3_k_m, " 3.74G, +0.6569 ppl @ Llama-3-8B"},
    {"Q3_K_L", F::q3_k_l, " 4.03G, +0.5562 ppl @ Llama-3-8B"},
    {"IQ4_NL", F::iq4_nl, " 4.50 bpw non-linear quantization"},
    {"IQ4_XS", F::iq4_xs, " 4.25 bpw non-linear quantization"},
    {"Q4_K", F::q4_k_m, "alias for Q4_K_M"},
    {"Q4_K_S", F::q4_k_s, " 4.37G, +0.2689 ppl @ Llama-3-8B"},
    {"Q4_K_M", F::q4_k_m, " 4.58G, +0.1754 ppl @ Llama-3-8B"},
    {"Q5_K", F::q5_k_m, "alias for Q5_K_M"},
    {"Q5_K_S", F::q5_k_s, " 5.21G, +0.1049 ppl @ Llama-3-8B"},
    {"Q5_K_M", F::q5_k_m, " 5.33G, +0.0569 ppl @ Llama-3-8B"},
    {"Q6_K", F::q6_k, " 6.14G, +0.0217 ppl @ Llama-3-8B"},
    {"Q8_0", F::q8_0, " 7.96G, +0.0026 ppl @ Llama-3-8B"},
    {"F16", F::f16, "14.00G, +0.0020 ppl @ Mistral-7B"},
    {"BF16", F::bf16, "14.00G, -0.0050 ppl @ Mistral-7B"},
    {"F32", F::f32, "26.00G              @ 7B"},
    // COPY after F32, so that the number 0 finds F32 first (as llama-quantize's table).
    {"COPY", F::f32, "only copy tensors, no quantizing"},
};

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return std::tolower(uint8_t(x)) == std::tolower(uint8_t(y)); });
}

bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

uint32_t blck(ggml_type t) { return ggml_type_traits(t)->blck_size; }

// The mixes of the lowest-bit IQ file types share one branch of the rules.
bool is_iq_low(uint32_t f) {
  return f == F::iq2_xxs || f == F::iq2_xs || f == F::iq1_s || f == F::iq2_s || f == F::iq2_m || f == F::iq1_m;
}

bool use_more_bits(int i_layer, int n_layers) {
  return i_layer < n_layers / 8 || i_layer >= 7 * n_layers / 8 || (i_layer - n_layers / 8) % 3 == 2;
}

}  // namespace

std::span<const ftype_info> quantize_ftypes() noexcept { return ftype_table; }

std::optional<ftype_info> parse_ftype(std::string_view text) noexcept {
  for (const auto& row : ftype_table) {
    if (iequals(row.name, text)) return row;
  }
  // std::stoi: optional space and sign, digits, anything after them ignored.
  size_t i = 0;
  while (i < text.size() && std::isspace(uint8_t(text[i]))) ++i;
  bool neg = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) neg = text[i++] == '-';
  if (i >= text.size() || !std::isdigit(uint8_t(text[i]))) return std::nullopt;
  int64_t v = 0;
  for (; i < text.size() && std::isdigit(uint8_t(text[i])); ++i) {
    v = v * 10 + (text[i] - '0');
    if (v > INT32_MAX) return std::nullopt;
  }
  if (neg) v = -v;
  for (const auto& row : ftype_table) {
    if (int64_t(row.ftype) == v) return row;
  }
  return std::nullopt;
}

std::optional<ggml_type> ftype_default_type(uint32_t f) noexcept {
  switch (f) {
    case F::q4_0: return T::q4_0;
    case F::q4_1: return T::q4_1;
    case F::q5_0: return T::q5_0;
    case F::q5_1: return T::q5_1;
    case F::q8_0: return T::q8_0;
    case F::f16: return T::f16;
    case F::bf16: return T::bf16;
    case F::f32: return T::f32;
    case F::q1_0: return T::q1_0;
    case F::q2_0: return T::q2_0;
    case F::mxfp4_moe: return T::mxfp4;
    case F::q2_k_s:
    case F::q2_k: return T::q2_K;
    case F::iq3_xs: return T::iq3_s;
    case F::q3_k_s:
    case F::q3_k_m:
    case F::q3_k_l: return T::q3_K;
    case F::q4_k_s:
    case F::q4_k_m: return T::q4_K;
    case F::q5_k_s:
    case F::q5_k_m: return T::q5_K;
    case F::q6_k: return T::q6_K;
    case F::tq1_0: return T::tq1_0;
    case F::tq2_0: return T::tq2_0;
    case F::iq2_xxs: return T::iq2_xxs;
    case F::iq2_xs: return T::iq2_xs;
    case F::iq2_s: return T::iq2_xs;
    case F::iq2_m: return T::iq2_s;
    case F::iq3_xxs: return T::iq3_xxs;
    case F::iq1_s: return T::iq1_s;
    case F::iq1_m: return T::iq1_m;
    case F::iq4_nl: return T::iq4_nl;
    case F::iq4_xs: return T::iq4_xs;
    case F::iq3_s:
    case F::iq3_m: return T::iq3_s;
    default: return std::nullopt;
  }
}

namespace detail {

tensor_category tensor_get_category(std::string_view name) {
  using C = tensor_category;
  if (name == "output.weight") return C::output;
  if (name == "token_embd.weight" || name == "per_layer_token_embd.weight") return C::token_embd;
  if (contains(name, "attn_qkv.weight")) return C::attn_qkv;
  if (contains(name, "attn_kv_b.weight")) return C::attn_kv_b;
  if (contains(name, "attn_v.weight")) return C::attn_v;
  if (contains(name, "attn_k.weight")) return C::attn_k;
  if (contains(name, "attn_q.weight")) return C::attn_q;
  if (contains(name, "attn_output.weight")) return C::attn_output;
  if (contains(name, "ffn_up")) return C::ffn_up;
  if (contains(name, "ffn_gate")) return C::ffn_gate;
  if (contains(name, "ffn_down")) return C::ffn_down;
  return C::other;
}

bool tensor_allows_quantization(std::string_view name, uint32_t n_dims, const quantize_options& o) {
  if (o.only_copy || n_dims < 2) return false;
  if (name.size() < 6 || name.substr(name.size() - 6) != "weight") return false;
  if (!o.quantize_output_tensor && name == "output.weight") return false;
  if (name == "position_embd.weight" || name == "token_types.weight") return false;
  static constexpr std::string_view never[] = {
      "_norm.weight", "ffn_gate_inp.weight", "ffn_gate_tid2eid.weight", "altup", "laurel",
      "per_layer_model_proj", "ssm_conv1d", "shortconv.conv.weight", "indexer.k_proj.weight",
      "indexer.q_proj.weight", "time_mix_first.weight", "time_mix_w0.weight", "time_mix_w1.weight",
      "time_mix_w2.weight", "time_mix_v0.weight", "time_mix_v1.weight", "time_mix_v2.weight",
      "time_mix_a0.weight", "time_mix_a1.weight", "time_mix_a2.weight", "time_mix_g1.weight",
      "time_mix_g2.weight", "time_mix_decay_w1.weight", "time_mix_decay_w2.weight",
      "time_mix_lerp_fused.weight", "attn_rel_b.weight", ".position_embd", "sam.pos_embd", "sam.neck.",
      "sam.net_", ".rel_pos", ".patch_embd", ".patch_merger", "a.rvq.codebook", "mm.a.code_embd"};
  for (auto part : never) {
    if (contains(name, part)) return false;
  }
  return true;
}

bool tensor_requires_imatrix(std::string_view name, ggml_type t, uint32_t ftype) {
  if (name == "token_embd.weight" || name == "per_layer_token_embd.weight" || name == "output.weight") return false;
  switch (t) {
    case T::iq3_xxs:
    case T::iq2_xxs:
    case T::iq2_xs:
    case T::iq2_s:
    case T::iq1_m:
    case T::iq1_s: return true;
    case T::q2_K: return ftype == F::q2_k_s;
    default: return false;
  }
}

std::optional<std::string> regex_error_of(const std::string& pattern) {
  try {
    std::regex re(pattern);
  } catch (const std::regex_error& e) {
    return e.what();
  }
  return std::nullopt;
}

// (the planner has checked every pattern with regex_error_of)
type_chooser::type_chooser(const quantize_options& o, const model_facts& m) : o_(o), m_(m) {
  for (const auto& [pattern, type] : o.tensor_types) patterns_.emplace_back(std::regex(pattern), type);
}

void type_chooser::count(std::span<const std::string> names) {
  for (const auto& n : names) {
    const auto c = tensor_get_category(n);
    if (c == tensor_category::attn_v || c == tensor_category::attn_qkv || c == tensor_category::attn_kv_b) ++n_attention_wv_;
    if (c == tensor_category::output) tied_embeddings_ = false;
  }
  n_ffn_down_ = n_ffn_gate_ = n_ffn_up_ = int(m_.n_layer);
}

result<std::pair<int, int>> type_chooser::layer_info(int i_layer, int n_layer, std::string_view name) const {
  if (std::max(1u, m_.n_expert) > 1) {
    const std::string s(name);
    if (std::sscanf(s.c_str(), "blk.%d.", &i_layer) != 1) {
      return make_error(errc::invalid_model, no_offset, "Failed to determine layer for tensor " + s, s);
    }
    if (i_layer < 0 || i_layer >= n_layer) {
      return make_error(errc::invalid_model, no_offset,
                        "Bad layer " + std::to_string(i_layer) + " for tensor " + s + ". Must be in [0, " +
                            std::to_string(n_layer) + ")",
                        s);
    }
  }
  return std::make_pair(i_layer, n_layer);
}

result<ggml_type> type_chooser::mix(ggml_type t, std::string_view name, const std::array<uint64_t, 4>& ne,
                                    tensor_category cat) {
  using C = tensor_category;
  const uint32_t f = o_.ftype;
  const bool falcon = m_.arch == "falcon";
  const uint32_t gqa = m_.n_gqa;
  const uint32_t n_expert = m_.n_expert;
  const bool attn_v_like = cat == C::attn_v || cat == C::attn_qkv || cat == C::attn_kv_b;

  if (cat == C::output || (tied_embeddings_ && cat == C::token_embd)) {
    if (o_.output_tensor_type) return *o_.output_tensor_type;
    if (f == F::mxfp4_moe) return T::q8_0;
    if (falcon || ne[0] % blck(t) != 0) return T::q8_0;
    if (is_iq_low(f) || f == F::iq3_xxs) return T::q5_K;
    if (t != T::q8_0) return T::q6_K;
    return t;
  }
  if (f == F::mxfp4_moe) {
    const bool bailing_expert = m_.arch == "bailingmoe3" && (cat == C::ffn_up || cat == C::ffn_gate || cat == C::ffn_down);
    return ne[2] > 1 && (m_.arch != "bailingmoe3" || bailing_expert) ? T::mxfp4 : T::q8_0;
  }
  if (cat == C::token_embd) {
    if (o_.token_embedding_type) return *o_.token_embedding_type;
    if (f == F::iq2_xxs || f == F::iq2_xs || f == F::iq1_s || f == F::iq1_m) return T::q2_K;
    if (f == F::iq2_s || f == F::iq2_m || f == F::iq3_xxs) return T::iq3_s;
    if (f == F::tq1_0 || f == F::tq2_0 || f == F::q2_0) return T::q4_K;
    return t;
  }
  if (is_iq_low(f)) {
    const bool s_or_m = f == F::iq2_s || f == F::iq2_m;
    if (attn_v_like) {
      t = gqa >= 4 || n_expert >= 4 ? T::q4_K : s_or_m ? T::iq3_s : T::q2_K;
      ++i_attention_wv_;
    } else if (n_expert == 8 && cat == C::attn_k) {
      t = T::q4_K;
    } else if (cat == C::ffn_down) {
      if (i_ffn_down_ < n_ffn_down_ / 8) t = s_or_m ? T::iq3_s : T::q2_K;
      ++i_ffn_down_;
    } else if (cat == C::attn_output) {
      if (n_expert == 8) t = T::q5_K;
      else if (f == F::iq1_s || f == F::iq1_m) t = T::iq2_xxs;
      else if (s_or_m) t = T::iq3_s;
    }
    return t;
  }
  if (attn_v_like) {
    if (f == F::q2_k) t = gqa >= 4 ? T::q4_K : T::q3_K;
    else if (f == F::q2_k_s && gqa >= 4) t = T::q4_K;
    else if (f == F::iq3_xxs) t = gqa >= 4 ? T::q4_K : !has_imatrix_ ? T::iq3_s : T::iq3_xxs;
    else if ((f == F::iq3_xs || f == F::iq3_s) && gqa >= 4) t = T::q4_K;
    else if (f == F::iq3_m) t = T::q4_K;
    else if (f == F::q3_k_m) t = i_attention_wv_ < 2 ? T::q5_K : T::q4_K;
    else if (f == F::q3_k_l) t = T::q5_K;
    else if ((f == F::iq4_nl || f == F::iq4_xs) && gqa >= 4) t = T::q5_K;
    else if ((f == F::q4_k_m || f == F::q5_k_m) && use_more_bits(i_attention_wv_, n_attention_wv_)) t = T::q6_K;
    else if (f == F::q4_k_s && i_attention_wv_ < 4) t = T::q5_K;
    if (m_.is_70b && (t == T::q3_K || t == T::q4_K)) t = T::q5_K;
    if (n_expert == 8) t = T::q8_0;
    ++i_attention_wv_;
    return t;
  }
  if (cat == C::attn_k) {
    if (n_expert == 8) t = T::q8_0;
    else if (f == F::iq3_xs) t = T::iq3_xxs;
    else if (f == F::iq3_xxs) t = T::iq2_s;
    return t;
  }
  if (cat == C::attn_q) {
    if (f == F::iq3_xs) t = T::iq3_xxs;
    else if (f == F::iq3_xxs) t = T::iq2_s;
    return t;
  }
  if (cat == C::ffn_down) {
    auto info = layer_info(i_ffn_down_, n_ffn_down_, name);
    if (!info) return info.error();
    const auto [i, n] = *info;
    if (f == F::q2_k) t = T::q3_K;
    else if (f == F::q2_k_s) {
      if (i < n / 8) t = T::q4_K;
    } else if (f == F::iq3_xxs && !has_imatrix_) t = i < n / 8 ? T::q4_K : T::q3_K;
    else if (f == F::q3_k_m) t = i < n / 16 ? T::q5_K : !falcon || use_more_bits(i, n) ? T::q4_K : T::q3_K;
    else if (f == F::iq3_m && (i < n / 8 || (n_expert == 8 && use_more_bits(i, n)))) t = T::q4_K;
    else if (f == F::q3_k_l) t = falcon ? T::q4_K : T::q5_K;
    else if (f == F::q4_k_m) {
      if (falcon) t = i < n / 16 ? T::q6_K : use_more_bits(i, n) ? T::q5_K : T::q4_K;
      else if (use_more_bits(i, n)) t = T::q6_K;
    } else if (i < n / 8 && (f == F::iq4_nl || f == F::iq4_xs) && !has_imatrix_) t = T::q5_K;
    else if (f == F::q5_k_m && use_more_bits(i, n)) t = T::q6_K;
    else if (f == F::q4_k_s && !falcon && i < n / 8) t = T::q5_K;
    else if ((f == F::q4_0 || f == F::q5_0) && has_imatrix_ && i < n / 8) t = f == F::q4_0 ? T::q4_1 : T::q5_1;
    ++i_ffn_down_;
    return t;
  }
  if (cat == C::attn_output) {
    if (!falcon) {
      if (n_expert == 8) {
        if (f == F::q2_k || f == F::iq3_xs || f == F::iq3_xxs || f == F::q3_k_s || f == F::q3_k_m || f == F::iq4_nl ||
            f == F::q4_k_s || f == F::q4_k_m || f == F::iq3_s || f == F::iq3_m || f == F::iq4_xs) {
          t = T::q5_K;
        }
      } else {
        if (f == F::q2_k) t = T::q3_K;
        else if (f == F::iq3_xxs) t = T::iq3_s;
        else if (f == F::q3_k_m) t = T::q4_K;
        else if (f == F::q3_k_l) t = T::q5_K;
        else if (f == F::iq3_m) t = T::q4_K;
      }
    } else if (f == F::q3_k_l) {
      t = T::q4_K;
    }
    return t;
  }
  if (cat == C::attn_qkv) {  // unreachable (attn_v_like above), kept as llama.cpp has it
    return t;
  }
  if (cat == C::ffn_gate || cat == C::ffn_up) {
    int& idx = cat == C::ffn_gate ? i_ffn_gate_ : i_ffn_up_;
    auto info = layer_info(idx, cat == C::ffn_gate ? n_ffn_gate_ : n_ffn_up_, name);
    if (!info) return info.error();
    const auto [i, n] = *info;
    if (f == F::iq3_xs && i >= n / 8 && i < 7 * n / 8) t = T::iq3_xxs;
    ++idx;
    return t;
  }
  return t;
}

ggml_type type_chooser::fallback(ggml_type t, uint64_t ncols, bool& fell_back) {
  const uint32_t qk = blck(t);
  if (ncols % qk == 0) return t;
  fell_back = true;
  ++n_fallback_;
  ggml_type r = t;
  switch (t) {
    case T::iq1_s:
    case T::iq1_m:
    case T::iq2_xxs:
    case T::iq2_xs:
    case T::iq2_s:
    case T::iq3_xxs:
    case T::iq3_s:
    case T::iq4_xs: r = T::iq4_nl; break;
    case T::q2_0:
    case T::q2_K:
    case T::q3_K:
    case T::tq1_0:
    case T::tq2_0: r = T::q4_0; break;
    case T::q4_K: r = T::q5_0; break;
    case T::q5_K: r = T::q5_1; break;
    case T::q6_K: r = T::q8_0; break;
    default: r = t; break;  // a block of 32 or less: nothing smaller, F16 below
  }
  if (ncols % blck(r) != 0) r = T::f16;
  return r;
}

result<ggml_type> type_chooser::choose(std::string_view name, uint32_t n_dims, const std::array<uint64_t, 4>& ne,
                                       ggml_type current, ggml_type default_type, bool& fell_back) {
  fell_back = false;
  if (!tensor_allows_quantization(name, n_dims, o_)) return current;
  const auto cat = tensor_get_category(name);
  if (o_.token_embedding_type && cat == tensor_category::token_embd) {
    bool named = false;
    if (name == "per_layer_token_embd.weight") {
      const std::string s(name);
      for (const auto& [re, type] : patterns_) {
        if (std::regex_search(s, re)) {
          named = true;
          break;
        }
      }
    }
    if (!named) return *o_.token_embedding_type;
  }
  if (o_.output_tensor_type && cat == tensor_category::output) return *o_.output_tensor_type;
  ggml_type t = default_type;
  if (!ggml_type_traits(default_type)->quantized) return t;
  bool manual = false;
  const std::string s(name);
  for (const auto& [re, type] : patterns_) {
    if (std::regex_search(s, re)) {
      t = type;
      manual = true;
      break;
    }
  }
  if (!manual && !o_.pure) {
    auto r = mix(t, name, ne, cat);
    if (!r) return r.error();
    t = *r;
  }
  // ggml_blck_size of a type with no traits row would be a crash in llama.cpp; every
  // type reachable here has one.
  if (ggml_type_traits(t) == nullptr) {
    return make_error(errc::unsupported, no_offset, "no tensor type fallback is defined", s);
  }
  if (ne[0] % blck(t) != 0 && blck(t) > 32) {
    switch (t) {
      case T::iq1_s: case T::iq1_m: case T::iq2_xxs: case T::iq2_xs: case T::iq2_s: case T::iq3_xxs:
      case T::iq3_s: case T::iq4_xs: case T::q2_0: case T::q2_K: case T::q3_K: case T::tq1_0:
      case T::tq2_0: case T::q4_K: case T::q5_K: case T::q6_K: break;
      default:
        return make_error(errc::unsupported, no_offset,
                          "no tensor type fallback is defined for type " + std::string(ggml_type_name(t)), s);
    }
  }
  return fallback(t, ne[0], fell_back);
}

}  // namespace detail
}  // namespace gguf
