// Line kernels: scans, sorts and order statistics along one dim (scan_sort.h).
#include "kernels/scan_sort.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#include <immintrin.h>
#endif

#include "kernels/parallel.h"
#include "kernels/sort_keys.h"
#include "kernels/reduced_float.h"

namespace gradtrack::kernels {

namespace {

// A contiguous tensor seen as [outer, n, inner] around `dim`: line (o, i)
// starts at o * n * inner + i and steps by inner.
struct Lines {
  int64_t outer = 1, n = 1, inner = 1;
  Lines(const DimVector& sizes, int64_t dim) {
    for (int64_t d = 0; d < static_cast<int64_t>(sizes.size()); ++d) {
      if (d < dim) outer *= sizes[static_cast<size_t>(d)];
      if (d > dim) inner *= sizes[static_cast<size_t>(d)];
    }
    if (!sizes.empty()) n = sizes[static_cast<size_t>(dim)];
  }
  int64_t count() const { return outer * inner; }
  int64_t start(int64_t line, int64_t len) const {
    return (line / inner) * len * inner + line % inner;
  }
};

template <typename T>
bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::isnan(v);
  } else {
    return false;
  }
}

template <typename T>
T scan_step(bool is_prod, T acc, T x) {
  return is_prod ? T(acc * x) : T(acc + x);
}
// A bool result (dtype=torch.bool) saturates: `or` for sums, `and` for products.
inline bool scan_step(bool is_prod, bool acc, bool x) { return is_prod ? (acc && x) : (acc || x); }

// NOTE [A long float32 line scanned in blocks]
// A float32 cumsum accumulates in double, as PyTorch's CPU scan does, which
// adds one element after another into one running double: each add waits for
// the last (4 cycles), so a line of 1M elements took ~1 ms on one thread in
// both libraries. With AVX-512, 8 converted elements are summed in a register
// (three shifted adds, off the running sum's path), and the running sum takes
// one add and one broadcast per 16 elements. A long line is also split over
// the threads: each thread but the last first sums its part, then scans it
// from the sum of the parts before. These double sums of float32 elements are
// exact unless the elements span more than 29 binary orders (a float32 holds
// 24 bits, a double 53), and exact sums give torch's bits in any order; an
// inexact one is off by a rounding of a double, far below the float32
// result's. Measured on an Intel Xeon (thread CPU time, one thread): 1M
// standard normal elements 1.2-1.4 ms -> 0.5 ms, 64K 95 -> 42 us, every
// output equal to the one-by-one sum's; in gradtrack, 1M took 365-395 us on
// one thread and 270-290 us on two (torch: 0.8-1.1 ms on either).
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define GT_SCAN_V4 __attribute__((target("arch=x86-64-v4")))

// dst[j] = float(carry + src[0] + ... + src[j]) for j < n; returns the carry
// past the last element.
GT_SCAN_V4 double scan_float_v4(const float* src, float* dst, int64_t n, double carry) {
  // Lane l of a vector shifted up by s lanes, zeros below: 8-lane prefix sums.
  const __m512i up1 = _mm512_set_epi64(6, 5, 4, 3, 2, 1, 0, 0);
  const __m512i up2 = _mm512_set_epi64(5, 4, 3, 2, 1, 0, 0, 0);
  const __m512i up4 = _mm512_set_epi64(3, 2, 1, 0, 0, 0, 0, 0);
  const __m512i last = _mm512_set1_epi64(7);
  const auto prefix = [&](const float* p) GT_SCAN_V4 {
    __m512d v = _mm512_cvtps_pd(_mm256_loadu_ps(p));
    v = _mm512_add_pd(v, _mm512_maskz_permutexvar_pd(0xFE, up1, v));
    v = _mm512_add_pd(v, _mm512_maskz_permutexvar_pd(0xFC, up2, v));
    return _mm512_add_pd(v, _mm512_maskz_permutexvar_pd(0xF0, up4, v));
  };
  __m512d run = _mm512_set1_pd(carry);
  int64_t j = 0;
  for (; j + 16 <= n; j += 16) {
    __m512d lo = prefix(src + j), hi = prefix(src + j + 8);
    hi = _mm512_add_pd(hi, _mm512_permutexvar_pd(last, lo));
    lo = _mm512_add_pd(run, lo);
    hi = _mm512_add_pd(run, hi);
    _mm256_storeu_ps(dst + j, _mm512_cvtpd_ps(lo));
    _mm256_storeu_ps(dst + j + 8, _mm512_cvtpd_ps(hi));
    run = _mm512_permutexvar_pd(last, hi);
  }
  carry = _mm512_cvtsd_f64(run);
  for (; j < n; ++j) {
    carry += double(src[j]);
    dst[j] = float(carry);
  }
  return carry;
}

