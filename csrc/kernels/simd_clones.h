// The one test of whether this build compiles kernels as SIMD clones (NOTE [SIMD clones]
// in simd.h), and the two sets of clones the kernels use.
//
// target_clones builds each marked function for several instruction sets and lets the
// loader pick one on first call (an IFUNC). That needs GCC on x86-64 Linux, and not the
// ThreadSanitizer build (GRADTRACK_NO_SIMD_CLONES), whose runtime crashes in IFUNC
// resolvers. Elsewhere the baseline build is the only one.
#pragma once

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
