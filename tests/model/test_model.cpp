// hparams and tensor map on handcrafted files: one file per failure mode.
#include <gtest/gtest.h>

#include "gguf/model.h"
#include "gguf_builder.h"
#include "model_errors.h"

namespace {

using gguf::errc;
using gguf::test::expect_key_error;
using gguf::test::gguf_builder;

/// A valid one-block llama: n_embd 8, 2 heads of 4, n_ff 16, 4 tokens; output tied.
gguf_builder tiny_llama(uint32_t n_layer_tensors = 1) {
  gguf_builder b = gguf::test::arch_keys("llama", {.n_ctx = 128, .rms_eps = 1e-5f, .n_vocab = 4});
  b.tensor("token_embd.weight", {8, 4}).tensor("output_norm.weight", {8});
  for (uint32_t il = 0; il < n_layer_tensors; ++il) {
    std::string p = "blk." + std::to_string(il) + ".";
    b.tensor(p + "attn_norm.weight", {8})
        .tensor(p + "attn_q.weight", {8, 8})
        .tensor(p + "attn_k.weight", {8, 8})
        .tensor(p + "attn_v.weight", {8, 8})
        .tensor(p + "attn_output.weight", {8, 8})
        .tensor(p + "ffn_norm.weight", {8})
        .tensor(p + "ffn_gate.weight", {8, 16})
        .tensor(p + "ffn_down.weight", {16, 8})
        .tensor(p + "ffn_up.weight", {8, 16});
  }
  return b;
}

gguf::result<gguf::model> load(const gguf_builder& b) {
  auto f = gguf::file::from_buffer(b.build());
  if (!f) return f.error();
  return gguf::model::load(*f);
}

TEST(ModelHparams, TinyLlamaLoadsWithDefaults) {
  auto m = load(tiny_llama());
  ASSERT_TRUE(m.ok()) << m.error().message();
  const auto& hp = m->hparams();
  EXPECT_EQ(m->arch().name, "llama");
  EXPECT_FALSE(hp.vocab_only);
  EXPECT_EQ(hp.n_ctx_train, 128u);
  EXPECT_EQ(hp.n_embd, 8u);
  EXPECT_EQ(hp.n_layer, 1u);
  EXPECT_EQ(hp.n_ff(), 16u);
  EXPECT_EQ(hp.n_head(), 2u);
  EXPECT_EQ(hp.n_head_kv(), 2u);  // defaults to n_head
  EXPECT_EQ(hp.n_embd_head_k_full, 4u);
  EXPECT_EQ(hp.n_rot_full, 4u);  // defaults to n_embd / n_head
  EXPECT_EQ(hp.n_vocab, 4u);  // from tokenizer.ggml.tokens
  EXPECT_EQ(hp.rope_freq_base_train, 10000.0f);
  EXPECT_EQ(hp.rope_freq_scale_train, 1.0f);
  EXPECT_EQ(hp.n_ctx_orig_yarn, 128u);
  EXPECT_EQ(hp.f_norm_rms_eps, 1e-5f);
  EXPECT_TRUE(m->diagnostics().empty()) << m->diagnostics()[0].tensor << ": " << m->diagnostics()[0].message;
  EXPECT_TRUE(m->check().ok());
  // 8*4 + 8 + 8 + 4*64 + 8 + 3*128
  EXPECT_EQ(m->n_params(), 32u + 8 + 8 + 4 * 64 + 8 + 3 * 128);
  auto te = m->token_embd();
  ASSERT_TRUE(te.ok());
  EXPECT_EQ((*te)->ne[0], 8u);
}

TEST(ModelHparams, CountsMayBeUint64) {
  auto b = tiny_llama();
  b.without("llama.context_length").u64("llama.context_length", 4096);
  auto m = load(b);
  ASSERT_TRUE(m.ok()) << m.error().message();
  EXPECT_EQ(m->hparams().n_ctx_train, 4096u);
}

TEST(ModelHparams, MissingRequiredKey) {
  expect_key_error(tiny_llama().without("llama.attention.layer_norm_rms_epsilon"),
                   "llama.attention.layer_norm_rms_epsilon", false);
  expect_key_error(tiny_llama().without("llama.context_length"), "llama.context_length", false);
  expect_key_error(tiny_llama().without("llama.embedding_length"), "llama.embedding_length", false);
  auto f = gguf::file::from_buffer(tiny_llama().without("general.architecture").build());
  auto m = gguf::model::load(*f);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().code, errc::invalid_model);
  EXPECT_EQ(m.error().subject, "general.architecture");
}

