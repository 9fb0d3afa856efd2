// Reductions over any set of dims of a strided tensor.
//
// NOTE [Reduction paths]
// The input's dims split into kept and reduced groups (each coalesced). Three
// loops cover the shapes that matter:
//  * everything reduced: threads take slices of the reduced range and merge
//    their partial results;
//  * the innermost kept dim is dense and the reduced dims are outer ("column"
//    sums, e.g. a bias gradient): a block of outputs accumulates row by row,
//    which vectorises and reads memory in order;
//  * otherwise each output reduces its own run of elements, in parallel over
//    outputs.
#include <cmath>
#include <limits>

#include <type_traits>
#include <vector>

#include "kernels/pointwise.h"
#include "kernels/nan_sum.h"
#include "kernels/reduce.h"
#include "kernels/reduced_float.h"
#include "kernels/cascade_sum.h"
#include "kernels/parallel.h"
#include "kernels/simd.h"
#include "kernels/simd_clones.h"

namespace gradtrack::kernels {

namespace {

struct Group {
  DimVector sizes;
  SmallVector<int64_t, 6> in, out;  // strides in elements
  int64_t numel = 1;
};

void add_dim(Group& g, int64_t size, int64_t in_stride, int64_t out_stride) {
  if (size == 1) return;
  if (!g.sizes.empty() && g.in.back() == in_stride * size && g.out.back() == out_stride * size) {
    g.sizes.back() *= size;
    g.in.back() = in_stride;
    g.out.back() = out_stride;
  } else {
    g.sizes.push_back(size);
    g.in.push_back(in_stride);
    g.out.push_back(out_stride);
  }
  g.numel *= size;
}

// Offset (in elements) of flat position `i` of a group, for the `in` or `out` strides.
int64_t offset_of(const Group& g, int64_t i, bool use_out) {
  int64_t off = 0;
  for (size_t d = g.sizes.size(); d-- > 0;) {
    int64_t idx = i % g.sizes[d];
    i /= g.sizes[d];
    off += idx * (use_out ? g.out[d] : g.in[d]);
  }
  return off;
}

// Calls run(offset, n, stride) for each innermost run covering flat range [b, e).
template <typename F>
void for_runs(const Group& g, int64_t b, int64_t e, const F& run) {
  if (g.sizes.empty()) {
    if (b < e) run(0, 1, 1);
    return;
  }
  const int64_t inner = g.sizes.back(), stride = g.in.back();
  int64_t i = b;
  while (i < e) {
    int64_t col = i % inner;
    int64_t n = inner - col < e - i ? inner - col : e - i;
    run(offset_of(g, i, false), n, stride);
    i += n;
  }
}

// nansum's reduction (kernels/nan_sum.h): the sum with each NaN read as 0. It is
// not one of reduce.h's ops, whose many includers would all rebuild for it; it
// takes the value after the last of them.
constexpr ReduceOp kNanSum = ReduceOp(int(ReduceOp::All) + 1);

template <typename T>
using acc_t = std::conditional_t<std::is_floating_point_v<T>, double,
                                 std::conditional_t<std::is_same_v<T, bool>, bool, int64_t>>;

// One reducer per op: an identity, a step over a strided run, and a merge.
template <typename T, ReduceOp Op>
struct Reducer {
  using A =
      std::conditional_t<Op == ReduceOp::Sum || Op == ReduceOp::Prod || Op == kNanSum, acc_t<T>, T>;
  static A identity() {
    if constexpr (Op == ReduceOp::Sum || Op == kNanSum) return A(0);
    if constexpr (Op == ReduceOp::Prod) return A(1);
    if constexpr (Op == ReduceOp::Any) return A(0);
    if constexpr (Op == ReduceOp::All) return A(1);
    if constexpr (Op == ReduceOp::Max) {
      if constexpr (std::is_floating_point_v<T>) return -std::numeric_limits<T>::infinity();
      return std::numeric_limits<T>::lowest();
    }
    if constexpr (Op == ReduceOp::Min) {
      if constexpr (std::is_floating_point_v<T>) return std::numeric_limits<T>::infinity();
      return std::numeric_limits<T>::max();
    }
  }
  static A merge(A a, T x) {
    if constexpr (Op == ReduceOp::Sum) return a + static_cast<A>(x);
    if constexpr (Op == kNanSum) return x == x ? a + static_cast<A>(x) : a;
    if constexpr (Op == ReduceOp::Prod) {
      if constexpr (std::is_same_v<A, bool>)
        return a && x;
      else
        return a * static_cast<A>(x);
    }
    if constexpr (Op == ReduceOp::Any) return a || x != T(0);
    if constexpr (Op == ReduceOp::All) return a && x != T(0);
    if constexpr (Op == ReduceOp::Max) return (x > a || x != x) && a == a ? x : a;
    if constexpr (Op == ReduceOp::Min) return (x < a || x != x) && a == a ? x : a;
  }
  static A combine(A a, A b) {
    if constexpr (Op == ReduceOp::Sum || Op == kNanSum) return a + b;
    if constexpr (Op == ReduceOp::Prod) {
      if constexpr (std::is_same_v<A, bool>)
        return a && b;
      else
        return a * b;
    }
    if constexpr (Op == ReduceOp::Any) return a || b;
    if constexpr (Op == ReduceOp::All) return a && b;
    if constexpr (Op == ReduceOp::Max || Op == ReduceOp::Min) return merge(a, static_cast<T>(b));
  }
  // A run of n elements `stride` apart.
  static A run(const T* p, int64_t n, int64_t stride, A acc) {
    if (stride == 1) {
      if constexpr (Op == ReduceOp::Sum && std::is_floating_point_v<T>) return dense_sum(p, n, acc);
      if constexpr ((Op == ReduceOp::Max || Op == ReduceOp::Min) && std::is_floating_point_v<T>) {
        if (n >= 64) return dense_extreme(p, n, acc);
      }
    }
    for (int64_t i = 0; i < n; ++i) acc = merge(acc, p[i * stride]);
    return acc;
  }
  // Dense float runs go to the vector kernels (NOTE [SIMD clones]): sums in
  // blocks of T's precision added into a double (NOTE in simd.h), max/min
  // with NaN tracked apart (NaN wins, as in PyTorch).
  static A dense_sum(const T* p, int64_t n, A acc) { return simd::sum(p, n, acc); }
  static A dense_extreme(const T* p, int64_t n, A acc) {
    if (simd::extreme(p, n, Op == ReduceOp::Max, acc)) return std::numeric_limits<T>::quiet_NaN();
    return acc;
  }
  static T finish(A a) { return static_cast<T>(a); }
};

// A float sum over one contiguous run (a whole tensor, a row): PyTorch's order
// (NOTE [PyTorch's summation order] in cascade_sum.cpp).
template <typename T, ReduceOp Op>
constexpr bool kTorchOrder = (Op == ReduceOp::Sum || Op == kNanSum) && std::is_floating_point_v<T>;

template <typename T, ReduceOp Op>
void reduce_all(T* out, const T* in, const Group& red) {
  using R = Reducer<T, Op>;
  using A = typename R::A;
  if constexpr (kTorchOrder<T, Op>) {
    if (red.sizes.size() == 1 && red.in[0] == 1) {
      *out = cascade_sum(in, red.numel, get_num_threads(), Op == kNanSum);
      return;
    }
  }
  int threads = get_num_threads();
  std::vector<A> partial(static_cast<size_t>(threads), R::identity());
  int used = 1;
  parallel_for(red.numel, kGrainSize, [&](int64_t b, int64_t e) {
    A acc = R::identity();
    for_runs(red, b, e,
             [&](int64_t off, int64_t n, int64_t s) { acc = R::run(in + off, n, s, acc); });
#ifdef _OPENMP
    int tid = in_parallel_region() ? omp_get_thread_num() : 0;
    if (in_parallel_region()) used = omp_get_num_threads();
#else
    int tid = 0;
#endif
    partial[static_cast<size_t>(tid)] = acc;
  });
  A total = partial[0];
  for (int t = 1; t < used; ++t) total = R::combine(total, partial[static_cast<size_t>(t)]);
  *out = R::finish(total);
}

// Outputs along a dense innermost kept dim accumulate together, row by row.
template <typename T, ReduceOp Op>
void reduce_columns(T* out, const T* in, const Group& kept, const Group& red) {
  using R = Reducer<T, Op>;
  using A = typename R::A;
  constexpr int64_t kBlock = 256;
  const int64_t inner = kept.sizes.back();
  const int64_t out_inner_stride = kept.out.back();
  Group outer = kept;
  outer.sizes.pop_back();
  outer.in.pop_back();
  outer.out.pop_back();
  outer.numel = kept.numel / inner;
  const int64_t blocks = (inner + kBlock - 1) / kBlock;
  const int64_t work = outer.numel * blocks;
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, red.numel * kBlock));
  parallel_for(work, grain, [&](int64_t b, int64_t e) {
    A acc[kBlock];
    for (int64_t w = b; w < e; ++w) {
      int64_t o = w / blocks, blk = w % blocks;
      int64_t j0 = blk * kBlock, len = std::min(kBlock, inner - j0);
      const T* base = in + offset_of(outer, o, false) + j0;
      for (int64_t j = 0; j < len; ++j) acc[j] = R::identity();
      for (int64_t r = 0; r < red.numel; ++r) {
        const T* row = base + offset_of(red, r, false);
        for (int64_t j = 0; j < len; ++j) acc[j] = R::merge(acc[j], row[j]);
      }
      T* dst = out + offset_of(outer, o, true) + j0 * out_inner_stride;
      for (int64_t j = 0; j < len; ++j) dst[j * out_inner_stride] = R::finish(acc[j]);
    }
  });
}

