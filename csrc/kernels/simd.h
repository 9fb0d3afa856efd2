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

/// torch.sigmoid, 1 / (1 + exp(-x)), and silu, x / (1 + exp(-x)), float32, in that
/// order of rounding with exp the vector one above (as torch's vector kernels compute
/// them). `out` may be `in`.
void sigmoid(const float* in, float* out, int64_t n);
void silu(const float* in, float* out, int64_t n);
/// True where sigmoid and silu run in one pass (Intel with AVX-512: NOTE [Sigmoid in one
/// pass] in simd.cpp; the same bits as the block loop); the switch is for tests.
bool logistic_one_pass();
void set_logistic_one_pass(bool on);
/// out[i] = g[i * g_step] * silu'(x[i]), silu' = s (1 + x (1 - s)) with s = sigmoid(x)
/// as above (torch's formula); g_step 1, or 0 for one gradient value. `out` may be `g`
/// or `x`.
void silu_backward(const float* g, int64_t g_step, const float* x, float* out, int64_t n);

/// The binary ops that run here over dense runs: the baseline build of the generic
/// loops is SSE2, these run in the AVX2/AVX-512 clones.
enum class DenseOp { Add, Sub, Mul, Div, Maximum, Minimum };

/// out[i] = a[i * a_step] op b[i * b_step] for i < n, each step 1, or 0 for a side
/// read once (a number, a broadcast tensor). Maximum and Minimum give NaN when either
/// side is NaN, as torch.maximum does. `out` may be `a` or `b`.
void dense_binary(DenseOp op, const float* a, int64_t a_step, const float* b, int64_t b_step,
                  float* out, int64_t n);
void dense_binary(DenseOp op, const double* a, int64_t a_step, const double* b, int64_t b_step,
                  double* out, int64_t n);

/// out[i] = in[i] limited below by *lo and above by *hi (either may be null, neither
/// is NaN), lower bound first as torch.clamp; a NaN element passes through. `out` may
/// be `in`.
void clamp(const float* in, float* out, int64_t n, const float* lo, const float* hi);
void clamp(const double* in, double* out, int64_t n, const double* lo, const double* hi);

/// out[i] = c[i] ? x[i * x_step] : y[i * y_step] for i < n (where, masked_fill), each
/// step 1, or 0 for a side read once; any nonzero byte of c counts as true. Both sides
/// are read for every element and one is kept, without a branch: a random mask costs
/// no mispredictions. `out` may be `x` or `y`.
void select(const uint8_t* c, const float* x, int64_t x_step, const float* y, int64_t y_step,
            float* out, int64_t n);
void select(const uint8_t* c, const double* x, int64_t x_step, const double* y, int64_t y_step,
            double* out, int64_t n);

/// The sum of p[0..n) with every element and partial sum in double (16 running sums,
/// added at the end): for sums whose error would otherwise matter (a softmax row's).
double sum_in_double(const float* p, int64_t n);

/// The sum of a[i] * b[i] for i < n in double (each product exact), as sum_in_double.
double dot_in_double(const float* a, const float* b, int64_t n);

/// The sum of the float squares p[i] * p[i] (each rounded to float: they overflow and
/// underflow as float's do) for i < n, in double as sum_in_double.
double sum_squares_in_double(const float* p, int64_t n);

/// p[i] = float(double(p[i]) * factor) for i < n: the product rounded once.
void scale_in_double(float* p, int64_t n, double factor);

/// out[i] = in[i] rounded to an integral value: floor, ceil, trunc, or to nearest with
/// ties to even (torch.round). `out` may be `in`.
enum class ToIntegral { Floor, Ceil, Trunc, Nearest };
void to_integral(ToIntegral mode, const float* in, float* out, int64_t n);
void to_integral(ToIntegral mode, const double* in, double* out, int64_t n);

/// relu as PyTorch's clamp_min(x, 0) (NaN and -0.0 unchanged), float32. `out` may be `in`.
void relu(const float* in, float* out, int64_t n);

/// out = fma(alpha, b, a) over one run of a loop plan (ptr = {out, a, b}, byte strides
/// s, n elements, every pointer aligned): a + alpha * b rounded once, as PyTorch's add
/// and sub with alpha compute it (sub passes -alpha). Dense runs and runs with a
/// one-value side are vector loops. `out` may be `a` or `b`.
void add_scaled(char* const* ptr, const int64_t* s, int64_t n, float alpha);
void add_scaled(char* const* ptr, const int64_t* s, int64_t n, double alpha);

/// torch.lerp over one run of a loop plan (ptr = {out, start, end, weight}, byte strides
/// s, n elements, every pointer aligned), as torch's vector loop rounds it: with w the
/// weight and d = end - start, fma(w, d, start) where |w| < 0.5, else fma(w - 1, d, end),
/// which keeps lerp(a, b, 1) == b. Dense runs, and runs whose weight is one value, are
/// vector loops. `out` may be any input.
void lerp(char* const* ptr, const int64_t* s, int64_t n, float);
void lerp(char* const* ptr, const int64_t* s, int64_t n, double);

/// out[i] = in[i] with NaN, +inf and -inf replaced by the three values (torch.nan_to_num).
/// `out` may be `in`.
void nan_to_num(const float* in, float* out, int64_t n, const float* with);
void nan_to_num(const double* in, double* out, int64_t n, const double* with);

/// torch.addcmul and addcdiv over one run of a loop plan (ptr = {out, self, t1, t2}, byte
/// strides s, n elements, every pointer aligned), rounded as torch's kernels:
/// fma(value * t1, t2, self), and self + value * t1 / t2 (`divide`). Dense runs are
/// vector loops. `out` may be any input.
void addcmul(char* const* ptr, const int64_t* s, int64_t n, float value, bool divide);
void addcmul(char* const* ptr, const int64_t* s, int64_t n, double value, bool divide);

/// One step of torch.optim.SGD (its single-tensor path) over n elements of a parameter
/// p, its gradient g and momentum buffer b (null without momentum): every add with
/// alpha rounded once as in add_scaled, the buffer's product by the momentum rounded
/// before it is added to, as `buf.mul_(momentum).add_(grad, alpha=1 - dampening)` does.
struct SgdStep {
  double lr, momentum, dampening, weight_decay;
  bool nesterov, maximize, first_step;
};
void sgd(float* p, const float* g, float* b, int64_t n, const SgdStep& h);
void sgd(double* p, const double* g, double* b, int64_t n, const SgdStep& h);

/// Which clone the loader chose ("avx512", "avx2" (with FMA) or "baseline").
const char* level();

}  // namespace gradtrack::kernels::simd
