// The plan of a model quantization: which tensors, in which order, to which type, and
// the refusals, as llama_model_quantize_impl (llama-quant.cpp v0.5.0) decides them
// before and while it writes. quantize_write.cpp carries the plan out.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <regex>

#include "gguf/model.h"
#include "gguf/quant.h"
#include "model/quantize_plan.h"
#include "model/quantize_types.h"

namespace gguf {

namespace {

using detail::model_facts;

error plan_error(errc c, std::string what, std::string tensor = {}) {
  const bool is_tensor = !tensor.empty();
  return make_error(c, no_offset, std::move(what), std::move(tensor), is_tensor);
}

// ggml_n_dims: the dimensions up to the last one above 1 (at least 1).
uint32_t ggml_n_dims(const std::array<uint64_t, 4>& ne) {
  for (uint32_t i = 4; i-- > 1;) {
    if (ne[i] > 1) return i + 1;
  }
  return 1;
}

// sscanf(name, "blk.%d.") as the loader's weight_name_comparer: -1 outside the blocks.
int name_layer(std::string_view name) {
  int layer = -1;
  const std::string s(name);
  std::sscanf(s.c_str(), "blk.%d.", &layer);
  return layer;
}

result<model_facts> read_facts(const file& f) {
  auto arch_name = f.get_string("general.architecture");
  if (!arch_name) return plan_error(errc::invalid_model, "general.architecture is missing or not a string");
  const auto* arch = find_model_architecture(*arch_name);
  if (!arch) return plan_error(errc::unsupported, "unknown model architecture: '" + std::string(*arch_name) + "'");
  auto hp = load_hparams(f, *arch);
  if (!hp) return hp.error();
  model_facts m;
  m.arch = std::string(*arch_name);
  m.n_layer = hp->n_layer;
  m.n_expert = hp->n_expert;
  const uint32_t nh = hp->n_head(0), nkv = hp->n_head_kv(0);
  m.n_gqa = nkv == 0 ? 0 : nh / nkv;
  const bool at80 = hp->n_layer == 80;
  m.is_70b = (m.arch == "llama" && at80 && nh != nkv) || ((m.arch == "qwen2" || m.arch == "deci" || m.arch == "olmo") && at80) ||
             (m.arch == "jais2" && hp->n_layer == 68);
  return m;
}

// llama_model_loader's ftype: the most frequent tensor type, or general.file_type.
uint32_t guessed_ftype(const file& first, std::span<const model_files::tensor_ref> tensors) {
  if (auto ft = first.get_uint("general.file_type")) return uint32_t(*ft);
  std::map<ggml_type, uint32_t> n;
  uint32_t best = 0;
  ggml_type type_max = ggml_type::f32;
  for (const auto& t : tensors) {
    if (++n[t.info->type] > best) {
      best = n[t.info->type];
      type_max = t.info->type;
    }
  }
  using T = ggml_type;
  namespace F = ftypes;
  uint32_t f = F::f32;
  switch (type_max) {
    case T::f16: f = F::f16; break;
    case T::bf16: f = F::bf16; break;
    case T::q4_0: f = F::q4_0; break;
    case T::q4_1: f = F::q4_1; break;
    case T::q5_0: f = F::q5_0; break;
    case T::q5_1: f = F::q5_1; break;
    case T::q8_0: f = F::q8_0; break;
    case T::q2_K: f = F::q2_k; break;
    case T::q3_K: f = F::q3_k_m; break;
    case T::q4_K: f = F::q4_k_m; break;
    case T::q5_K: f = F::q5_k_m; break;
    case T::q6_K: f = F::q6_k; break;
    case T::tq1_0: f = F::tq1_0; break;
    case T::tq2_0: f = F::tq2_0; break;
    case T::iq2_xxs: f = F::iq2_xxs; break;
    case T::iq2_xs: f = F::iq2_xs; break;
    case T::iq2_s: f = F::iq2_s; break;
    case T::iq3_xxs: f = F::iq3_xxs; break;
    case T::iq1_s: f = F::iq1_s; break;
    case T::iq1_m: f = F::iq1_m; break;
    case T::iq4_nl: f = F::iq4_nl; break;
    case T::iq4_xs: f = F::iq4_xs; break;
    case T::iq3_s: f = F::iq3_s; break;
    case T::nvfp4: f = F::nvfp4; break;
    case T::q1_0: f = F::q1_0; break;
    case T::q2_0: f = F::q2_0; break;
    default: break;
  }
  return f | F::guessed;
}

// --prune-layers renumbering (llama-quant.cpp remap_layer): "" drops the tensor.
struct layer_remap {
  std::span<const int32_t> prune;
  std::map<int, int> mapped;  // -1: pruned
  int next_id = 0;

