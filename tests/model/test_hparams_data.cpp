// hparams of every model and vocabulary file of the test data, checked key by key against
// what llama.cpp's gguf-py read from the same file (shared/data/expected/*.json).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "gguf/model.h"
#include "test_support.h"

namespace {

using json = nlohmann::json;
using gguf::hparams;

// How each `[arch].<suffix>` key lands in the hparams (llama.cpp's load_hparams). A
// checker gets the expected JSON entry and reports mismatches itself.
using checker = std::function<void(const hparams&, const json& kv)>;

// Element i of an expected value: the scalar itself, or from the array's first 8 / last.
std::optional<json> element(const json& kv, uint32_t i, uint32_t n_layer) {
  if (kv["type"] != "array") return kv["value"];
  const auto& first = kv["first"];
  if (i < first.size()) return first[i];
  if (i + 1 == n_layer) return kv["last"];
  return std::nullopt;
}

checker u32_field(uint32_t hparams::*m) {
  return [m](const hparams& hp, const json& kv) { EXPECT_EQ(hp.*m, kv["value"].get<uint64_t>()) << kv["key"]; };
}
checker f32_field(float hparams::*m) {
  return [m](const hparams& hp, const json& kv) {
    EXPECT_EQ(hp.*m, static_cast<float>(kv["value"].get<double>())) << kv["key"];
  };
}
checker bool_field(bool hparams::*m) {
  return [m](const hparams& hp, const json& kv) { EXPECT_EQ(hp.*m, kv["value"].get<bool>()) << kv["key"]; };
}
checker per_layer(uint32_t (hparams::*fn)(uint32_t) const noexcept) {
  return [fn](const hparams& hp, const json& kv) {
    if (kv["type"] == "array") { ASSERT_EQ(kv["length"].get<uint64_t>(), hp.n_layer) << kv["key"]; }
    for (uint32_t il = 0; il < std::max<uint32_t>(hp.n_layer, 1); ++il) {
      if (auto e = element(kv, il, hp.n_layer)) { EXPECT_EQ((hp.*fn)(il), e->get<uint64_t>()) << kv["key"] << " layer " << il; }
    }
  };
}

const std::map<std::string, checker>& checkers() {
  static const std::map<std::string, checker> m = {
      {"context_length", u32_field(&hparams::n_ctx_train)},
      {"embedding_length", u32_field(&hparams::n_embd)},
      {"block_count", u32_field(&hparams::n_layer)},
      {"vocab_size", u32_field(&hparams::n_vocab)},
      {"feed_forward_length", per_layer(&hparams::n_ff)},
      {"attention.head_count", per_layer(&hparams::n_head)},
      {"attention.head_count_kv", per_layer(&hparams::n_head_kv)},
      {"attention.key_length", u32_field(&hparams::n_embd_head_k_full)},
      {"attention.value_length", u32_field(&hparams::n_embd_head_v_full)},
      {"rope.dimension_count", u32_field(&hparams::n_rot_full)},
      {"attention.layer_norm_rms_epsilon", f32_field(&hparams::f_norm_rms_eps)},
      {"attention.layer_norm_epsilon", f32_field(&hparams::f_norm_eps)},
      {"rope.freq_base", f32_field(&hparams::rope_freq_base_train)},
      {"rope.scaling.original_context_length", u32_field(&hparams::n_ctx_orig_yarn)},
      {"rope.scaling.factor",
       [](const hparams& hp, const json& kv) {
         EXPECT_EQ(hp.rope_freq_scale_train, 1.0f / static_cast<float>(kv["value"].get<double>()));
       }},
      {"rope.scaling.type",
       [](const hparams& hp, const json& kv) {
         EXPECT_EQ(gguf::rope_scaling_type_name(hp.rope_scaling_type_train), kv["value"].get<std::string>());
       }},
      {"expert_count", u32_field(&hparams::n_expert)},
      {"expert_used_count", u32_field(&hparams::n_expert_used)},
      {"expert_feed_forward_length", u32_field(&hparams::n_ff_exp)},
      {"moe_every_n_layers", u32_field(&hparams::moe_every_n_layers)},
      {"attention.causal", bool_field(&hparams::causal_attn)},
      {"pooling_type", u32_field(&hparams::pooling_type)},
      {"logit_scale", f32_field(&hparams::f_logit_scale)},
      {"attention.max_alibi_bias", f32_field(&hparams::f_max_alibi_bias)},
      {"use_parallel_residual", bool_field(&hparams::use_par_res)},
      {"attention.sliding_window", u32_field(&hparams::n_swa)},
      {"final_logit_softcapping", f32_field(&hparams::f_final_logit_softcapping)},
      // gemma4's sliding-window variants and per-layer inputs
      {"attention.key_length_swa", u32_field(&hparams::n_embd_head_k_swa)},
      {"attention.value_length_swa", u32_field(&hparams::n_embd_head_v_swa)},
      {"rope.dimension_count_swa", u32_field(&hparams::n_rot_swa)},
      {"rope.freq_base_swa", f32_field(&hparams::rope_freq_base_train_swa)},
      {"embedding_length_per_layer_input", u32_field(&hparams::n_embd_per_layer)},
      {"attention.sliding_window_pattern",
       [](const hparams& hp, const json& kv) {
         ASSERT_EQ(hp.swa_layers.size(), hp.n_layer) << kv["key"];
         for (uint32_t il = 0; il < hp.n_layer; ++il) {
           if (auto e = element(kv, il, hp.n_layer)) { EXPECT_EQ(hp.is_swa(il), e->get<bool>()) << kv["key"] << " layer " << il; }
         }
       }},
      {"attention.shared_kv_layers",
       [](const hparams& hp, const json& kv) {
         EXPECT_EQ(hp.n_layer_kv_from_start, static_cast<int64_t>(hp.n_layer) - kv["value"].get<int64_t>()) << kv["key"];
       }},
  };
  return m;
}

// Keys of the data that are not hparams of our model (informational). Listed so that a
// new unmapped key fails the test instead of passing silently.
const std::set<std::string> not_hparams = {"tensor_data_layout"};

TEST(ModelHparamsData, EveryModelAndVocabAgreesWithItsKeys) {
  GGUF_REQUIRE_DATA();
  int checked = 0, keys_checked = 0, unsupported = 0;
  for (const auto& entry : std::filesystem::directory_iterator(gguf::test::data_dir() / "expected")) {
    json j = json::parse(std::ifstream(entry.path()));
    std::string rel = j["file"];
    SCOPED_TRACE(rel);
    auto f = gguf::file::open(gguf::test::data_file(rel));
    ASSERT_TRUE(f.ok()) << f.error().message();
    std::string arch;
    std::map<std::string, json> by_key;
    for (const auto& kv : j["kv"]) {
      by_key[kv["key"]] = kv;
      if (kv["key"] == "general.architecture") arch = kv["value"];
    }
    auto m = gguf::model::load(*f);
    if (!gguf::find_model_architecture(arch)) {
      // superpoint, quant-fixture: not language models; llama.cpp refuses them too.
      ASSERT_FALSE(m.ok());
      EXPECT_EQ(m.error().code, gguf::errc::unsupported);
      EXPECT_EQ(m.error().subject, "general.architecture");
      ++unsupported;
      continue;
    }
    ASSERT_TRUE(m.ok()) << m.error().message();
    const hparams& hp = m->hparams();
    EXPECT_EQ(hp.vocab_only, j["tensors"].empty());

    const std::string prefix = arch + ".";
    for (const auto& [key, kv] : by_key) {
      if (!key.starts_with(prefix)) continue;
      std::string suffix = key.substr(prefix.size());
      auto it = checkers().find(suffix);
      if (it == checkers().end()) {
        EXPECT_TRUE(not_hparams.count(suffix)) << "key " << key << " is neither checked nor listed as not an hparam";
        continue;
      }
      it->second(hp, kv);
      ++keys_checked;
    }
    // llama.cpp's defaults where a key is absent.
    if (!by_key.count(prefix + "attention.head_count_kv")) {
      for (uint32_t il = 0; il < hp.n_layer; ++il) { EXPECT_EQ(hp.n_head_kv(il), hp.n_head(il)); }
    }
    if (!by_key.count(prefix + "rope.freq_base")) { EXPECT_EQ(hp.rope_freq_base_train, 10000.0f); }
    if (!by_key.count(prefix + "rope.scaling.factor")) { EXPECT_EQ(hp.rope_freq_scale_train, 1.0f); }
    if (!by_key.count(prefix + "rope.scaling.original_context_length")) { EXPECT_EQ(hp.n_ctx_orig_yarn, hp.n_ctx_train); }
    if (hp.n_head() > 0 && !by_key.count(prefix + "attention.key_length")) {
      EXPECT_EQ(hp.n_embd_head_k_full, hp.n_embd / hp.n_head());
      if (!by_key.count(prefix + "rope.dimension_count")) { EXPECT_EQ(hp.n_rot_full, hp.n_embd_head_k_full); }
    }
    if (!by_key.count(prefix + "vocab_size") && by_key.count("tokenizer.ggml.tokens")) {
      EXPECT_EQ(hp.n_vocab, by_key["tokenizer.ggml.tokens"]["length"].get<uint64_t>());
    }
    // Files with tensors: the tensor map of a known table has no errors.
    for (const auto& d : m->diagnostics()) {
      EXPECT_NE(d.severity, gguf::severity::error) << d.tensor << ": " << d.message;
    }
    ++checked;
  }
  EXPECT_GE(checked, 30);
  EXPECT_EQ(unsupported, 2);  // superpoint, quant-fixture
  EXPECT_GE(keys_checked, 200);
  std::cout << "[ model    ] " << checked << " files, " << keys_checked << " [arch].* keys checked, " << unsupported
            << " unsupported architectures\n";
}

}  // namespace
