// gguf::estimate: llama.cpp v0.5.0's allocations for a model and context parameters,
// from the metadata alone. The cache part follows llama_model::create_memory and the
// llama_kv_cache / llama_kv_cache_iswa / llama_memory_recurrent constructors; the context
// part llama_init_from_model and llama_context's constructor; the compute buffer is in
// estimate_compute.cpp.
#include "gguf/estimate.h"

#include <algorithm>
#include <array>
#include <charconv>

#include "estimate_impl.h"

namespace gguf {

namespace detail {

namespace {

constexpr uint32_t llama_max_seq = 256;   // llama-cparams.h LLAMA_MAX_SEQ
constexpr uint64_t buffer_alignment = 32;  // the CPU buffer type's alignment (ggml-backend)

uint64_t pad(uint64_t x, uint64_t n) { return (x + n - 1) / n * n; }

std::string_view arch_name(const model& m) { return m.arch().name; }

bool arch_in(const model& m, std::initializer_list<std::string_view> names) {
  return std::find(names.begin(), names.end(), arch_name(m)) != names.end();
}

// Architectures without a cache (create_memory returns null): encoders.
bool has_no_memory(const model& m) { return arch_in(m, {"bert", "nomic-bert", "nomic-bert-moe"}); }
// llm_arch_is_recurrent.
bool is_recurrent(const model& m) { return arch_in(m, {"mamba", "mamba2", "rwkv6", "rwkv7"}); }
// Architectures of the GGUF specification that llama.cpp has no loader for.
bool llama_cpp_unknown(const model& m) { return arch_in(m, {"rwkv", "whisper"}); }

// The sliding-window pattern of a scalar `[arch].attention.sliding_window_pattern`, if set
// (llama_model_base::load_swa_pattern reads an array first, then a scalar).
std::optional<uint32_t> swa_pattern_key(const model& m) {
  auto key = std::string(arch_name(m)) + ".attention.sliding_window_pattern";
  auto v = m.gguf_file().find(key);
  if (!v || v->type() == value_type::array) return std::nullopt;
  auto n = v->to_uint64();
  if (!n || *n > UINT32_MAX) return std::nullopt;
  return static_cast<uint32_t>(*n);
}

// llama_hparams::set_swa_pattern (dense layer last in each group of n_pattern).
std::vector<uint8_t> swa_pattern(uint32_t n_layer, uint32_t n_pattern) {
  std::vector<uint8_t> v(n_layer);
  for (uint32_t il = 0; il < n_layer; ++il) v[il] = n_pattern == 0 || (il % n_pattern < n_pattern - 1);
  return v;
}

}  // namespace

arch_memory memory_of(const model& m) {
  const auto& hp = m.hparams();
  arch_memory a;
  a.n_layer = hp.n_layer;
  if (has_no_memory(m)) {
    a.kind = memory_kind::none;
  } else if (is_recurrent(m)) {
    a.kind = memory_kind::recurrent;
  } else {
    a.kind = memory_kind::kv;
  }
  a.swa.assign(hp.n_layer, 0);
  a.n_swa = hp.n_swa;
  if (!hp.swa_layers.empty()) {  // gemma4: one flag per layer from the file
    for (uint32_t il = 0; il < hp.n_layer; ++il) a.swa[il] = hp.is_swa(il) ? 1 : 0;
  } else if (arch_name(m) == "gemma2" || (arch_name(m) == "gemma3" && hp.n_swa > 0)) {
    // gemma2.cpp / gemma3.cpp: load_swa_pattern(ml, 2 / 6)
    const uint32_t def = arch_name(m) == "gemma2" ? 2 : 6;
    a.swa = swa_pattern(hp.n_layer, swa_pattern_key(m).value_or(def));
    if (auto arr = m.gguf_file().find(std::string(arch_name(m)) + ".attention.sliding_window_pattern");
        arr && arr->type() == value_type::array) {
      if (auto flags = arr->array(); flags && flags->size() == hp.n_layer) {
        for (uint32_t il = 0; il < hp.n_layer; ++il) {
          auto f = flags->at(il);
          if (!f) continue;
          if (auto b = f->get<bool>()) {
            a.swa[il] = *b ? 1 : 0;
          } else if (auto n = f->to_uint64()) {
            a.swa[il] = *n != 0 ? 1 : 0;
          }
        }
      }
    }
  }
  a.iswa = a.kind == memory_kind::kv &&
           std::any_of(a.swa.begin(), a.swa.end(), [](uint8_t s) { return s != 0; });
  a.mla = hp.n_embd_head_k_mla != 0 && hp.n_embd_head_v_mla != 0;
  return a;
}

uint32_t n_vocab_of(const model& m) {
  // llama_vocab::n_tokens: the length of tokenizer.ggml.tokens
  if (auto t = m.gguf_file().find("tokenizer.ggml.tokens"); t && t->type() == value_type::array) {
    if (auto a = t->array(); a) return static_cast<uint32_t>(a->size());
  }
  return m.hparams().n_vocab;
}

namespace {

uint32_t head_k(const hparams& hp, const arch_memory& a, uint32_t il) {
  return a.swa[il] ? hp.n_embd_head_k_swa : hp.n_embd_head_k_full;
}
uint32_t head_v(const hparams& hp, const arch_memory& a, uint32_t il) {
  return a.swa[il] ? hp.n_embd_head_v_swa : hp.n_embd_head_v_full;
}

// ggml_row_size; false when ne0 is not a whole number of blocks (ggml aborts).
bool row_bytes(ggml_type t, uint64_t ne0, uint64_t& out) {
  auto r = ggml_row_size(t, ne0);
  if (!r) return false;
  out = *r;
  return true;
}

std::string type_name(ggml_type t) { return std::string(ggml_type_name(t)); }

bool is_quantized(ggml_type t) {
  const auto* tr = ggml_type_traits(t);
  return tr && tr->quantized;
}

// llama_init_from_model's checks, in its order; empty if none fails.
std::string check_params(const model& m, const arch_memory& a, const estimate_params& p, bool& fa) {
  const auto& hp = m.hparams();
  if (p.n_ctx == 0 && hp.n_ctx_train == 0) {
    return "n_ctx and model->hparams.n_ctx_train cannot both be zero";
  }
  if (a.mla && p.type_k != p.type_v) {
    return "model does not support different K (" + type_name(p.type_k) + ") and V (" +
           type_name(p.type_v) + ") cache types";
  }
  fa = p.flash_attn != flash_attn_type::disabled;
  if (is_quantized(p.type_v) && p.flash_attn == flash_attn_type::disabled) {
    return "quantized V cache requires flash_attn to be enabled";
  }
  if (fa) {
    for (auto [t, is_k] : {std::pair{p.type_k, true}, std::pair{p.type_v, false}}) {
      if (!is_quantized(t)) continue;
      const uint32_t blck = ggml_type_traits(t)->blck_size;
      for (uint32_t il = 0; il < hp.n_layer; ++il) {
        const uint32_t head = is_k ? head_k(hp, a, il) : head_v(hp, a, il);
        if (head % blck != 0) {
          return std::string(is_k ? "K" : "V") + " cache type " + type_name(t) + " with block size " +
                 std::to_string(blck) + " does not divide n_embd_head_" + (is_k ? "k" : "v") + "=" +
                 std::to_string(head);
        }
      }
    }
  }
  if (std::max(1u, p.n_seq_max) > llama_max_seq) {
    return "failed to initialize the context: n_seq_max must be <= " + std::to_string(llama_max_seq);
  }
  return {};
}

bool layer_on_gpu(int32_t n_gpu_layers, uint32_t n_layer, uint32_t il) {
  const int64_t ngl = n_gpu_layers < 0 ? int64_t{n_layer} + 1 : n_gpu_layers;
  const int64_t start = std::max<int64_t>(int64_t{n_layer} + 1 - ngl, 0);
  return int64_t{il} >= start && int64_t{il} - start < std::min<int64_t>(ngl, int64_t{n_layer} + 1);
}

// blk.N.* -> N, else -1.
int32_t block_of(std::string_view name) {
  if (name.substr(0, 4) != "blk.") return -1;
  int32_t n = -1;
  auto r = std::from_chars(name.data() + 4, name.data() + name.size(), n);
  return r.ec == std::errc{} && r.ptr < name.data() + name.size() && *r.ptr == '.' ? n : -1;
}

}  // namespace
}  // namespace detail

estimate_result estimate(const model& m, const estimate_params& p) {
  using namespace detail;
  estimate_result e;
  const auto& hp = m.hparams();
  const auto& f = m.gguf_file();
  const arch_memory a = memory_of(m);
  const uint32_t n_layer = hp.n_layer;

  // Weights: llama_model_size is the sum of ggml_nbytes over the file's tensors.
  e.layers.resize(n_layer);
  for (uint32_t il = 0; il < n_layer; ++il) {
    e.layers[il].il = il;
    e.layers[il].gpu = layer_on_gpu(p.n_gpu_layers, n_layer, il);
  }
  const bool output_gpu = layer_on_gpu(p.n_gpu_layers, n_layer, n_layer);
  for (const auto& t : f.tensors()) {
    e.weights_bytes += t.nbytes;
    const int32_t blk = block_of(t.name);
    if (blk >= 0 && static_cast<uint32_t>(blk) < n_layer) {
      e.layers[blk].weights_bytes += t.nbytes;
    } else if (t.name.substr(0, 10) == "token_embd" || t.name.substr(0, 20) == "per_layer_token_embd") {
      e.token_embd_bytes += t.nbytes;
    } else {
      e.output_weights_bytes += t.nbytes;
    }
  }
  e.vocab_only = f.tensor_count() == 0;
  const bool gpu = p.n_gpu_layers != 0 && n_layer > 0;
  e.devices.push_back({.name = "CPU"});
  if (gpu) e.devices.push_back({.name = "GPU"});
  auto& cpu = e.devices[0];
  cpu.weights_bytes = e.token_embd_bytes + (output_gpu ? 0 : e.output_weights_bytes);
  if (gpu) e.devices[1].weights_bytes = output_gpu ? e.output_weights_bytes : 0;
  for (const auto& l : e.layers) e.devices[l.gpu ? 1 : 0].weights_bytes += l.weights_bytes;

  if (llama_cpp_unknown(m)) {
    e.refused = "unknown model architecture: '" + std::string(arch_name(m)) + "'";
    return e;
  }
  if (e.vocab_only) {
    e.refused = "vocab-only file: no weights";
    e.total_bytes = 0;
    return e;
  }

  // llama_init_from_model's checks, then the context's cparams.
  bool fa = false;
  if (auto why = check_params(m, a, p, fa); !why.empty()) {
    e.refused = why;
    return e;
  }
  e.flash_attn = fa;
  const uint32_t n_seq = std::max(1u, p.n_seq_max);
  const uint32_t n_ctx_req = p.n_ctx == 0 ? hp.n_ctx_train : p.n_ctx;
  const bool causal = hp.causal_attn;
  e.n_batch = causal ? std::min(n_ctx_req, p.n_batch) : p.n_batch;
  e.n_ubatch = std::min(e.n_batch, p.n_ubatch == 0 ? p.n_batch : p.n_ubatch);
  // output_reserve(n_seq_max) asserts n_seq_max <= cparams.n_outputs_max, which is n_batch
  // (llama-context.cpp: GGML_ASSERT(n_outputs_max <= cparams.n_outputs_max)): with n_ctx 1
  // and 2..4 sequences llama.cpp v0.5.0 aborts (issue 29, item 15).
  if (n_seq > e.n_batch) {
    e.refused = "llama.cpp aborts: " + std::to_string(n_seq) + " sequences need an output buffer of " +
                std::to_string(n_seq) + " rows, above n_batch " + std::to_string(e.n_batch) +
                " (GGML_ASSERT(n_outputs_max <= cparams.n_outputs_max))";
    return e;
  }
  uint64_t n_ctx = pad(n_ctx_req, 256);
  uint64_t n_ctx_seq = n_ctx;
  if (!p.kv_unified) {
    n_ctx_seq = pad(n_ctx / n_seq, 256);
    if (n_ctx_seq == 0) {
      e.refused = "failed to initialize the context: n_ctx_seq == 0";
      return e;
    }
    n_ctx = n_ctx_seq * n_seq;
  }
  if (n_ctx > UINT32_MAX) {
    e.refused = "n_ctx out of range";
    return e;
  }
  e.n_ctx = static_cast<uint32_t>(n_ctx);
  e.n_ctx_seq = static_cast<uint32_t>(n_ctx_seq);
  e.n_stream = p.kv_unified ? 1 : n_seq;

  // The output buffer (output_reserve(n_seq_max)): logits, and embeddings if asked, per sequence.
  // (t5: llama.cpp always keeps both logits and embeddings)
  const uint64_t n_vocab = n_vocab_of(m);
  const bool has_embd = p.embeddings || arch_name(m) == "t5";
  e.output_bytes = (n_vocab + (has_embd ? hp.n_embd : 0)) * n_seq * sizeof(float);

  // The memory module.
  uint64_t kv_gpu = 0, kv_cpu = 0;
  auto add_tensor = [&](estimate_layer& l, uint64_t bytes, bool is_k) {
    auto& lb = is_k ? l.k_bytes : l.v_bytes;
    auto& eb = is_k ? e.k_bytes : e.v_bytes;
    lb = sat_add(lb, bytes);
    eb = sat_add(eb, bytes);
    const uint64_t padded = bytes > UINT64_MAX - buffer_alignment ? UINT64_MAX : pad(bytes, buffer_alignment);
    e.kv_bytes = sat_add(e.kv_bytes, padded);
    auto& dev = (l.gpu && p.offload_kqv) ? kv_gpu : kv_cpu;
    dev = sat_add(dev, padded);
  };
  if (a.kind == memory_kind::none) {
    e.memory = "none";
    for (auto& l : e.layers) l.kind = "none";
  } else if (a.kind == memory_kind::recurrent) {
    // llama_memory_recurrent: per layer r [n_embd_r, mem_size] and s [n_embd_s, mem_size], f32.
    e.memory = "recurrent";
    uint64_t n_embd_r = 0, n_embd_s = 0;
    if (hp.wkv_head_size != 0) {
      n_embd_r = sat_mul(hp.token_shift_count, hp.n_embd);
      n_embd_s = sat_mul(hp.n_embd, hp.wkv_head_size);
    } else {
      n_embd_r = sat_mul(hp.ssm_d_conv > 0 ? hp.ssm_d_conv - 1 : 0,
                         sat_add(hp.ssm_d_inner, sat_mul(2, hp.ssm_n_group, hp.ssm_d_state)));
      n_embd_s = sat_mul(hp.ssm_d_state, hp.ssm_d_inner);
    }
    for (auto& l : e.layers) {
      l.kind = "recurrent";
      l.cells = n_seq;
      add_tensor(l, sat_mul(n_embd_r, n_seq, 4), true);
      add_tensor(l, sat_mul(n_embd_s, n_seq, 4), false);
    }
  } else {
    e.memory = a.iswa ? "kv_iswa" : "kv";
    // llama_kv_cache_iswa: the sliding-window cache holds n_swa cells per stream (n_swa *
    // n_seq_max when unified) plus a ubatch, padded to 256, at most the full size.
    uint64_t size_swa = 0;
    if (a.iswa) {
      size_swa = p.swa_full ? n_ctx_seq
                            : pad(std::min<uint64_t>(n_ctx_seq, uint64_t{a.n_swa} * (p.kv_unified ? n_seq : 1) +
                                                                    e.n_ubatch),
                                  256);
      e.n_ctx_swa = static_cast<uint32_t>(size_swa);
    }
    // [TAG_V_CACHE_VARIABLE]: without flash attention V is transposed and every layer's V
    // row is padded to the widest one.
    uint64_t v_gqa_max = 0;
    for (uint32_t il = 0; il < n_layer; ++il) {
      v_gqa_max = std::max<uint64_t>(v_gqa_max, sat_mul(head_v(hp, a, il), hp.n_head_kv(il)));
    }
    for (uint32_t il = 0; il < n_layer; ++il) {
      auto& l = e.layers[il];
      if (!hp.has_kv(il)) {
        l.kind = "shared";
        continue;
      }
      l.kind = a.swa[il] ? "swa" : "attention";
      l.cells = static_cast<uint32_t>(a.swa[il] ? size_swa : n_ctx_seq);
      const uint64_t k_gqa = sat_mul(head_k(hp, a, il), hp.n_head_kv(il));
      const uint64_t v_gqa = fa ? sat_mul(head_v(hp, a, il), hp.n_head_kv(il)) : v_gqa_max;
      uint64_t k_row = 0, v_row = 0;
      if (!row_bytes(p.type_k, k_gqa, k_row) || (!a.mla && !row_bytes(p.type_v, v_gqa, v_row))) {
        // ggml_new_tensor_3d with a row that is not a whole number of blocks: GGML_ASSERT
        e.refused = "ggml aborts: cache row of layer " + std::to_string(il) +
                    " is not a whole number of blocks";
        e.layers.clear();
        e.k_bytes = e.v_bytes = e.kv_bytes = 0;
        e.n_ctx = e.n_ctx_seq = 0;
        e.output_bytes = 0;
        return e;
      }
      add_tensor(l, sat_mul(k_row, l.cells, e.n_stream), true);
      if (!a.mla) add_tensor(l, sat_mul(v_row, l.cells, e.n_stream), false);
    }
  }

  e.compute_bytes = compute_estimate(m, a, p, e);

  cpu.kv_bytes = kv_cpu;
  cpu.output_bytes = e.output_bytes;
  if (gpu) {
    e.devices[1].kv_bytes = kv_gpu;
    e.devices[1].compute_bytes = e.compute_bytes;  // the graph runs where the layers are
  } else {
    cpu.compute_bytes = e.compute_bytes;
  }
  for (auto& d : e.devices) {
    d.total_bytes = sat_add(sat_add(d.weights_bytes, d.kv_bytes), sat_add(d.output_bytes, d.compute_bytes));
  }
  e.total_bytes = sat_add(sat_add(e.weights_bytes, e.kv_bytes), sat_add(e.output_bytes, e.compute_bytes));
  return e;
}

}  // namespace gguf
