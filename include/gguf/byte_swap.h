// gguf/byte_swap.h — byte order of tensor data: which bytes of each ggml type's block
// are multi-byte numbers, and swapping them.
//
//   auto* l = gguf::ggml_swap_layout(gguf::ggml_type::q4_K);  // d, dmin: 2 x uint16 at 0
//   gguf::swap_blocks(gguf::ggml_type::q4_K, bytes);           // in place, whole blocks
//
// A big-endian GGUF file stores every number big-endian, tensor data included: the
// bytes a big-endian host running ggml would hold in memory (ggml-common.h block
// structs). So a block's f16/bf16/f32 scales, uint16 grids and packed uint32 words are
// swapped, and its single-byte fields (quants, packed scale bytes) are not. Where ggml
// declares a field as bytes but reads and writes it as wider words through memcpy (the
// high bits qh of q5_0/q5_1 as uint32, iq3_xxs's scales-and-signs as uint32,
// iq2_xxs's qs as uint32 pairs, iq1_m's scales as uint16), the layout follows the words.
// For the types gguf-py's endian converter handles (f32 f16 bf16 q4_0 q8_0 q4_K q6_K
// q1_0 tq2_0 mxfp4 nvfp4, and the element types) the layouts give its bytes exactly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "gguf/file.h"
#include "gguf/format.h"
#include "gguf/output.h"

namespace gguf {

/// `count` consecutive numbers of `width` bytes (2, 4 or 8) starting at byte `offset`
/// of a block.
struct swap_field {
  uint16_t offset = 0;
  uint8_t width = 0;
  uint16_t count = 0;
};

/// The multi-byte fields of one ggml type's block (type_size bytes); every other byte
/// of the block is a single-byte field and keeps its place.
struct swap_layout {
  ggml_type type;
  std::span<const swap_field> fields;
};

/// The layout of `type`; nullptr for an unknown or retired id. Every known type has one.
const swap_layout* ggml_swap_layout(ggml_type type) noexcept;

/// Swaps the multi-byte fields of every block in `data` in place (either direction:
/// swapping is its own inverse). `data.size()` must be a multiple of the type's
/// type_size. Errors: invalid_ggml_type, invalid_argument (not whole blocks).
result<void> swap_blocks(ggml_type type, std::span<std::byte> data);

/// Appends `f` with every number in the other byte order to `out` (the caller commits):
/// the header, every key/value (lengths, type ids, numbers, array elements) and tensor
/// info, and each tensor's blocks by their layout. The layout is kept: same offsets,
/// padding and bytes between tensors, so converting twice gives the original bytes.
/// Follows gguf-py's gguf_convert_endian.py (which swaps the file in place) for the types
/// it handles, and extends it to every type. Memory: the metadata plus a 4 MiB buffer;
/// tensor bytes are read with pread from the file (or from the mapping for a file
/// without a path). Errors: io_error.
result<void> write_byte_swapped(const file& f, safe_output& out);

}  // namespace gguf
