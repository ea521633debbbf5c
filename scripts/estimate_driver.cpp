// estimate_driver: what llama.cpp allocates for one model and one set of context
// parameters, as one JSON object on stdout. Built and run by scripts/record-estimate.sh
// against a reference llama.cpp (libllama + its headers); not part of the project build.
//
// Usage: estimate_driver MODEL N_CTX N_BATCH N_UBATCH N_SEQ KV_UNIFIED TYPE_K TYPE_V FA EMBD SWA_FULL
//   TYPE_K/TYPE_V are ggml type names; FA is -1 (auto), 0 (off) or 1 (on); KV_UNIFIED, EMBD and
//   SWA_FULL are 0 or 1.
//
// Records: llama_model_size and llama_model_n_params; llama_get_memory_breakdown per buffer
// type; every buffer the library allocates through ggml_backend_buft_alloc_buffer while the
// context is created (in order: the output buffer, the KV / recurrent-state buffers, the
// compute buffers), with its size in bytes; the context's n_ctx / n_ctx_seq / n_batch /
// n_ubatch; the log lines that report sizes; and, where llama_init_from_model fails, the
// error lines it logged.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "llama.h"
#include "llama-ext.h"

namespace {

struct alloc_record {
  std::string buft;
  size_t size_requested;
  size_t size_buffer;
};

bool g_recording = false;
std::vector<alloc_record> g_allocs;
std::vector<std::string> g_log_lines;
std::string g_pending;

using alloc_fn = ggml_backend_buffer_t (*)(ggml_backend_buffer_type_t, size_t);

std::string json_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\t': o += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char b[8];
          std::snprintf(b, sizeof b, "\\u%04x", c);
          o += b;
        } else {
          o += c;
        }
    }
  }
  return o;
}

bool wanted(const std::string& line) {
  static const char* keys[] = {"buffer size", "cells", "K (", "ERROR", "error", "failed",
                               "n_ctx", "n_batch", "n_ubatch", "n_seq_max", "flash_attn",
                               "requires", "does not divide", "Flash Attention", "n_ctx_seq",
                               "RS buffer", "R (", "rounding"};
  for (const char* k : keys) {
    if (line.find(k) != std::string::npos) return true;
  }
  return false;
}

void log_cb(ggml_log_level level, const char* text, void*) {
  if (level == GGML_LOG_LEVEL_DEBUG) return;
  if (std::getenv("ESTIMATE_DRIVER_VERBOSE")) std::fputs(text, stderr);
  g_pending += text;
  size_t nl;
  while ((nl = g_pending.find('\n')) != std::string::npos) {
    std::string line = g_pending.substr(0, nl);
    g_pending.erase(0, nl + 1);
    if (g_recording && wanted(line)) {
      g_log_lines.push_back(line);
      std::fprintf(stderr, "estimate_driver: log %s\n", line.c_str());
    }
  }
}

ggml_type type_from_name(const char* name) {
  for (int t = 0; t < GGML_TYPE_COUNT; ++t) {
    const char* n = ggml_type_name(static_cast<ggml_type>(t));
    if (n && std::strcmp(n, name) == 0) return static_cast<ggml_type>(t);
  }
  std::fprintf(stderr, "unknown type %s\n", name);
  std::exit(2);
}

}  // namespace

// Interposes libggml's allocator entry point: records each buffer's size, then calls it.
extern "C" ggml_backend_buffer_t ggml_backend_buft_alloc_buffer(ggml_backend_buffer_type_t buft,
                                                                size_t size) {
  static alloc_fn real = reinterpret_cast<alloc_fn>(dlsym(RTLD_NEXT, "ggml_backend_buft_alloc_buffer"));
  ggml_backend_buffer_t b = real(buft, size);
  if (g_recording) {
    g_allocs.push_back({ggml_backend_buft_name(buft), size, b ? ggml_backend_buffer_get_size(b) : 0});
    // also at once on stderr: a later abort in llama.cpp still leaves the record
    std::fprintf(stderr, "estimate_driver: alloc %s %zu\n", ggml_backend_buft_name(buft), size);
  }
  return b;
}

