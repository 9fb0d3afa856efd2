// searchsorted / bucketize kernel (see search.h).
#include "kernels/search.h"

#include "kernels/parallel.h"

namespace gradtrack::kernels {

namespace {

// PyTorch's cus_lower_bound / cus_upper_bound, written with negated
// comparisons so a NaN value goes past every boundary, as PyTorch's.
template <typename T>
int64_t bound(const T* bd, const int64_t* sort, int64_t n, T val, bool right) {
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    const int64_t mid = lo + ((hi - lo) >> 1);
    const T m = sort ? bd[sort[mid]] : bd[mid];
    const bool go_right = right ? !(m > val) : !(m >= val);
    if (go_right) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

}  // namespace

void search_sorted(const Tensor& out, const Tensor& values, const Tensor& boundaries,
                   const Tensor& sorter, bool right) {
  const int64_t nb = boundaries.dim() == 0 ? 1 : boundaries.sizes().back();
  const int64_t rows_b = nb == 0 ? 1 : boundaries.numel() / nb;
  const int64_t nv = values.numel();
  if (nv == 0) return;
  const int64_t per_row = rows_b == 1 ? nv : nv / rows_b;
  GT_DISPATCH_NUMERIC(values.dtype(), "searchsorted_out_cpu", [&] {
    const scalar_t* v = values.data<scalar_t>();
    const scalar_t* bd = boundaries.data<scalar_t>();
    const int64_t* srt = sorter.defined() ? sorter.data<int64_t>() : nullptr;
    const bool i32 = out.dtype() == ScalarType::Int32;
    int64_t* o64 = i32 ? nullptr : out.data<int64_t>();
    int32_t* o32 = i32 ? out.data<int32_t>() : nullptr;
    parallel_for(nv, 4096, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const int64_t row = rows_b == 1 ? 0 : i / per_row;
        const int64_t r =
            bound<scalar_t>(bd + row * nb, srt ? srt + row * nb : nullptr, nb, v[i], right);
        if (i32) {
          o32[i] = int32_t(r);
        } else {
          o64[i] = r;
        }
      }
    });
  });
}

}  // namespace gradtrack::kernels
