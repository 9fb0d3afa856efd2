// NOTE [Adaptive optimizer arithmetic] in optim_adaptive.h: each line below is
// one of PyTorch's tensor ops, rounded to T, in PyTorch's order.
#include "kernels/optim_adaptive.h"

#include <cmath>

#include "kernels/parallel.h"

namespace gradtrack::kernels {

namespace {

/// torch.lerp with a number weight: the branch taken depends on |w| only.
template <typename T>
inline T lerp(T self, T end, T w) {
  return std::abs(w) < T(0.5) ? self + w * (end - self) : end - (end - self) * (T(1) - w);
}

/// torch.maximum: NaN wins.
template <typename T>
inline T maximum(T a, T b) {
  if (std::isnan(a) || std::isnan(b)) return a + b;
  return a > b ? a : b;
}

/// The gradient as the step uses it: negated for maximize, plus L2 decay.
template <typename T>
inline T effective_grad(T g, T p, bool maximize, bool l2, T wd) {
  if (maximize) g = -g;
  if (l2) g = g + wd * p;
  return g;
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

void adam_step(const OptimOperands& o, const AdamScalars& h) {
  const bool l2 = h.weight_decay != 0 && !h.decoupled;
  const bool decay = h.weight_decay != 0 && h.decoupled;
  for_each_chunk(o, "adam",
                 [&](int64_t lo, int64_t hi, auto* p, auto* g, auto* m, auto* v, auto* vmax) {
                   using T = std::remove_pointer_t<decltype(p)>;
                   const T wd = T(h.weight_decay), factor = T(h.decay_factor), w1 = T(1 - h.beta1);
                   const T b2 = T(h.beta2), c2 = T(1 - h.beta2), eps = T(h.eps);
                   const T bc2_sqrt = T(h.bias_correction2_sqrt), neg_step = T(-h.step_size);
                   for (int64_t i = lo; i < hi; ++i) {
                     T pi = p[i];
                     const T gi = effective_grad(g[i], pi, h.maximize, l2, wd);
                     if (decay) pi = pi * factor;
                     const T mi = lerp(m[i], gi, w1);
                     m[i] = mi;
                     T vi = v[i] * b2;
                     vi = vi + c2 * gi * gi;
                     v[i] = vi;
                     if (vmax) {
                       vi = maximum(vmax[i], vi);
                       vmax[i] = vi;
                     }
                     const T denom = std::sqrt(vi) / bc2_sqrt + eps;
                     p[i] = pi + neg_step * mi / denom;
                   }
                 });
}

void rmsprop_step(const OptimOperands& o, const RmspropScalars& h) {
  const bool l2 = h.weight_decay != 0;
  for_each_chunk(
      o, "rmsprop", [&](int64_t lo, int64_t hi, auto* p, auto* g, auto* sq, auto* buf, auto* gavg) {
        using T = std::remove_pointer_t<decltype(p)>;
        const T wd = T(h.weight_decay), alpha = T(h.alpha), c = T(1 - h.alpha), eps = T(h.eps);
        const T mom = T(h.momentum), neg_lr = T(-h.lr);
        for (int64_t i = lo; i < hi; ++i) {
          const T gi = effective_grad(g[i], p[i], h.maximize, l2, wd);
          T si = sq[i] * alpha;
          si = si + c * gi * gi;
          sq[i] = si;
          T avg;
          if (gavg) {
            const T ai = lerp(gavg[i], gi, c);
            gavg[i] = ai;
            avg = std::sqrt(si + T(-1) * ai * ai);
          } else {
            avg = std::sqrt(si);
          }
          avg = avg + eps;
          if (buf) {
            T bi = buf[i] * mom;
            bi = bi + T(1) * gi / avg;
            buf[i] = bi;
            p[i] = p[i] + neg_lr * bi;
          } else {
            p[i] = p[i] + neg_lr * gi / avg;
          }
        }
      });
}

void adagrad_step(const OptimOperands& o, const AdagradScalars& h) {
  const bool l2 = h.weight_decay != 0;
  for_each_chunk(o, "adagrad",
                 [&](int64_t lo, int64_t hi, auto* p, auto* g, auto* sum, auto*, auto*) {
                   using T = std::remove_pointer_t<decltype(p)>;
                   const T wd = T(h.weight_decay), eps = T(h.eps), neg_clr = T(-h.clr);
                   for (int64_t i = lo; i < hi; ++i) {
                     const T gi = effective_grad(g[i], p[i], h.maximize, l2, wd);
                     const T si = sum[i] + T(1) * gi * gi;
                     sum[i] = si;
                     const T std_i = std::sqrt(si) + eps;
                     p[i] = p[i] + neg_clr * gi / std_i;
                   }
                 });
}

void adamax_step(const OptimOperands& o, const AdamaxScalars& h) {
  const bool l2 = h.weight_decay != 0;
  for_each_chunk(
      o, "adamax", [&](int64_t lo, int64_t hi, auto* p, auto* g, auto* m, auto* inf, auto*) {
        using T = std::remove_pointer_t<decltype(p)>;
        const T wd = T(h.weight_decay), w1 = T(1 - h.beta1), b2 = T(h.beta2), eps = T(h.eps);
        const T neg_clr = T(-h.clr);
        for (int64_t i = lo; i < hi; ++i) {
          const T gi = effective_grad(g[i], p[i], h.maximize, l2, wd);
          const T mi = lerp(m[i], gi, w1);
          m[i] = mi;
          const T ei = maximum(inf[i] * b2, std::abs(gi) + eps);
          inf[i] = ei;
          p[i] = p[i] + neg_clr * mi / ei;
        }
      });
}

void nadam_step(const OptimOperands& o, const NadamScalars& h) {
  const bool l2 = h.weight_decay != 0 && !h.decoupled;
  const bool decay = h.weight_decay != 0 && h.decoupled;
  for_each_chunk(
      o, "nadam", [&](int64_t lo, int64_t hi, auto* p, auto* g, auto* m, auto* v, auto*) {
        using T = std::remove_pointer_t<decltype(p)>;
        const T wd = T(h.weight_decay), factor = T(h.decay_factor), w1 = T(1 - h.beta1);
        const T b2 = T(h.beta2), c2 = T(1 - h.beta2), eps = T(h.eps), bc2 = T(h.bias_correction2);
        const T grad_coef = T(h.grad_coef), avg_coef = T(h.avg_coef);
        for (int64_t i = lo; i < hi; ++i) {
          T pi = p[i];
          const T gi = effective_grad(g[i], pi, h.maximize, l2, wd);
          if (decay) pi = pi * factor;
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
}

void radam_step(const OptimOperands& o, const RadamScalars& h) {
  const bool l2 = h.weight_decay != 0 && !h.decoupled;
  const bool decay = h.weight_decay != 0 && h.decoupled;
  for_each_chunk(o, "radam",
                 [&](int64_t lo, int64_t hi, auto* p, auto* g, auto* m, auto* v, auto*) {
                   using T = std::remove_pointer_t<decltype(p)>;
                   const T wd = T(h.weight_decay), factor = T(h.decay_factor), w1 = T(1 - h.beta1);
                   const T b2 = T(h.beta2), c2 = T(1 - h.beta2), eps = T(h.eps), lr = T(h.lr);
                   const T bc1 = T(h.bias_correction1), bc2_sqrt = T(h.bias_correction2_sqrt),
                           rect = T(h.rect);
                   for (int64_t i = lo; i < hi; ++i) {
                     T pi = p[i];
                     const T gi = effective_grad(g[i], pi, h.maximize, l2, wd);
                     if (decay) pi = pi * factor;
                     const T mi = lerp(m[i], gi, w1);
                     m[i] = mi;
                     T vi = v[i] * b2;
                     vi = vi + c2 * gi * gi;
                     v[i] = vi;
                     T update = mi / bc1 * lr;
                     if (h.rectified) {
                       const T adaptive = T(1) / (std::sqrt(vi) + eps) * bc2_sqrt;
                       update = update * adaptive * rect;
                     }
                     p[i] = pi - update;
                   }
                 });
}

}  // namespace gradtrack::kernels