// The double sum of src[0, n), in two vectors of 8 lanes.
GT_SCAN_V4 double sum_float_v4(const float* src, int64_t n) {
  __m512d s0 = _mm512_setzero_pd(), s1 = _mm512_setzero_pd();
  int64_t j = 0;
  for (; j + 16 <= n; j += 16) {
    s0 = _mm512_add_pd(s0, _mm512_cvtps_pd(_mm256_loadu_ps(src + j)));
    s1 = _mm512_add_pd(s1, _mm512_cvtps_pd(_mm256_loadu_ps(src + j + 8)));
  }
  double total = _mm512_reduce_add_pd(_mm512_add_pd(s0, s1));
  for (; j < n; ++j) total += double(src[j]);
  return total;
}

bool scan_v4() {
  static const bool ok = __builtin_cpu_supports("x86-64-v4");
  return ok;
}
#else
double scan_float_v4(const float*, float*, int64_t, double) { return 0; }
double sum_float_v4(const float*, int64_t) { return 0; }
bool scan_v4() { return false; }
#endif

// One element after another, as torch's scan.
double scan_float_serial(const float* src, float* dst, int64_t n, double carry) {
  for (int64_t j = 0; j < n; ++j) {
    carry += double(src[j]);
    dst[j] = float(carry);
  }
  return carry;
}

double scan_float_blocks(const float* src, float* dst, int64_t n, double carry) {
  return scan_v4() ? scan_float_v4(src, dst, n, carry) : scan_float_serial(src, dst, n, carry);
}

double sum_float_blocks(const float* src, int64_t n) {
  if (scan_v4()) return sum_float_v4(src, n);
  double total = 0;
  for (int64_t j = 0; j < n; ++j) total += double(src[j]);
  return total;
}

// One contiguous float32 line of n elements (NOTE [A long float32 line
// scanned in blocks]).
void cumsum_float_line(const float* src, float* dst, int64_t n) {
#ifdef _OPENMP
  const int threads = get_num_threads();
  if (n >= 2 * kGrainSize && threads > 1 && !in_parallel_region()) {
    const int use = int(std::min<int64_t>(threads, n / kGrainSize));
    std::vector<double> sums(static_cast<size_t>(use), 0.0);
#pragma omp parallel num_threads(use)
    {
      const int t = omp_get_thread_num(), nt = omp_get_num_threads();
      const int64_t b = n * t / nt, e = n * (t + 1) / nt;
      if (t + 1 < nt) sums[size_t(t)] = sum_float_blocks(src + b, e - b);
#pragma omp barrier
      double carry = 0;
      for (int u = 0; u < t; ++u) carry += sums[size_t(u)];
      scan_float_blocks(src + b, dst + b, e - b, carry);
    }
    return;
  }
#endif
  scan_float_blocks(src, dst, n, 0.0);
}

}  // namespace

