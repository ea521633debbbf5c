// Dequantization kernels and the one table that maps a ggml type to them.
//
// A kernel converts `nblocks` whole blocks of little-endian bytes to floats:
// src holds nblocks * type_size bytes, dst receives nblocks * blck_size floats. Kernels
// trust their arguments; the public functions in quant.cpp check every size first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "gguf/format.h"

#if defined(__x86_64__) || defined(__i386__)
#define GGUF_QUANT_X86 1
#else
#define GGUF_QUANT_X86 0
#endif

namespace gguf::detail {

using row_kernel = void (*)(const uint8_t* src, float* dst, size_t nblocks);

/// Instruction sets a kernel is written for.
enum class kernel_isa : uint8_t { scalar, avx2, avx512 };

/// One row of the kernel table (a ggml type).
struct kernel_row {
  row_kernel scalar = nullptr;  ///< reference kernel; nullptr: type not dequantizable
  row_kernel avx2 = nullptr;    ///< AVX2+F16C kernel bit-identical to `scalar`, or nullptr
  row_kernel avx512 = nullptr;  ///< AVX-512 F/BW/VL kernel bit-identical to `scalar`, or nullptr
};

/// The table row of a type id; nullptr for an id out of range.
const kernel_row* kernels_for(ggml_type type) noexcept;
/// True when the CPU runs the AVX2 kernels (AVX2 and F16C present).
bool cpu_has_avx2() noexcept;
/// True when the CPU runs the AVX-512 kernels (AVX2, F16C and AVX-512 F, BW, VL present).
bool cpu_has_avx512() noexcept;
/// The kernel to run for `isa`: the avx512 one when asked for, present and supported by
/// the CPU; else the avx2 one when avx2 or avx512 is asked for, present and supported; else
/// the scalar one (nullptr when the type has none).
row_kernel select_kernel(const kernel_row& row, kernel_isa isa) noexcept;
/// The best ISA of this CPU.
kernel_isa best_isa() noexcept;

/// Outputs larger than the last-level cache are written with non-temporal stores
/// (stream_store.cpp): there a plain store costs a read too, while an output that fits
/// the cache is faster with plain stores (it stays there for the next pass). The
/// threshold is the CPU's last-level cache size (sysconf), at least stream_min_bytes.
inline constexpr size_t stream_min_bytes = size_t(16) << 20;
/// The output size from which dequantization streams on this machine.
size_t stream_threshold_bytes() noexcept;
/// True when `out_bytes` of output should go through dequantize_streaming on this CPU.
bool stream_worthwhile(size_t out_bytes) noexcept;
/// kernel(src, dst, nblocks) through an L1-sized staging buffer and non-temporal stores;
/// the same floats as calling the kernel directly.
void dequantize_streaming(row_kernel kernel, const uint8_t* src, float* dst, size_t nblocks, size_t blck_size,
                          size_t type_size);

/// gguf::dequantize_row with the kernels of `isa` (for differential tests and benchmarks).
result<void> dequantize_row_isa(ggml_type type, std::span<const std::byte> src, std::span<float> dst,
                                byte_order order, kernel_isa isa);

// Reference kernels, one per type (kernels_float.cpp, kernels_legacy.cpp, kernels_k.cpp,
// kernels_iq.cpp). They follow the semantics of ggml's dequantize_row_* (ggml-quants.c):
// the same float operations in the same order, so the results are bit-identical.
void dequant_f32(const uint8_t*, float*, size_t);
void dequant_f16(const uint8_t*, float*, size_t);
void dequant_bf16(const uint8_t*, float*, size_t);
void dequant_f64(const uint8_t*, float*, size_t);
void dequant_i8(const uint8_t*, float*, size_t);
void dequant_i16(const uint8_t*, float*, size_t);
void dequant_i32(const uint8_t*, float*, size_t);
void dequant_i64(const uint8_t*, float*, size_t);

void dequant_q4_0(const uint8_t*, float*, size_t);
void dequant_q4_1(const uint8_t*, float*, size_t);
void dequant_q5_0(const uint8_t*, float*, size_t);
void dequant_q5_1(const uint8_t*, float*, size_t);
void dequant_q8_0(const uint8_t*, float*, size_t);
void dequant_q1_0(const uint8_t*, float*, size_t);
void dequant_q2_0(const uint8_t*, float*, size_t);
void dequant_iq4_nl(const uint8_t*, float*, size_t);
void dequant_mxfp4(const uint8_t*, float*, size_t);
void dequant_nvfp4(const uint8_t*, float*, size_t);

void dequant_q2_K(const uint8_t*, float*, size_t);
void dequant_q3_K(const uint8_t*, float*, size_t);
void dequant_q4_K(const uint8_t*, float*, size_t);
void dequant_q5_K(const uint8_t*, float*, size_t);
void dequant_q6_K(const uint8_t*, float*, size_t);
void dequant_tq1_0(const uint8_t*, float*, size_t);
void dequant_tq2_0(const uint8_t*, float*, size_t);
void dequant_iq4_xs(const uint8_t*, float*, size_t);

void dequant_iq2_xxs(const uint8_t*, float*, size_t);
void dequant_iq2_xs(const uint8_t*, float*, size_t);
void dequant_iq2_s(const uint8_t*, float*, size_t);
void dequant_iq3_xxs(const uint8_t*, float*, size_t);
void dequant_iq3_s(const uint8_t*, float*, size_t);
void dequant_iq1_s(const uint8_t*, float*, size_t);
void dequant_iq1_m(const uint8_t*, float*, size_t);

#if GGUF_QUANT_X86
// AVX2 + F16C kernels (kernels_avx2.cpp); call only when cpu_has_avx2().
void dequant_f16_avx2(const uint8_t*, float*, size_t);
void dequant_bf16_avx2(const uint8_t*, float*, size_t);
void dequant_q4_0_avx2(const uint8_t*, float*, size_t);
void dequant_q4_1_avx2(const uint8_t*, float*, size_t);
void dequant_q5_0_avx2(const uint8_t*, float*, size_t);
void dequant_q5_1_avx2(const uint8_t*, float*, size_t);
void dequant_q8_0_avx2(const uint8_t*, float*, size_t);
void dequant_iq4_nl_avx2(const uint8_t*, float*, size_t);
void dequant_q4_K_avx2(const uint8_t*, float*, size_t);
void dequant_q5_K_avx2(const uint8_t*, float*, size_t);
void dequant_q6_K_avx2(const uint8_t*, float*, size_t);
void dequant_iq2_xxs_avx2(const uint8_t*, float*, size_t);
void dequant_iq2_xs_avx2(const uint8_t*, float*, size_t);
void dequant_iq2_s_avx2(const uint8_t*, float*, size_t);
void dequant_iq3_xxs_avx2(const uint8_t*, float*, size_t);
void dequant_iq3_s_avx2(const uint8_t*, float*, size_t);
void dequant_iq1_s_avx2(const uint8_t*, float*, size_t);
void dequant_iq1_m_avx2(const uint8_t*, float*, size_t);
void dequant_iq4_xs_avx2(const uint8_t*, float*, size_t);
void dequant_mxfp4_avx2(const uint8_t*, float*, size_t);
void dequant_nvfp4_avx2(const uint8_t*, float*, size_t);
void dequant_q1_0_avx2(const uint8_t*, float*, size_t);
void dequant_q2_0_avx2(const uint8_t*, float*, size_t);
void dequant_tq2_0_avx2(const uint8_t*, float*, size_t);
// AVX-512 kernels (kernels_avx512.cpp); call only when cpu_has_avx512().
void dequant_f16_avx512(const uint8_t*, float*, size_t);
void dequant_bf16_avx512(const uint8_t*, float*, size_t);
void dequant_q8_0_avx512(const uint8_t*, float*, size_t);
void dequant_q4_K_avx512(const uint8_t*, float*, size_t);
void dequant_q5_K_avx512(const uint8_t*, float*, size_t);
#endif

}  // namespace gguf::detail
