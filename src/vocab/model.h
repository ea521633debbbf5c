// Internal contract between the vocabulary loader and the tokenizer models (not installed).
//
// The pipeline (DESIGN.md, STYLE.md): the loader fills a vocab_data from the
// tokenizer.ggml.* keys; the session splits the input on special tokens (parse_special)
// and hands each plain-text fragment to one tokenizer_model, which runs its own
// normalizer -> pre-tokenizer -> model steps and appends token ids. BOS/EOS/SEP/CLS
// insertion and detokenization are the session's business, not the model's.
// Mirrors llama.cpp's llm_tokenizer_{spm,bpe,wpm,ugm,rwkv} + *_session split.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace gguf::vocab_detail {

/// tokenizer.ggml.token_type values (llama_token_type / llama_token_attr origin).
enum class token_type : int32_t {
  undefined = 0,
  normal = 1,
  unknown = 2,
  control = 3,
  user_defined = 4,
  unused = 5,
  byte = 6,
};

/// tokenizer.ggml.model: llama -> spm, gpt2 -> bpe, bert -> wpm, t5 -> ugm, rwkv -> rwkv.
enum class vocab_type { none, spm, bpe, wpm, ugm, rwkv };

inline constexpr int32_t no_token = -1;

/// llama_token_attr bits (llama.h), after llama.cpp's load-time fix-ups.
enum token_attr : uint32_t {
  attr_undefined = 0,
  attr_unknown = 1 << 0,
  attr_unused = 1 << 1,
  attr_normal = 1 << 2,
  attr_control = 1 << 3,
  attr_user_defined = 1 << 4,
  attr_byte = 1 << 5,
  attr_normalized = 1 << 6,
  attr_lstrip = 1 << 7,
  attr_rstrip = 1 << 8,
  attr_single_word = 1 << 9,
};

struct token_data {
  std::string_view text;  ///< view into the mapped file (or into vocab_data::owned_text)
  float score = 0.0f;
  token_type type = token_type::normal;  ///< as stored in the file
  uint32_t attr = attr_normal;           ///< token_attr bits as llama.cpp ends up with them
};

struct pre_preset;

/// Everything a tokenizer model needs from the file; filled once by the loader.
struct vocab_data {
  vocab_type type = vocab_type::none;
  std::string pre;  ///< tokenizer.ggml.pre as stored (after llama.cpp's defaulting)
  std::vector<token_data> tokens;  ///< index = token id
  std::unordered_map<std::string_view, int32_t> token_to_id;
  /// BPE merges: "left right" pairs -> rank (lower merges first).
  std::vector<std::pair<std::string_view, std::string_view>> merges;
  std::span<const std::byte> precompiled_charsmap;  ///< UGM normalizer blob, may be empty

  int32_t bos = no_token, eos = no_token, eot = no_token, eom = no_token, unk = no_token,
          sep = no_token, pad = no_token, mask = no_token, cls = no_token, nl = no_token;
  bool add_bos = false, add_eos = false, add_sep = false;
  bool add_space_prefix = false;
  bool remove_extra_whitespaces = false;
  bool escape_whitespaces = true;          ///< UGM: replace ' ' by U+2581
  bool treat_whitespace_as_suffix = false; ///< UGM
  /// WPM normalizer (llama.cpp's normalizer_options): tokenizer.ggml.normalizer.lowercase,
  /// default true; tokenizer.ggml.normalizer.strip_accents, default = lowercase.
  bool lowercase = true;
  bool strip_accents = true;
  std::vector<std::string> owned_text;     ///< storage for texts that are not file views

  // BPE (and loader) details, llama.cpp's llama_vocab::impl fields of the same names.
  const pre_preset* preset = nullptr;  ///< BPE pre-tokenizer (nullptr for other models)
  bool ignore_merges = false;
  bool clean_spaces = false;
  uint32_t max_token_len = 0;  ///< longest token text in bytes

  int32_t find(std::string_view text) const {
    auto it = token_to_id.find(text);
    return it == token_to_id.end() ? no_token : it->second;
  }
};

/// One tokenizer model. Built once per vocabulary (may precompute tries, tables);
/// `tokenize` is const and thread-safe, appending the ids of one plain-text fragment.
class tokenizer_model {
 public:
  virtual ~tokenizer_model() = default;
  virtual void tokenize(std::string_view text, std::vector<int32_t>& out) const = 0;
};

std::unique_ptr<tokenizer_model> make_spm(const vocab_data& v);
std::unique_ptr<tokenizer_model> make_bpe(const vocab_data& v);
std::unique_ptr<tokenizer_model> make_wpm(const vocab_data& v);
std::unique_ptr<tokenizer_model> make_ugm(const vocab_data& v);
std::unique_ptr<tokenizer_model> make_rwkv(const vocab_data& v);

}  // namespace gguf::vocab_detail