template <typename T, ReduceOp Op>
void reduce_rows(T* out, const T* in, const Group& kept, const Group& red) {
  using R = Reducer<T, Op>;
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, red.numel));
  if (kept.sizes.size() == 1 && red.sizes.size() == 1) {
    // One kept and one reduced dim (a row sum, a softmax's normaliser): plain
    // strides, no per-row index division; rows of a few hundred elements
    // spent as long on that as on the reading.
    const int64_t in_step = kept.in[0], out_step = kept.out[0];
    const int64_t len = red.sizes[0], stride = red.in[0];
    if constexpr (kTorchOrder<T, Op>) {
      if (stride == 1) {
        parallel_for(kept.numel, grain, [&](int64_t b, int64_t e) {
          cascade_row_sums(out + b * out_step, out_step, in + b * in_step, in_step, e - b, len,
                           Op == kNanSum);
        });
        return;
      }
    }
    parallel_for(kept.numel, grain, [&](int64_t b, int64_t e) {
      for (int64_t k = b; k < e; ++k)
        out[k * out_step] = R::finish(R::run(in + k * in_step, len, stride, R::identity()));
    });
    return;
  }
  parallel_for(kept.numel, grain, [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) {
      const T* base = in + offset_of(kept, k, false);
      auto acc = R::identity();
      for_runs(red, 0, red.numel,
               [&](int64_t off, int64_t n, int64_t s) { acc = R::run(base + off, n, s, acc); });
      out[offset_of(kept, k, true)] = R::finish(acc);
    }
  });
}

