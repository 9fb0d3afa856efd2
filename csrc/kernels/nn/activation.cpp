// The activation kernels: one functor per activation for the value and one
// for the derivative, run by one parallel loop over dense memory.
#include "kernels/nn/activation.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "core/dtype.h"
#include "kernels/parallel.h"
#include "kernels/reduced_float.h"
#include "kernels/simd.h"
#include "kernels/simd_log_exp.h"
#include "kernels/simd_math.h"

namespace gradtrack::kernels::nn {

namespace {

constexpr double kSqrt1_2 = 0.70710678118654752440;
constexpr double kInvSqrt2Pi = 0.39894228040143267794;  // 1 / sqrt(2 pi)
constexpr double kSqrt2OverPi = 0.79788456080286535588;
constexpr double kKappa = 0.044715;

template <typename T>
T sigmoid_of(T x) {
  return T(1) / (T(1) + std::exp(-x));
}

// The value of the activation at x, computed in T as PyTorch's CPU kernels do.
template <typename T>
[[gnu::always_inline]] inline T act_value(Act k, T x, const ActParams& p) {
  switch (k) {
    case Act::Gelu: return x * T(0.5) * (T(1) + std::erf(x * T(kSqrt1_2)));
    case Act::GeluTanh: {
      T inner = T(kSqrt2OverPi) * (x + T(kKappa) * x * x * x);
      return T(0.5) * x * (T(1) + std::tanh(inner));
    }
    case Act::Silu: return x / (T(1) + std::exp(-x));
    case Act::LeakyRelu: {
      const T negative = x * T(p.a);
      return x > T(0) ? x : negative;
    }
    case Act::Elu:
    case Act::Celu: return x > T(0) ? x * T(p.b) : std::expm1(x * T(p.c)) * T(p.a * p.b);
    case Act::Softplus: return x * T(p.a) > T(p.b) ? x : std::log1p(std::exp(x * T(p.a))) / T(p.a);
    case Act::Hardtanh: {
      // NaN stays NaN, as clamp's (it fails both comparisons).
      const T above = x < T(p.a) ? T(p.a) : x;
      return above > T(p.b) ? T(p.b) : above;
    }
    case Act::Mish: return x * std::tanh(std::log1p(std::exp(x)));
    case Act::Hardswish: return x * std::min(std::max(x + T(3), T(0)), T(6)) / T(6);
    case Act::Hardsigmoid: return std::min(std::max(x + T(3), T(0)), T(6)) / T(6);
    case Act::LogSigmoid:
      // min(x, 0) - log1p(exp(-|x|)): no overflow for large |x|.
      return std::min(x, T(0)) - std::log1p(std::exp(-std::abs(x)));
  }
  return x;
}

// d act / dx at the input x.
template <typename T>
[[gnu::always_inline]] inline T act_deriv(Act k, T x, const ActParams& p) {
  switch (k) {
    case Act::Gelu: {
      T cdf = T(0.5) * (T(1) + std::erf(x * T(kSqrt1_2)));
      T pdf = std::exp(T(-0.5) * x * x) * T(kInvSqrt2Pi);
      return cdf + x * pdf;
    }
    case Act::GeluTanh: {
      T x2 = x * x;
      T t = std::tanh(T(kSqrt2OverPi) * (x + T(kKappa) * x2 * x));
      T inner_d = T(kSqrt2OverPi) * (T(1) + T(3 * kKappa) * x2);
      return T(0.5) * (T(1) + t) + T(0.5) * x * (T(1) - t * t) * inner_d;
    }
    case Act::Silu: {
      T s = sigmoid_of(x);
      return s * (T(1) + x * (T(1) - s));
    }
    case Act::LeakyRelu: return x > T(0) ? T(1) : T(p.a);
    case Act::Elu:
    case Act::Celu: return x > T(0) ? T(p.b) : T(p.c * p.a * p.b) * std::exp(x * T(p.c));
    case Act::Softplus: {
      if (x * T(p.a) > T(p.b)) return T(1);
      T z = std::exp(x * T(p.a));
      return z / (z + T(1));
    }
    case Act::Hardtanh: return (x <= T(p.a)) | (x >= T(p.b)) ? T(0) : T(1);
    case Act::Mish: {
      T t = std::tanh(std::log1p(std::exp(x)));
      return t + x * sigmoid_of(x) * (T(1) - t * t);
    }
    case Act::Hardswish: {  // torch's pieces: 0 up to -3 included, 1 from 3 on
      const T middle = x / T(3) + T(0.5);
      return x <= T(-3) ? T(0) : x < T(3) ? middle : T(1);
    }
    // torch's slope is 1/6 computed in float, for double too
    case Act::Hardsigmoid: return (x > T(-3)) & (x < T(3)) ? T(1.0f / 6.0f) : T(0);
    case Act::LogSigmoid: {
      // sigmoid(-x), stably on both sides.
      T z = std::exp(-std::abs(x));
      return x < T(0) ? T(1) / (T(1) + z) : z / (T(1) + z);
    }
  }
  return T(1);
}

// d act / dx written with the output y (the in-place forms keep only y).
template <typename T>
[[gnu::always_inline]] inline T act_deriv_from_result(Act k, T y, const ActParams& p) {
  switch (k) {
    case Act::LeakyRelu: return y > T(0) ? T(1) : T(p.a);
    case Act::Elu:
    case Act::Celu: return y > T(0) ? T(p.b) : T(p.c) * (y + T(p.a * p.b));
    case Act::Hardtanh: return (y <= T(p.a)) | (y >= T(p.b)) ? T(0) : T(1);
    default: return act_deriv(k, y, p);  // not reached: only these save y
  }
}

// f(i) for i < n over the threads. f takes its parameters by value: a value read
// through a reference could be the memory just written (as far as the compiler
// knows), which is read again after every store and keeps the loop from vectorizing.
// And a choice between two values (leaky_relu's x or a * x) must be a select, not a
// branch mispredicted on random signs: the functors compute both sides before they
// pick one, and this file is built with -fno-trapping-math, without which GCC keeps
// a float comparison from being evaluated where the source might not (it could raise
// a floating-point flag). That changes no value; nothing here reads the flags.
template <typename F>
void dense_loop(int64_t n, const F& f) {
  parallel_for(n, kGrainSize / 8, [&](int64_t lo, int64_t hi) {
    const F g = f;
    for (int64_t i = lo; i < hi; ++i) g(i);
  });
}

// op[i] = g[i * step] * deriv(i), or 0 where `selects` and deriv(i) is 0 (torch's hard
// activations). The derivatives go to a block buffer first: computed in the same loop,
// GCC folded g * 1 into one arm of the derivative's choice and kept it a branch, scalar
// and mispredicted on random signs (leaky_relu's backward ran at 6x torch's time,
// hardswish's 4.6x). Apart, both loops vectorize. The values are the same.
template <typename T, typename D>
void backward_blocks(int64_t n, const T* gp, int64_t step, T* op, bool selects, const D& deriv) {
  parallel_for(n, kGrainSize / 8, [&](int64_t lo, int64_t hi) {
    const D dv = deriv;
    constexpr int64_t kBlock = 1024;
    alignas(64) T d[kBlock];
    for (int64_t b = lo; b < hi; b += kBlock) {
      const int64_t m = std::min(kBlock, hi - b);
      for (int64_t i = 0; i < m; ++i) d[i] = dv(b + i);
      const T* g = gp + b * step;
      T* o = op + b;
      for (int64_t i = 0; i < m; ++i) {
        const T product = g[i * step] * d[i];
        o[i] = selects & (d[i] == T(0)) ? T(0) : product;
      }
    }
  });
}

// Calls f with the activation as a compile-time constant (std::integral_constant), so
// that each loop is compiled for one activation: no switch per element, and the
// piecewise ones (leaky_relu, hardtanh, ...) become selects the compiler vectorizes.
template <typename F>
void with_act(Act k, const F& f) {
  switch (k) {
    case Act::Gelu: return f(std::integral_constant<Act, Act::Gelu>{});
    case Act::GeluTanh: return f(std::integral_constant<Act, Act::GeluTanh>{});
    case Act::Silu: return f(std::integral_constant<Act, Act::Silu>{});
    case Act::LeakyRelu: return f(std::integral_constant<Act, Act::LeakyRelu>{});
    case Act::Elu: return f(std::integral_constant<Act, Act::Elu>{});
    case Act::Softplus: return f(std::integral_constant<Act, Act::Softplus>{});
    case Act::Hardtanh: return f(std::integral_constant<Act, Act::Hardtanh>{});
    case Act::Mish: return f(std::integral_constant<Act, Act::Mish>{});
    case Act::Hardswish: return f(std::integral_constant<Act, Act::Hardswish>{});
    case Act::LogSigmoid: return f(std::integral_constant<Act, Act::LogSigmoid>{});
    case Act::Celu: return f(std::integral_constant<Act, Act::Celu>{});
    case Act::Hardsigmoid: return f(std::integral_constant<Act, Act::Hardsigmoid>{});
  }
}

// The activations of float32 with vector loops (kernels/simd.h, simd_math.h and
// simd_log_exp.h), in torch's order of operations; false for the others and other types.
template <typename T>
bool vector_forward(Act k, const T* xp, T* op, int64_t n, const ActParams& p) {
  if constexpr (std::is_same_v<T, float>) {
    const float beta = float(p.a), threshold = float(p.b);
    const float scale = float(p.b), input_scale = float(p.c), neg_scale = float(p.a * p.b);
    auto run = [&](auto f) {
      parallel_for(n, kGrainSize / 8,
                   [&](int64_t lo, int64_t hi) { f(xp + lo, op + lo, hi - lo); });
      return true;
    };
    switch (k) {
      case Act::Silu: return run(simd::silu);
      case Act::Gelu: return run(simd::gelu);
      case Act::GeluTanh: return run(simd::gelu_tanh);
      case Act::LogSigmoid: return run(simd::log_sigmoid);
      case Act::Mish: return run(simd::mish);
      case Act::Softplus:
        return run(
            [=](const float* x, float* o, int64_t m) { simd::softplus(x, o, m, beta, threshold); });
      case Act::Elu:
      case Act::Celu:
        return run([=](const float* x, float* o, int64_t m) {
          simd::elu(x, o, m, scale, input_scale, neg_scale);
        });
      default: break;
    }
  }
  return false;
}

// The derivatives of the activations above in vector loops; false for the others and
// other types.
template <typename T>
bool vector_backward(Act k, const T* gp, int64_t step, const T* xp, T* op, int64_t n,
                     const ActParams& p) {
  if constexpr (std::is_same_v<T, float>) {
    const float beta = float(p.a), threshold = float(p.b);
    const float scale = float(p.b), input_scale = float(p.c), neg_coef = float(p.c * p.a * p.b);
    auto run = [&](auto f) {
      parallel_for(n, kGrainSize / 8, [&](int64_t lo, int64_t hi) {
        f(gp + lo * step, step, xp + lo, op + lo, hi - lo);
      });
      return true;
    };
    switch (k) {
      case Act::Gelu: return run(simd::gelu_backward);
      case Act::Silu: return run(simd::silu_backward);
      case Act::LogSigmoid: return run(simd::log_sigmoid_backward);
      case Act::Mish: return run(simd::mish_backward);
      case Act::Softplus:
        return run([=](const float* g, int64_t gs, const float* x, float* o, int64_t m) {
          simd::softplus_backward(g, gs, x, o, m, beta, threshold);
        });
      case Act::Elu:
      case Act::Celu:
        return run([=](const float* g, int64_t gs, const float* x, float* o, int64_t m) {
          simd::elu_backward(g, gs, x, o, m, scale, input_scale, neg_coef);
        });
      default: break;
    }
  }
  return false;
}

}  // namespace

void act_forward(Act k, const Tensor& out, const Tensor& x, const ActParams& p) {
  if (any_reduced({&out, &x})) {  // NOTE [Reduced floats are stored, not computed]
    WideOut w(out);
    act_forward(k, w.t, widen(x), p);
    return w.commit();
  }
  GT_DISPATCH_FLOAT(x.dtype(), "activation", [&] {
    const scalar_t* xp = x.data<scalar_t>();
    scalar_t* op = out.data<scalar_t>();
    if (vector_forward<scalar_t>(k, xp, op, x.numel(), p)) return;
    with_act(k, [&](auto act) {
      dense_loop(x.numel(), [=](int64_t i) { op[i] = act_value<scalar_t>(act, xp[i], p); });
    });
  });
}

void act_backward(Act k, const Tensor& out, const Tensor& g, const Tensor& s, const ActParams& p,
                  bool from_result) {
  if (any_reduced({&out, &g, &s})) {
    WideOut w(out);
    act_backward(k, w.t, widen(g), widen(s), p, from_result);
    return w.commit();
  }
  const bool selects = selects_zero_gradient(k);
  // g is dense, or one value expanded (all strides 0: NOTE [A broadcast gradient
  // stays one value] in ops/nn/activation.cpp)
  const int64_t step = is_one_value(g) ? 0 : 1;
  GT_DISPATCH_FLOAT(s.dtype(), "activation_backward", [&] {
    const scalar_t* gp = g.data<scalar_t>();
    const scalar_t* sp = s.data<scalar_t>();
    scalar_t* op = out.data<scalar_t>();
    if (!from_result && vector_backward<scalar_t>(k, gp, step, sp, op, s.numel(), p)) return;
    with_act(k, [&](auto act) {
      if (from_result) {
        backward_blocks(s.numel(), gp, step, op, selects,
                        [=](int64_t i) { return act_deriv_from_result<scalar_t>(act, sp[i], p); });
      } else {
        backward_blocks(s.numel(), gp, step, op, selects,
                        [=](int64_t i) { return act_deriv<scalar_t>(act, sp[i], p); });
      }
    });
  });
}

}  // namespace gradtrack::kernels::nn
