// Fuzz target: parse -> write -> parse is identical (gguf::writer::from_file).
// For every input the reader accepts, the re-written file must parse, with the same
// version (v1 is written as v3), byte order, alignment, keys in order, value types and
// values (compared as their canonical little-endian encoding, value::copy_of), and the
// same tensor infos (name, type, n_dims, ne, nbytes) and tensor bytes. Writing the
// re-parsed file again must reproduce the first output byte for byte (the writer's
// layout is canonical).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>

#include "fuzz_check.h"
#include "gguf/writer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  auto f = gguf::file::from_bytes(bytes);
  if (!f) return 0;
  auto out = gguf::writer::from_file(*f).to_bytes();
  auto g = gguf::file::from_bytes(out);
  if (!g) {
    std::fprintf(stderr, "re-written file does not parse: %s\n", g.error().message().c_str());
    std::abort();
  }
  FUZZ_CHECK(g->version() == (f->version() == 1 ? 3u : f->version()));
  FUZZ_CHECK(g->byte_order() == f->byte_order());
  FUZZ_CHECK(g->alignment() == f->alignment());
  FUZZ_CHECK(g->kv_count() == f->kv_count());
  for (size_t i = 0; i < f->kv_count(); ++i) {
    const auto& a = f->kv(i);
    const auto& b = g->kv(i);
    FUZZ_CHECK(a.key == b.key);
    FUZZ_CHECK(a.value.type() == b.value.type());
    auto va = gguf::value::copy_of(a.value);
    auto vb = gguf::value::copy_of(b.value);
    FUZZ_CHECK(va.element_type() == vb.element_type() || a.value.type() != gguf::value_type::array);
    FUZZ_CHECK(va.payload() == vb.payload());
  }
  FUZZ_CHECK(g->tensor_count() == f->tensor_count());
  for (size_t i = 0; i < f->tensor_count(); ++i) {
    const auto& a = f->tensors()[i];
    const auto& b = g->tensors()[i];
    FUZZ_CHECK(a.name == b.name && a.type == b.type && a.n_dims == b.n_dims);
    FUZZ_CHECK(a.ne == b.ne && a.nbytes == b.nbytes);
    FUZZ_CHECK(std::equal(a.data.begin(), a.data.end(), b.data.begin(), b.data.end()));
  }
  auto again = gguf::writer::from_file(*g).to_bytes();
  FUZZ_CHECK(again == out);
  return 0;
}
