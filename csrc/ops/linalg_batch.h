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

/// out = src^T for the row-major rows x cols matrix src (out is cols x rows), in 32 x 32
/// tiles that read and write whole cache lines (NOTE [Tiled transposes of LAPACK's
/// results] in linalg_decompose.cpp).
template <typename T>
void transpose_tiles(const T* src, int64_t rows, int64_t cols, T* out) {
  constexpr int64_t kTile = 32;
  for (int64_t i0 = 0; i0 < rows; i0 += kTile)
    for (int64_t j0 = 0; j0 < cols; j0 += kTile) {
      const int64_t i1 = std::min(rows, i0 + kTile), j1 = std::min(cols, j0 + kTile);
      for (int64_t j = j0; j < j1; ++j)
        for (int64_t i = i0; i < i1; ++i) out[j * rows + i] = src[i * cols + j];
    }
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
