// Line kernels: scans, sorts and order statistics along one dim (scan_sort.h).
#include "kernels/scan_sort.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

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

}  // namespace

void cumulative(bool is_prod, const Tensor& out, const Tensor& in, int64_t dim) {
  if (any_reduced({&out, &in})) {  // NOTE [Reduced floats are stored, not computed]
    WideOut w(out);
    cumulative(is_prod, w.t, widen(in), dim);
    return w.commit();
  }
  Lines l(in.sizes(), dim);
  if (in.numel() == 0) return;
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

void sort_lines(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim,
                bool descending, int64_t k) {
  if (any_reduced({&values, &in})) {
    WideOut w(values);
    sort_lines(w.t, indices, widen(in), dim, descending, k);
    return w.commit();
  }
  Lines l(in.sizes(), dim);
  if (in.numel() == 0 || k == 0) return;
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
    for_each_line<scalar_t>(in, dim, [&](auto& key, auto& order, int64_t out) {
      // Ascending by value (NaN last, NaNs equal), then by position.
      auto same = [&](int64_t x, int64_t y) {
        const scalar_t a = key[size_t(x)], b = key[size_t(y)];
        return a == b || (is_nan(a) && is_nan(b));
      };
      std::sort(order.begin(), order.end(), [&](int64_t x, int64_t y) {
        const scalar_t a = key[size_t(x)], b = key[size_t(y)];
        if (!same(x, y)) return (!is_nan(a) && is_nan(b)) || a < b;
        return x < y;
      });
      int64_t best_count = 0, best_last = 0;
      for (size_t j = 0; j < order.size();) {
        size_t r = j;
        while (r + 1 < order.size() && same(order[j], order[r + 1])) ++r;
        const int64_t count = int64_t(r - j + 1);
        if (count > best_count) {
          best_count = count;
          best_last = order[r];
        }
        j = r + 1;
      }
      vout[out] = key[size_t(best_last)];
      iout[out] = best_last;
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
