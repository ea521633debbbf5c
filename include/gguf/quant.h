// gguf/quant.h — dequantization of ggml tensor data to float32, and row lookup
// (ggml_get_rows) over a mapped file.
//
//   auto f = gguf::file::open("model.gguf").value();
//   const auto* t = f.get_tensor("token_embd.weight").value();     // [n_embd, n_vocab]
//   std::vector<int32_t> ids = {1, 15043, 3186};
//   std::vector<float> rows(ids.size() * t->ne[0]);
//   if (auto r = gguf::get_rows(f, *t, ids, rows); !r) { /* r.error() */ }
//
// Results are bit-identical to ggml's `to_float` (ggml.c type traits, the
// dequantize_row_* functions of ggml-quants.c): the same float operations in the same
// order, never fused into multiply-adds. The AVX2 kernels, chosen at run time when the
// CPU has AVX2 and F16C, give the same bits as the scalar ones.
//
// Supported: every storage type — f32 f16 bf16 f64, q4_0 q4_1 q5_0 q5_1 q8_0, q2_K q3_K
// q4_K q5_K q6_K, iq2_xxs iq2_xs iq2_s iq3_xxs iq3_s iq1_s iq1_m iq4_nl iq4_xs, tq1_0
// tq2_0, mxfp4 nvfp4, q1_0 q2_0 — and the integer types i8 i16 i32 i64 (converted to the
// nearest float). Not supported: q8_1 and q8_K, ggml's intermediate dot-product types
// (ggml has no to_float for them either).
//
// Big-endian files: every type is read, its blocks byte-swapped while reading by the
// layouts of gguf/byte_swap.h (for the types gguf-py's endian converter handles, the
// bytes it writes).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "gguf/error.h"
#include "gguf/file.h"
#include "gguf/format.h"

namespace gguf {

/// True when dequantize_row() handles `type` in little-endian data.
bool can_dequantize(ggml_type type) noexcept;

/// True when `type` can be dequantized from a big-endian file (every dequantizable type).
bool can_dequantize_big_endian(ggml_type type) noexcept;

/// Converts the blocks in `src` to `dst.size()` floats.
///
/// `dst.size()` must be a multiple of the type's blck_size, and `src` must hold exactly
/// the bytes of dst.size() elements (dst.size() / blck_size * type_size), in the byte
/// order `order` (the file's: gguf::file::byte_order()). Any alignment of `src` works.
/// Errors: invalid_ggml_type (unknown id), unsupported (q8_1, q8_K), partial_block (dst.size() not a multiple of
/// blck_size), invalid_argument (src.size() does not match).
/// Follows ggml's to_float (dequantize_row_<type>), bit for bit.
result<void> dequantize_row(ggml_type type, std::span<const std::byte> src, std::span<float> dst,
                            byte_order order = byte_order::little);

/// Dequantizes a whole tensor of `f` into `out` (t.nelements() floats, row-major,
/// ne[0] fastest: the layout of ggml's contiguous tensors).
/// Errors: those of dequantize_row (naming the tensor), invalid_argument when
/// out.size() != t.nelements().
result<void> dequantize_tensor(const file& f, const tensor_info& t, std::span<float> out);

/// Same, into a new vector of t.nelements() floats.
result<std::vector<float>> dequantize_tensor(const file& f, const tensor_info& t);

/// Row lookup, like ggml_get_rows: for a tensor of shape [ne0, ne1] (e.g.
/// token_embd.weight [n_embd, n_vocab]), fills out[i * ne0 .. (i + 1) * ne0) with row
/// ids[i], dequantized straight from the mapped file; only the rows asked for are read.
/// A tensor of more dimensions is ne[2] * ne[3] matrices of [ne0, ne1] (e.g. experts
/// [n_embd, n_ff, n_expert]); as ggml's ids tensor [n, ne2, ne3], `ids` then holds n ids
/// for matrix 0, then n for matrix 1, ..., each a row of its own matrix, and `out` is
/// [ne0, n, ne2, ne3]. `out.size()` must be ids.size() * ne0.
/// Errors: out_of_range (an id outside 0 <= id < ne1; names the tensor and gives the
/// position of the id), invalid_argument (out.size() mismatch, or ids.size() not a
/// multiple of ne[2] * ne[3]), and those of dequantize_row.
result<void> get_rows(const file& f, const tensor_info& t, std::span<const int32_t> ids, std::span<float> out);

/// Which dequantization kernels this process runs: "avx2" (AVX2 + F16C found at run
/// time) or "scalar".
std::string_view dequantize_isa() noexcept;

}  // namespace gguf
