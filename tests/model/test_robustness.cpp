// Hostile hparams never crash the model layer: random counts (zero, huge, inconsistent),
// random value types and random tensor shapes either load, with tensor problems as
// diagnostics, or fail with invalid_model — never another code, never a crash (run it
// under GGUF_SANITIZE=ON to check memory safety too).
#include <gtest/gtest.h>

#include <random>

#include "gguf/model.h"
#include "gguf_builder.h"

namespace {

using gguf::test::gguf_builder;

TEST(ModelRobustness, RandomHparamsAndShapes) {
  std::mt19937_64 rng(12345);
  auto pick = [&](std::initializer_list<uint64_t> v) { return *(v.begin() + rng() % v.size()); };
  const char* archs[] = {"llama", "gpt2", "falcon", "mamba", "bert", "nomic-bert-moe", "qwen2", "gemma2", "whisper", "deepseek2", "t5"};
  int loaded = 0, rejected = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    std::string arch = archs[rng() % std::size(archs)];
    std::string p = arch + ".";
    gguf_builder b;
    b.str("general.architecture", arch);
    auto count = [&](const std::string& k) {
      switch (rng() % 6) {
        case 0: break;  // absent
        case 1: b.u64(p + k, pick({0, 1, 2, 3, 4, 8, 513, 1ull << 33, ~0ull})); break;
        case 2: b.i32(p + k, static_cast<int32_t>(pick({0, 1, 2, 4, 0x80000000ull}))); break;
        case 3: b.str(p + k, "x"); break;
        case 4: b.arr_i32(p + k, std::vector<int32_t>(rng() % 4, static_cast<int32_t>(rng() % 5) - 1)); break;
        default: b.u32(p + k, static_cast<uint32_t>(pick({0, 1, 2, 4, 8, 16})));
      }
    };
    for (auto k : {"context_length", "embedding_length", "block_count", "feed_forward_length", "attention.head_count",
                   "attention.head_count_kv", "expert_count", "expert_used_count", "rope.dimension_count",
                   "attention.key_length", "ssm.inner_size", "ssm.state_size", "ssm.conv_kernel", "ssm.time_step_rank",
                   "moe_every_n_layers", "encoder.block_count", "encoder.mels_count"}) {
      count(k);
    }
    if (rng() % 2) b.f32(p + "attention.layer_norm_rms_epsilon", rng() % 4 ? 1e-5f : -1.0f);
    if (rng() % 2) b.f32(p + "attention.layer_norm_epsilon", 1e-5f);
    if (rng() % 3 == 0) b.str(p + "rope.scaling.type", rng() % 2 ? "yarn" : "nope");
    if (rng() % 2) b.arr_str("tokenizer.ggml.tokens", {"a", "b"});
    int n_tensors = static_cast<int>(rng() % 6);
    for (int t = 0; t < n_tensors; ++t) {
      static const char* names[] = {"token_embd.weight", "blk.0.attn_q.weight", "blk.1.attn_qkv.weight",
                                    "blk.0.ffn_up_exps.weight", "output.weight", "blk.7.ssm_a"};
      std::vector<uint64_t> ne(1 + rng() % 3);
      for (auto& d : ne) d = 1 + rng() % 8;
      b.tensor(names[t], ne);
    }
    auto f = gguf::file::from_buffer(b.build());
    ASSERT_TRUE(f.ok()) << f.error().message();
    auto m = gguf::model::load(*f);
    if (!m) {
      EXPECT_EQ(m.error().code, gguf::errc::invalid_model) << m.error().message();
      ++rejected;
      continue;
    }
    ++loaded;
    for (const auto& d : m->diagnostics()) EXPECT_FALSE(d.tensor.empty());
    for (const auto& t : m->tensors()) EXPECT_LE(t.n_dims, 4u);
    (void)m->n_params();
    (void)m->token_embd();
  }
  EXPECT_GT(loaded, 10);
  EXPECT_GT(rejected, 100);
}

}  // namespace
