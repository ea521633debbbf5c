// gguf estimate FILE [--ctx-size N[,N...]] ...: the memory llama.cpp allocates for a model and
// context settings (weights, KV cache, output and compute buffers), from the metadata alone.
#include <cstdio>
#include <algorithm>
#include <iostream>
#include <sstream>

#include "commands.h"
#include "gguf/estimate.h"
#include "gguf/model.h"
#include "estimate_json.h"

namespace gguf::cli::cmd_estimate {
namespace {

std::string mib(uint64_t b) {
  char buf[32];
  if (b >= (1ull << 30)) {
    std::snprintf(buf, sizeof buf, "%.2f GiB", static_cast<double>(b) / (1ull << 30));
  } else if (b >= (1ull << 20) || b == 0) {
    std::snprintf(buf, sizeof buf, "%.2f MiB", static_cast<double>(b) / (1ull << 20));
  } else {
    std::snprintf(buf, sizeof buf, "%.2f KiB", static_cast<double>(b) / 1024.0);
  }
  return buf;
}

int run(int argc, char** argv) {
  CLI::App app{"Estimate the memory llama.cpp allocates for a model: weights, KV cache, output and "
               "compute buffers (from the metadata alone; flags as llama.cpp spells them).",
               "estimate"};
  std::string path, ctk = "f16", ctv = "f16", fa = "auto";
  std::vector<uint32_t> ctx_sizes;
  estimate_params p;
  p.swa_full = false;  // as llama.cpp's command-line tools
  read_flags rf;
  app.add_option("FILE", path, "GGUF file, URL or any shard of a split model")->required();
  app.add_option("-c,--ctx-size", ctx_sizes, "context size(s), comma-separated (default: n_ctx_train)")
      ->delimiter(',');
  // Issue 29, item 15: llama.cpp asserts a batch of at least 1 and reads -1 as "all layers".
  app.add_option("-b,--batch-size", p.n_batch, "logical batch size (default 2048)")
      ->check(CLI::Range(1u, 0x7fffffffu));
  app.add_option("--ubatch-size", p.n_ubatch, "physical batch size (default 512)")->check(CLI::Range(1u, 0x7fffffffu));
  app.add_option("--parallel", p.n_seq_max, "number of sequences (default 1)");
  app.add_flag("--kv-unified", p.kv_unified, "one KV buffer shared by all sequences");
  app.add_option("--cache-type-k", ctk, "K cache type: f32 f16 bf16 q8_0 q4_0 q4_1 iq4_nl q5_0 q5_1");
  app.add_option("--cache-type-v", ctv, "V cache type (quantized needs flash attention)");
  app.add_option("--flash-attn", fa, "on, off or auto (default auto)");
  app.add_option("--gpu-layers", p.n_gpu_layers, "layers offloaded to the GPU (-1: all; default 0)")
      ->check(CLI::Range(-1, 0x7fffffff));
  app.add_flag("--swa-full", p.swa_full, "full-size sliding-window cache");
  app.add_flag("--embeddings", p.embeddings, "the context also outputs embeddings");
  add_read_options(app, rf, "one JSON document");
  const bool& json = rf.json;
  if (auto rc = parse(app, argc, argv)) return *rc;

  auto tk = cache_type(ctk), tv = cache_type(ctv);
  if (!tk || !tv) {
    std::cerr << "gguf estimate: unsupported cache type '" << (tk ? ctv : ctk) << "'\n";
    return exit_usage;
  }
  p.type_k = *tk;
  p.type_v = *tv;
  if (auto t = flash_attn_from_name(fa)) {
    p.flash_attn = *t;
  } else {
    std::cerr << "gguf estimate: --flash-attn takes on, off or auto\n";
    return exit_usage;
  }
  if (ctx_sizes.empty()) ctx_sizes.push_back(0);

  auto f = open_model(path);
  if (!f) return report(input_name(path), f.error());
  auto m = gguf::model::load(*f);
  if (!m) return report(input_name(path), m.error());

  std::vector<estimate_result> results;
  std::vector<estimate_params> params;
  for (uint32_t n : ctx_sizes) {
    params.push_back(p);
    params.back().n_ctx = n;
    results.push_back(gguf::estimate(*m, params.back()));
  }

  const bool any_refused =
      std::any_of(results.begin(), results.end(), [](const auto& e) { return !e.refused.empty(); });
  if (json) {
    if (results.size() == 1) {
      print_json(estimate_json(results[0], params[0]));
    } else {
      auto arr = nlohmann::ordered_json::array();
      for (size_t i = 0; i < results.size(); ++i) arr.push_back(estimate_json(results[i], params[i]));
      print_json(arr);
    }
    return any_refused ? exit_invalid : exit_ok;
  }

  const auto& hp = m->hparams();
  std::printf("%s: %s, %u layers, n_ctx_train %u, weights %s\n", input_name(path).c_str(),
              std::string(m->arch().name).c_str(), hp.n_layer, hp.n_ctx_train,
              results[0].vocab_only ? "none (vocab-only file)" : mib(results[0].weights_bytes).c_str());
  std::printf("%7s %9s %4s %6s %6s %3s %12s %12s %12s %12s %12s\n", "n_ctx", "n_ctx_seq", "seqs", "K", "V",
              "fa", "weights", "KV cache", "output", "compute", "total");
  for (size_t i = 0; i < results.size(); ++i) {
    const auto& e = results[i];
    const auto& q = params[i];
    if (!e.refused.empty()) {
      std::printf("%7u  refused: %s\n", q.n_ctx ? q.n_ctx : hp.n_ctx_train, e.refused.c_str());
      continue;
    }
    std::printf("%7u %9u %4u %6s %6s %3s %12s %12s %12s %12s %12s\n", e.n_ctx, e.n_ctx_seq,
                std::max(1u, q.n_seq_max), std::string(ggml_type_name(q.type_k)).c_str(),
                std::string(ggml_type_name(q.type_v)).c_str(), e.flash_attn ? "on" : "off",
                mib(e.weights_bytes).c_str(), mib(e.kv_bytes).c_str(), mib(e.output_bytes).c_str(),
                mib(e.compute_bytes).c_str(), mib(e.total_bytes).c_str());
    if (e.devices.size() > 1) {
      for (const auto& d : e.devices) {
        std::printf("%7s %9s %4s %6s %6s %3s %12s %12s %12s %12s %12s\n", "", d.name.c_str(), "", "", "", "",
                    mib(d.weights_bytes).c_str(), mib(d.kv_bytes).c_str(), mib(d.output_bytes).c_str(),
                    mib(d.compute_bytes).c_str(), mib(d.total_bytes).c_str());
      }
    }
  }
  return any_refused ? exit_invalid : exit_ok;
}

const registrar reg{"estimate", "memory llama.cpp allocates: weights, KV cache, output, compute", run};

}  // namespace
}  // namespace gguf::cli::cmd_estimate
