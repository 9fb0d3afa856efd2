#include "kernels/optim.h"

#include "kernels/parallel.h"
#include "kernels/simd.h"

namespace gradtrack::kernels {

bool sgd_fusable(const Tensor& p, const Tensor& grad, const Tensor* buf) {
  auto same_layout = [&](const Tensor& t) {
    return t.is_contiguous() && t.sizes() == p.sizes() && t.dtype() == p.dtype() && t.is_aligned();
  };
  return p.is_contiguous() && p.is_aligned() && is_floating(p.dtype()) && same_layout(grad) &&
         (!buf || same_layout(*buf));
}

void sgd_step(const Tensor& p, const Tensor& grad, const Tensor* buf, const SgdParams& h) {
  if (p.dtype() == ScalarType::Float32 || p.dtype() == ScalarType::Float64) {
    // torch's adds with alpha round once (NOTE [add and sub with alpha round once]).
    const simd::SgdStep step{h.lr,       h.momentum, h.dampening, h.weight_decay,
                             h.nesterov, h.maximize, h.first_step};
    auto run = [&](auto* pp, const auto* gp, auto* bp) {
      parallel_for(p.numel(), kGrainSize, [&](int64_t lo, int64_t hi) {
        simd::sgd(pp + lo, gp + lo, bp ? bp + lo : nullptr, hi - lo, step);
      });
    };
    if (p.dtype() == ScalarType::Float32) {
      run(p.data<float>(), grad.data<float>(), buf ? buf->data<float>() : nullptr);
    } else {
      run(p.data<double>(), grad.data<double>(), buf ? buf->data<double>() : nullptr);
    }
    return;
  }
  GT_DISPATCH_FLOAT(p.dtype(), "sgd", [&] {
    using T = scalar_t;
    T* pp = p.data<T>();
    const T* gp = grad.data<T>();
    T* bp = buf ? buf->data<T>() : nullptr;
    const T lr = T(h.lr), m = T(h.momentum), damp = T(1 - h.dampening), wd = T(h.weight_decay);
    const bool decay = h.weight_decay != 0, maximize = h.maximize, nesterov = h.nesterov;
    const bool first = h.first_step;
    parallel_for(p.numel(), kGrainSize, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) {
        T g = maximize ? -gp[i] : gp[i];
        if (decay) g += wd * pp[i];
        if (bp) {
          T b = first ? g : m * bp[i] + damp * g;
          bp[i] = b;
          g = nesterov ? g + m * b : b;
        }
        pp[i] -= lr * g;
      }
    });
  });
}

}  // namespace gradtrack::kernels
