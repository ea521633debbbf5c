// Handcrafted architecture files for the memory estimate (see estimate_fixtures.h).
// Gtest: the fixtures load as models without error diagnostics; with
// GGUF_ESTIMATE_FIXTURES=DIR they are written there (scripts/record-estimate.sh).
#include "estimate_fixtures.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <functional>
#include <stdexcept>

#include "gguf/model.h"
#include "gguf/writer.h"
#include "test_support.h"

namespace gguf::test {
namespace {

struct fixture {
  std::string name;  ///< file name without .gguf
  std::string arch;
  std::function<void(writer&, const std::string&)> keys;
};

void must(const result<void>& r) {
  if (!r) throw std::runtime_error(r.error().message());
}

void set(writer& w, const std::string& k, value v) { must(w.set(k, std::move(v))); }

// A llama-style SPM vocabulary: <unk> <s> </s>, the 256 byte tokens, then 41 pieces.
void vocab(writer& w) {
  std::vector<std::string> tokens = {"<unk>", "<s>", "</s>"};
  std::vector<int32_t> types = {2, 3, 3};
  for (int b = 0; b < 256; ++b) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "<0x%02X>", b);
    tokens.push_back(buf);
    types.push_back(6);
  }
  for (int i = 0; tokens.size() < 300; ++i) {
    tokens.push_back("\xE2\x96\x81" + std::string(1, static_cast<char>('a' + i % 26)) + std::to_string(i));
    types.push_back(1);
  }
  std::vector<float> scores(tokens.size());
  for (size_t i = 0; i < scores.size(); ++i) scores[i] = -static_cast<float>(i);
  set(w, "tokenizer.ggml.model", value::string("llama"));
  set(w, "tokenizer.ggml.tokens", value::string_array(std::span<const std::string>(tokens)));
  set(w, "tokenizer.ggml.scores", value::array(std::span<const float>(scores)));
  set(w, "tokenizer.ggml.token_type", value::array(std::span<const int32_t>(types)));
  set(w, "tokenizer.ggml.bos_token_id", value::u32(1));
  set(w, "tokenizer.ggml.eos_token_id", value::u32(2));
  set(w, "tokenizer.ggml.unknown_token_id", value::u32(0));
}

void common(writer& w, const std::string& a, uint32_t n_layer, uint32_t n_embd = 64) {
  set(w, "general.architecture", value::string(a));
  set(w, a + ".context_length", value::u32(4096));
  set(w, a + ".embedding_length", value::u32(n_embd));
  set(w, a + ".block_count", value::u32(n_layer));
}

void attention(writer& w, const std::string& a, uint32_t n_head = 4, uint32_t n_head_kv = 2) {
  set(w, a + ".feed_forward_length", value::u32(128));
  set(w, a + ".attention.head_count", value::u32(n_head));
  set(w, a + ".attention.head_count_kv", value::u32(n_head_kv));
  set(w, a + ".attention.layer_norm_rms_epsilon", value::f32(1e-6f));
}

// gemma2/3's sliding-window attention: heads of `head_len`, a window of `window` tokens.
void sliding_window(writer& w, const std::string& a, uint32_t head_len, uint32_t window) {
  set(w, a + ".attention.key_length", value::u32(head_len));
  set(w, a + ".attention.value_length", value::u32(head_len));
  set(w, a + ".attention.sliding_window", value::u32(window));
}

// mamba/mamba2's state space: d_conv 4, d_inner 128, d_state 16, dt_rank `time_step_rank`.
void ssm(writer& w, const std::string& a, uint32_t time_step_rank) {
  set(w, a + ".attention.layer_norm_rms_epsilon", value::f32(1e-5f));
  set(w, a + ".ssm.conv_kernel", value::u32(4));
  set(w, a + ".ssm.inner_size", value::u32(128));
  set(w, a + ".ssm.state_size", value::u32(16));
  set(w, a + ".ssm.time_step_rank", value::u32(time_step_rank));
}

