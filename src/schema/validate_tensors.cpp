// Rule group tensor.*: names (spec "Standardized tensor names") and the padding between
// tensor data (spec: "the space between tensors should be padded to ALIGNMENT bytes",
// "padded with 0x00 bytes"). Shapes, types, bounds, alignment and overlap are checked
// by the reader (structure.* rules).
#include <algorithm>
#include <vector>

#include "gguf/keys.h"
#include "schema/checker.h"

namespace gguf::detail {
namespace {

// First non-zero byte of bytes[from, to), or `to`. Of a remote file only the bytes
// already fetched are checked (the padding between tensors is not worth a request each).
uint64_t first_nonzero(const file& f, std::span<const std::byte> bytes, uint64_t from, uint64_t to) {
  to = std::min<uint64_t>(to, bytes.size());
  if (from < to && !f.resident(from, to - from)) return to;
  for (uint64_t i = from; i < to; ++i)
    if (bytes[i] != std::byte{0}) return i;
  return to;
}

}  // namespace

void check_tensors(checker& c) {
  const file& f = c.f;
  auto tensors = f.tensors();
  if (tensors.empty()) return;

  if (const arch_info* a = c.arch.empty() ? nullptr : find_architecture(c.arch); a && a->validated) {
    for (const auto& t : tensors)
      if (!is_standard_tensor_name(t.name))
        c.add(severity::warning, "tensor.name", t.name, t.info_offset,
              "not a standardized tensor name (spec: AA.weight / blk.N.BB.weight with the listed AA, BB)", true);
  }

  // Padding: after the tensor infos up to the data section, and between tensors.
  auto bytes = f.bytes();
  uint64_t end_meta = f.metadata_end(), data = f.data_offset();
  if (end_meta < data) {
    uint64_t nz = first_nonzero(f, bytes, end_meta, data);
    if (nz < std::min<uint64_t>(data, bytes.size()))
      c.add(severity::warning, "tensor.padding", {}, nz,
            "non-zero byte in the padding before the data section (spec: padded with 0x00 bytes)");
  }
  std::vector<const tensor_info*> order;
  order.reserve(tensors.size());
  for (const auto& t : tensors) order.push_back(&t);
  std::sort(order.begin(), order.end(), [](const tensor_info* a, const tensor_info* b) { return a->offset < b->offset; });
  for (size_t i = 0; i < order.size(); ++i) {
    const tensor_info* t = order[i];
    uint64_t end = data + t->offset + t->nbytes;
    uint64_t next = i + 1 < order.size() ? data + order[i + 1]->offset : end;
    if (i + 1 == order.size()) {
      // Up to the next multiple of the alignment, as far as the file goes.
      uint64_t aligned = end;
      if (!checked_align(end, f.alignment(), aligned)) aligned = end;
      next = std::min<uint64_t>(aligned, bytes.size());
    }
    if (next <= end) continue;
    uint64_t nz = first_nonzero(f, bytes, end, next);
    if (nz < next)
      c.add(severity::warning, "tensor.padding", t->name, nz,
            "non-zero byte in the padding after this tensor's data (spec: padded with 0x00 bytes)", true);
  }
}

}  // namespace gguf::detail
