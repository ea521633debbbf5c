// `gguf info --json` shows the hparams of every model and vocabulary file of the test data
// as their `[arch].*` keys give them (shared/data/expected/*.json, read by gguf-py).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "gguf/model.h"
#include "test_support.h"

namespace {

using json = nlohmann::json;

// Expected per-layer value i of a key (scalar, or array with first 8 and last element).
std::optional<uint64_t> layer_value(const json& kv, size_t i, size_t n_layer) {
  if (kv["type"] != "array") return kv["value"].get<uint64_t>();
  if (i < kv["first"].size()) return kv["first"][i].get<uint64_t>();
  if (i + 1 == n_layer) return kv["last"].get<uint64_t>();
  return std::nullopt;
}

uint64_t shown_layer_value(const json& v, size_t i) { return v.is_array() ? v[i].get<uint64_t>() : v.get<uint64_t>(); }

TEST(ModelInfoCli, HparamsOfEveryModelAndVocabFile) {
  GGUF_REQUIRE_DATA();
  // [arch].<suffix> -> hparams field shown by gguf info.
  const std::map<std::string, std::string> scalars = {
      {"context_length", "n_ctx_train"},  {"embedding_length", "n_embd"},      {"block_count", "n_layer"},
      {"rope.dimension_count", "n_rot"},  {"vocab_size", "n_vocab"},          {"expert_count", "n_expert"},
      {"expert_used_count", "n_expert_used"}, {"attention.key_length", "n_embd_head_k"},
      {"attention.value_length", "n_embd_head_v"}, {"attention.key_length_swa", "n_embd_head_k_swa"},
      {"attention.value_length_swa", "n_embd_head_v_swa"}, {"rope.dimension_count_swa", "n_rot_swa"},
      {"attention.sliding_window", "n_swa"}};
  const std::map<std::string, std::string> floats = {{"attention.layer_norm_epsilon", "f_norm_eps"},
                                                     {"attention.layer_norm_rms_epsilon", "f_norm_rms_eps"},
                                                     {"rope.freq_base", "rope_freq_base_train"},
                                                     {"rope.freq_base_swa", "rope_freq_base_train_swa"}};
  const std::map<std::string, std::string> per_layer = {{"attention.head_count", "n_head"},
                                                        {"attention.head_count_kv", "n_head_kv"},
                                                        {"feed_forward_length", "n_ff"}};
  int files = 0, values = 0;
  for (const auto& entry : std::filesystem::directory_iterator(gguf::test::data_dir() / "expected")) {
    json want = json::parse(std::ifstream(entry.path()));
    std::string rel = want["file"];
    if (!rel.starts_with("models/") && !rel.starts_with("vocab/")) continue;
    SCOPED_TRACE(rel);
    std::string arch;
    for (const auto& kv : want["kv"]) {
      if (kv["key"] == "general.architecture") arch = kv["value"];
    }
    auto r = gguf::test::run_cli({"info", "--json", gguf::test::data_file(rel).string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    json got = json::parse(r.out);
    if (!gguf::find_model_architecture(arch)) {
      EXPECT_TRUE(got["hparams"].is_null());
      EXPECT_NE(got["hparams_error"].get<std::string>().find("unknown model architecture"), std::string::npos);
      continue;
    }
    const json& hp = got["hparams"];
    ASSERT_TRUE(hp.is_object()) << got.dump();
    const size_t n_layer = hp["n_layer"].get<size_t>();
    for (const auto& kv : want["kv"]) {
      std::string key = kv["key"];
      if (!key.starts_with(arch + ".")) continue;
      std::string suffix = key.substr(arch.size() + 1);
      if (auto it = scalars.find(suffix); it != scalars.end()) {
        EXPECT_EQ(hp[it->second].get<uint64_t>(), kv["value"].get<uint64_t>()) << key;
        ++values;
      } else if (auto it = floats.find(suffix); it != floats.end()) {
        EXPECT_EQ(static_cast<float>(hp[it->second].get<double>()), static_cast<float>(kv["value"].get<double>())) << key;
        ++values;
      } else if (auto it = per_layer.find(suffix); it != per_layer.end()) {
        for (size_t il = 0; il < std::max<size_t>(n_layer, 1); ++il) {
          if (auto v = layer_value(kv, il, n_layer)) {
            EXPECT_EQ(shown_layer_value(hp[it->second], il), *v) << key << " layer " << il;
          }
        }
        ++values;
      }
    }
    ++files;
  }
  EXPECT_GE(files, 30);
  EXPECT_GE(values, 200);
  std::cout << "[ model    ] gguf info: " << files << " files, " << values << " hparams compared\n";
}

}  // namespace