// rwkv6/7's block: an FFN of `n_ff`, LayerNorm, heads of 16.
void rwkv(writer& w, const std::string& a, uint32_t n_ff) {
  set(w, a + ".feed_forward_length", value::u32(n_ff));
  set(w, a + ".attention.layer_norm_epsilon", value::f32(1e-5f));
  set(w, a + ".wkv.head_size", value::u32(16));
}

std::vector<fixture> fixtures() {
  std::vector<fixture> v;
  v.push_back({"gemma2-swa", "gemma2", [](writer& w, const std::string& a) {
                 common(w, a, 4, 64);
                 attention(w, a);
                 sliding_window(w, a, 32, 300);
               }});
  v.push_back({"gemma3-swa", "gemma3", [](writer& w, const std::string& a) {
                 common(w, a, 6, 64);
                 attention(w, a);
                 sliding_window(w, a, 32, 200);
               }});
  v.push_back({"gemma4-swa-shared", "gemma4", [](writer& w, const std::string& a) {
                 common(w, a, 6, 64);
                 attention(w, a);
                 const bool pattern[] = {true, false, true, false, true, false};
                 set(w, a + ".attention.sliding_window_pattern", value::array(std::span<const bool>(pattern)));
                 set(w, a + ".attention.sliding_window", value::u32(128));
                 set(w, a + ".attention.shared_kv_layers", value::u32(2));
                 set(w, a + ".attention.key_length", value::u32(64));
                 set(w, a + ".attention.value_length", value::u32(64));
                 set(w, a + ".attention.key_length_swa", value::u32(32));
                 set(w, a + ".attention.value_length_swa", value::u32(32));
                 set(w, a + ".embedding_length_per_layer_input", value::u32(0));
               }});
  v.push_back({"deepseek2-mla", "deepseek2", [](writer& w, const std::string& a) {
                 common(w, a, 2, 64);
                 attention(w, a, 4, 1);
                 set(w, a + ".leading_dense_block_count", value::u32(1));
                 set(w, a + ".attention.q_lora_rank", value::u32(32));
                 set(w, a + ".attention.kv_lora_rank", value::u32(64));
                 set(w, a + ".attention.key_length", value::u32(80));  // kv_lora_rank + n_rot
                 set(w, a + ".attention.value_length", value::u32(64));
                 set(w, a + ".attention.key_length_mla", value::u32(48));
                 set(w, a + ".attention.value_length_mla", value::u32(32));
                 set(w, a + ".rope.dimension_count", value::u32(16));
                 set(w, a + ".expert_count", value::u32(4));
                 set(w, a + ".expert_used_count", value::u32(2));
                 set(w, a + ".expert_shared_count", value::u32(1));
                 set(w, a + ".expert_feed_forward_length", value::u32(32));
                 set(w, a + ".expert_weights_scale", value::f32(1.0f));
               }});
  v.push_back({"mamba", "mamba", [](writer& w, const std::string& a) {
                 common(w, a, 2, 64);
                 ssm(w, a, 4);
               }});
  v.push_back({"mamba2", "mamba2", [](writer& w, const std::string& a) {
                 common(w, a, 2, 64);
                 ssm(w, a, 8);
                 set(w, a + ".ssm.group_count", value::u32(1));
               }});
  v.push_back({"rwkv6", "rwkv6", [](writer& w, const std::string& a) {
                 common(w, a, 2, 64);
                 rwkv(w, a, 224);
                 set(w, a + ".time_mix_extra_dim", value::u32(32));
                 set(w, a + ".time_decay_extra_dim", value::u32(64));
                 set(w, a + ".rescale_every_n_layers", value::u32(6));
               }});
  v.push_back({"rwkv7", "rwkv7", [](writer& w, const std::string& a) {
                 common(w, a, 2, 64);
                 rwkv(w, a, 256);
                 set(w, a + ".attention.decay_lora_rank", value::u32(16));
                 set(w, a + ".attention.iclr_lora_rank", value::u32(16));
                 set(w, a + ".attention.value_residual_mix_lora_rank", value::u32(16));
                 set(w, a + ".attention.gate_lora_rank", value::u32(32));
               }});
  v.push_back({"bert", "bert", [](writer& w, const std::string& a) {
                 common(w, a, 2, 64);
                 set(w, a + ".feed_forward_length", value::u32(128));
                 set(w, a + ".attention.head_count", value::u32(4));
                 set(w, a + ".attention.layer_norm_epsilon", value::f32(1e-12f));
                 set(w, a + ".attention.causal", value::boolean(false));
                 set(w, a + ".pooling_type", value::u32(1));
                 set(w, "tokenizer.ggml.token_type_count", value::u32(2));
               }});
  v.push_back({"qwen2-gqa", "qwen2", [](writer& w, const std::string& a) {
                 common(w, a, 3, 96);
                 attention(w, a, 6, 2);
               }});
  return v;
}

