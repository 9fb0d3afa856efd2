// clamp (number or tensor bounds) and where: the elementwise ops that pick one of their
// operands, or a bound, for each element; lerp, which picks its formula by the weight; and
// addcmul and addcdiv, the other three-operand updates of the optimizers.
#include <cmath>
#include <limits>
#include <type_traits>

#include "kernels/element_ops.h"
#include "kernels/loops.h"
#include "kernels/pointwise.h"
#include "kernels/reduced_float.h"
#include "kernels/simd.h"

namespace gradtrack::kernels {

namespace {

// clamp of float or double: dense runs in the vector loops (NOTE [SIMD clones]), the
// others here. False for the other types.
template <typename T>
bool clamp_dense_floats(const LoopPlan& p, const T* lo, const T* hi) {
  if constexpr (!std::is_same_v<T, float> && !std::is_same_v<T, double>) {
    return false;
  } else {
    unary_loop_vectored<T>(
        p, [lo, hi](const T* in, T* out, int64_t n) { simd::clamp(in, out, n, lo, hi); });
    return true;
  }
}

}  // namespace

void clamp(const Tensor& out, const Tensor& a, std::optional<Scalar> lo, std::optional<Scalar> hi) {
  if (any_reduced({&out, &a})) {
    WideOut w(out);
    auto r = [&](std::optional<Scalar> v) {
      return v ? std::optional<Scalar>(round_scalar(*v, a.dtype())) : v;
    };
    clamp(w.t, widen(a), r(lo), r(hi));
    return w.commit();
  }
  LoopPlan p = make_plan(out, {a});
  GT_DISPATCH_ALL(a.dtype(), [&] {
    if constexpr (!std::is_same_v<scalar_t, bool>) {
      const bool has_lo = lo.has_value(), has_hi = hi.has_value();
      const scalar_t l = has_lo ? lo->to<scalar_t>() : scalar_t(0);
      const scalar_t h = has_hi ? hi->to<scalar_t>() : scalar_t(0);
      // A NaN bound makes every element NaN (PyTorch's max/min propagate NaN).
      const bool nan_bound = (has_lo && l != l) || (has_hi && h != h);
      if (nan_bound) {
        unary_loop<scalar_t, scalar_t>(p, [](scalar_t x) -> scalar_t {
          return x != x ? x : std::numeric_limits<scalar_t>::quiet_NaN();
        });
        return;
      }
      // PyTorch applies min first, then max: clamp(x, lo, hi) = min(max(x, lo), hi). A NaN
      // x fails both comparisons and passes through. Dense float runs take the vector
      // loops (NOTE [SIMD clones]); the others one loop per pair of bounds given, with no
      // branch inside.
      if (clamp_dense_floats<scalar_t>(p, has_lo ? &l : nullptr, has_hi ? &h : nullptr)) return;
      auto run = [&](auto lower, auto upper) {
        unary_loop<scalar_t, scalar_t>(p, [=](scalar_t x) -> scalar_t {
          if constexpr (decltype(lower)::value) x = x < l ? l : x;
          if constexpr (decltype(upper)::value) x = x > h ? h : x;
          return x;
        });
      };
      using yes = std::true_type;
      using no = std::false_type;
      if (has_lo && has_hi)
        run(yes{}, yes{});
      else if (has_lo)
        run(yes{}, no{});
      else if (has_hi)
        run(no{}, yes{});
      else
        run(no{}, no{});
    } else {
      throw NotImplementedError("\"clamp\" not implemented for 'Bool'");
    }
  });
}

void clamp_tensor(const Tensor& out, const Tensor& a, const Tensor* lo, const Tensor* hi) {
  if (any_reduced({&out, &a, lo, hi})) {
    WideOut w(out);
    Tensor wl = lo ? widen(*lo) : Tensor(), wh = hi ? widen(*hi) : Tensor();
    clamp_tensor(w.t, widen(a), lo ? &wl : nullptr, hi ? &wh : nullptr);
    return w.commit();
  }
  GT_DISPATCH_ALL(a.dtype(), [&] {
    using T = scalar_t;
    // min(max(x, lo), hi) as PyTorch computes it: a NaN in x or in a bound gives NaN.
    auto nan = [](T v) {
      if constexpr (std::is_floating_point_v<T>) return v != v;
      return false;
    };
    if (lo && hi) {
      ternary_loop<T, T, T, T>(make_plan(out, {a, *lo, *hi}), [=](T x, T l, T h) -> T {
        if (nan(x) || nan(l)) return nan(x) ? x : l;
        if (nan(h)) return h;
        return x < l ? (l > h ? h : l) : (x > h ? h : x);
      });
    } else if (lo) {
      binary_loop<T, T, T>(make_plan(out, {a, *lo}),
                           [=](T x, T l) -> T { return nan(l) ? l : (x < l ? l : x); });
    } else {
      binary_loop<T, T, T>(make_plan(out, {a, *hi}),
                           [=](T x, T h) -> T { return nan(h) ? h : (x > h ? h : x); });
    }
  });
}

namespace {

// where of float or double: runs with a dense condition and output, each side dense or
// one value, take the branch-free vector loops (NOTE [SIMD clones]). False for the
// other types.
template <typename T>
bool where_floats(const LoopPlan& p) {
  if constexpr (!std::is_same_v<T, float> && !std::is_same_v<T, double>) {
    return false;
  } else {
    constexpr int64_t w = int64_t(sizeof(T));
    run_plan(p, [](char** ptr, const int64_t* s, int64_t n) {
      if (s[0] == w && s[1] == 1 && (s[2] == w || s[2] == 0) && (s[3] == w || s[3] == 0) &&
          aligned_for<T>(ptr[0]) && aligned_for<T>(ptr[2]) && aligned_for<T>(ptr[3]))
        return simd::select(
            reinterpret_cast<const uint8_t*>(ptr[1]), reinterpret_cast<const T*>(ptr[2]), s[2] / w,
            reinterpret_cast<const T*>(ptr[3]), s[3] / w, reinterpret_cast<T*>(ptr[0]), n);
      for (int64_t i = 0; i < n; ++i)
        store<T>(ptr[0] + i * s[0], load<bool>(ptr[1] + i * s[1]) ? load<T>(ptr[2] + i * s[2])
                                                                  : load<T>(ptr[3] + i * s[3]));
    });
    return true;
  }
}

}  // namespace

void where(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b) {
  if (any_reduced({&out, &a, &b})) {
    WideOut w(out);
    where(w.t, cond, widen(a), widen(b));
    return w.commit();
  }
  LoopPlan p = make_plan(out, {cond, a, b});
  GT_DISPATCH_ALL(out.dtype(), [&] {
    if (where_floats<scalar_t>(p)) return;
    ternary_loop<scalar_t, bool, scalar_t, scalar_t>(
        p, [](bool c, scalar_t x, scalar_t y) { return c ? x : y; });
  });
}

void lerp(const Tensor& out, const Tensor& a, const Tensor& end, const Tensor& w) {
  if (any_reduced({&out, &a, &end, &w})) {
    WideOut wide(out);
    lerp(wide.t, widen(a), widen(end), widen(w));
    return wide.commit();
  }
  LoopPlan p = make_plan(out, {a, end, w});
  GT_DISPATCH_FLOAT(out.dtype(), "lerp", [&] {
    run_plan(p, [](char** ptr, const int64_t* s, int64_t n) {
      bool aligned = true;
      for (int k = 0; k < 4; ++k) aligned = aligned && aligned_for<scalar_t>(ptr[k]);
      if (aligned) return simd::lerp(ptr, s, n, scalar_t{});
      // unaligned NumPy memory: loads and stores by memcpy
      for (int64_t i = 0; i < n; ++i) {
        const scalar_t x = load<scalar_t>(ptr[1] + i * s[1]), y = load<scalar_t>(ptr[2] + i * s[2]);
        const scalar_t c = load<scalar_t>(ptr[3] + i * s[3]);
        store<scalar_t>(ptr[0] + i * s[0], lerp_element(x, y, c));
      }
    });
  });
}

void nan_to_num(const Tensor& out, const Tensor& a, const double* with) {
  LoopPlan p = make_plan(out, {a});
  GT_DISPATCH_FLOAT(out.dtype(), "nan_to_num", [&] {
    if constexpr (std::is_same_v<scalar_t, float> || std::is_same_v<scalar_t, double>) {
      const scalar_t w[3] = {scalar_t(with[0]), scalar_t(with[1]), scalar_t(with[2])};
      unary_loop_vectored<scalar_t>(
          p, [&w](const scalar_t* in, scalar_t* o, int64_t n) { simd::nan_to_num(in, o, n, w); });
    }
  });
}

void addcmul(const Tensor& out, const Tensor& self, const Tensor& t1, const Tensor& t2,
             double value, bool divide) {
  if (any_reduced({&out, &self, &t1, &t2})) {
    WideOut wide(out);
    addcmul(wide.t, widen(self), widen(t1), widen(t2), value, divide);
    return wide.commit();
  }
  LoopPlan p = make_plan(out, {self, t1, t2});
  GT_DISPATCH_FLOAT(out.dtype(), "addcmul", [&] {
    const scalar_t v = scalar_t(value);
    run_plan(p, [v, divide](char** ptr, const int64_t* s, int64_t n) {
      bool aligned = true;
      for (int k = 0; k < 4; ++k) aligned = aligned && aligned_for<scalar_t>(ptr[k]);
      if (aligned) return simd::addcmul(ptr, s, n, v, divide);
      for (int64_t i = 0; i < n; ++i) {  // unaligned NumPy memory: loads and stores by memcpy
        const scalar_t x = load<scalar_t>(ptr[1] + i * s[1]), a = load<scalar_t>(ptr[2] + i * s[2]);
        const scalar_t b = load<scalar_t>(ptr[3] + i * s[3]);
        store<scalar_t>(ptr[0] + i * s[0], divide ? addcmul_element<true>(x, a, b, v)
                                                  : addcmul_element<false>(x, a, b, v));
      }
    });
  });
}

}  // namespace gradtrack::kernels
