// tanh and gelu of float32 in vector loops (NOTE [SIMD clones] in simd.h), where libm
// computes one element per call. Held to float64 in the tests: tanh within 1 ulp, as
// torch's SLEEF tanh; gelu within a few, and on the negative tail, where torch's
// 1 + erf(x) cancels to no correct digit, still within a few. NOTE [Vector tanh and
// gelu] in simd_math.cpp.
#pragma once

#include <cstdint>

namespace gradtrack::kernels::simd {

/// out[i] = f(in[i]) over n dense elements; `out` may be `in`.
void tanh(const float* in, float* out, int64_t n);
/// True where tanh takes NOTE [tanh from rows of polynomials] (Intel CPUs with AVX-512).
/// The switch is for tests and timings: off, tanh takes the packed or the clones' loop.
bool tanh_rows();
void set_tanh_rows(bool on);

/// torch's gelu, x * Phi(x) = x / 2 * (1 + erf(x / sqrt 2)), and its approximate='tanh'
/// form x / 2 * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3))). `out` may be `in`.
void gelu(const float* in, float* out, int64_t n);
void gelu_tanh(const float* in, float* out, int64_t n);
/// True where gelu takes NOTE [gelu from rows of polynomials] (Intel CPUs with AVX-512).
/// The switch is for tests and timings: off, gelu takes the packed or the clones' loop.
bool gelu_rows();
void set_gelu_rows(bool on);

/// out[i] = g[i * g_step] * gelu'(x[i]) (g_step 1, or 0 for one gradient value), with
/// gelu' = Phi(x) + x phi(x). `out` may be `g` or `x`.
void gelu_backward(const float* g, int64_t g_step, const float* x, float* out, int64_t n);

}  // namespace gradtrack::kernels::simd
