// Fuzz target: load a vocabulary and tokenize / detokenize with it (vocab layer).
//
// Input, text mode (byte 0 < 0xf0): byte 0 picks one of the real vocabularies of the
// test data (loaded once at start-up from $GGUF_TEST_DATA, default ../shared/data, one
// per tokenizer family and several BPE pre-tokenizers) and the flags add_special /
// parse_special; the rest is the text. File mode (byte 0 >= 0xf0): bytes 1-2 are the
// text length L (little-endian), then L bytes of text, then a GGUF file whose
// tokenizer.ggml.* keys are loaded with vocab::load.
// Properties: every id is in 0..n_tokens-1; tokenizing is deterministic and
// tokenize_into appends the same ids; add_special only adds tokens around the
// parse_special result; detokenize and token_to_piece accept every id, including
// out-of-range ones.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "fuzz_check.h"
#include "gguf/vocab.h"

namespace {

struct loaded {
  gguf::file file;
  gguf::vocab vocab;
};
std::vector<std::unique_ptr<loaded>>* vocabs = nullptr;

void exercise(const gguf::vocab& v, std::string_view text, bool add_special, bool parse_special) {
  uint32_t n = v.n_tokens();
  auto ids = v.tokenize(text, add_special, parse_special);
  if (!ids) {
    FUZZ_CHECK(ids.error().code == gguf::errc::unsupported || ids.error().code == gguf::errc::invalid_vocab);
    return;
  }
  for (int32_t id : *ids) FUZZ_CHECK(id >= 0 && static_cast<uint32_t>(id) < n);
  // tokenize_into must append exactly the ids tokenize gave: this also checks that
  // tokenizing is deterministic (per-call caches and scratch buffers leave no trace).
  std::vector<int32_t> into{7};
  FUZZ_CHECK(v.tokenize_into(text, into, add_special, parse_special));
  FUZZ_CHECK(into.size() == ids->size() + 1 && std::equal(ids->begin(), ids->end(), into.begin() + 1));
  if (add_special) {
    auto plain = v.tokenize(text, false, parse_special);
    FUZZ_CHECK(plain.ok() && plain->size() <= ids->size());
  }
  (void)v.detokenize(*ids, false, false);
  (void)v.detokenize(*ids, true, true);
  for (size_t i = 0; i < ids->size() && i < 64; ++i) (void)v.token_to_piece((*ids)[i], i & 1);
  int32_t odd[] = {-1, static_cast<int32_t>(n), INT32_MAX, INT32_MIN, 0};
  (void)v.detokenize(odd, true, true);
  for (int32_t id : odd) (void)v.token_to_piece(id, true);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  vocabs = new std::vector<std::unique_ptr<loaded>>();
  const char* env = std::getenv("GGUF_TEST_DATA");
  std::filesystem::path dir = env && *env ? env : "../shared/data";
  for (const char* name : {"ggml-vocab-llama-spm", "ggml-vocab-gpt-2", "ggml-vocab-llama-bpe", "ggml-vocab-qwen2",
                           "ggml-vocab-deepseek-coder", "ggml-vocab-deepseek-llm", "ggml-vocab-falcon",
                           "ggml-vocab-command-r", "ggml-vocab-bert-bge", "ugm-sp-test", "ggml-vocab-rwkv-world",
                           "ggml-vocab-phi-3", "ggml-vocab-gemma-4", "ggml-vocab-starcoder", "ggml-vocab-mpt",
                           "ggml-vocab-refact"}) {
    auto f = gguf::file::open(dir / "vocab" / (std::string(name) + ".gguf"));
    if (!f) continue;
    auto v = gguf::vocab::load(*f);
    if (!v) continue;
    vocabs->push_back(std::make_unique<loaded>(loaded{std::move(*f), std::move(*v)}));
  }
  std::fprintf(stderr, "fuzz_vocab: %zu real vocabularies loaded from %s\n", vocabs->size(), dir.c_str());
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  if (data[0] < 0xf0) {
    if (vocabs->empty()) return 0;
    const auto& v = (*vocabs)[(data[0] >> 2) % vocabs->size()]->vocab;
    std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
    exercise(v, text, data[0] & 1, data[0] & 2);
    return 0;
  }
  if (size < 3) return 0;
  size_t len = std::min<size_t>(data[1] | (size_t{data[2]} << 8), size - 3);
  std::string_view text(reinterpret_cast<const char*>(data + 3), len);
  auto f = gguf::file::from_bytes(std::span(reinterpret_cast<const std::byte*>(data + 3 + len), size - 3 - len));
  if (!f) return 0;
  auto v = gguf::vocab::load(*f);
  if (!v) {
    FUZZ_CHECK(v.error().code != gguf::errc::ok && !v.error().message().empty());
    return 0;
  }
  for (uint32_t i = 0; i < v->n_tokens() && i < 16; ++i) {
    (void)v->token_text(static_cast<int32_t>(i));
    (void)v->token_score(static_cast<int32_t>(i));
    (void)v->token_attr(static_cast<int32_t>(i));
  }
  exercise(*v, text, data[0] & 1, data[0] & 2);
  return 0;
}
