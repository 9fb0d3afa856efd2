// Copies between dtypes and layouts, and fills.
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "kernels/copy.h"
#include "kernels/loops.h"
#include "kernels/reduced_float.h"

namespace gradtrack::kernels {

void copy(const Tensor& out, const Tensor& src) {
  if (copy_reduced(out, src)) return;
  LoopPlan p = make_plan(out, {src});
  GT_DISPATCH_ALL(out.dtype(), [&] {
    using O = scalar_t;
    GT_DISPATCH_ALL(src.dtype(), [&] {
      using I = scalar_t;
      if constexpr (std::is_same_v<O, I>) {
        run_plan(p, [](char** ptr, const int64_t* s, int64_t n) {
          if (s[0] == sizeof(O) && s[1] == sizeof(I)) {
            // memmove: copy_ between overlapping views that are not dense is
            // allowed (PyTorch's "too hard" overlap); memcpy would be undefined.
            std::memmove(ptr[0], ptr[1], static_cast<size_t>(n) * sizeof(O));
          } else if (s[0] == sizeof(O) && s[1] == 0 && aligned_for<O>(ptr[0])) {
            // an expanded value (the ones of sum()'s gradient made dense): a
            // fill, which vectorizes; the generic loop ran 12x torch's time
            const O v = load<I>(ptr[1]);
            std::fill_n(reinterpret_cast<O*>(ptr[0]), n, v);
          } else {
            for (int64_t i = 0; i < n; ++i) store<O>(ptr[0] + i * s[0], load<I>(ptr[1] + i * s[1]));
          }
        });
      } else if constexpr (std::is_same_v<O, bool>) {
        unary_loop<O, I>(p, [](I x) { return x != I(0); });
      } else {
        unary_loop<O, I>(p, [](I x) { return static_cast<O>(x); });
      }
    });
  });
}

Tensor aligned(const Tensor& t) {
  if (t.is_aligned()) return t;
  Tensor c = empty(t.sizes(), t.dtype());
  copy(c, t);
  return c;
}

void fill(const Tensor& out, Scalar value) {
  if (fill_reduced(out, value)) return;
  GT_DISPATCH_ALL(out.dtype(), [&] {
    const scalar_t v = value.to<scalar_t>();
    LoopPlan p = make_plan(out, {});
    run_plan(p, [v](char** ptr, const int64_t* s, int64_t n) {
      if (s[0] == sizeof(scalar_t) && aligned_for<scalar_t>(ptr[0])) {
        scalar_t* o = reinterpret_cast<scalar_t*>(ptr[0]);
        for (int64_t i = 0; i < n; ++i) o[i] = v;
      } else {
        for (int64_t i = 0; i < n; ++i) store<scalar_t>(ptr[0] + i * s[0], v);
      }
    });
  });
}

}  // namespace gradtrack::kernels
