// log, log2, log10, log1p, expm1 and erfinv of float32 in vector loops (NOTE [SIMD clones] in
// simd.h), and the activations built on them, where libm computes one element per call. Held to
// float64 in the tests, no further from it than torch's (SLEEF's) kernels: NOTE [Vector log and
// expm1] in simd_log_exp.cpp.
#pragma once

#include <cstdint>

namespace gradtrack::kernels::simd {

/// out[i] = f(in[i]) over n dense elements; `out` may be `in`.
void log(const float* in, float* out, int64_t n);
/// True where log, log2 and log10 take NOTE [Logarithm in sixteen lanes] (Intel CPUs with
/// AVX-512). The switch is for tests and timings: off, they take the clones' loop.
bool log_sixteen_lanes();
void set_log_sixteen_lanes(bool on);
void log2(const float* in, float* out, int64_t n);
void log10(const float* in, float* out, int64_t n);
void log1p(const float* in, float* out, int64_t n);
void expm1(const float* in, float* out, int64_t n);
void erfinv(const float* in, float* out, int64_t n);

/// torch's softplus, x for x * beta > threshold, else log1p(exp(x * beta)) / beta;
/// log_sigmoid, min(x, 0) - log1p(exp(-|x|)); mish, x * tanh(log1p(exp(x))); and elu's
/// family, x * scale for x > 0, else expm1(x * input_scale) * neg_scale (elu, selu and
/// celu with their constants). `out` may be `in`.
void softplus(const float* in, float* out, int64_t n, float beta, float threshold);
void log_sigmoid(const float* in, float* out, int64_t n);
void mish(const float* in, float* out, int64_t n);
void elu(const float* in, float* out, int64_t n, float scale, float input_scale, float neg_scale);

/// out[i] = g[i * g_step] * f'(x[i]) (g_step 1, or 0 for one gradient value), with f' in
/// torch's formulas: softplus z / (z + 1), z = exp(x * beta) (1 above the threshold);
/// log_sigmoid sigmoid(-x); mish t + x sigmoid(x) (1 - t^2), t = tanh(softplus(x)); elu
/// scale for x > 0, else neg_coef * exp(x * input_scale). `out` may be `g` or `x`.
void softplus_backward(const float* g, int64_t g_step, const float* x, float* out, int64_t n,
                       float beta, float threshold);
void log_sigmoid_backward(const float* g, int64_t g_step, const float* x, float* out, int64_t n);
void mish_backward(const float* g, int64_t g_step, const float* x, float* out, int64_t n);
void elu_backward(const float* g, int64_t g_step, const float* x, float* out, int64_t n,
                  float scale, float input_scale, float neg_coef);

}  // namespace gradtrack::kernels::simd