void cumulative(bool is_prod, const Tensor& out, const Tensor& in, int64_t dim) {
  if (any_reduced({&out, &in})) {  // NOTE [Reduced floats are stored, not computed]
    WideOut w(out);
    cumulative(is_prod, w.t, widen(in), dim);
    return w.commit();
  }
  Lines l(in.sizes(), dim);
  if (in.numel() == 0) return;
  if (!is_prod && out.dtype() == ScalarType::Float32 && l.inner == 1) {
    const float* src = in.data<float>();
    float* dst = out.data<float>();
    if (l.count() == 1) {
      ScopedGilRelease gil(l.n >= kReleaseGilAbove);
      return cumsum_float_line(src, dst, l.n);
    }
    return parallel_for(l.count(), std::max<int64_t>(1, kGrainSize / l.n),
                        [&](int64_t b, int64_t e) {
                          for (int64_t line = b; line < e; ++line)
                            scan_float_blocks(src + line * l.n, dst + line * l.n, l.n, 0.0);
                        });
  }
  GT_DISPATCH_ALL(out.dtype(), [&] {
    using acc_t = std::conditional_t<std::is_same_v<scalar_t, float>, double, scalar_t>;
    const scalar_t* src = in.data<scalar_t>();
    scalar_t* dst = out.data<scalar_t>();
    parallel_for(l.count(), std::max<int64_t>(1, kGrainSize / std::max<int64_t>(l.n, 1)),
                 [&](int64_t b, int64_t e) {
                   for (int64_t line = b; line < e; ++line) {
                     const int64_t s = l.start(line, l.n);
                     // A float32 line accumulates in double, as PyTorch's CPU scan
                     // does: a running float sum over 1M elements loses ~20 bits.
                     acc_t acc = acc_t(src[s]);
                     dst[s] = scalar_t(acc);
                     for (int64_t j = 1; j < l.n; ++j) {
                       const int64_t p = s + j * l.inner;
                       acc = scan_step(is_prod, acc, acc_t(src[p]));
                       dst[p] = scalar_t(acc);
                     }
                   }
                 });
  });
}

namespace {

// NOTE [Ties in torch's order]
// torch's CPU sort without stable=True is std::sort of (value, position) pairs
// compared by value alone (NaN above every number), and topk is std::partial_sort
// of them when k * 64 <= n, else std::nth_element at k - 1 and, when sorted, a
// std::sort of the k - 1 before it. Those leave equal values in an order of their
// own (std::sort keeps positions in order only up to 16 elements), which beam
// searches, argsort and pack_padded_sequence's sorted_indices show. Both libraries
// sort with the same libstdc++ algorithms, so running them on the same pairs with
// the same comparison gives torch's order. gradtrack's own paths order ties by
// position, which is the same answer wherever the line has no ties among the
// values it returns: so a line is ordered again torch's way only when it has
// them (or when topk leaves its k unsorted, in nth_element's order).
template <typename T>
struct TorchLess {
  bool descending;
  bool operator()(const std::pair<T, int64_t>& x, const std::pair<T, int64_t>& y) const {
    if (descending) return (is_nan(x.first) && !is_nan(y.first)) || x.first > y.first;
    return (!is_nan(x.first) && is_nan(y.first)) || x.first < y.first;
  }
};

template <typename T>
bool same_value(T a, T b) {
  return a == b || (is_nan(a) && is_nan(b));
}

template <typename T>
void torch_order_line(std::vector<std::pair<T, int64_t>>& items, int64_t k, bool descending,
                      SortOrder order) {
  const TorchLess<T> less{descending};
  const int64_t n = int64_t(items.size());
  if (order == SortOrder::Sort) {
    std::sort(items.begin(), items.end(), less);
  } else if (k * 64 <= n) {
    std::partial_sort(items.begin(), items.begin() + k, items.end(), less);
  } else {
    std::nth_element(items.begin(), items.begin() + (k - 1), items.end(), less);
    if (order == SortOrder::TopkSorted) std::sort(items.begin(), items.begin() + (k - 1), less);
  }
}

// The lines of a stable result (values/indices, k along dim) that have ties, ordered
// again as torch's sort or topk orders them.
template <typename T>
void order_ties_as_torch(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim,
                         bool descending, int64_t k, SortOrder order) {
  Lines l(in.sizes(), dim);
  const T* src = in.data<T>();
  T* vout = values.data<T>();
  int64_t* iout = indices.data<int64_t>();
  const bool always = order == SortOrder::TopkUnsorted && k * 64 > l.n;
  parallel_for(l.count(), std::max<int64_t>(1, kGrainSize / std::max<int64_t>(l.n, 1)),
               [&](int64_t b, int64_t e) {
                 std::vector<std::pair<T, int64_t>> items;
                 for (int64_t line = b; line < e; ++line) {
                   const int64_t s = l.start(line, l.n), so = l.start(line, k);
                   bool tied = always;
                   for (int64_t j = 1; j < k && !tied; ++j)
                     tied = same_value(vout[so + (j - 1) * l.inner], vout[so + j * l.inner]);
                   if (!tied && k < l.n) {  // a tie across the k-th value
                     const T last = vout[so + (k - 1) * l.inner];
                     int64_t inside = 0, all = 0;
                     for (int64_t j = 0; j < k; ++j)
                       inside += same_value(vout[so + j * l.inner], last);
                     if (is_nan(last)) {
                       for (int64_t j = 0; j < l.n; ++j) all += is_nan(src[s + j * l.inner]);
                     } else if (l.inner == 1) {  // (a loop the compiler vectorizes)
                       const T* line_src = src + s;
                       for (int64_t j = 0; j < l.n; ++j) all += line_src[j] == last;
                     } else {
                       for (int64_t j = 0; j < l.n; ++j) all += src[s + j * l.inner] == last;
                     }
                     tied = all > inside;
                   }
                   if (!tied) continue;
                   if constexpr (std::is_same_v<T, float>) {
                     if (order == SortOrder::Sort) {
                       torch_sort_float_line(src + s, l.inner, l.n, descending, vout + so,
                                             iout + so, l.inner);
                       continue;
                     }
                   }
                   items.clear();
                   for (int64_t j = 0; j < l.n; ++j) items.emplace_back(src[s + j * l.inner], j);
                   torch_order_line(items, k, descending, order);
                   for (int64_t j = 0; j < k; ++j) {
                     vout[so + j * l.inner] = items[size_t(j)].first;
                     iout[so + j * l.inner] = items[size_t(j)].second;
                   }
                 }
               });
}

}  // namespace

