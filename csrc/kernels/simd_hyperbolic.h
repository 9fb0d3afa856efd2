// sinh, cosh and atanh of float32 in vector loops (NOTE [SIMD clones] in simd.h),
// computed in double and rounded once: within half an ulp of float64, where libm's float
// functions were 1.6-1.7 ulp off. NOTE [Vector sinh and cosh] and [Vector atanh] in
// simd_hyperbolic.cpp.
#pragma once

#include <cstdint>

namespace gradtrack::kernels::simd {

/// out[i] = f(in[i]) over n dense elements; `out` may be `in`.
void sinh(const float* in, float* out, int64_t n);
void cosh(const float* in, float* out, int64_t n);
/// atanh likewise (NOTE [Vector atanh]).
void atanh(const float* in, float* out, int64_t n);

}  // namespace gradtrack::kernels::simd
