// gguf/quant.h — dequantization of ggml tensor data to float32, row lookup
// (ggml_get_rows) over a mapped file, and quantization of float32 rows to every type ggml
// quantizes to (ggml_quantize_chunk).
//
//   auto f = gguf::file::open("model.gguf").value();
//   const auto* t = f.get_tensor("token_embd.weight").value();     // [n_embd, n_vocab]
//   std::vector<int32_t> ids = {1, 15043, 3186};
//   std::vector<float> rows(ids.size() * t->ne[0]);
//   if (auto r = gguf::get_rows(f, *t, ids, rows); !r) { /* r.error() */ }
//
// Results are bit-identical to ggml's `to_float` (ggml.c type traits, the
// dequantize_row_* functions of ggml-quants.c): the same float operations in the same
// order, never fused into multiply-adds. The SIMD kernels give the same bits as the scalar
// ones and are chosen at run time (dequantize_isa): AVX-512 (F, BW and VL; f16 bf16 q8_0
// q4_K q5_K) when the CPU has it, AVX2 (with F16C) for the other types and on CPUs without
// AVX-512, else scalar.
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

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "gguf/error.h"
#include "gguf/file.h"
#include "gguf/format.h"

#pragma GCC visibility push(default)  // public API: exported from the shared library
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

/// Which dequantization kernels this process runs: "avx512" (AVX-512 F/BW/VL, AVX2 and
/// F16C found at run time: AVX-512 kernels where a type has one, else AVX2), "avx2" (AVX2 +
/// F16C) or "scalar". Outputs of 16 MiB and more are written with non-temporal stores.
std::string_view dequantize_isa() noexcept;

// ---------------------------------------------------------------------------------------
// Quantization: float32 rows to ggml blocks, byte-identical to ggml v0.5.0's
// ggml_quantize_chunk (ggml.c) and the quantizers of ggml-quants.c it dispatches to.
//
//   std::vector<float> w(n_rows * n_per_row);              // row-major, n_per_row fastest
//   std::vector<uint8_t> q(n_rows * gguf::ggml_row_size(gguf::ggml_type::q4_K, n_per_row).value());
//   auto n = gguf::quantize_rows(gguf::ggml_type::q4_K, w.data(), q.data(), n_rows, n_per_row, nullptr);
//
// Which algorithm runs is ggml's choice, per type: without importance weights most types
// use their reference quantizer (quantize_row_<type>_ref); with them, the weighted search
// (quantize_row_<type>_impl). q8_0, mxfp4, nvfp4, tq1_0, tq2_0, q1_0, q2_0, f16, bf16, f32
// ignore the weights; the iq2/iq3/iq1 types always search their grids (with weights
// derived from the row when none are given, as ggml does). docs/quant.md lists them all.
// ---------------------------------------------------------------------------------------

/// True when quantize_rows() writes `type`: f32 f16 bf16, q1_0 q2_0 q4_0 q4_1 q5_0 q5_1
/// q8_0, mxfp4 nvfp4, q2_K..q6_K, tq1_0 tq2_0, iq1_s iq1_m iq2_xxs iq2_xs iq2_s iq3_xxs
/// iq3_s iq4_nl iq4_xs (every type ggml_quantize_chunk handles). Not: q8_1, q8_K (ggml's
/// dot-product intermediates), f64 and the integer types.
bool can_quantize(ggml_type type) noexcept;

/// True for the types ggml refuses to quantize without an importance matrix
/// (ggml_quantize_requires_imatrix): iq2_xxs, iq2_xs, iq1_s.
bool quantize_requires_imatrix(ggml_type type) noexcept;

/// Builds the search tables a type needs (the iq2/iq1 grids' maps and neighbour lists,
/// the iq3 ones), as ggml_quantize_init does. Optional: quantize_rows() calls it. Thread
/// safe; each type's tables are built once per process and kept (a few hundred KiB).
void quantize_init(ggml_type type);

/// Quantizes `nrows` rows of `n_per_row` floats at `src` (row-major, contiguous) into
/// `dst`, which must hold nrows * ggml_row_size(type, n_per_row) bytes (rows packed one
/// after another, each a sequence of whole blocks, little-endian, ggml's block layouts).
/// `imatrix` is nullptr or n_per_row importance weights (one per column, the same for
/// every row: llama-quantize's per-tensor imatrix entry), each >= 0 and finite.
/// `src` must be finite (NaN/inf give unspecified bytes, as in ggml); any alignment works.
/// Returns the bytes written (nrows * row size).
/// Errors: invalid_ggml_type (unknown id), unsupported (a type that cannot be quantized),
/// partial_block (n_per_row not a multiple of the type's block size), invalid_argument
/// (nrows < 0, n_per_row <= 0, null src/dst with rows to do, or no imatrix for a type
/// where quantize_requires_imatrix()), size_overflow.
/// Follows ggml_quantize_chunk(type, src, dst, 0, nrows, n_per_row, imatrix) of ggml
/// v0.5.0 byte for byte (the same float operations in the same order).
result<std::size_t> quantize_rows(ggml_type type, const float* src, void* dst, std::int64_t nrows,
                                  std::int64_t n_per_row, const float* imatrix);

}  // namespace gguf
#pragma GCC visibility pop