TEST(ModelHparams, OutOfRangeValues) {
  // block_count larger than the blk.N tensors present.
  expect_key_error(tiny_llama().without("llama.block_count").u32("llama.block_count", 2), "llama.block_count");
  expect_key_error(tiny_llama().without("llama.block_count").u32("llama.block_count", 513), "llama.block_count");
  // n_embd not divisible by n_head.
  expect_key_error(tiny_llama().without("llama.attention.head_count").u32("llama.attention.head_count", 3),
                   "llama.attention.head_count");
  // llama: n_rot must equal the head size.
  expect_key_error(tiny_llama().u32("llama.rope.dimension_count", 2), "llama.rope.dimension_count");
  // a count that does not fit uint32, a negative count, a count of the wrong type.
  expect_key_error(tiny_llama().without("llama.context_length").u64("llama.context_length", 1ull << 32),
                   "llama.context_length");
  expect_key_error(tiny_llama().without("llama.context_length").i32("llama.context_length", -1), "llama.context_length");
  expect_key_error(tiny_llama().without("llama.context_length").str("llama.context_length", "128"),
                   "llama.context_length");
  expect_key_error(tiny_llama().without("llama.attention.layer_norm_rms_epsilon")
                       .u32("llama.attention.layer_norm_rms_epsilon", 1),
                   "llama.attention.layer_norm_rms_epsilon");
  expect_key_error(tiny_llama().without("llama.attention.layer_norm_rms_epsilon")
                       .f32("llama.attention.layer_norm_rms_epsilon", -1e-5f),
                   "llama.attention.layer_norm_rms_epsilon");
  // experts: used > count; count without used.
  expect_key_error(tiny_llama().u32("llama.expert_count", 2).u32("llama.expert_used_count", 3),
                   "llama.expert_used_count");
  expect_key_error(tiny_llama().u32("llama.expert_count", 1024).u32("llama.expert_used_count", 2),
                   "llama.expert_count");
  expect_key_error(tiny_llama().str("llama.rope.scaling.type", "bogus"), "llama.rope.scaling.type");
  // per-layer array of the wrong length.
  expect_key_error(tiny_llama().arr_i32("llama.attention.head_count_kv", {2, 2}), "llama.attention.head_count_kv");
}

TEST(ModelHparams, PerLayerArraysAndRopeScale) {
  auto b = tiny_llama();
  b.arr_i32("llama.attention.head_count_kv", {1}).f32("llama.rope.scale_linear", 4.0f);
  auto m = load(b);
  ASSERT_TRUE(m.ok()) << m.error().message();
  EXPECT_EQ(m->hparams().n_head_kv(0), 1u);
  EXPECT_EQ(m->hparams().n_embd_k_gqa(0), 4u);
  EXPECT_EQ(m->hparams().rope_freq_scale_train, 0.25f);  // the old key still counts
  // attn_k/attn_v of the builder are [8, 8]; with one KV head they must be [8, 4].
  ASSERT_FALSE(m->check().ok());
  EXPECT_EQ(m->check().error().subject, "blk.0.attn_k.weight");

  auto b2 = tiny_llama();
  b2.f32("llama.rope.scale_linear", 4.0f).f32("llama.rope.scaling.factor", 2.0f).str("llama.rope.scaling.type", "yarn");
  auto m2 = load(b2);
  ASSERT_TRUE(m2.ok()) << m2.error().message();
  EXPECT_EQ(m2->hparams().rope_freq_scale_train, 0.5f);  // rope.scaling.factor wins
  EXPECT_EQ(m2->hparams().rope_scaling_type_train, gguf::rope_scaling_type::yarn);
}

TEST(ModelHparams, UnknownArchitecture) {
  gguf_builder b;
  b.str("general.architecture", "superpoint");
  auto m = load(b);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().code, errc::unsupported);
  EXPECT_NE(m.error().detail.find("superpoint"), std::string::npos);
}

TEST(ModelHparams, VocabOnlyFileNeedsNoHparams) {
  gguf_builder b;
  b.str("general.architecture", "llama").arr_str("tokenizer.ggml.tokens", {"a"});
  auto m = load(b);
  ASSERT_TRUE(m.ok()) << m.error().message();
  EXPECT_TRUE(m->hparams().vocab_only);
  EXPECT_TRUE(m->tensors().empty());
  EXPECT_TRUE(m->diagnostics().empty());
}

TEST(ModelHparams, RegistryHasTheSpecAndCommonArchitectures) {
  for (auto name : {"llama", "mpt", "gptneox", "gptj", "gpt2", "bloom", "falcon", "mamba", "rwkv", "whisper"}) {
    const auto* a = gguf::find_model_architecture(name);
    ASSERT_NE(a, nullptr) << name;
    EXPECT_TRUE(a->from_spec) << name;
  }
  for (auto name : {"qwen2", "qwen3", "phi3", "gemma", "gemma2", "gemma3", "starcoder2", "bert", "nomic-bert", "t5",
                    "command-r", "deepseek2"}) {
    EXPECT_NE(gguf::find_model_architecture(name), nullptr) << name;
  }
  EXPECT_EQ(gguf::find_model_architecture("nope"), nullptr);
}