void sort_lines(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim,
                bool descending, int64_t k, SortOrder order) {
  if (any_reduced({&values, &in})) {
    WideOut w(values);
    sort_lines(w.t, indices, widen(in), dim, descending, k, order);
    return w.commit();
  }
  Lines l(in.sizes(), dim);
  if (in.numel() == 0 || k == 0) return;
  // A long float32 line almost surely holds equal values (a million draws of
  // randn hold hundreds of pairs), which would be ordered twice: once by position,
  // then torch's way. It goes torch's way at once.
  if (order == SortOrder::Sort && in.dtype() == ScalarType::Float32 && l.n >= (int64_t(1) << 16) &&
      l.n < (int64_t(1) << 32)) {
    const float* src = in.data<float>();
    float* vout = values.data<float>();
    int64_t* iout = indices.data<int64_t>();
    return parallel_for(l.count(), 1, [&](int64_t b, int64_t e) {
      for (int64_t line = b; line < e; ++line)
        torch_sort_float_line(src + l.start(line, l.n), l.inner, l.n, descending,
                              vout + l.start(line, k), iout + l.start(line, k), l.inner);
    });
  }
  stable_sort_lines(values, indices, in, dim, descending, k);
  if (order == SortOrder::Stable) return;
  GT_DISPATCH_ALL(in.dtype(), [&] {
    order_ties_as_torch<scalar_t>(values, indices, in, dim, descending, k, order);
  });
}

