// `gguf estimate` end to end: the JSON fields against llama.cpp's recorded figures
// (tests/model/data/estimate_reference.json), a list of context sizes, the table, refusals
// and their exit code, vocab-only files, offloaded layers, usage errors.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "test_support.h"

using gguf::test::data_file;
using gguf::test::run_cli;
using nlohmann::json;

namespace {

// The recorded llama.cpp case for `file` with the default settings but n_ctx.
json reference_case(const std::string& file, uint32_t n_ctx) {
  std::ifstream in(std::filesystem::path(GGUF_SOURCE_DIR) / "tests/model/data/estimate_reference.json");
  const json ref = json::parse(in);
  for (const auto& c : ref["cases"]) {
    const auto& p = c["params"];
    if (c["file"] == file && p["n_ctx"] == n_ctx && p["n_seq_max"] == 1 && p["flash_attn"] == "auto" &&
        p["type_k"] == "f16" && p["n_batch"] == 2048 && p["n_ubatch"] == 512 && !p["embeddings"]) {  // stories260K has no sliding window: swa_full does not matter
      return c["llama_cpp"];
    }
  }
  throw std::runtime_error("no recorded case");
}

}  // namespace

TEST(CliEstimate, JsonMatchesLlamaCpp) {
  GGUF_REQUIRE_DATA();
  const auto want = reference_case("models/stories260K.gguf", 1000);
  auto r = run_cli({"estimate", data_file("models/stories260K.gguf").string(), "--ctx-size", "1000", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json got = json::parse(r.out);
  EXPECT_EQ(got["n_ctx"], want["n_ctx"]);
  EXPECT_EQ(got["n_ctx_seq"], want["n_ctx_seq"]);
  EXPECT_EQ(got["weights_bytes"], want["model_size"]);
  EXPECT_EQ(got["output_bytes"], want["output_bytes"]);
  EXPECT_EQ(got["kv_bytes"], want["context_bytes"]);
  EXPECT_EQ(got["k_bytes"].get<uint64_t>() + got["v_bytes"].get<uint64_t>(), want["context_bytes"].get<uint64_t>());
  EXPECT_NEAR(got["compute_bytes"].get<double>(), want["compute_bytes"].get<double>(),
              0.1 * want["compute_bytes"].get<double>());
  EXPECT_EQ(got["total_bytes"].get<uint64_t>(),
            got["weights_bytes"].get<uint64_t>() + got["kv_bytes"].get<uint64_t>() +
                got["output_bytes"].get<uint64_t>() + got["compute_bytes"].get<uint64_t>());
  EXPECT_TRUE(got["refused"].is_null());
  ASSERT_EQ(got["devices"].size(), 1u);
  EXPECT_EQ(got["devices"][0]["name"], "CPU");
  EXPECT_EQ(got["devices"][0]["total_bytes"], got["total_bytes"]);
}

TEST(CliEstimate, ContextSizeListGivesOneRowEach) {
  GGUF_REQUIRE_DATA();
  const auto model = data_file("models/stories260K.gguf").string();
  auto r = run_cli({"estimate", model, "--ctx-size", "256,300,1000", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json got = json::parse(r.out);
  ASSERT_TRUE(got.is_array());
  ASSERT_EQ(got.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    const uint32_t n = i == 0 ? 256 : i == 1 ? 300 : 1000;
    EXPECT_EQ(got[i]["n_ctx"], reference_case("models/stories260K.gguf", n)["n_ctx"]);
  }
  auto t = run_cli({"estimate", model, "-c", "256,300,1000"});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_NE(t.out.find("KV cache"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("MiB"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("\n    512 "), std::string::npos) << t.out;  // 300 padded to 512
  EXPECT_NE(t.out.find("\n   1024 "), std::string::npos) << t.out;
}

TEST(CliEstimate, RefusedWhereLlamaCppRefuses) {
  GGUF_REQUIRE_DATA();
  auto r = run_cli({"estimate", data_file("models/stories260K.gguf").string(), "--cache-type-v", "q8_0",
                    "--flash-attn", "off"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("refused: quantized V cache requires flash_attn to be enabled"), std::string::npos) << r.out;
  auto j = run_cli({"estimate", data_file("models/llama-2-tiny-random.gguf").string(), "--cache-type-k", "q8_0",
                    "--cache-type-v", "q8_0", "--json"});
  EXPECT_EQ(j.exit_code, 1);
  const json got = json::parse(j.out);
  EXPECT_EQ(got["refused"], "K cache type q8_0 with block size 32 does not divide n_embd_head_k=4");
}

TEST(CliEstimate, VocabOnlyFileHasNoWeights) {
  GGUF_REQUIRE_DATA();
  const auto vocab = data_file("vocab/ggml-vocab-llama-spm.gguf").string();
  auto r = run_cli({"estimate", vocab});
  EXPECT_NE(r.out.find("none (vocab-only file)"), std::string::npos) << r.out << r.err;
  auto j = run_cli({"estimate", vocab, "--json"});
  const json got = json::parse(j.out);
  EXPECT_EQ(got["vocab_only"], true);
  EXPECT_EQ(got["weights_bytes"], 0);
  EXPECT_FALSE(got["refused"].is_null());
}

TEST(CliEstimate, OffloadedLayersSplitPerDevice) {
  GGUF_REQUIRE_DATA();
  auto r = run_cli({"estimate", data_file("models/stories260K.gguf").string(), "--gpu-layers", "3", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json got = json::parse(r.out);
  ASSERT_EQ(got["devices"].size(), 2u);
  const auto& cpu = got["devices"][0];
  const auto& gpu = got["devices"][1];
  EXPECT_EQ(cpu["weights_bytes"].get<uint64_t>() + gpu["weights_bytes"].get<uint64_t>(),
            got["weights_bytes"].get<uint64_t>());
  EXPECT_EQ(cpu["kv_bytes"].get<uint64_t>() + gpu["kv_bytes"].get<uint64_t>(), got["kv_bytes"].get<uint64_t>());
  // llama.cpp counts the output layer as layer n_layer: 3 GPU layers of 5 are blocks 3 and 4
  // and the output layer (i_gpu_start = n_layer + 1 - n_gpu_layers)
  int on_gpu = 0;
  for (const auto& l : got["layers"]) on_gpu += l["device"] == "GPU";
  EXPECT_EQ(on_gpu, 2);
  EXPECT_EQ(got["layers"][4]["device"], "GPU");
  EXPECT_EQ(got["layers"][2]["device"], "CPU");
  EXPECT_EQ(gpu["kv_bytes"].get<uint64_t>() * 3, cpu["kv_bytes"].get<uint64_t>() * 2);
}

TEST(CliEstimate, UsageErrors) {
  GGUF_REQUIRE_DATA();
  const auto model = data_file("models/stories260K.gguf").string();
  EXPECT_EQ(run_cli({"estimate", model, "--cache-type-k", "q2_K"}).exit_code, 2);
  EXPECT_EQ(run_cli({"estimate", model, "--flash-attn", "maybe"}).exit_code, 2);
  EXPECT_EQ(run_cli({"estimate"}).exit_code, 2);
  EXPECT_EQ(run_cli({"estimate", "/nonexistent.gguf"}).exit_code, 2);
}
