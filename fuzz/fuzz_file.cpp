// Fuzz target: open and index a GGUF file from bytes, then read every key/value (every
// accessor, every array element kind, nested arrays) and every tensor info.
// Properties: a parsed file satisfies the reader's invariants (fuzz_check.h); tighter
// limits never accept a file the default limits reject, and reject only with
// limit_exceeded a file the defaults accept.
#include <cstddef>
#include <cstdint>
#include <span>

#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  auto f = gguf::file::from_bytes(bytes);
  if (f) {
    gguf::fuzz::visit_file(*f);
  } else {
    gguf::fuzz::check_error(f.error(), size);
  }
  auto t = gguf::file::from_bytes(bytes, gguf::fuzz::tight_limits());
  if (t) {
    FUZZ_CHECK(f.ok());
    FUZZ_CHECK(t->kv_count() == f->kv_count() && t->tensor_count() == f->tensor_count());
  } else if (f) {
    FUZZ_CHECK(t.error().code == gguf::errc::limit_exceeded);
  }
  return 0;
}
