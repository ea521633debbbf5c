// Internals shared by estimate.cpp and estimate_compute.cpp.
#pragma once

#include <cstdint>
#include <vector>

#include "gguf/estimate.h"

namespace gguf::detail {

enum class memory_kind : uint8_t { none, kv, recurrent };

/// The cache llama.cpp's create_memory builds for a model, and its per-layer facts.
struct arch_memory {
  memory_kind kind = memory_kind::kv;
  uint32_t n_layer = 0;
  std::vector<uint8_t> swa;  ///< per layer: a sliding-window layer (llama.cpp is_swa)
  uint32_t n_swa = 0;        ///< the window
  bool iswa = false;         ///< two caches (llama_kv_cache_iswa)
  bool mla = false;          ///< K only (multi-head latent attention)
};

/// Saturating arithmetic: sizes computed from a hostile file's hparams stay meaningful
/// (UINT64_MAX) instead of wrapping.
inline uint64_t sat_mul(uint64_t a, uint64_t b) {
  uint64_t r = 0;
  return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}
inline uint64_t sat_add(uint64_t a, uint64_t b) {
  uint64_t r = 0;
  return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}
template <class... T>
uint64_t sat_mul(uint64_t a, uint64_t b, T... rest) {
  return sat_mul(sat_mul(a, b), rest...);
}

arch_memory memory_of(const model& m);
/// llama_vocab::n_tokens.
uint32_t n_vocab_of(const model& m);
/// The compute buffer (bytes) of the worst-case graph llama.cpp reserves; `e` holds the
/// resolved context sizes and the cache.
uint64_t compute_estimate(const model& m, const arch_memory& a, const estimate_params& p,
                          const estimate_result& e);

}  // namespace gguf::detail