void split_groups(const Tensor& out, const Tensor& in, uint64_t mask, Group& kept, Group& red) {
  for (int64_t d = 0; d < in.dim(); ++d) {
    if (mask >> d & 1) {
      add_dim(red, in.sizes()[d], in.strides()[d], 0);
    } else {
      add_dim(kept, in.sizes()[d], in.strides()[d], out.strides()[d]);
    }
  }
}

template <typename T, ReduceOp Op>
void reduce_typed(const Tensor& out, const Tensor& in, uint64_t mask) {
  Group kept, red;
  split_groups(out, in, mask, kept, red);
  T* o = out.data<T>();
  const T* i = in.data<T>();
  if (kept.numel == 0) return;
  if (red.numel == 0) {
    // Reducing nothing gives the identity (sum of an empty tensor is 0).
    for (int64_t k = 0; k < kept.numel; ++k)
      o[offset_of(kept, k, true)] = Reducer<T, Op>::finish(Reducer<T, Op>::identity());
    return;
  }
  if (kept.sizes.empty()) return reduce_all<T, Op>(o, i, red);
  bool dense_kept_inner = kept.in.back() == 1 && (red.sizes.empty() || red.in.back() != 1);
  if constexpr (kTorchOrder<T, Op>) {
    if (dense_kept_inner && kept.sizes.size() == 1 && red.sizes.size() == 1)
      return cascade_column_sums(o, kept.out[0], i, red.in[0], red.sizes[0], kept.sizes[0],
                                 get_num_threads(), Op == kNanSum);
    // A middle dim of (B, T, D) (x.mean(1) over a sequence): torch sums each of the B
    // slices' columns as it sums one (T, D) block's on one thread, whatever its
    // thread count (measured: the same bits on 1 and 2 threads up to 131072
    // elements), so the slices are shared out whole.
    if (dense_kept_inner && kept.sizes.size() >= 2 && red.sizes.size() == 1) {
      Group outer = kept;
      outer.sizes.pop_back();
      outer.in.pop_back();
      outer.out.pop_back();
      outer.numel = kept.numel / kept.sizes.back();
      const int64_t slice = kept.sizes.back() * red.numel;
      parallel_for(outer.numel, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, slice)),
                   [&](int64_t b, int64_t e) {
                     for (int64_t k = b; k < e; ++k)
                       cascade_column_sums(o + offset_of(outer, k, true), kept.out.back(),
                                           i + offset_of(outer, k, false), red.in[0], red.sizes[0],
                                           kept.sizes.back(), 1, Op == kNanSum);
                   });
      return;
    }
  }
  if (dense_kept_inner) return reduce_columns<T, Op>(o, i, kept, red);
  reduce_rows<T, Op>(o, i, kept, red);
}

