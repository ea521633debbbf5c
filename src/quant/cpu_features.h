// The x86 instruction sets the kernels choose between, read once with cpuid and xgetbv
// (internal). Not __builtin_cpu_supports: using it links libgcc's __cpu_indicator_init, a
// constructor that runs a dozen cpuid instructions at the start of every process (each
// one traps to the hypervisor in a virtual machine: ~65 us of every `gguf` command,
// whether it dequantizes or not). Here cpuid runs on the first kernel choice only.
// A set counts only when the OS saves its registers (XCR0), as __builtin_cpu_supports
// checks: Intel SDM vol. 1, 13.3 and 15.2 (AVX, AVX-512 detection).
#pragma once

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace gguf::detail {

struct cpu_features {
  bool avx = false, avx2 = false, f16c = false, avx512f = false, avx512bw = false, avx512vl = false;
};

inline const cpu_features& cpu() noexcept {
  static const cpu_features f = [] {
    cpu_features c;
#if defined(__x86_64__) || defined(__i386__)
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return c;
    if (!(ecx & bit_OSXSAVE)) return c;
    unsigned xcr0_lo = 0, xcr0_hi = 0;
    __asm__ volatile("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
    const bool ymm = (xcr0_lo & 0x6) == 0x6;    // SSE and AVX state
    const bool zmm = (xcr0_lo & 0xE6) == 0xE6;  // and opmask, ZMM_Hi256, Hi16_ZMM state
    c.avx = ymm && (ecx & bit_AVX);
    c.f16c = c.avx && (ecx & bit_F16C);
    if (__get_cpuid_max(0, nullptr) >= 7) {
      __cpuid_count(7, 0, eax, ebx, ecx, edx);
      c.avx2 = c.avx && (ebx & bit_AVX2);
      c.avx512f = zmm && (ebx & bit_AVX512F);
      c.avx512bw = c.avx512f && (ebx & bit_AVX512BW);
      c.avx512vl = c.avx512f && (ebx & bit_AVX512VL);
    }
#endif
    return c;
  }();
  return f;
}

}  // namespace gguf::detail
