// gguf::estimate against what llama.cpp v0.5.0 allocates, as recorded by
// scripts/record-estimate.sh into data/estimate_reference.json: for every model of the test
// data and every handcrafted architecture fixture, over a grid of context settings,
// n_ctx / n_ctx_seq / n_batch / n_ubatch, weights (llama_model_size), the cache buffers
// and the output buffer to the byte, refusals where llama.cpp refused or aborted, and the
// compute buffer within a tolerance (the error per case is printed).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "estimate_fixtures.h"
#include "gguf/estimate.h"
#include "test_support.h"

namespace gguf::test {
namespace {

/// Largest relative error of the compute-buffer estimate the tests accept: 10% for the
/// models of the test data (llama); for the handcrafted architectures, the measured worst
/// error rounded up (docs/estimate.md), so that a regression of the model shows.
double compute_tolerance(const std::string& file) {
  static const std::map<std::string, double> fixtures = {
      {"fixtures/qwen2-gqa.gguf", 0.05},         {"fixtures/bert.gguf", 0.08},
      {"fixtures/gemma2-swa.gguf", 0.05},        {"fixtures/gemma3-swa.gguf", 0.05},
      {"fixtures/gemma4-swa-shared.gguf", 0.10}, {"fixtures/mamba.gguf", 0.06},
      {"fixtures/mamba2.gguf", 0.06},            {"fixtures/rwkv7.gguf", 0.04},
      {"fixtures/deepseek2-mla.gguf", 0.06}};
  auto it = fixtures.find(file);
  return it == fixtures.end() ? 0.10 : it->second;
}

nlohmann::json reference() {
  const auto path = std::filesystem::path(GGUF_SOURCE_DIR) / "tests" / "model" / "data" / "estimate_reference.json";
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  return nlohmann::json::parse(in);
}

estimate_params params_of(const nlohmann::json& p) {
  estimate_params e;
  e.n_ctx = p["n_ctx"];
  e.n_batch = p["n_batch"];
  e.n_ubatch = p["n_ubatch"];
  e.n_seq_max = p["n_seq_max"];
  e.kv_unified = p["kv_unified"];
  e.type_k = *ggml_type_from_name(p["type_k"].get<std::string>());
  e.type_v = *ggml_type_from_name(p["type_v"].get<std::string>());
  const std::string fa = p["flash_attn"];
  e.flash_attn = fa == "on" ? flash_attn_type::enabled
                 : fa == "off" ? flash_attn_type::disabled
                               : flash_attn_type::automatic;
  e.embeddings = p["embeddings"];
  e.swa_full = p["swa_full"];
  return e;
}

std::string describe(const nlohmann::json& c) { return c["file"].get<std::string>() + " " + c["params"].dump(); }

class EstimateReference : public ::testing::Test {
 protected:
  void SetUp() override { GGUF_REQUIRE_DATA(); }

  // The model of a recorded file: "models/..." from the test data, "fixtures/..." written.
  const model* load(const std::string& name) {
    if (auto it = models_.find(name); it != models_.end()) return it->second ? &*it->second : nullptr;
    std::filesystem::path path;
    if (name.rfind("fixtures/", 0) == 0) {
      static const auto dir = temp_dir() / "estimate-fixtures";
      static const auto written = write_estimate_fixtures(dir);
      path = dir / name.substr(9);
    } else {
      path = data_file(name);
    }
    std::optional<model> m;
    if (auto f = file::open(path)) {
      if (auto r = model::load(*f)) m.emplace(std::move(r).value());
    }
    auto& slot = models_[name] = std::move(m);
    return slot ? &*slot : nullptr;
  }

  std::map<std::string, std::optional<model>> models_;
};

TEST_F(EstimateReference, MatchesLlamaCpp) {
  const auto ref = reference();
  size_t n_compared = 0, n_refused = 0, n_compute = 0;
  std::map<std::string, double> worst;  // file -> worst compute error
  for (const auto& c : ref["cases"]) {
    SCOPED_TRACE(describe(c));
    const auto& l = c["llama_cpp"];
    const model* m = load(c["file"]);
    if (l.value("load_failed", false)) {
      // llama.cpp cannot load the file: no estimate either
      if (m) {
        EXPECT_FALSE(estimate(*m, params_of(c["params"])).refused.empty());
      }
      continue;
    }
    ASSERT_NE(m, nullptr);
    const auto e = estimate(*m, params_of(c["params"]));
    const bool aborted = l.value("aborted", false);
    const bool aborted_in_graph = aborted && !l["memory_buffers"].empty();
    if (l.value("refused", false) || (aborted && !aborted_in_graph)) {
      EXPECT_FALSE(e.refused.empty()) << "llama.cpp refused";
      for (const auto& line : l.value("reason_log", nlohmann::json::array())) {
        EXPECT_NE(line.get<std::string>().find(e.refused), std::string::npos) << e.refused;
      }
      ++n_refused;
      continue;
    }
    ASSERT_TRUE(e.refused.empty()) << e.refused;
    uint64_t mem = 0;
    for (const auto& b : l["memory_buffers"]) mem += b.get<uint64_t>();
    EXPECT_EQ(e.output_bytes, l["output_bytes"].get<uint64_t>());
    EXPECT_EQ(e.kv_bytes, mem);
    if (aborted_in_graph) continue;  // the graph of this fixture aborts: no compute figure
    ++n_compared;
    EXPECT_EQ(e.n_ctx, l["n_ctx"].get<uint32_t>());
    EXPECT_EQ(e.n_ctx_seq, l["n_ctx_seq"].get<uint32_t>());
    EXPECT_EQ(e.n_batch, l["n_batch"].get<uint32_t>());
    EXPECT_EQ(e.n_ubatch, l["n_ubatch"].get<uint32_t>());
    EXPECT_EQ(e.weights_bytes, l["model_size"].get<uint64_t>());
    EXPECT_EQ(e.kv_bytes, l["context_bytes"].get<uint64_t>());
    const double truth = l["compute_bytes"].get<double>();
    const double err = truth > 0 ? (static_cast<double>(e.compute_bytes) - truth) / truth : 0;
    ++n_compute;
    auto& w = worst[c["file"]];
    if (std::fabs(err) > std::fabs(w)) w = err;
    EXPECT_LE(std::fabs(err), compute_tolerance(c["file"]))
        << "compute: ours " << e.compute_bytes << ", llama.cpp " << truth;
  }
  std::printf("estimate vs llama.cpp: %zu cases compared, %zu refused\n", n_compared, n_refused);
  for (const auto& [file, err] : worst) std::printf("  compute, worst error %+6.1f%%  %s\n", err * 100, file.c_str());
  EXPECT_GT(n_compared, 100u);
  EXPECT_GT(n_refused, 10u);
}

}  // namespace
}  // namespace gguf::test
