// Leaf kernels built once per instruction set and chosen when the library loads.
//
// NOTE [SIMD clones]
// The wheel targets baseline x86-64 (SSE2); -march=native would crash on older
// CPUs (a wheel must not assume the build machine's CPU). The few kernels
// whose speed depends on vector width are plain loops over GCC vector types,
// compiled by `target_clones` for AVX-512, AVX2 and the baseline; the loader picks one (an IFUNC)
// on first call. Where target_clones is unavailable the baseline build is the only one.
#pragma once

#include <cstdint>

namespace gradtrack::kernels::simd {

/// acc + the sum of p[0..n): blocks of 4096 elements summed in T's precision
/// over 64 independent lanes (as PyTorch's cascade sum keeps float32 sums
/// accurate; 32 lanes for double), blocks added into the double accumulator.
double sum(const float* p, int64_t n, double acc);
double sum(const double* p, int64_t n, double acc);

/// The max (or min) of acc and p[0..n) in `acc`; true if some element is NaN
/// (then `acc` is meaningless: NaN wins, as in PyTorch).
bool extreme(const float* p, int64_t n, bool is_max, float& acc);
bool extreme(const double* p, int64_t n, bool is_max, double& acc);

/// out[i] = exp(in[i]) for float32, within 2 ulp of the correctly rounded
/// result. AVX-512: a table-driven kernel correct on every input (NOTE
/// [Table-driven AVX-512 exp]); AVX2 and baseline: a polynomial on [-87, 88],
/// and any block holding an element outside that range (overflow, subnormal
/// results, NaN, inf) is redone with std::exp. `out` may be `in`.
void exp(const float* in, float* out, int64_t n);

/// out[i] = a[i] + b[i], a[i] * b[i], and relu as PyTorch's clamp_min(x, 0)
/// (NaN and -0.0 unchanged), float32. `out` may be `a` or `b`. The baseline
/// build of the generic loops is SSE2; these run in the AVX2/AVX-512 clones.
void add(const float* a, const float* b, float* out, int64_t n);
void mul(const float* a, const float* b, float* out, int64_t n);
void relu(const float* in, float* out, int64_t n);

/// Which clone the loader chose ("avx512", "avx2" (with FMA) or "baseline").
const char* level();

}  // namespace gradtrack::kernels::simd
