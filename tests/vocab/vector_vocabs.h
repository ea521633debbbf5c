// The vocabularies with recorded tokenizer vectors (tokenizer-vectors/NAME.jsonl, llama.cpp's
// output) and where each one's GGUF is in the test data: the parameters of the tests that
// replay the vectors (test_vocab.cpp one text at a time, test_batch.cpp in batches).
#pragma once

#include <string>
#include <vector>

namespace gguf::test {

inline const std::vector<std::string> vector_vocabs = {
    "aquila",      "baichuan",  "bert-bge", "command-r",  "deepseek-coder",      "deepseek-llm",
    "falcon",      "gemma-4",   "gpt-2",    "gpt-neox",   "llama-2-tiny-random", "llama-bpe",
    "llama-spm",   "mpt",       "nomic-bert-moe", "phi-3", "qwen2",              "refact",
    "rwkv-world",  "starcoder", "stories260K",    "ugm-sp-test"};

/// The data file (data_file's relative path) of a vocabulary of vector_vocabs.
inline std::string vocab_path(const std::string& name) {
  if (name == "stories260K" || name == "llama-2-tiny-random") return "models/" + name + ".gguf";
  if (name == "ugm-sp-test") return "vocab/ugm-sp-test.gguf";
  return "vocab/ggml-vocab-" + name + ".gguf";
}

}  // namespace gguf::test
