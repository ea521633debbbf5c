// Fuzz target: gguf::validate over any bytes (schema layer).
// Properties: a file the reader rejects gives exactly one structure.* error carrying the
// reader's code; every diagnostic has a rule id and a message; a file that validates
// without errors still does after parse -> write -> parse (the writer loses nothing the
// rules look at).
#include <cstddef>
#include <cstdint>
#include <span>

#include "fuzz_check.h"
#include "gguf/schema.h"
#include "gguf/writer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  auto rep = gguf::validate_bytes(bytes);
  for (const auto& d : rep.diagnostics) {
    FUZZ_CHECK(!d.rule.empty());
    FUZZ_CHECK(!d.message.empty());
    FUZZ_CHECK(d.offset == gguf::no_offset || d.offset <= size);
  }
  auto f = gguf::file::from_bytes(bytes);
  if (!f) {
    FUZZ_CHECK(rep.diagnostics.size() == 1);
    FUZZ_CHECK(rep.diagnostics[0].level == gguf::severity::error);
    FUZZ_CHECK(rep.diagnostics[0].rule.rfind("structure.", 0) == 0);
    FUZZ_CHECK(rep.diagnostics[0].code == f.error().code);
    return 0;
  }
  auto direct = gguf::validate(*f);
  FUZZ_CHECK(direct.diagnostics.size() == rep.diagnostics.size());
  if (direct.has_errors()) return 0;
  auto out = gguf::writer::from_file(*f).to_bytes();
  auto g = gguf::file::from_bytes(out);
  FUZZ_CHECK(g.ok());
  auto again = gguf::validate(*g);
  if (again.has_errors()) {
    for (const auto& d : again.diagnostics) {
      if (d.level == gguf::severity::error) std::fprintf(stderr, "after round trip: %s: %s\n", d.rule.c_str(), d.message.c_str());
    }
    std::abort();
  }
  return 0;
}
