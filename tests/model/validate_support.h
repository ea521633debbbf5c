// The schema layer's validate for the model tests, in its own translation unit:
// gguf/schema.h and gguf/model.h each define a gguf::severity and cannot meet in one file.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace gguf::test {

/// One diagnostic of gguf::validate_bytes, flattened.
struct validate_finding {
  std::string rule;     ///< e.g. "arch.required"
  std::string subject;  ///< key or tensor name
  bool error = false;   ///< severity error
};

/// The diagnostics gguf::validate_bytes gives for `bytes`.
std::vector<validate_finding> validate_findings(std::span<const std::byte> bytes);

}  // namespace gguf::test
