// The compute buffer: a model of the peak of ggml's graph allocator over the worst-case
// graph llama_context::sched_reserve reserves (n_tokens = min(n_ctx, n_ubatch) tokens,
// n_seq_max sequences, one output per token, every cache cell in view). Two moments bound
// it: inside a layer (the KQ mask over the cache, with flash attention off the KQ matrix
// [n_kv, n_tokens, n_head] in f32, the attention or FFN intermediates) and at the output
// (the logits [n_vocab, n_tokens] in f32 beside the final norm). The per-token constants
// were fitted to llama.cpp v0.5.0 on llama-architecture models (docs/estimate.md lists the
// measured error per architecture).
#include <algorithm>

#include "estimate_impl.h"

namespace gguf::detail {

uint64_t compute_estimate(const model& m, const arch_memory& a, const estimate_params& p,
                          const estimate_result& e) {
  (void)p;
  const auto& hp = m.hparams();
  const uint64_t n_tokens = std::min<uint64_t>(e.n_ctx, e.n_ubatch);
  const uint64_t n_vocab = n_vocab_of(m);
  const uint64_t n_embd = hp.n_embd;
  uint64_t n_ff = 0, n_head = 0;
  for (uint32_t il = 0; il < hp.n_layer; ++il) {
    n_ff = std::max<uint64_t>(n_ff, hp.n_ff(il));
    n_head = std::max<uint64_t>(n_head, hp.n_head(il));
  }
  // cells in view per stream: the full cache, plus the sliding-window cache's own mask
  uint64_t n_kv = 0, n_kv_swa = 0;
  for (const auto& l : e.layers) {
    if (l.kind == "attention") n_kv = std::max<uint64_t>(n_kv, l.cells);
    if (l.kind == "swa") n_kv_swa = std::max<uint64_t>(n_kv_swa, l.cells);
  }
  uint64_t k_gqa = 0, q_dim = 0;
  for (uint32_t il = 0; il < hp.n_layer; ++il) {
    k_gqa = std::max<uint64_t>(k_gqa, sat_mul(hp.n_embd_head_k(il), hp.n_head_kv(il)));
    q_dim = std::max<uint64_t>(q_dim, sat_mul(hp.n_embd_head_k(il), hp.n_head(il)));
  }
  if (a.kind == memory_kind::none) n_kv = n_tokens;  // an encoder attends over the batch itself
  const uint64_t fa = e.flash_attn ? 1 : 0;
  // the output: logits (none for an encoder: its output is the pooled embeddings) and,
  // beside them, the last hidden states
  const uint64_t n_logits = a.kind == memory_kind::none ? 0 : n_vocab;
  const uint64_t out_peak = sat_mul(n_tokens, sat_add(sat_mul(4, n_logits), sat_mul(fa ? 8 : 12, n_embd) + 4));
  // inside a layer: the mask(s) (f16 with flash attention, f32 without), with flash
  // attention off the KQ matrix, and the layer's intermediates
  // a gated FFN (gate, up and their product: 15 bytes per ff row and token) or not (7)
  // (RWKV's channel mix counts as gated)
  const bool gated = m.gguf_file().find_tensor("blk.0.ffn_gate.weight") != nullptr || hp.wkv_head_size != 0;
  const uint64_t ffn = sat_mul(gated ? 15 : 7, n_ff);
  const uint64_t embd = sat_add(sat_mul(8, n_embd), 28);
  uint64_t layer_peak = 0;
  if (a.kind != memory_kind::recurrent) {
    const uint64_t masks = n_kv + n_kv_swa;
    // MLA's absorbed attention (deepseek2.cpp): Q [n_head * key_length_mla], Q absorbed into
    // the latent space [n_head * kv_lora_rank], rotated Q_pe, their concatenation, and the
    // compressed KV with its rotated part, beside the residual, in f32
    uint64_t mla_attn = 0;
    if (a.mla) {
      const uint64_t kv_lora = hp.n_lora_kv, rope = hp.n_rot_full, h = n_head;
      const uint64_t lr = kv_lora + rope;
      const uint64_t floats = sat_add(sat_add(n_embd, sat_mul(h, hp.n_embd_head_k_mla)),
                                      sat_add(sat_mul(h, 2, lr), sat_mul(3, lr)));
      mla_attn = sat_add(sat_mul(4, floats), 28);
    }
    if (fa) {
      // the FFN, or the attention: the residual, two Q-sized and two K-sized f32 tensors
      const uint64_t attn = a.mla ? mla_attn
                                  : sat_add(sat_add(sat_mul(4, n_embd), sat_mul(8, q_dim)), sat_mul(8, k_gqa) + 28);
      layer_peak = sat_mul(n_tokens, sat_add(sat_mul(2, masks), std::max(sat_add(ffn, embd), attn)));
    } else {
      const uint64_t kv_max = std::max(n_kv, n_kv_swa);
      // beside KQ: the residual, four Q-sized tensors (Q, rotated Q, KQV, merged heads)
      // and two K-sized ones (K, rotated K), in f32
      const uint64_t rest =
          a.mla ? mla_attn : sat_add(sat_add(sat_mul(4, n_embd), sat_mul(16, q_dim)), sat_mul(8, k_gqa) + 20);
      layer_peak = sat_mul(n_tokens, sat_add(sat_add(sat_mul(4, n_head, kv_max), sat_mul(4, masks)), rest));
    }
  } else if (hp.wkv_head_size != 0) {
    // RWKV: time mix and channel mix intermediates, and every layer's states
    layer_peak = sat_add(sat_mul(n_tokens, sat_add(ffn, sat_add(sat_mul(12, n_embd), 28))),
                         sat_add(e.k_bytes, e.v_bytes));
  } else {
    // Mamba: the selective scan's intermediates, 26 bytes per inner channel and token and 12
    // per B / C channel (Mamba-2's groups), and one layer's states
    const uint64_t bc = sat_mul(24, hp.ssm_n_group, hp.ssm_d_state);
    layer_peak = sat_add(sat_mul(n_tokens, sat_add(sat_add(sat_mul(26, hp.ssm_d_inner), bc), 8)),
                         sat_add(e.k_bytes, e.v_bytes) / std::max(1u, hp.n_layer));
  }
  return std::max(out_peak, layer_peak);
}

}  // namespace gguf::detail
