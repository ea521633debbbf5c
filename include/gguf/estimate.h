// gguf/estimate.h — the memory llama.cpp allocates for a model and a set of context
// parameters, from the metadata and tensor infos alone (no tensor data is read).
//
//   auto f = gguf::file::open("model.gguf").value();
//   auto m = gguf::model::load(f).value();
//   gguf::estimate_params p;            // llama.cpp's llama_context_default_params()
//   p.n_ctx = 8192;
//   p.n_seq_max = 4;
//   auto e = gguf::estimate(m, p);
//   if (!e.refused.empty()) std::cerr << e.refused;   // where llama.cpp refuses
//   e.kv_bytes;  e.total_bytes;                         // bytes
//
// Sources (llama.cpp v0.5.0): src/llama-context.cpp (llama_init_from_model's checks;
// llama_context's cparams: n_ctx padded to 256, n_ctx_seq per stream, n_batch and n_ubatch
// clamped; output_reserve), src/llama-model.cpp (create_memory: which cache an architecture
// gets; load_tensors: the layers a device holds), src/llama-kv-cache.cpp and
// llama-kv-cache-iswa.cpp (one K and one V tensor per layer with a cache, [n_embd_k_gqa,
// kv_size, n_stream]; the sliding-window cache's size; shared and MLA layers),
// src/llama-memory-recurrent.cpp (the recurrent state of Mamba / RWKV layers).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gguf/format.h"
#include "gguf/model.h"

#pragma GCC visibility push(default)  // public API: exported from the shared library
namespace gguf {

/// llama.cpp's llama_flash_attn_type: auto (-1) enables flash attention where the backend
/// supports it (the CPU backend always does), and where a quantized V cache needs it.
enum class flash_attn_type : int8_t { automatic = -1, disabled = 0, enabled = 1 };

/// Context parameters, named and defaulted as llama.cpp's llama_context_params
/// (llama_context_default_params) and llama_model_params.
struct estimate_params {
  uint32_t n_ctx = 0;         ///< context size in tokens; 0 = the model's n_ctx_train
  uint32_t n_batch = 2048;    ///< logical batch size
  uint32_t n_ubatch = 512;    ///< physical batch size
  uint32_t n_seq_max = 1;     ///< sequences (parallel slots; recurrent states)
  bool kv_unified = false;    ///< one KV stream shared by all sequences
  ggml_type type_k = ggml_type::f16;  ///< K cache type (f32 f16 bf16 q8_0 q4_0 q4_1 iq4_nl q5_0 q5_1)
  ggml_type type_v = ggml_type::f16;  ///< V cache type (quantized needs flash attention)
  flash_attn_type flash_attn = flash_attn_type::automatic;
  /// Full-size sliding-window cache (llama_context_default_params: true; llama.cpp's
  /// command-line tools default to false, as `gguf estimate` without --swa-full).
  bool swa_full = true;
  bool embeddings = false;    ///< also extract embeddings (adds n_embd floats per output)
  /// Layers offloaded to one GPU (llama_model_params.n_gpu_layers), counted as llama.cpp's
  /// load_tensors does with the output layer as layer n_layer: layers il >= n_layer + 1 -
  /// n_gpu_layers (1 offloads the output layer only; n_layer + 1 or negative, everything but
  /// the token embeddings). 0 = CPU only.
  int32_t n_gpu_layers = 0;
  bool offload_kqv = true;    ///< KV cache of offloaded layers on the GPU
};

/// One layer's cache (where layers differ: sliding-window, shared, MLA, recurrent).
struct estimate_layer {
  uint32_t il = 0;
  /// "attention", "swa" (sliding-window cache), "shared" (reuses another layer's
  /// cache: no bytes), "recurrent" (Mamba / RWKV state), "none".
  std::string kind;
  uint32_t cells = 0;     ///< KV cells per stream (recurrent: state rows)
  uint64_t k_bytes = 0;   ///< K tensor (recurrent: the r / conv state)
  uint64_t v_bytes = 0;   ///< V tensor (recurrent: the s / ssm state; MLA: 0)
  uint64_t weights_bytes = 0;  ///< the layer's tensors (blk.N.*)
  bool gpu = false;       ///< on the GPU (n_gpu_layers)
};

/// Bytes per device: "CPU" and, when layers are offloaded, "GPU".
struct estimate_device {
  std::string name;
  uint64_t weights_bytes = 0;
  uint64_t kv_bytes = 0;
  uint64_t output_bytes = 0;
  uint64_t compute_bytes = 0;
  uint64_t total_bytes = 0;
};

/// What llama.cpp allocates; every size in bytes.
struct estimate_result {
  /// Empty, or llama.cpp's reason to refuse the parameters (llama_init_from_model
  /// returns null, or the context constructor throws or aborts); the sizes are then 0.
  std::string refused;
  bool vocab_only = false;      ///< the file has no tensors: no weights, no context
  uint32_t n_ctx = 0;           ///< llama_n_ctx: padded to 256, a multiple of n_seq_max
  uint32_t n_ctx_seq = 0;       ///< llama_n_ctx_seq: cells per stream
  uint32_t n_batch = 0;         ///< llama_n_batch (clamped to the requested n_ctx)
  uint32_t n_ubatch = 0;        ///< llama_n_ubatch
  uint32_t n_stream = 0;        ///< KV streams: 1 if kv_unified, else n_seq_max
  uint32_t n_ctx_swa = 0;       ///< cells of the sliding-window cache (0: none)
  bool flash_attn = false;      ///< as resolved (auto: on)
  std::string memory;           ///< "kv", "kv_iswa", "recurrent", "none"

  uint64_t weights_bytes = 0;   ///< llama_model_size: every tensor's ggml_nbytes
  uint64_t token_embd_bytes = 0;  ///< the input layer (token embeddings; always on the CPU)
  uint64_t output_weights_bytes = 0;  ///< tensors outside the blocks but the input layer
  uint64_t k_bytes = 0;         ///< every layer's K (recurrent: r) tensor
  uint64_t v_bytes = 0;         ///< every layer's V (recurrent: s) tensor
  uint64_t kv_bytes = 0;        ///< the cache buffers (K + V, each tensor padded to 32)
  uint64_t output_bytes = 0;    ///< the output buffer: (n_vocab + embeddings n_embd) * n_seq_max floats
  uint64_t compute_bytes = 0;   ///< the compute buffer (an estimate: see docs/estimate.md)
  uint64_t total_bytes = 0;     ///< weights + kv + output + compute
  std::vector<estimate_layer> layers;
  std::vector<estimate_device> devices;
};

/// The memory llama.cpp v0.5.0 allocates when it loads `m` and creates a context with `p`.
/// Weights, cache and output buffer are exact (llama.cpp's allocation to the byte, on the
/// CPU backend); the compute buffer is a model of ggml's graph allocator (see
/// docs/estimate.md for its measured error). Refusals (`refused`, with llama.cpp's
/// message): n_seq_max above 256; a quantized V cache with flash attention off; with flash
/// attention on, a quantized K or V type whose block size does not divide the head size;
/// different K and V types for an MLA model; n_ctx 0 with n_ctx_train 0; a quantized K cache
/// without flash attention whose block size does not divide the K row (ggml aborts); an
/// architecture whose cache llama.cpp builds differently from the ones modelled here
/// ("unsupported").
estimate_result estimate(const model& m, const estimate_params& p = {});

}  // namespace gguf
#pragma GCC visibility pop
