// NOTE [Adaptive optimizer arithmetic] in optim_adaptive.h: each line below is
// one of PyTorch's tensor ops, rounded to T, in PyTorch's order.
#include "kernels/optim_adaptive.h"

#include <cmath>
#include <type_traits>

#include "kernels/parallel.h"

namespace gradtrack::kernels {

namespace {

/// torch.lerp with a number weight: the branch taken depends on |w| only.
template <typename T>
inline T lerp(T self, T end, T w) {
  return std::abs(w) < T(0.5) ? self + w * (end - self) : end - (end - self) * (T(1) - w);
}

/// torch.maximum: NaN wins (a NaN `b` fails `a > b`, so it is picked). Two
/// selects and no other test, so the loop vectorizes.
template <typename T>
inline T maximum(T a, T b) {
  const T larger = a > b ? a : b;
  return a != a ? a : larger;
}

/// The gradient as the step uses it: negated for maximize (`sign` is -1;
/// multiplying by +-1 is exact), plus L2 decay.
template <bool kL2, typename T>
inline T effective_grad(T g, T p, T sign, T wd) {
  g = g * sign;
  if constexpr (kL2) g = g + wd * p;
  return g;
}

/// f(std::true_type) or f(std::false_type): flags become compile-time, so each
/// loop is branch-free and vectorizes.
template <typename F>
void with_flag(bool flag, const F& f) {
  if (flag)
    f(std::true_type{});
  else
    f(std::false_type{});
}

/// Runs f(lo, hi, typed pointers...) over the parameter's elements in chunks.
template <typename F>
void for_each_chunk(const OptimOperands& o, const char* name, const F& f) {
  GT_DISPATCH_FLOAT(o.p.dtype(), name, [&] {
    using T = scalar_t;
    T* p = o.p.data<T>();
    const T* g = o.grad.data<T>();
    T* s0 = o.s[0].defined() ? o.s[0].data<T>() : nullptr;
    T* s1 = o.s[1].defined() ? o.s[1].data<T>() : nullptr;
    T* s2 = o.s[2].defined() ? o.s[2].data<T>() : nullptr;
    parallel_for(o.p.numel(), kGrainSize,
                 [&](int64_t lo, int64_t hi) { f(lo, hi, p, g, s0, s1, s2); });
  });
}

}  // namespace

// In each loop the flags are template constants and the numbers local
// copies: a flag read through `h` inside the loop could alias the stores, and
// that alone keeps GCC from vectorizing (measured 5x slower).

void adam_step(const OptimOperands& o, const AdamScalars& h) {
  const bool l2 = h.weight_decay != 0 && !h.decoupled;
  const bool decay = h.weight_decay != 0 && h.decoupled;
  with_flag(l2, [&](auto kL2) {
    with_flag(decay, [&](auto kDecay) {
      with_flag(o.s[2].defined(), [&](auto kAmsgrad) {
        for_each_chunk(o, "adam",
                       [&](int64_t lo, int64_t hi, auto* __restrict p, const auto* __restrict g,
                           auto* __restrict m, auto* __restrict v, auto* __restrict vmax) {
                         using T = std::decay_t<decltype(*p)>;
                         const T sign = h.maximize ? T(-1) : T(1), wd = T(h.weight_decay);
                         const T factor = T(h.decay_factor), w1 = T(1 - h.beta1), b2 = T(h.beta2);
                         const T c2 = T(1 - h.beta2), eps = T(h.eps);
                         const T bc2_sqrt = T(h.bias_correction2_sqrt), neg_step = T(-h.step_size);
                         for (int64_t i = lo; i < hi; ++i) {
                           T pi = p[i];
                           const T gi = effective_grad<kL2.value>(g[i], pi, sign, wd);
                           if constexpr (kDecay.value) pi = pi * factor;
                           const T mi = lerp(m[i], gi, w1);
                           m[i] = mi;
                           T vi = v[i] * b2;
                           vi = vi + c2 * gi * gi;
                           v[i] = vi;
                           if constexpr (kAmsgrad.value) {
                             vi = maximum(vmax[i], vi);
                             vmax[i] = vi;
                           }
                           const T denom = std::sqrt(vi) / bc2_sqrt + eps;
                           p[i] = pi + neg_step * mi / denom;
                         }
                       });
      });
    });
  });
}

void rmsprop_step(const OptimOperands& o, const RmspropScalars& h) {
  with_flag(h.weight_decay != 0, [&](auto kL2) {
    with_flag(o.s[1].defined(), [&](auto kMomentum) {
      with_flag(o.s[2].defined(), [&](auto kCentered) {
        for_each_chunk(o, "rmsprop",
                       [&](int64_t lo, int64_t hi, auto* __restrict p, const auto* __restrict g,
                           auto* __restrict sq, auto* __restrict buf, auto* __restrict gavg) {
                         using T = std::decay_t<decltype(*p)>;
                         const T sign = h.maximize ? T(-1) : T(1), wd = T(h.weight_decay);
                         const T alpha = T(h.alpha), c = T(1 - h.alpha), eps = T(h.eps);
                         const T mom = T(h.momentum), neg_lr = T(-h.lr);
                         for (int64_t i = lo; i < hi; ++i) {
                           const T gi = effective_grad<kL2.value>(g[i], p[i], sign, wd);
                           T si = sq[i] * alpha;
                           si = si + c * gi * gi;
                           sq[i] = si;
                           T avg;
                           if constexpr (kCentered.value) {
                             const T ai = lerp(gavg[i], gi, c);
                             gavg[i] = ai;
                             avg = std::sqrt(si + T(-1) * ai * ai);
                           } else {
                             avg = std::sqrt(si);
                           }
                           avg = avg + eps;
                           if constexpr (kMomentum.value) {
                             T bi = buf[i] * mom;
                             bi = bi + T(1) * gi / avg;
                             buf[i] = bi;
                             p[i] = p[i] + neg_lr * bi;
                           } else {
                             p[i] = p[i] + neg_lr * gi / avg;
                           }
                         }
                       });
      });
    });
  });
}

void adagrad_step(const OptimOperands& o, const AdagradScalars& h) {
  with_flag(h.weight_decay != 0, [&](auto kL2) {
    for_each_chunk(o, "adagrad",
                   [&](int64_t lo, int64_t hi, auto* __restrict p, const auto* __restrict g,
                       auto* __restrict sum, auto*, auto*) {
                     using T = std::decay_t<decltype(*p)>;
                     const T sign = h.maximize ? T(-1) : T(1), wd = T(h.weight_decay);
                     const T eps = T(h.eps), neg_clr = T(-h.clr);
                     for (int64_t i = lo; i < hi; ++i) {
                       const T gi = effective_grad<kL2.value>(g[i], p[i], sign, wd);
                       const T si = sum[i] + T(1) * gi * gi;
                       sum[i] = si;
                       const T std_i = std::sqrt(si) + eps;
                       p[i] = p[i] + neg_clr * gi / std_i;
                     }
                   });
  });
}

void adamax_step(const OptimOperands& o, const AdamaxScalars& h) {
  with_flag(h.weight_decay != 0, [&](auto kL2) {
    for_each_chunk(o, "adamax",
                   [&](int64_t lo, int64_t hi, auto* __restrict p, const auto* __restrict g,
                       auto* __restrict m, auto* __restrict inf, auto*) {
                     using T = std::decay_t<decltype(*p)>;
                     const T sign = h.maximize ? T(-1) : T(1), wd = T(h.weight_decay);
                     const T w1 = T(1 - h.beta1), b2 = T(h.beta2), eps = T(h.eps),
                             neg_clr = T(-h.clr);
                     for (int64_t i = lo; i < hi; ++i) {
                       const T gi = effective_grad<kL2.value>(g[i], p[i], sign, wd);
                       const T mi = lerp(m[i], gi, w1);
                       m[i] = mi;
                       const T ei = maximum(inf[i] * b2, std::abs(gi) + eps);
                       inf[i] = ei;
                       p[i] = p[i] + neg_clr * mi / ei;
                     }
                   });
  });
}

void nadam_step(const OptimOperands& o, const NadamScalars& h) {
  with_flag(h.weight_decay != 0 && !h.decoupled, [&](auto kL2) {
    with_flag(h.weight_decay != 0 && h.decoupled, [&](auto kDecay) {
      for_each_chunk(o, "nadam",
                     [&](int64_t lo, int64_t hi, auto* __restrict p, const auto* __restrict g,
                         auto* __restrict m, auto* __restrict v, auto*) {
                       using T = std::decay_t<decltype(*p)>;
                       const T sign = h.maximize ? T(-1) : T(1), wd = T(h.weight_decay);
                       const T factor = T(h.decay_factor), w1 = T(1 - h.beta1), b2 = T(h.beta2);
                       const T c2 = T(1 - h.beta2), eps = T(h.eps), bc2 = T(h.bias_correction2);
                       const T grad_coef = T(h.grad_coef), avg_coef = T(h.avg_coef);
                       for (int64_t i = lo; i < hi; ++i) {
                         T pi = p[i];
                         const T gi = effective_grad<kL2.value>(g[i], pi, sign, wd);
                         if constexpr (kDecay.value) pi = pi * factor;
                         const T mi = lerp(m[i], gi, w1);
                         m[i] = mi;
                         T vi = v[i] * b2;
                         vi = vi + c2 * gi * gi;
                         v[i] = vi;
                         const T denom = std::sqrt(vi / bc2) + eps;
                         pi = pi + grad_coef * gi / denom;
                         p[i] = pi + avg_coef * mi / denom;
                       }
                     });
    });
  });
}

void radam_step(const OptimOperands& o, const RadamScalars& h) {
  with_flag(h.weight_decay != 0 && !h.decoupled, [&](auto kL2) {
    with_flag(h.weight_decay != 0 && h.decoupled, [&](auto kDecay) {
      with_flag(h.rectified, [&](auto kRectified) {
        for_each_chunk(o, "radam",
                       [&](int64_t lo, int64_t hi, auto* __restrict p, const auto* __restrict g,
                           auto* __restrict m, auto* __restrict v, auto*) {
                         using T = std::decay_t<decltype(*p)>;
                         const T sign = h.maximize ? T(-1) : T(1), wd = T(h.weight_decay);
                         const T factor = T(h.decay_factor), w1 = T(1 - h.beta1), b2 = T(h.beta2);
                         const T c2 = T(1 - h.beta2), eps = T(h.eps), lr = T(h.lr);
                         const T bc1 = T(h.bias_correction1), bc2_sqrt = T(h.bias_correction2_sqrt);
                         const T rect = T(h.rect);
                         for (int64_t i = lo; i < hi; ++i) {
                           T pi = p[i];
                           const T gi = effective_grad<kL2.value>(g[i], pi, sign, wd);
                           if constexpr (kDecay.value) pi = pi * factor;
                           const T mi = lerp(m[i], gi, w1);
                           m[i] = mi;
                           T vi = v[i] * b2;
                           vi = vi + c2 * gi * gi;
                           v[i] = vi;
                           T update = mi / bc1 * lr;
                           if constexpr (kRectified.value) {
                             const T adaptive = T(1) / (std::sqrt(vi) + eps) * bc2_sqrt;
                             update = update * adaptive * rect;
                           }
                           p[i] = pi - update;
                         }
                       });
      });
    });
  });
}

}  // namespace gradtrack::kernels
