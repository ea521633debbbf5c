// gguf-consumer FILE TEXT: prints the file's version, key/value and tensor counts, then
// the ids of TEXT from the file's tokenizer as a JSON array (as `gguf tokenize` does).
#include <cstdio>
#include <string>

#include "gguf/gguf.h"  // the whole public API (gguf/file.h, gguf/vocab.h, ...)

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: gguf-consumer FILE TEXT\n");
    return 2;
  }
  auto f = gguf::file::open(argv[1]);
  if (!f) {
    std::fprintf(stderr, "gguf: %s: %s\n", argv[1], f.error().message().c_str());
    return 1;
  }
  std::printf("version %u, %zu key/values, %zu tensors\n", unsigned(f->version()), size_t(f->kv_count()),
              f->tensors().size());
  auto v = gguf::vocab::load(*f);
  if (!v) {
    std::fprintf(stderr, "gguf: %s: %s\n", argv[1], v.error().message().c_str());
    return 1;
  }
  try {
    const auto ids = v->tokenize(argv[2]).value();  // throws gguf::exception on error
    std::string out = "[";
    for (size_t i = 0; i < ids.size(); ++i) out += (i ? "," : "") + std::to_string(ids[i]);
    std::printf("%s]\n", out.c_str());
  } catch (const gguf::exception& e) {
    std::fprintf(stderr, "gguf: %s: %s\n", argv[1], e.what());
    return 1;
  }
  return 0;
}
