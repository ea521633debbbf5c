// Internal: the state shared by the rule groups of validate() (schema layer).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "gguf/file.h"
#include "gguf/schema.h"

namespace gguf::detail {

struct checker {
  const file& f;
  std::vector<diagnostic>& out;
  std::string_view arch;  ///< general.architecture, empty if absent or not a string
  const validate_options* options = nullptr;  ///< nullptr: the defaults

  void add(severity level, std::string_view rule, std::string_view subject, uint64_t offset,
           std::string message, bool is_tensor = false) {
    diagnostic d;
    d.level = level;
    d.rule = std::string(rule);
    d.subject = std::string(subject);
    d.subject_is_tensor = is_tensor;
    d.offset = offset;
    d.message = std::move(message);
    out.push_back(std::move(d));
  }
  /// The kv of `key`, or nullptr.
  const kv_ref* kv(std::string_view key) const {
    for (const auto& k : f.kvs())
      if (k.key == key) return &k;
    return nullptr;
  }
};

/// Rule group "tokenizer.*" (validate_tokenizer.cpp).
void check_tokenizer(checker& c);
/// Rule group "split.*" (validate_split.cpp). True when the file is a shard other than
/// the first: its model metadata lives in the first shard and is not checked here.
bool check_split(checker& c);
/// Rule "utf8": every string value, string array element and tensor name is UTF-8
/// (validate_utf8.cpp).
void check_utf8(checker& c);
/// Rule group "tensor.*" (validate_tensors.cpp).
void check_tensors(checker& c);

}  // namespace gguf::detail
