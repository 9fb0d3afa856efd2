// Fused backward kernels of pointwise ops: relu's, sigmoid's and tanh's
// gradients, both gradients of a product in one pass, and a scaled sum.
#include <type_traits>

#include "kernels/loops.h"
#include "kernels/pointwise.h"
#include "kernels/reduced_float.h"

namespace gradtrack::kernels {

// relu's gradient: g where the result is not <= 0 (NaN passes). The fused
// relu-mul kernel must compute exactly this, so both call it.
template <typename T>
inline T relu_grad(T gv, T yv) {
  return yv <= 0 ? T(0) : gv;
}

void threshold_backward(const Tensor& out, const Tensor& g, const Tensor& y) {
  if (any_reduced({&out, &g, &y})) {
    WideOut w(out);
    threshold_backward(w.t, widen(g), widen(y));
    return w.commit();
  }
  GT_DISPATCH_FLOAT(out.dtype(), "threshold_backward", [&] {
    using T = scalar_t;
    binary_loop<T, T, T>(make_plan(out, {g, y}), [](T gv, T yv) { return relu_grad(gv, yv); });
  });
}

void relu_mul_backward(const Tensor& out, const Tensor& g, const Tensor& y, const Tensor& other) {
  if (any_reduced({&out, &g, &y, &other})) {
    WideOut w(out);
    relu_mul_backward(w.t, widen(g), widen(y), widen(other));
    return w.commit();
  }
  GT_DISPATCH_FLOAT(out.dtype(), "relu_mul_backward", [&] {
    using T = scalar_t;
    // threshold_backward, then mul, in their operand order.
    ternary_loop<T, T, T, T>(make_plan(out, {g, y, other}),
                             [](T gv, T yv, T ov) -> T { return relu_grad(gv, yv) * ov; });
  });
}

void sigmoid_backward(const Tensor& out, const Tensor& g, const Tensor& y) {
  if (any_reduced({&out, &g, &y})) {
    WideOut w(out);
    sigmoid_backward(w.t, widen(g), widen(y));
    return w.commit();
  }
  GT_DISPATCH_FLOAT(out.dtype(), "sigmoid_backward", [&] {
    using T = scalar_t;
    binary_loop<T, T, T>(make_plan(out, {g, y}),
                         [](T gv, T yv) -> T { return gv * yv * (T(1) - yv); });
  });
}

void tanh_backward(const Tensor& out, const Tensor& g, const Tensor& y) {
  if (any_reduced({&out, &g, &y})) {
    WideOut w(out);
    tanh_backward(w.t, widen(g), widen(y));
    return w.commit();
  }
  GT_DISPATCH_FLOAT(out.dtype(), "tanh_backward", [&] {
    using T = scalar_t;
    binary_loop<T, T, T>(make_plan(out, {g, y}),
                         [](T gv, T yv) -> T { return gv * (T(1) - yv * yv); });
  });
}

void mul_backward(const Tensor& ga, const Tensor& gb, const Tensor& g, const Tensor& a,
                  const Tensor& b) {
  if (any_reduced({&ga, &gb, &g, &a, &b})) {
    WideOut wa(ga), wb(gb);
    mul_backward(wa.t, wb.t, widen(g), widen(a), widen(b));
    wa.commit();
    return wb.commit();
  }
  GT_DISPATCH_FLOAT(g.dtype(), "mul_backward", [&] {
    using T = scalar_t;
    T* pa = ga.data<T>();
    T* pb = gb.data<T>();
    const T* pg = g.data<T>();
    const T* xa = a.data<T>();
    const T* xb = b.data<T>();
    const auto products = [&](T* oa, T* ob, int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) {
        const T gv = pg[i];
        oa[i - lo] = gv * xb[i];
        ob[i - lo] = gv * xa[i];
      }
    };
    // Five tensors of g's size: past the L3, both gradients are staged and
    // streamed out (NOTE [Streaming stores]).
    const int64_t n = g.numel();
    const bool stream = 5 * n * int64_t(sizeof(T)) >= stream_store_bytes();
    parallel_for(n, kGrainSize, [&](int64_t lo, int64_t hi) {
      if (!stream) return products(pa + lo, pb + lo, lo, hi);
      constexpr int64_t per = kStageBytes / int64_t(sizeof(T));
      alignas(64) T sa[per];
      alignas(64) T sb[per];
      for (int64_t i = lo; i < hi; i += per) {
        const int64_t e = std::min(hi, i + per);
        products(sa, sb, i, e);
        stream_copy(reinterpret_cast<char*>(pa + i), reinterpret_cast<const char*>(sa),
                    (e - i) * int64_t(sizeof(T)));
        stream_copy(reinterpret_cast<char*>(pb + i), reinterpret_cast<const char*>(sb),
                    (e - i) * int64_t(sizeof(T)));
      }
      stream_fence();
    });
  });
}

}  // namespace gradtrack::kernels
