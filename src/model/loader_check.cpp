// What `gguf validate`, the editing commands and Python's ggufkit.edit add to
// gguf::validate's rules: the loaders of this library, which refuse what llama.cpp's
// loader refuses (issue 29, item 4; the differential in tests/cli/test_validate_loader.cpp).
// The schema layer cannot run them (vocab and model sit above it): the model layer does,
// as llama.cpp's model loader loads the vocabulary too (gguf/model.h, add_loader_diagnostics).
#include <string>

#include "gguf/model.h"
#include "gguf/model_files.h"
#include "gguf/vocab.h"

namespace gguf {

void add_loader_diagnostics(const file& f, report& r) {
  if (r.has_errors()) return;
  if (auto no = f.get_uint(kv_split_no); no && *no > 0) return;
  auto add = [&](std::string_view rule, const error& e, std::string_view what) {
    diagnostic d;
    d.level = severity::error;
    d.rule = std::string(rule);
    d.subject = e.subject;
    d.subject_is_tensor = e.subject_is_tensor;
    d.offset = e.offset;
    d.message = std::string(what) + ": " + e.detail;
    r.diagnostics.push_back(std::move(d));
  };
  // Only for an architecture of the registry: GGUF also carries models llama.cpp does not
  // run (superpoint, the spec's whisper; rule arch.unknown says so), and the registry does
  // not have every llama.cpp architecture yet (docs/estimate.md).
  auto arch = f.get_string("general.architecture");
  // A shard of a split model holds part of the tensors: the model loader's checks are for
  // the whole set (read as one by open_model), not for one shard.
  const bool shard = f.get_uint(kv_split_count).value_or(0) > 1;
  const bool llm = !shard && f.tensor_count() > 0 && arch && find_model_architecture(*arch);
  if (f.find("tokenizer.ggml.model") || f.find("tokenizer.ggml.tokens")) {
    if (auto v = vocab::load(f); !v) {
      add("loader.vocab", v.error(), "llama.cpp's vocabulary loader refuses it");
      return;
    }
  } else if (llm) {  // llama.cpp loads the vocabulary of every model: the key is required
    add("loader.vocab",
        make_error(errc::invalid_vocab, no_offset, "key not found in model: tokenizer.ggml.model", "tokenizer.ggml.model"),
        "llama.cpp's vocabulary loader refuses it");
    return;
  }
  if (llm && f.data_offset() % 32 != 0) {
    // ggml's CPU buffer over the mapping asserts a 32-byte aligned start (TENSOR_ALIGNMENT):
    // llama.cpp aborts on such a file (a general.alignment of 8 or 16 allows it)
    add("loader.model",
        make_error(errc::invalid_alignment, f.data_offset(),
                   "the data section starts at byte " + std::to_string(f.data_offset()) +
                       ", not a multiple of 32: llama.cpp aborts mapping it (GGML_ASSERT: buffer pointer must be "
                       "aligned)",
                   "general.alignment"),
        "llama.cpp's model loader refuses it");
    return;
  }
  if (llm) {
    auto m = model::load(f);
    if (!m) add("loader.model", m.error(), "llama.cpp's model loader refuses it");
    else if (auto c = m->check(); !c) add("loader.model", c.error(), "llama.cpp's model loader refuses it");
  }
}

}  // namespace gguf