  std::string operator()(const std::string& name) {
    if (prune.empty()) return name;
    static const std::regex pattern(R"(blk\.(\d+)\.)");
    std::smatch m;
    if (!std::regex_search(name, m, pattern)) return name;
    const int blk = std::stoi(m[1]);
    if (!mapped.count(blk)) {
      if (std::find(prune.begin(), prune.end(), blk) != prune.end()) mapped[blk] = -1;
      else if (blk < prune.front()) {
        mapped[blk] = blk;
        next_id = blk + 1;
      } else {
        mapped[blk] = next_id++;
      }
    }
    if (mapped[blk] < 0) return {};
    std::string out = name;
    return out.replace(size_t(m.position(1)), size_t(m.length(1)), std::to_string(mapped[blk]));
  }
};

bool is_token_embd(std::string_view n) { return n == "token_embd.weight" || n == "per_layer_token_embd.weight"; }

}  // namespace

result<planned> make_plan(const model_files& in, const std::filesystem::path& out, const quantize_options& opts,
                          bool dry_run) {
  // An imatrix without entries (all excluded) is no imatrix, as in llama-quantize.
  quantize_options o_copy;
  const bool empty_imatrix = opts.imatrix && opts.imatrix->entries.empty();
  if (empty_imatrix) {
    o_copy = opts;
    o_copy.imatrix = nullptr;
  }
  const quantize_options& o = empty_imatrix ? o_copy : opts;
  const file& first = in.shards()[0];
  // Tensor bytes are read as little-endian (as llama.cpp's loader, which refuses a
  // big-endian file): a big-endian model would be misread, not quantized.
  for (const auto& shard : in.shards()) {
    if (shard.byte_order() == byte_order::big) {
      return plan_error(errc::unsupported, "the model is big-endian (llama-quantize cannot load it either); convert it first: "
                                           "gguf convert-endian " + shard.path() + " --to little -o OUT");
    }
  }
  const auto default_type = ftype_default_type(o.ftype);
  if (!default_type) return plan_error(errc::invalid_argument, "invalid output file type " + std::to_string(o.ftype));
  for (const auto& [pattern, type] : o.tensor_types) {
    if (auto why = detail::regex_error_of(pattern)) {
      return plan_error(errc::invalid_argument, "tensor type pattern '" + pattern + "' is not a regex: " + *why);
    }
  }
  auto facts = in.is_split() ? read_facts(in.merged()) : read_facts(first);
  if (!facts) return facts.error();

  planned p;
  p.facts = *facts;
  p.plan.ftype = o.only_copy ? guessed_ftype(first, in.tensors()) : o.ftype;
  p.plan.n_input_tensors = uint32_t(in.tensors().size());

  if (o.imatrix) {
    for (const auto& [name, v] : o.imatrix->entries) {
      for (float x : v) {
        if (!std::isfinite(x)) {
          char buf[64];
          std::snprintf(buf, sizeof buf, "%f", double(x));
          return plan_error(errc::invalid_argument, std::string("imatrix contains non-finite value ") + buf, name);
        }
      }
    }
  }

  // The loader's order: by layer (tensors outside the blocks first), then by name.
  std::vector<model_files::tensor_ref> order(in.tensors().begin(), in.tensors().end());
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    const int la = name_layer(a.info->name), lb = name_layer(b.info->name);
    if (la != lb) return la < lb;
    return a.info->name < b.info->name;
  });
  layer_remap remap{o.prune_layers, {}, 0};
  std::vector<std::pair<std::string, model_files::tensor_ref>> kept;
  for (const auto& t : order) {
    p.plan.n_elements += t.info->nelements();
    auto name = remap(std::string(t.info->name));
    if (!name.empty()) kept.emplace_back(std::move(name), t);
  }
  p.pruned_block_count = o.prune_layers.empty() ? -1 : remap.next_id;
  if (o.keep_split) {
    std::stable_sort(kept.begin(), kept.end(), [](const auto& a, const auto& b) {
      if (a.second.shard != b.second.shard) return a.second.shard < b.second.shard;
      return a.second.info->offset < b.second.info->offset;
    });
  }

  detail::type_chooser chooser(o, p.facts);
  chooser.set_has_imatrix(o.imatrix != nullptr);
  {
    std::vector<std::string> names;
    for (const auto& [name, t] : kept) names.push_back(name);
    chooser.count(names);
  }

  uint32_t n_shards = 1;
  for (const auto& [name, t] : kept) {
    const auto& ti = *t.info;
    quantize_tensor_plan tp;
    tp.name = name;
    tp.source_name = std::string(ti.name);
    tp.ne = ti.ne;
    tp.n_dims = ggml_n_dims(ti.ne);
    tp.type_in = ti.type;
    tp.size_in = ti.nbytes;
    tp.shard = o.keep_split ? t.shard : 0;
    tp.info = t.info;
    n_shards = std::max(n_shards, tp.shard + 1);
    auto type = chooser.choose(name, tp.n_dims, ti.ne, ti.type, *default_type, tp.fallback);
    if (!type) return type.error();
    tp.type_out = *type;
    tp.quantized = tp.type_out != tp.type_in;
    tp.requires_imatrix = detail::tensor_requires_imatrix(name, tp.type_out, o.ftype);
    const bool allowed = detail::tensor_allows_quantization(name, tp.n_dims, o);
    if (allowed && tp.requires_imatrix && !o.imatrix) {
      if (!dry_run) {
        return plan_error(errc::unsupported,
                          "this quantization requires an importance matrix (--imatrix): tensor " + name + " would be " +
                              std::string(ggml_type_name(tp.type_out)),
                          name);
      }
      p.plan.needs_imatrix = true;
    }
    if (tp.quantized) {
      auto size = ggml_nbytes(tp.type_out, ti.ne.data(), 4);
      if (!size) return plan_error(size.error().code, size.error().detail, name);
      tp.size_out = *size;
    } else {
      tp.size_out = ti.nbytes;
    }
    p.plan.size_in += tp.size_in;
    p.plan.size_out += tp.size_out;
    p.plan.tensors.push_back(std::move(tp));
  }
  p.plan.n_fallback = chooser.n_fallback();
  p.n_shards = n_shards;
  for (uint32_t i = 0; i < n_shards; ++i) {
    if (out.empty()) p.plan.paths.emplace_back();
    else if (o.keep_split) {
      char suffix[32];
      std::snprintf(suffix, sizeof suffix, "-%05u-of-%05u.gguf", i + 1, n_shards);
      p.plan.paths.emplace_back(out.string() + suffix);
    } else {
      p.plan.paths.push_back(out);
    }
  }
  if (dry_run) return p;

  // The checks llama-quantize makes in its main loop, tensor by tensor, made before
  // anything is written.
  for (auto& tp : p.plan.tensors) {
    if (!tp.quantized) continue;
    if (o.imatrix) {
      auto it = o.imatrix->entries.find(tp.source_name);
      if (it != o.imatrix->entries.end()) {
        if (it->second.size() == tp.ne[0] * tp.ne[2]) {
          tp.imatrix = it->second.data();
        } else if (!is_token_embd(tp.name)) {
          return plan_error(errc::invalid_argument,
                            "imatrix size " + std::to_string(it->second.size()) + " is different from tensor size " +
                                std::to_string(tp.ne[0] * tp.ne[2]) + " for " + tp.name + " (an imatrix of another model?)",
                            tp.name);
        }
      }
    }
    if (!tp.imatrix && tp.requires_imatrix) {
      return plan_error(errc::unsupported,
                        "Missing importance matrix for tensor " + tp.name + " in a very low-bit quantization", tp.name);
    }
    const auto* tr = ggml_type_traits(tp.type_in);
    if (tr->quantized && !o.allow_requantize) {
      return plan_error(errc::unsupported,
                        "requantizing from type " + std::string(tr->name) + " is disabled (--allow-requantize)", tp.name);
    }
    if (!can_quantize(tp.type_out)) {
      return plan_error(errc::unsupported, "cannot quantize to " + std::string(ggml_type_name(tp.type_out)), tp.name);
    }
    if (!tr->quantized && tp.type_in != ggml_type::f32 && tp.type_in != ggml_type::f16 && tp.type_in != ggml_type::bf16) {
      return plan_error(errc::unsupported, "cannot dequantize/convert tensor type " + std::string(tr->name), tp.name);
    }
  }
  return p;
}

}  // namespace gguf