template <ReduceOp Op>
void reduce_dispatch(const Tensor& out, const Tensor& in, uint64_t mask) {
  GT_DISPATCH_ALL(in.dtype(), [&] { reduce_typed<scalar_t, Op>(out, in, mask); });
}

}  // namespace

void reduce(ReduceOp op, const Tensor& out, const Tensor& in0, uint64_t mask) {
  if (any_reduced({&out, &in0})) {  // NOTE [Reduced floats are stored, not computed]
    WideOut w(out);
    reduce(op, w.t, widen(in0), mask);
    return w.commit();
  }
  const Tensor in = aligned(in0);
  switch (op) {
    case ReduceOp::Sum: return reduce_dispatch<ReduceOp::Sum>(out, in, mask);
    case ReduceOp::Prod: return reduce_dispatch<ReduceOp::Prod>(out, in, mask);
    case ReduceOp::Max: return reduce_dispatch<ReduceOp::Max>(out, in, mask);
    case ReduceOp::Min: return reduce_dispatch<ReduceOp::Min>(out, in, mask);
    case ReduceOp::Any: return reduce_dispatch<ReduceOp::Any>(out, in, mask);
    case ReduceOp::All: return reduce_dispatch<ReduceOp::All>(out, in, mask);
  }
}

void nan_sum(const Tensor& out, const Tensor& in0, uint64_t mask) {
  if (any_reduced({&out, &in0})) {  // NOTE [Reduced floats are stored, not computed]
    WideOut w(out);
    nan_sum(w.t, widen(in0), mask);
    return w.commit();
  }
  const Tensor in = aligned(in0);
  GT_DISPATCH_FLOAT(in.dtype(), "nansum", [&] { reduce_typed<scalar_t, kNanSum>(out, in, mask); });
}

