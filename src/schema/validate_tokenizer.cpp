// Rule group tokenizer.*: the embedded vocabulary (spec "Tokenizer" / "GGML"; llama.cpp
// llama_vocab::load, which is what these rules protect).
#include <string>

#include "gguf/keys.h"
#include "schema/checker.h"

namespace gguf::detail {
namespace {

// The array of `key` if present with the given element type, else nullopt (a wrong type
// is reported by key.type).
std::optional<array_ref> typed_array(const kv_ref* kv, value_type elem) {
  if (!kv) return std::nullopt;
  auto a = kv->value.array();
  if (!a || a->nesting() != 1 || a->element_type() != elem) return std::nullopt;
  return *a;
}

void check_lengths(checker& c, uint64_t n_vocab) {
  for (std::string_view key : {"tokenizer.ggml.scores", "tokenizer.ggml.token_type"}) {
    const kv_ref* kv = c.kv(key);
    if (!kv) continue;
    auto a = kv->value.array();
    if (!a) continue;
    // Shorter: llama.cpp's loader throws ("Index out of array bounds"); longer: it reads
    // the first n_vocab and loads the file (the loader differential, issue 29 item 4).
    if (a->size() < n_vocab)
      c.add(severity::error, "tokenizer.length", key, kv->value.offset(),
            std::to_string(a->size()) + " elements but tokenizer.ggml.tokens has " + std::to_string(n_vocab) +
                " (spec: same length and index as tokens; llama.cpp: index out of array bounds)");
    else if (a->size() > n_vocab)
      c.add(severity::warning, "tokenizer.length", key, kv->value.offset(),
            std::to_string(a->size()) + " elements but tokenizer.ggml.tokens has " + std::to_string(n_vocab) +
                " (spec: same length and index as tokens; llama.cpp reads the first " + std::to_string(n_vocab) + ")");
  }
}

void check_token_types(checker& c, uint64_t n_vocab) {
  const kv_ref* kv = c.kv("tokenizer.ggml.token_type");
  auto a = typed_array(kv, value_type::int32);
  if (!a) return;
  auto raw = a->raw();
  bool big = c.f.byte_order() == byte_order::big;
  uint64_t bad = 0, first_bad = 0;
  int32_t first_val = 0;
  for (uint64_t i = 0; i < a->size(); ++i) {
    const auto* p = reinterpret_cast<const unsigned char*>(raw.data()) + i * 4;
    uint32_t u = big ? (uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 | p[3])
                     : (uint32_t{p[3]} << 24 | uint32_t{p[2]} << 16 | uint32_t{p[1]} << 8 | p[0]);
    int32_t v = static_cast<int32_t>(u);
    if (v < token_type_min || v > token_type_max) {
      if (bad++ == 0) {
        first_bad = i;
        first_val = v;
      }
    }
  }
  (void)n_vocab;
  // llama.cpp loads such a file (the token gets no known attribute): a warning.
  if (bad)
    c.add(severity::warning, "tokenizer.token_type", "tokenizer.ggml.token_type", a->offset() + first_bad * 4,
          std::to_string(bad) + " token type(s) outside 1..6, first: token " + std::to_string(first_bad) + " has " +
              std::to_string(first_val) + " (spec: 1 normal, 2 unknown, 3 control, 4 user defined, 5 unused, 6 byte)");
}

void check_special_ids(checker& c, uint64_t n_vocab) {
  for (std::string_view key : special_token_keys()) {
    const kv_ref* kv = c.kv(key);
    if (!kv) continue;
    auto id = kv->value.get<uint32_t>();
    if (!id) continue;  // key.type
    if (*id == token_id_none || *id < n_vocab) continue;
    c.add(severity::warning, "tokenizer.special_id", key, kv->value.offset(),
          "token id " + std::to_string(*id) + " is outside the vocabulary of " + std::to_string(n_vocab) +
              " tokens (llama.cpp ignores it and keeps its default); 4294967295 means none");
  }
}

// llama.cpp splits a merge at the first ' ' after the first byte: "a b" -> ("a", "b").
void check_merges(checker& c) {
  const kv_ref* kv = c.kv("tokenizer.ggml.merges");
  if (!kv) {
    c.add(severity::error, "tokenizer.merges", "tokenizer.ggml.merges", no_offset,
          "a BPE tokenizer needs tokenizer.ggml.merges (llama.cpp: cannot find tokenizer merges)");
    return;
  }
  auto a = typed_array(kv, value_type::string);
  if (!a) return;
  uint64_t bad = 0, first_bad = 0;
  std::string first_text;
  auto r = a->for_each_string([&](uint64_t i, std::string_view m) {
    size_t pos = m.size() > 1 ? m.find(' ', 1) : std::string_view::npos;
    if (pos == std::string_view::npos || pos + 1 >= m.size()) {
      if (bad++ == 0) {
        first_bad = i;
        first_text = std::string(m.substr(0, 64));
      }
    }
  });
  (void)r;
  // llama.cpp loads such a merge (as a pair with an empty side, never applied): a warning.
  if (bad)
    c.add(severity::warning, "tokenizer.merges", "tokenizer.ggml.merges", kv->value.offset(),
          std::to_string(bad) + " merge(s) not of the form \"a b\", first: #" + std::to_string(first_bad) + " \"" +
              first_text + "\"");
}

}  // namespace

void check_tokenizer(checker& c) {
  const kv_ref* model_kv = c.kv("tokenizer.ggml.model");
  const kv_ref* tokens_kv = c.kv("tokenizer.ggml.tokens");
  if (!model_kv && !tokens_kv) {
    c.add(severity::note, "tokenizer.absent", {}, no_offset, "no embedded tokenizer (tokenizer.ggml.model absent)");
    return;
  }
  const tokenizer_model_info* row = nullptr;
  if (!model_kv) {
    c.add(severity::error, "tokenizer.model", "tokenizer.ggml.model", no_offset,
          "tokenizer.ggml.tokens is present but tokenizer.ggml.model is missing (llama.cpp requires it)");
  } else if (auto m = model_kv->value.get<std::string_view>(); m) {
    row = find_tokenizer_model(*m);
    if (!row)
      c.add(severity::error, "tokenizer.model", "tokenizer.ggml.model", model_kv->value.offset(),
            "unknown tokenizer model '" + std::string(*m) + "' (llama.cpp: llama gpt2 bert t5 rwkv plamo2 none)");
    if (row && row->no_vocab) return;
  }

  auto tokens = typed_array(tokens_kv, value_type::string);
  if (!tokens_kv) {
    c.add(severity::error, "tokenizer.tokens", "tokenizer.ggml.tokens", no_offset,
          "tokenizer.ggml.tokens is missing (spec: the list of tokens indexed by token id)");
    return;
  }
  if (!tokens) return;  // key.type
  uint64_t n_vocab = tokens->size();
  if (n_vocab == 0)  // llama.cpp loads it (and can tokenize nothing): a warning
    c.add(severity::warning, "tokenizer.tokens", "tokenizer.ggml.tokens", tokens_kv->value.offset(),
          "the vocabulary is empty");

  check_lengths(c, n_vocab);
  check_token_types(c, n_vocab);
  check_special_ids(c, n_vocab);

  const bool reads_pre = row && row->reads_pre;  // gpt2-style BPE
  if (reads_pre || c.kv("tokenizer.ggml.merges")) check_merges(c);
  if (reads_pre) {
    if (!c.kv("tokenizer.ggml.pre"))
      c.add(severity::warning, "tokenizer.pre", "tokenizer.ggml.pre", no_offset,
            "BPE tokenizer without tokenizer.ggml.pre: llama.cpp falls back to the 'default' pre-tokenizer and "
            "warns that generation quality will be degraded");
  }
  if (row && row->charsmap && !c.kv("tokenizer.ggml.precompiled_charsmap"))
    c.add(severity::warning, "tokenizer.charsmap", "tokenizer.ggml.precompiled_charsmap", no_offset,
          "UGM (t5) tokenizer without tokenizer.ggml.precompiled_charsmap: no normalization will be applied");
}

}  // namespace gguf::detail