void stable_sort_lines(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim,
                       bool descending, int64_t k) {
  Lines l(in.sizes(), dim);
  if (sort_lines_by_keys(values, indices, in, dim, descending, k)) return;  // NOTE [Sort keys]
  GT_DISPATCH_ALL(in.dtype(), [&] {
    const scalar_t* src = in.data<scalar_t>();
    scalar_t* vout = values.data<scalar_t>();
    int64_t* iout = indices.data<int64_t>();
    using Item = std::pair<scalar_t, int64_t>;
    // NaN sorts above every number; equal keys keep their positions' order
    // (the index breaks ties, so an unstable sort of (value, index) pairs,
    // which reads memory in order, gives the stable result).
    auto cmp = [descending](const Item& x, const Item& y) {
      const bool xn = is_nan(x.first), yn = is_nan(y.first);
      if (xn != yn) return descending ? xn : yn;
      if (!xn && x.first != y.first) return descending ? x.first > y.first : x.first < y.first;
      return x.second < y.second;
    };
    // Few of many (topk): one pass keeping the k best in a heap whose top is
    // the worst of them, instead of ordering a copy of the whole line.
    const bool few = k * 64 < l.n;
    parallel_for(l.count(), std::max<int64_t>(1, kGrainSize / std::max<int64_t>(l.n, 1)),
                 [&](int64_t b, int64_t e) {
                   std::vector<Item> items;
                   items.reserve(size_t(few ? k : l.n));
                   for (int64_t line = b; line < e; ++line) {
                     const int64_t s = l.start(line, l.n);
                     items.clear();
                     for (int64_t j = 0; j < l.n; ++j) {
                       const Item it{src[s + j * l.inner], j};
                       if (!few || int64_t(items.size()) < k) {
                         items.push_back(it);
                         if (few) std::push_heap(items.begin(), items.end(), cmp);
                       } else if (cmp(it, items.front())) {
                         std::pop_heap(items.begin(), items.end(), cmp);
                         items.back() = it;
                         std::push_heap(items.begin(), items.end(), cmp);
                       }
                     }
                     if (few) {
                       std::sort_heap(items.begin(), items.end(), cmp);
                     } else if (k < l.n) {
                       std::partial_sort(items.begin(), items.begin() + k, items.end(), cmp);
                     } else {
                       std::sort(items.begin(), items.end(), cmp);
                     }
                     const int64_t so = l.start(line, k);
                     for (int64_t j = 0; j < k; ++j) {
                       vout[so + j * l.inner] = items[size_t(j)].first;
                       iout[so + j * l.inner] = items[size_t(j)].second;
                     }
                   }
                 });
  });
}

namespace {

// Runs f(key, order, line_start, out_start) on every line along `dim`, with
// the line's values copied into `key` and `order` = 0..n-1.
template <typename T, typename F>
void for_each_line(const Tensor& in, int64_t dim, const F& f) {
  Lines l(in.sizes(), dim);
  const T* src = in.data<T>();
  parallel_for(l.count(), std::max<int64_t>(1, kGrainSize / std::max<int64_t>(l.n, 1)),
               [&](int64_t b, int64_t e) {
                 std::vector<int64_t> order(static_cast<size_t>(l.n));
                 std::vector<T> key(static_cast<size_t>(l.n));
                 for (int64_t line = b; line < e; ++line) {
                   const int64_t s = l.start(line, l.n);
                   for (int64_t j = 0; j < l.n; ++j) key[size_t(j)] = src[s + j * l.inner];
                   std::iota(order.begin(), order.end(), int64_t(0));
                   f(key, order, l.start(line, 1));
                 }
               });
}

}  // namespace

