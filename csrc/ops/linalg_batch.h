// What the LAPACK-backed ops (linalg_factor.cpp, linalg_decompose.cpp) share: a
// batch of matrices walked one contiguous block at a time, in float or double.
#pragma once

#include <algorithm>
#include <cstring>

#include "ops/common.h"

namespace gradtrack::ops::linalg_batch {

// NOTE [Work copies on the calling thread]
// A factorization's copy of its operand is small beside the factorization, but a
// parallel copy wakes the pool's other thread, asleep after the last serial
// factorization: det at 256 measured 15-20 us slower on two threads than on one
// for that alone (at 180, a copy below the grain, both took 115 us). A dense
// operand is copied with memcpy on the calling thread.

/// Copies `a` into the contiguous `out` of its shape and dtype (NOTE [Work copies on
/// the calling thread]).
inline void work_copy_into(const Tensor& out, const Tensor& a) {
  if (a.is_contiguous()) {
    std::memcpy(out.raw(), a.raw(), size_t(a.numel()) * itemsize(a.dtype()));
  } else {
    kernels::copy(out, a);
  }
}

/// A fresh contiguous copy of `a` (in `a`'s dtype) that LAPACK may overwrite.
inline Tensor work_copy(const Tensor& a) {
  Tensor out = empty(a.sizes(), a.dtype());
  work_copy_into(out, a);
  return out;
}

// NOTE [Tiled transposes of LAPACK's results]
// LAPACK leaves Q and R column-major; copying them out row by row read the
// buffer m elements apart, a cache line per element: 6% of a 256 x 256
// float32 qr. Tiles of 32 x 32 read and write whole cache lines.
// out[i * ld + j] = col[i + j * m] for i < rows and first(i) <= j < cols.
template <typename T, typename First>
void rows_from_columns(const T* col, int64_t m, int64_t rows, int64_t cols, T* out, int64_t ld,
                       First first) {
  constexpr int64_t kTile = 32;
  for (int64_t i0 = 0; i0 < rows; i0 += kTile)
    for (int64_t j0 = 0; j0 < cols; j0 += kTile) {
      const int64_t i1 = std::min(rows, i0 + kTile), j1 = std::min(cols, j0 + kTile);
      for (int64_t i = i0; i < i1; ++i)
        for (int64_t j = std::max(j0, first(i)); j < j1; ++j) out[i * ld + j] = col[i + j * m];
    }
}

/// out = src^T for the row-major rows x cols matrix src (out is cols x rows): src is the
/// column-major buffer of out.
template <typename T>
void transpose_tiles(const T* src, int64_t rows, int64_t cols, T* out) {
  rows_from_columns(src, cols, cols, rows, out, rows, [](int64_t) { return int64_t(0); });
}

// NOTE [Column-major results]
// torch's LAPACK-backed results are column-major matrices in a row-major batch
// (strides (..., rows * cols, 1, rows)): .stride() and is_contiguous() show it,
// a .view() that needs a row-major layout raises, and a later reshape records
// ReshapeAliasBackward0. gradtrack's kernels work on rows; their results are
// copied into that layout before they are recorded (an O(n^2) copy beside the
// O(n^3) factorization). The strides are torch's for dims of size 1 too (a
// column result (n, 1) has (1, n)); a batch of vector right-hand sides gives a
// batch of vectors laid out as one column-major matrix ((3, 4): (1, 3)); and a
// tall least-squares solution keeps the strides of LAPACK's m-row buffer.

/// `t` (a batch of matrices) laid out as torch's LAPACK results are (NOTE
/// [Column-major results]): `t` itself if it already is, else a copy.
inline Tensor column_major(const Tensor& t) {
  const int64_t d = t.dim();
  if (d < 2) return t;
  const int64_t rows = t.size(-2), cols = t.size(-1);
  DimVector strides(static_cast<size_t>(d));
  strides[size_t(d - 2)] = 1;
  strides[size_t(d - 1)] = std::max<int64_t>(rows, 1);
  int64_t step = std::max<int64_t>(rows * cols, 1);
  for (int64_t i = d - 3; i >= 0; --i) {
    strides[size_t(i)] = step;
    step *= std::max<int64_t>(t.size(i), 1);
  }
  bool same = true;
  for (int64_t i = 0; i < d; ++i)
    same = same && t.strides()[size_t(i)] == strides[size_t(i)];  // size-1 dims too
  if (same) return t;
  Tensor out = empty_strided(t.sizes(), strides, t.dtype());
  const bool tiles =
      t.is_contiguous() && (t.dtype() == ScalarType::Float32 || t.dtype() == ScalarType::Float64);
  if (!tiles) {
    kernels::copy(out, t);
    return out;
  }
  // each matrix through 32 x 32 tiles (NOTE [Tiled transposes of LAPACK's results])
  const int64_t count = rows * cols == 0 ? 0 : t.numel() / (rows * cols);
  auto each = [&](auto zero) {
    using T = decltype(zero);
    for (int64_t b = 0; b < count; ++b)
      transpose_tiles(t.data<T>() + b * rows * cols, rows, cols, out.data<T>() + b * rows * cols);
  };
  t.dtype() == ScalarType::Float32 ? each(0.0f) : each(0.0);
  return out;
}

inline DimVector batch_of(const DimVector& sizes) {
  return DimVector(sizes.begin(), sizes.end() - 2);
}

inline int64_t count_of(const DimVector& batch) {
  int64_t count = 1;
  for (int64_t b : batch) count *= b;
  return count;
}

inline DimVector with_matrix(DimVector batch, int64_t rows, int64_t cols) {
  batch.push_back(rows);
  batch.push_back(cols);
  return batch;
}

inline DimVector with_vector(DimVector batch, int64_t n) {
  batch.push_back(n);
  return batch;
}

/// Runs f with a float or double zero, as `dtype` says.
template <typename F>
void on_float_type(ScalarType dtype, F&& f) {
  if (dtype == ScalarType::Float32) {
    f(0.0f);
  } else {
    GT_CHECK(dtype == ScalarType::Float64, "gradtrack: linalg supports float32 and float64, got ",
             scalar_type_name(dtype));
    f(0.0);
  }
}

}  // namespace gradtrack::ops::linalg_batch
