#include "core/shape.h"

#include <sstream>

#include "core/error.h"

namespace gradtrack {

DimVector contiguous_strides(const DimVector& sizes) {
  // A shape with a 0 dim has no elements, so its numel check passes however
  // large the other dims are (empty(0, 2**62, 2**62)); its strides must
  // still fit in int64, as PyTorch requires.
  DimVector strides(sizes.size());
  int64_t s = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = s;
    if (i > 0 && __builtin_mul_overflow(s, sizes[i] > 1 ? sizes[i] : 1, &s)) {
      throw Error("Stride calculation overflowed");
    }
  }
  return strides;
}

int64_t checked_numel(const DimVector& sizes) {
  for (int64_t s : sizes) {
    GT_CHECK(s >= 0, "Trying to create tensor with negative dimension ", s, ": ", shape_str(sizes));
  }
  int64_t n = 1;
  for (int64_t s : sizes) {
    if (s != 0 && n > INT64_MAX / s) {
      throw Error(str_cat("Storage size calculation overflowed with sizes=", shape_str(sizes)));
    }
    n *= s;
  }
  return n;
}

bool is_expandable_to(const DimVector& shape, const DimVector& desired) {
  if (shape.size() > desired.size()) return false;
  const size_t lead = desired.size() - shape.size();
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] != 1 && shape[d] != desired[lead + d]) return false;
  return true;
}

DimVector broadcast_shapes(const DimVector& a, const DimVector& b) {
  size_t n = a.size() > b.size() ? a.size() : b.size();
  DimVector out(n);
  for (size_t i = 0; i < n; ++i) {
    // Walk from the trailing dim; missing leading dims count as 1.
    int64_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
    int64_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (da != db && da != 1 && db != 1) {
      throw Error(str_cat("The size of tensor a (", da, ") must match the size of tensor b (", db,
                          ") at non-singleton dimension ", n - 1 - i));
    }
    out[n - 1 - i] = da == 1 ? db : da;
  }
  return out;
}

int64_t wrap_dim(int64_t dim, int64_t ndim) {
  int64_t n = ndim <= 0 ? 1 : ndim;  // a 0-dim tensor accepts dim 0 and -1
  if (dim < -n || dim >= n) {
    throw IndexError(str_cat("Dimension out of range (expected to be in range of [", -n, ", ",
                             n - 1, "], but got ", dim, ")"));
  }
  return dim < 0 ? dim + n : dim;
}

std::string shape_str(const DimVector& sizes) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < sizes.size(); ++i) os << (i ? ", " : "") << sizes[i];
  os << "]";
  return os.str();
}

std::string size_repr(const DimVector& sizes, const char* module) {
  return str_cat(module, ".Size(", shape_str(sizes), ")");
}

}  // namespace gradtrack
