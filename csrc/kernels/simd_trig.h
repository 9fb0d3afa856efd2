// sin and cos of float32 in vector loops (NOTE [SIMD clones] in simd.h), where libm
// computes one element per call. Held to float64 in the tests: within 1 ulp, as torch's
// SLEEF sin and cos. NOTE [Vector sin and cos] in simd_trig.cpp.
#pragma once

#include <cstdint>

namespace gradtrack::kernels::simd {

/// out[i] = f(in[i]) over n dense elements; `out` may be `in`.
void sin(const float* in, float* out, int64_t n);
void cos(const float* in, float* out, int64_t n);

/// tan of float32 in double, rounded once (NOTE [Vector sin and cos] in simd_trig.cpp).
void tan(const float* in, float* out, int64_t n);

/// atan of float32: in double, rounded once (NOTE [Vector atan] in simd_trig.cpp), or on
/// Intel's AVX-512 from rows of polynomials (NOTE [atan from rows of polynomials] in
/// simd_atan_rows.cpp).
void atan(const float* in, float* out, int64_t n);
/// True where atan takes the rows (Intel CPUs with AVX-512). The switch is for tests and
/// timings: off, atan takes the double loop.
bool atan_rows();
void set_atan_rows(bool on);
/// The rows' kernel itself; only where intel_avx512() holds.
void atan_by_rows(const float* in, float* out, int64_t n);

/// asin and acos of float32 in double, rounded once (NOTE [Vector asin and acos]).
void asin(const float* in, float* out, int64_t n);
void acos(const float* in, float* out, int64_t n);

}  // namespace gradtrack::kernels::simd
