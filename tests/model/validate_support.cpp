#include "validate_support.h"

#include "gguf/schema.h"

namespace gguf::test {

std::vector<validate_finding> validate_findings(std::span<const std::byte> bytes) {
  std::vector<validate_finding> out;
  for (const auto& d : validate_bytes(bytes).diagnostics)
    out.push_back({d.rule, d.subject, d.level == severity::error});
  return out;
}

}  // namespace gguf::test
