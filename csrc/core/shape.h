// Shape arithmetic: strides, broadcasting, dim wrapping, printing.
#pragma once

#include <string>

#include "core/small_vector.h"

namespace gradtrack {

/// Row-major strides for `sizes`.
DimVector contiguous_strides(const DimVector& sizes);
/// Number of elements; throws PyTorch's errors for negative or overflowing sizes.
int64_t checked_numel(const DimVector& sizes);
inline int64_t numel_of(const DimVector& sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}
/// NumPy/PyTorch broadcasting; throws "The size of tensor a (3) must match ...".
DimVector broadcast_shapes(const DimVector& a, const DimVector& b);
/// True if `shape` broadcasts to `desired` (PyTorch's is_expandable_to).
bool is_expandable_to(const DimVector& shape, const DimVector& desired);
/// Maps a possibly negative dim into [0, ndim); IndexError when out of range.
int64_t wrap_dim(int64_t dim, int64_t ndim);
/// "[2, 3]" (PyTorch's formatting of sizes in messages).
std::string shape_str(const DimVector& sizes);
/// "torch.Size([2, 3])" with the module name given.
std::string size_repr(const DimVector& sizes, const char* module);

}  // namespace gradtrack