namespace {

// torch's kthvalue selects with the median-of-three quickselect of Numerical
// Recipes (as Torch7 wrote it), not with std::nth_element, and equal values end
// up where its swaps leave them (NOTE [Ties in torch's order]). The same steps
// here, on the values and their positions together: the three candidates for
// the pivot are ordered so that a[lo + 1] <= a[lo] <= a[hi] (a[lo] the pivot,
// the other two the sentinels of the scans), the scans stop at values not on
// their side of the pivot, and the pivot goes to where the scans crossed. NaN
// counts as larger than every number.
template <typename T>
void torch_select(std::vector<T>& a, std::vector<int64_t>& pos, int64_t k) {
  const auto above = [](T x, T y) { return (is_nan(x) && !is_nan(y)) || x > y; };
  const auto swap = [&](int64_t x, int64_t y) {
    const T v = a[size_t(x)];  // (a may be a vector<bool>, whose items are proxies)
    a[size_t(x)] = a[size_t(y)];
    a[size_t(y)] = v;
    std::swap(pos[size_t(x)], pos[size_t(y)]);
  };
  int64_t lo = 0, hi = int64_t(a.size()) - 1;
  while (hi > lo) {
    if (hi == lo + 1) {
      if (above(a[size_t(lo)], a[size_t(hi)])) swap(lo, hi);
      return;
    }
    swap(lo + (hi - lo) / 2, lo + 1);
    if (above(a[size_t(lo + 1)], a[size_t(hi)])) swap(lo + 1, hi);
    if (above(a[size_t(lo)], a[size_t(hi)])) swap(lo, hi);
    if (above(a[size_t(lo + 1)], a[size_t(lo)])) swap(lo + 1, lo);
    const T pivot = a[size_t(lo)];
    int64_t i = lo + 1, j = hi;
    for (;;) {
      do ++i;
      while (above(pivot, a[size_t(i)]));
      do --j;
      while (above(a[size_t(j)], pivot));
      if (j < i) break;
      swap(i, j);
    }
    swap(lo, j);
    if (j <= k) lo = i;
    if (j >= k) hi = j - 1;
  }
}

}  // namespace

void kth_lines(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim,
               int64_t k, bool nan_wins, bool nan_skips) {
  if (any_reduced({&values, &in})) {
    WideOut w(values);
    kth_lines(w.t, indices, widen(in), dim, k, nan_wins, nan_skips);
    return w.commit();
  }
  if (in.numel() == 0) return;
  GT_DISPATCH_ALL(in.dtype(), [&] {
    scalar_t* vout = values.data<scalar_t>();
    int64_t* iout = indices.data<int64_t>();
    for_each_line<scalar_t>(in, dim, [&](auto& key, auto& order, int64_t out) {
      int64_t kk = k;
      auto less = [&](int64_t x, int64_t y) {
        const scalar_t a = key[size_t(x)], b = key[size_t(y)];
        if (is_nan(a) || is_nan(b)) return !is_nan(a) && is_nan(b);
        return a < b || (a == b && x < y);
      };
      int64_t pick = -1;
      if (nan_skips) {
        // The k-th of the numbers: k = (numbers - 1) / 2 per line; a line of NaN only
        // gives its first NaN, as PyTorch's nanmedian.
        int64_t numbers = 0;
        for (size_t j = 0; j < key.size(); ++j) numbers += !is_nan(scalar_t(key[j]));
        kk = numbers == 0 ? -1 : (numbers - 1) / 2;
        if (kk < 0) pick = 0;
      }
      if (nan_wins) {
        for (size_t j = 0; j < key.size() && pick < 0; ++j)
          if (is_nan(key[j])) pick = int64_t(j);
      }
      if (pick < 0 && !nan_wins && !nan_skips) {  // kthvalue
        torch_select(key, order, kk);
        vout[out] = key[size_t(kk)];
        iout[out] = order[size_t(kk)];
        return;
      }
      if (pick < 0) {
        std::nth_element(order.begin(), order.begin() + kk, order.end(), less);
        pick = order[size_t(kk)];
      }
      vout[out] = key[size_t(pick)];
      iout[out] = pick;
    });
  });
}

void mode_lines(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim) {
  if (any_reduced({&values, &in})) {
    WideOut w(values);
    mode_lines(w.t, indices, widen(in), dim);
    return w.commit();
  }
  if (in.numel() == 0) return;
  GT_DISPATCH_ALL(in.dtype(), [&] {
    scalar_t* vout = values.data<scalar_t>();
    int64_t* iout = indices.data<int64_t>();
    std::vector<std::pair<scalar_t, int64_t>> items;
    for_each_line<scalar_t>(in, dim, [&](auto& key, auto&, int64_t out) {
      // (value, position) pairs in std::sort's order by value as torch's CPU mode
      // sorts them, with a plain < (NOTE [Ties in torch's order]): a NaN is
      // then neither above nor below a number, and each NaN is a run of its own.
      // A run's position is its last pair's.
      items.clear();
      for (size_t j = 0; j < key.size(); ++j) items.emplace_back(key[j], int64_t(j));
      std::sort(items.begin(), items.end(),
                [](const auto& x, const auto& y) { return x.first < y.first; });
      int64_t best_count = 0;
      size_t best = 0;
      for (size_t j = 0; j < items.size();) {
        size_t r = j;
        while (r + 1 < items.size() && items[j].first == items[r + 1].first) ++r;
        const int64_t count = int64_t(r - j + 1);
        if (count > best_count) {
          best_count = count;
          best = r;
        }
        j = r + 1;
      }
      vout[out] = items[best].first;
      iout[out] = items[best].second;
    });
  });
}

