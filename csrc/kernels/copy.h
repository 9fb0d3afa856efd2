// Copies between dtypes and layouts, fills, and reads of unaligned memory.
#pragma once

#include <cstdint>
#include <cstring>

#include "core/scalar.h"
#include "core/tensor.h"

namespace gradtrack::kernels {

// NOTE [Unaligned memory]
// A tensor made by from_numpy/as_tensor aliases the array's memory, and NumPy
// allows arrays whose data is not aligned to the element size (torch aliases
// those too). Reading such memory through a `double*` is undefined behaviour,
// so the loops in loops.h take their typed fast paths only when every pointer is
// aligned, and otherwise read and write each element with memcpy. Strides are
// multiples of the element size, so one check of the run's first element
// decides for the whole run. Other kernels read and write such tensors with
// load/store, or read an aligned() copy.
template <typename T>
inline T load(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}
template <typename T>
inline void store(char* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}
template <typename T>
inline bool aligned_for(const char* p) {
  return reinterpret_cast<uintptr_t>(p) % alignof(T) == 0;
}

/// out = src, converting dtype and broadcasting src.
void copy(const Tensor& out, const Tensor& src);
/// For kernels that read through typed pointers: `t` itself when its memory is
/// aligned for its dtype, else a contiguous copy (NOTE [Unaligned memory]).
Tensor aligned(const Tensor& t);
void fill(const Tensor& out, Scalar value);

}  // namespace gradtrack::kernels
