#include "kernels/cpu_vendor.h"

#if defined(__GNUC__) && defined(__x86_64__)
#define GT_CPU_X86 1
#include <cpuid.h>
#else
#define GT_CPU_X86 0
#endif

namespace gradtrack::kernels {

bool cpu_is_intel() {
#if GT_CPU_X86
  static const bool intel = __builtin_cpu_is("intel");
  return intel;
#else
  return false;
#endif
}

bool cpu_is_amd() {
#if GT_CPU_X86
  static const bool amd = __builtin_cpu_is("amd");
  return amd;
#else
  return false;
#endif
}

bool avx512_in_halves() {
#if GT_CPU_X86
  static const bool halves = [] {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (!cpu_is_amd() || !__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return false;
    const unsigned base = (eax >> 8) & 0xF, family = base + (base == 0xF ? (eax >> 20) & 0xFF : 0);
    return family == 0x19 && __builtin_cpu_supports("avx512f");
  }();
  return halves;
#else
  return false;
#endif
}

}  // namespace gradtrack::kernels