TEST(ModelHparams, WhisperReadsEncoderAndDecoderKeys) {
  gguf_builder b;
  b.str("general.architecture", "whisper")
      .u32("whisper.encoder.context_length", 1500)
      .u32("whisper.encoder.embedding_length", 384)
      .u32("whisper.encoder.block_count", 4)
      .u32("whisper.encoder.mels_count", 80)
      .u32("whisper.encoder.attention.head_count", 6)
      .u32("whisper.decoder.context_length", 448)
      .u32("whisper.decoder.embedding_length", 384)
      .u32("whisper.decoder.block_count", 4)
      .u32("whisper.decoder.attention.head_count", 6)
      .tensor("encoder.conv1.weight", {3, 80, 384});
  auto m = load(b);
  ASSERT_TRUE(m.ok()) << m.error().message();
  EXPECT_EQ(m->hparams().n_ctx_train, 1500u);
  EXPECT_EQ(m->hparams().n_mels, 80u);
  EXPECT_EQ(m->hparams().dec_n_ctx, 448u);
  EXPECT_EQ(m->hparams().n_head(), 6u);
  expect_key_error(b.without("whisper.encoder.mels_count"), "whisper.encoder.mels_count", false);
}

TEST(ModelHparams, RwkvArchitectureVersion) {
  // The spec's RWKV keys: architecture_version (only 4 allowed) and the LLM counts.
  gguf_builder b;
  b.str("general.architecture", "rwkv")
      .u32("rwkv.architecture_version", 4)
      .u64("rwkv.context_length", 1024)
      .u64("rwkv.block_count", 2)
      .u64("rwkv.embedding_length", 8)
      .u64("rwkv.feed_forward_length", 32)
      .tensor("blk.1.ln1.weight", {8});
  auto m = load(b);
  ASSERT_TRUE(m.ok()) << m.error().message();
  EXPECT_EQ(m->hparams().architecture_version, 4u);
  EXPECT_EQ(m->hparams().n_layer, 2u);
  EXPECT_EQ(m->hparams().n_ff(), 32u);
  EXPECT_TRUE(m->tensors().empty());  // no standardized tensor names for rwkv
  expect_key_error(b.without("rwkv.architecture_version"), "rwkv.architecture_version", false);
  expect_key_error(b.without("rwkv.architecture_version").u32("rwkv.architecture_version", 5),
                   "rwkv.architecture_version", true, "only 4");
}

TEST(ModelHparams, MambaSsmSizes) {
  gguf_builder b;
  b.str("general.architecture", "mamba")
      .u32("mamba.context_length", 1024)
      .u32("mamba.embedding_length", 8)
      .u32("mamba.block_count", 1)
      .u32("mamba.ssm.conv_kernel", 4)
      .u32("mamba.ssm.inner_size", 16)
      .u32("mamba.ssm.state_size", 2)
      .u32("mamba.ssm.time_step_rank", 1)
      .f32("mamba.attention.layer_norm_rms_epsilon", 1e-5f)
      .arr_str("tokenizer.ggml.tokens", {"a", "b"})
      .tensor("token_embd.weight", {8, 2})
      .tensor("output_norm.weight", {8})
      .tensor("blk.0.attn_norm.weight", {8})
      .tensor("blk.0.ssm_in.weight", {8, 32})
      .tensor("blk.0.ssm_conv1d.weight", {4, 16})
      .tensor("blk.0.ssm_conv1d.bias", {16})
      .tensor("blk.0.ssm_x.weight", {16, 5})
      .tensor("blk.0.ssm_dt.weight", {1, 16})
      .tensor("blk.0.ssm_dt.bias", {16})
      .tensor("blk.0.ssm_a", {2, 16})
      .tensor("blk.0.ssm_d", {16})
      .tensor("blk.0.ssm_out.weight", {16, 8});
  auto m = load(b);
  ASSERT_TRUE(m.ok()) << m.error().message();
  const auto& hp = m->hparams();
  EXPECT_EQ(hp.ssm_d_conv, 4u);
  EXPECT_EQ(hp.ssm_d_inner, 16u);
  EXPECT_EQ(hp.ssm_d_state, 2u);
  EXPECT_EQ(hp.ssm_dt_rank, 1u);
  EXPECT_EQ(hp.n_head(), 0u);
  EXPECT_EQ(hp.n_rot_full, 0u);
  EXPECT_TRUE(m->check().ok()) << m->check().error().message();
  expect_key_error(b.without("mamba.ssm.state_size"), "mamba.ssm.state_size", false);
}

}  // namespace
