// The public list of tokenizer.ggml.pre values llama.cpp accepts (gguf/vocab.h).
#include "gguf/vocab.h"
#include "vocab/pre_tokenizer/pre_tokenizer.h"

namespace gguf {

std::vector<std::string_view> known_pre_tokenizers() {
  std::vector<std::string_view> out;
  for (const auto& n : vocab_detail::all_pre_names()) out.push_back(n.name);
  return out;
}

}  // namespace gguf