namespace {

// Is x a better extreme than the current best (first NaN wins and stays)?
template <typename T>
bool better(bool is_max, T x, T best) {
  if constexpr (std::is_floating_point_v<T>) {
    if (best != best) return false;
    if (x != x) return true;
  }
  return is_max ? x > best : x < best;
}

// One row of a column-wise max or min: where x[c] is a better extreme than best[c] (the
// first NaN wins and stays), it and its row r replace them. Selects, not branches: the
// loop vectorizes in each clone (this file is built with -fno-trapping-math).
template <typename T, bool kMax>
GT_CLONES_V4_V3 void column_step(const T* x, T* best, int64_t* where, int64_t m, int64_t r) {
  for (int64_t c = 0; c < m; ++c) {
    const T v = x[c], b = best[c];
    const bool take = (b == b) & ((v != v) | (kMax ? v > b : v < b));
    best[c] = take ? v : b;
    where[c] = take ? r : where[c];
  }
}

// max/min with indices over one reduced dim whose kept innermost dim is dense in the
// input (max(0) of a matrix): the kept run in blocks of 256 columns, each row of the
// reduced dim compared with the block's best so far. The per-element loop below read
// each element through an offset division: 1.2-1.5x torch's time on 1024 x 1024.
template <typename T>
void arg_columns(bool is_max, const Group& kept, const Group& red, const Group& vkept, const T* src,
                 int64_t* idx_out, T* val_out) {
  constexpr int64_t kCols = 256;
  const int64_t inner = kept.sizes.back(), outer = kept.numel / inner;
  const int64_t blocks = (inner + kCols - 1) / kCols;
  const int64_t grain = std::max<int64_t>(1, kGrainSize / (kCols * red.numel));
  parallel_for(outer * blocks, grain, [&](int64_t lo, int64_t hi) {
    T best[kCols];
    int64_t where[kCols];
    for (int64_t t = lo; t < hi; ++t) {
      const int64_t first = (t / blocks) * inner + (t % blocks) * kCols;
      const int64_t m = std::min(kCols, inner - (t % blocks) * kCols);
      const T* base = src + offset_of(kept, first, false);
      for (int64_t c = 0; c < m; ++c) {
        best[c] = base[c];
        where[c] = 0;
      }
      for (int64_t r = 1; r < red.numel; ++r) {
        const T* row = base + r * red.in[0];
        if (is_max) {
          column_step<T, true>(row, best, where, m, r);
        } else {
          column_step<T, false>(row, best, where, m, r);
        }
      }
      int64_t* io = idx_out + offset_of(kept, first, true);
      for (int64_t c = 0; c < m; ++c) io[c * kept.out.back()] = where[c];
      if (val_out) {
        T* vo = val_out + offset_of(vkept, first, true);
        for (int64_t c = 0; c < m; ++c) vo[c * vkept.out.back()] = best[c];
      }
    }
  });
}

template <typename T>
void arg_typed(bool is_max, const Tensor* values, const Tensor& indices, const Tensor& in,
               uint64_t mask) {
  Group kept, red;
  split_groups(indices, in, mask, kept, red);
  const T* src = in.data<T>();
  int64_t* idx_out = indices.data<int64_t>();
  T* val_out = values ? values->data<T>() : nullptr;
  // Value strides can differ from index strides; keep a second kept-group.
  Group vkept, vred;
  if (values) split_groups(*values, in, mask, vkept, vred);
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, red.numel));
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    // A dense reduced run (max over the last dim, argmax(1)): the extreme from the vector
    // loop (simd.h), then the first element equal to it, or the first NaN. One compare
    // and branch per element, read through an offset division, took 2-2.7x torch's time.
    if (red.sizes.size() == 1 && red.in[0] == 1) {
      return parallel_for(kept.numel, grain, [&](int64_t b, int64_t e) {
        for (int64_t k = b; k < e; ++k) {
          const T* run = src + offset_of(kept, k, false);
          T best = run[0];
          const bool nan = simd::extreme(run, red.numel, is_max, best);
          int64_t i = 0;
          if (nan) {
            while (run[i] == run[i]) ++i;
          } else {
            while (run[i] != best) ++i;  // -0 and 0 compare equal: the first of either
          }
          idx_out[offset_of(kept, k, true)] = i;
          if (val_out) val_out[offset_of(vkept, k, true)] = run[i];
        }
      });
    }
    if (red.sizes.size() == 1 && !kept.sizes.empty() && kept.in.back() == 1 &&
        (!values || vkept.sizes.size() == kept.sizes.size()))
      return arg_columns(is_max, kept, red, vkept, src, idx_out, val_out);
  }
  parallel_for(kept.numel, grain, [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) {
      const T* base = src + offset_of(kept, k, false);
      T best = base[offset_of(red, 0, false)];
      int64_t best_i = 0;
      for (int64_t r = 1; r < red.numel; ++r) {
        T x = base[offset_of(red, r, false)];
        if (better(is_max, x, best)) {
          best = x;
          best_i = r;
        }
      }
      idx_out[offset_of(kept, k, true)] = best_i;
      if (val_out) val_out[offset_of(vkept, k, true)] = best;
    }
  });
}

}  // namespace

void reduce_arg(bool is_max, const Tensor* values, const Tensor& indices, const Tensor& in0,
                uint64_t mask) {
  if (any_reduced({values, &in0})) {
    if (!values) return reduce_arg(is_max, nullptr, indices, widen(in0), mask);
    WideOut w(*values);
    reduce_arg(is_max, &w.t, indices, widen(in0), mask);
    return w.commit();
  }
  const Tensor in = aligned(in0);
  GT_DISPATCH_ALL(in.dtype(), [&] { arg_typed<scalar_t>(is_max, values, indices, in, mask); });
}

}  // namespace gradtrack::kernels