namespace {

// A line's running extreme: NaN, once seen, stays (at the last NaN's position); a tie
// moves the index to the later position, as PyTorch's CPU cummax/cummin.
template <typename T>
bool takes_over(T x, T best, bool is_max) {
  if (is_nan(x)) return true;
  if (is_nan(best)) return false;
  return is_max ? x >= best : x <= best;
}

}  // namespace

void cumulative_extreme(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim,
                        bool is_max) {
  if (any_reduced({&values, &in})) {
    WideOut w(values);
    cumulative_extreme(w.t, indices, widen(in), dim, is_max);
    return w.commit();
  }
  Lines l(in.sizes(), dim);
  if (in.numel() == 0) return;
  GT_DISPATCH_ALL(in.dtype(), [&] {
    const scalar_t* src = in.data<scalar_t>();
    scalar_t* vout = values.data<scalar_t>();
    int64_t* iout = indices.data<int64_t>();
    parallel_for(l.count(), std::max<int64_t>(1, kGrainSize / std::max<int64_t>(l.n, 1)),
                 [&](int64_t b, int64_t e) {
                   for (int64_t line = b; line < e; ++line) {
                     const int64_t s = l.start(line, l.n);
                     scalar_t best = src[s];
                     int64_t at = 0;
                     for (int64_t j = 0; j < l.n; ++j) {
                       const int64_t p = s + j * l.inner;
                       if (takes_over(src[p], best, is_max)) {
                         best = src[p];
                         at = j;
                       }
                       vout[p] = best;
                       iout[p] = at;
                     }
                   }
                 });
  });
}

void log_cumulative_sum_exp(const Tensor& out, const Tensor& in, int64_t dim) {
  if (any_reduced({&out, &in})) {
    WideOut w(out);
    log_cumulative_sum_exp(w.t, widen(in), dim);
    return w.commit();
  }
  Lines l(in.sizes(), dim);
  if (in.numel() == 0) return;
  GT_DISPATCH_FLOAT(in.dtype(), "logcumsumexp_out_cpu", [&] {
    const scalar_t* src = in.data<scalar_t>();
    scalar_t* dst = out.data<scalar_t>();
    parallel_for(l.count(), std::max<int64_t>(1, kGrainSize / std::max<int64_t>(l.n, 1)),
                 [&](int64_t b, int64_t e) {
                   for (int64_t line = b; line < e; ++line) {
                     const int64_t s = l.start(line, l.n);
                     // log(exp(acc) + exp(x)) = hi + log1p(exp(lo - hi)), in double;
                     // -inf + -inf stays -inf, NaN spreads.
                     double acc = -std::numeric_limits<double>::infinity();
                     for (int64_t j = 0; j < l.n; ++j) {
                       const int64_t p = s + j * l.inner;
                       const double x = double(src[p]);
                       if (std::isnan(x) || std::isnan(acc)) {
                         acc = std::numeric_limits<double>::quiet_NaN();
                       } else {
                         const double hi = std::max(acc, x), lo = std::min(acc, x);
                         if (lo != -std::numeric_limits<double>::infinity() && !std::isinf(hi))
                           acc = hi + std::log1p(std::exp(lo - hi));
                         else
                           acc = hi;
                       }
                       dst[p] = scalar_t(acc);
                     }
                   }
                 });
  });
}

}  // namespace gradtrack::kernels