// Deterministic values in [-0.05, 0.05).
std::vector<std::byte> random_f32(uint64_t n, uint32_t& state) {
  std::vector<std::byte> out(n * 4);
  for (uint64_t i = 0; i < n; ++i) {
    state = state * 1664525u + 1013904223u;
    const float x = (static_cast<float>(state >> 8) / 16777216.0f - 0.5f) * 0.1f;
    std::memcpy(out.data() + i * 4, &x, 4);
  }
  return out;
}

}  // namespace

std::vector<std::filesystem::path> write_estimate_fixtures(const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  std::vector<std::filesystem::path> paths;
  for (const auto& fx : fixtures()) {
    // A probe with the keys and one tensor gives the architecture's required tensors and
    // their shapes for these hparams (the model layer's tensor table).
    writer probe;
    fx.keys(probe, fx.arch);
    vocab(probe);
    const auto& ref = *probe.find(fx.arch + ".embedding_length");
    uint32_t n_embd = 0;
    std::memcpy(&n_embd, ref.payload().data(), 4);
    std::vector<std::byte> one(uint64_t{n_embd} * 300 * 4);
    const uint64_t te_ne[] = {n_embd, 300};
    must(probe.add_tensor("token_embd.weight", ggml_type::f32, te_ne, one));
    uint32_t n_layer = 0;
    std::memcpy(&n_layer, probe.find(fx.arch + ".block_count")->payload().data(), 4);
    const uint64_t one_ne[] = {1};
    must(probe.add_tensor("blk." + std::to_string(n_layer - 1) + ".probe", ggml_type::f32, one_ne,
                          std::vector<std::byte>(4)));
    auto pf = file::from_buffer(probe.to_bytes());
    if (!pf) throw std::runtime_error(fx.name + ": " + pf.error().message());
    auto pm = model::load(*pf);
    if (!pm) throw std::runtime_error(fx.name + ": " + pm.error().message());

    writer w;
    fx.keys(w, fx.arch);
    vocab(w);
    uint32_t state = 12345;
    for (const auto& t : pm->tensors()) {
      if (!t.required) continue;
      uint64_t n = 1;
      for (uint32_t d = 0; d < t.n_dims; ++d) n *= t.ne[d];
      if (n == 0) throw std::runtime_error(fx.name + ": " + t.name + " has an unknown dimension");
      must(w.add_tensor(t.name, ggml_type::f32, std::span<const uint64_t>(t.ne.data(), t.n_dims),
                        random_f32(n, state)));
    }
    auto path = dir / (fx.name + ".gguf");
    must(w.write_file(path));
    paths.push_back(path);
  }
  return paths;
}

TEST(EstimateFixtures, LoadWithoutErrors) {
  const char* env = std::getenv("GGUF_ESTIMATE_FIXTURES");
  const auto dir = env ? std::filesystem::path(env) : temp_dir() / "estimate-fixtures";
  const auto paths = write_estimate_fixtures(dir);
  ASSERT_EQ(paths.size(), fixtures().size());
  for (const auto& p : paths) {
    SCOPED_TRACE(p.string());
    auto f = file::open(p);
    ASSERT_TRUE(f.ok()) << f.error().message();
    auto m = model::load(*f);
    ASSERT_TRUE(m.ok()) << m.error().message();
    EXPECT_TRUE(m->check().ok()) << m->check().error().message();
    EXPECT_GT(f->tensor_count(), 3u);
  }
}

}  // namespace gguf::test
