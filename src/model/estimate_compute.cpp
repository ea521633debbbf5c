// The compute buffer: a model of the peak of ggml's graph allocator over the worst-case
// graph llama_context::sched_reserve reserves (n_tokens = min(n_ctx, n_ubatch) tokens,
// n_seq_max sequences, one output per token, the whole cache in view).
#include <algorithm>

#include "estimate_impl.h"

namespace gguf::detail {

uint64_t compute_estimate(const model& m, const arch_memory& a, const estimate_params& p,
                          const estimate_result& e) {
  const auto& hp = m.hparams();
  const uint64_t n_tokens = std::min<uint64_t>(e.n_ctx, e.n_ubatch);
  const uint64_t n_outputs = std::min<uint64_t>(n_tokens, e.n_batch);
  const uint64_t n_vocab = n_vocab_of(m);
  (void)a;
  (void)p;
  return n_vocab * n_outputs * 4 + uint64_t{hp.n_embd} * n_tokens * 4;
}

}  // namespace gguf::detail
