// What llama.cpp's own GGUF reader (ggml gguf.h) sees in a file, and whether libllama
// loads it as a model. Built and run by scripts/record-edit-llamacpp.sh against a
// llama.cpp build; its output is recorded in tests/format/data/llamacpp-inplace/.
// Usage: llamacpp_gguf_view FILE [--load]
// Prints: version, alignment, data_offset, every key with its type (string values in
// full, array lengths), every tensor's name, ggml type id, offset and size; with --load,
// "llama_model_load ok n_params=N" or exits 1.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "ggml-backend.h"
#include "gguf.h"
#include "llama.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE [--load]\n", argv[0]);
    return 2;
  }
  gguf_init_params ip{true, nullptr};
  gguf_context* g = gguf_init_from_file(argv[1], ip);
  if (!g) {
    std::printf("gguf_init_from_file failed\n");
    return 1;
  }
  std::printf("version %u\nalignment %zu\ndata_offset %zu\n", gguf_get_version(g), gguf_get_alignment(g),
              gguf_get_data_offset(g));
  for (int64_t i = 0; i < gguf_get_n_kv(g); ++i) {
    gguf_type t = gguf_get_kv_type(g, i);
    std::printf("kv %s %s", gguf_get_key(g, i), gguf_type_name(t));
    if (t == GGUF_TYPE_STRING) std::printf(" = %s", gguf_get_val_str(g, i));
    if (t == GGUF_TYPE_ARRAY) {
      std::printf(" [%s x %zu]", gguf_type_name(gguf_get_arr_type(g, i)), gguf_get_arr_n(g, i));
    }
    std::printf("\n");
  }
  for (int64_t i = 0; i < gguf_get_n_tensors(g); ++i) {
    std::printf("tensor %s %d %zu %zu\n", gguf_get_tensor_name(g, i), static_cast<int>(gguf_get_tensor_type(g, i)),
                gguf_get_tensor_offset(g, i), gguf_get_tensor_size(g, i));
  }
  gguf_free(g);
  if (argc > 2 && std::strcmp(argv[2], "--load") == 0) {
    const char* bindir = std::getenv("NLC_BINDIR");
    if (bindir) ggml_backend_load_all_from_path(bindir);
    else ggml_backend_load_all();
    llama_log_set([](ggml_log_level, const char*, void*) {}, nullptr);
    llama_backend_init();
    llama_model_params mp = llama_model_default_params();
    llama_model* m = llama_model_load_from_file(argv[1], mp);
    if (!m) {
      std::printf("llama_model_load failed\n");
      return 1;
    }
    std::printf("llama_model_load ok n_params=%llu\n", static_cast<unsigned long long>(llama_model_n_params(m)));
    llama_model_free(m);
    llama_backend_free();
  }
  return 0;
}
