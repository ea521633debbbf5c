// Large outputs: the kernel writes an L1-sized chunk into a local buffer, and the chunk
// goes to the destination with non-temporal stores. A plain store to memory that is not in
// cache first reads the line (read for ownership); for an output larger than the caches
// that read is as much traffic again as the write, and the output would evict the input
// from the caches anyway. An output that fits the last-level cache is faster with plain
// stores. Measured (bench_dequant_vs, L3 480 MiB): 64 MiB of q4_K 17.9 GB/s streamed,
// 23.4 plain; 1 GiB 14.1-15.3 streamed, 8.2 plain. Same values as the kernel writing
// directly.
#include <unistd.h>

#include <algorithm>

#include "quant/cpu_features.h"
#include "quant/kernels.h"

#if GGUF_QUANT_X86
#include <cpuid.h>
#include <immintrin.h>
#endif

namespace gguf::detail {
namespace {

constexpr size_t chunk_floats = 4096;  // 16 KiB: stays in L1 between the kernel and the copy

#if GGUF_QUANT_X86
__attribute__((target("avx512f"))) void stream_copy_avx512(float* dst, const float* src, size_t n) {
  size_t i = 0;
  for (; i < n && (reinterpret_cast<uintptr_t>(dst + i) & 63) != 0; ++i) dst[i] = src[i];
  for (; i + 64 <= n; i += 64) {
    const __m512 a = _mm512_loadu_ps(src + i), b = _mm512_loadu_ps(src + i + 16);
    const __m512 c = _mm512_loadu_ps(src + i + 32), d = _mm512_loadu_ps(src + i + 48);
    _mm512_stream_ps(dst + i, a);
    _mm512_stream_ps(dst + i + 16, b);
    _mm512_stream_ps(dst + i + 32, c);
    _mm512_stream_ps(dst + i + 48, d);
  }
  for (; i + 16 <= n; i += 16) _mm512_stream_ps(dst + i, _mm512_loadu_ps(src + i));
  for (; i < n; ++i) dst[i] = src[i];
}

__attribute__((target("avx"))) void stream_copy_avx(float* dst, const float* src, size_t n) {
  size_t i = 0;
  for (; i < n && (reinterpret_cast<uintptr_t>(dst + i) & 31) != 0; ++i) dst[i] = src[i];
  for (; i + 32 <= n; i += 32) {
    _mm256_stream_ps(dst + i, _mm256_loadu_ps(src + i));
    _mm256_stream_ps(dst + i + 8, _mm256_loadu_ps(src + i + 8));
    _mm256_stream_ps(dst + i + 16, _mm256_loadu_ps(src + i + 16));
    _mm256_stream_ps(dst + i + 24, _mm256_loadu_ps(src + i + 24));
  }
  for (; i + 8 <= n; i += 8) _mm256_stream_ps(dst + i, _mm256_loadu_ps(src + i));
  for (; i < n; ++i) dst[i] = src[i];
}

bool cpu_has_avx512f() noexcept {
  return cpu().avx512f;
}
#endif

}  // namespace

size_t stream_threshold_bytes() noexcept {
  static const size_t bytes = [] {
    long llc = -1;
#if defined(_SC_LEVEL3_CACHE_SIZE)
    llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (llc <= 0) llc = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
    return std::max(stream_min_bytes, llc > 0 ? size_t(llc) : size_t(0));
  }();
  return bytes;
}

bool stream_worthwhile(size_t out_bytes) noexcept {
#if GGUF_QUANT_X86
  return out_bytes > stream_threshold_bytes() && cpu().avx;
#else
  (void)out_bytes;
  return false;
#endif
}

void dequantize_streaming(row_kernel kernel, const uint8_t* src, float* dst, size_t nblocks, size_t blck_size,
                          size_t type_size) {
#if GGUF_QUANT_X86
  alignas(64) float buf[chunk_floats];
  const size_t per_chunk = std::max<size_t>(1, chunk_floats / blck_size);
  float* const staging = per_chunk * blck_size <= chunk_floats ? buf : nullptr;
  const bool wide = cpu_has_avx512f();
  for (size_t done = 0; done < nblocks;) {
    const size_t n = std::min(per_chunk, nblocks - done);
    float* out = dst + done * blck_size;
    if (!staging) {  // a block larger than the buffer: write it directly
      kernel(src + done * type_size, out, n);
    } else {
      kernel(src + done * type_size, staging, n);
      if (wide) stream_copy_avx512(out, staging, n * blck_size);
      else stream_copy_avx(out, staging, n * blck_size);
    }
    done += n;
  }
  _mm_sfence();
#else
  (void)blck_size;
  (void)type_size;
  kernel(src, dst, nblocks);
#endif
}

}  // namespace gguf::detail