int main(int argc, char** argv) {
  if (argc != 12) {
    std::fprintf(stderr,
                 "usage: %s MODEL N_CTX N_BATCH N_UBATCH N_SEQ KV_UNIFIED TYPE_K TYPE_V FA EMBD SWA_FULL\n",
                 argv[0]);
    return 2;
  }
  llama_log_set(log_cb, nullptr);
  // The CPU backend is a loadable module beside the libraries: GGML_BACKEND_DIR names its folder.
  if (const char* dir = std::getenv("GGML_BACKEND_DIR")) {
    ggml_backend_load_all_from_path(dir);
  } else {
    ggml_backend_load_all();
  }
  llama_backend_init();

  llama_model_params mp = llama_model_default_params();
  mp.n_gpu_layers = 0;
  llama_model* model = llama_model_load_from_file(argv[1], mp);
  if (!model) {
    std::printf("{\"load_failed\": true}\n");
    return 0;
  }

  llama_context_params cp = llama_context_default_params();
  cp.n_ctx = static_cast<uint32_t>(std::strtoul(argv[2], nullptr, 10));
  cp.n_batch = static_cast<uint32_t>(std::strtoul(argv[3], nullptr, 10));
  cp.n_ubatch = static_cast<uint32_t>(std::strtoul(argv[4], nullptr, 10));
  cp.n_seq_max = static_cast<uint32_t>(std::strtoul(argv[5], nullptr, 10));
  cp.kv_unified = std::atoi(argv[6]) != 0;
  cp.type_k = type_from_name(argv[7]);
  cp.type_v = type_from_name(argv[8]);
  cp.flash_attn_type = static_cast<llama_flash_attn_type>(std::atoi(argv[9]));
  cp.embeddings = std::atoi(argv[10]) != 0;
  cp.swa_full = std::atoi(argv[11]) != 0;
  cp.n_threads = 1;
  cp.n_threads_batch = 1;

  g_recording = true;
  llama_context* ctx = llama_init_from_model(model, cp);
  g_recording = false;

  std::string out = "{";
  out += "\"model_size\": " + std::to_string(llama_model_size(model));
  out += ", \"n_params\": " + std::to_string(llama_model_n_params(model));
  if (!ctx) {
    out += ", \"refused\": true";
  } else {
    out += ", \"refused\": false";
    out += ", \"n_ctx\": " + std::to_string(llama_n_ctx(ctx));
    out += ", \"n_ctx_seq\": " + std::to_string(llama_n_ctx_seq(ctx));
    out += ", \"n_batch\": " + std::to_string(llama_n_batch(ctx));
    out += ", \"n_ubatch\": " + std::to_string(llama_n_ubatch(ctx));
    out += ", \"breakdown\": [";
    bool first = true;
    for (const auto& [buft, mb] : llama_get_memory_breakdown(ctx)) {
      out += first ? "" : ", ";
      first = false;
      out += "{\"buft\": \"" + json_escape(ggml_backend_buft_name(buft)) + "\"";
      out += ", \"model\": " + std::to_string(mb.model);
      out += ", \"context\": " + std::to_string(mb.context);
      out += ", \"compute\": " + std::to_string(mb.compute) + "}";
    }
    out += "]";
  }
  out += ", \"allocs\": [";
  for (size_t i = 0; i < g_allocs.size(); ++i) {
    out += i ? ", " : "";
    out += "{\"buft\": \"" + json_escape(g_allocs[i].buft) + "\", \"size\": " +
           std::to_string(g_allocs[i].size_requested) + ", \"buffer_size\": " +
           std::to_string(g_allocs[i].size_buffer) + "}";
  }
  out += "], \"log\": [";
  for (size_t i = 0; i < g_log_lines.size(); ++i) {
    out += i ? ", " : "";
    out += "\"" + json_escape(g_log_lines[i]) + "\"";
  }
  out += "]}";
  std::printf("%s\n", out.c_str());

  if (ctx) llama_free(ctx);
  llama_model_free(model);
  llama_backend_free();
  return 0;
}
