// The one test of whether this build compiles kernels as SIMD clones (NOTE [SIMD clones]
// in simd.h), the sets of clones the kernels use, and the one test of the CPU that the
// Intel-only table kernels run on.
//
// target_clones builds each marked function for several instruction sets and lets the
// loader pick one on first call (an IFUNC). That needs GCC on x86-64 Linux, and not the
// ThreadSanitizer build (GRADTRACK_NO_SIMD_CLONES), whose runtime crashes in IFUNC
// resolvers. Elsewhere the baseline build is the only one.
#pragma once

#include "kernels/cpu_vendor.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__) && \
    !defined(GRADTRACK_NO_SIMD_CLONES)
#define GT_HAVE_SIMD_CLONES 1
/// AVX-512, AVX2 with FMA (x86-64-v3), the baseline.
#define GT_CLONES_V4_V3 \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
/// AVX2 with FMA, the baseline: for kernels whose AVX-512 version is written apart.
#define GT_CLONES_V3 __attribute__((target_clones("arch=x86-64-v3", "default")))
/// AVX-512, AVX2 without FMA (products and sums stay rounded apart), the baseline.
#define GT_CLONES_V4_AVX2 __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define GT_CLONES_V4_V3
#define GT_CLONES_V3
#define GT_CLONES_V4_AVX2
#endif

namespace gradtrack::kernels::simd {

/// True on an Intel CPU with AVX-512 (x86-64-v4) in a build with clones: where the
/// table kernels of log, tanh, gelu and atan take over (NOTE [Logarithm in sixteen lanes]
/// in simd_log_exp.cpp, NOTE [tanh from rows of polynomials] and NOTE [gelu from rows of
/// polynomials] in simd_math.cpp, NOTE [atan from rows of polynomials] in
/// simd_atan_rows.cpp), and sigmoid and silu run in one pass (NOTE [Sigmoid in one pass]
/// in simd.cpp).
inline bool intel_avx512() {
#ifdef GT_HAVE_SIMD_CLONES
  static const bool ok = __builtin_cpu_supports("x86-64-v4") && cpu_is_intel();
  return ok;
#else
  return false;
#endif
}

}  // namespace gradtrack::kernels::simd
