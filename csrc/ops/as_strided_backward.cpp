// as_strided's backward: the gradient of a view with any geometry over its base's
// storage, scattered back through the storage's elements (overlapping views summed).
#include <algorithm>
#include <vector>

#include "autograd/variable.h"
#include "ops/common.h"

namespace gradtrack::ops {

namespace {

// Whether two elements of a (sizes, strides) geometry may share a memory
// location: walking the dims from the smallest stride up, each stride must
// step past everything the smaller dims already span. Conservative (a size-1
// dim never overlaps and is skipped), like PyTorch's check.
bool may_self_overlap(const DimVector& sizes, const DimVector& strides) {
  SmallVector<size_t, 8> order;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0) return false;
    if (sizes[i] > 1) order.push_back(i);
  }
  std::sort(order.begin(), order.end(),
            [&](size_t x, size_t y) { return strides[x] < strides[y]; });
  int64_t spanned = 0;
  for (size_t i : order) {
    if (strides[i] <= spanned) return true;
    spanned += strides[i] * (sizes[i] - 1);
  }
  return false;
}

// Calls f(offset, flat) for every element of a geometry, in row-major order.
template <typename F>
void for_each_offset(const DimVector& sizes, const DimVector& strides, int64_t offset, const F& f) {
  const int64_t n = numel_of(sizes);
  for (int64_t flat = 0; flat < n; ++flat) {
    int64_t rem = flat, off = offset;
    for (int64_t k = static_cast<int64_t>(sizes.size()) - 1; k >= 0; --k) {
      off += (rem % sizes[k]) * strides[k];
      rem /= sizes[k];
    }
    f(off, flat);
  }
}

}  // namespace

Tensor as_strided_backward(const Tensor& g, const DimVector& base_sizes,
                           const DimVector& base_strides, int64_t base_offset,
                           const DimVector& sizes, const DimVector& strides, int64_t offset) {
  // An empty input or view gets a fresh (written, not a view) gradient, as in PyTorch.
  if (numel_of(base_sizes) == 0 || numel_of(sizes) == 0) {
    Tensor out = zeros(base_sizes, g.dtype());
    out->bump_version();
    return out;
  }
  // A buffer standing for the memory both geometries cover: the view's
  // gradient is added into it, then read back through the input's geometry.
  auto extent = [](const DimVector& sz, const DimVector& st, int64_t off) {
    int64_t e = off;
    for (size_t i = 0; i < sz.size(); ++i) {
      if (sz[i] == 0) return off;
      e += (sz[i] - 1) * st[i];
    }
    return e + 1;
  };
  int64_t lo = std::min(base_offset, offset);
  int64_t hi =
      std::max(extent(base_sizes, base_strides, base_offset), extent(sizes, strides, offset));
  Tensor buffer = zeros({std::max<int64_t>(hi - lo, 0)}, g.dtype());
  const bool view_overlaps = may_self_overlap(sizes, strides);
  const bool base_overlaps = may_self_overlap(base_sizes, base_strides);
  if (autograd::GradMode::is_enabled()) {
    // create_graph: PyTorch's differentiable form. The view's size-1 dims are
    // squeezed out of its gradient and its stride-0 dims summed out (so a
    // broadcast view is no overlap); the rest is copied into the buffer through
    // the view's geometry, or index_add_ed where that geometry still overlaps;
    // where the input overlaps, each location is divided by its use count.
    Tensor gv = g;
    DimVector sz, st;
    for (int64_t i = static_cast<int64_t>(sizes.size()) - 1; i >= 0; --i) {
      const auto d = static_cast<size_t>(i);
      if (sizes[d] == 1) {
        gv = squeeze(gv, i);
      } else if (strides[d] == 0) {
        gv = sum(gv, {i}, false);
      } else {
        sz.push_back(sizes[d]);
        st.push_back(strides[d]);
      }
    }
    std::reverse(sz.begin(), sz.end());
    std::reverse(st.begin(), st.end());
    Tensor flat;
    auto locations = [&](const DimVector& lsz, const DimVector& lst, int64_t off) {
      if (!flat.defined())
        flat = arange(Scalar(int64_t(0)), Scalar(hi - lo), Scalar(int64_t(1)), ScalarType::Int64);
      return reshape(as_strided(flat, lsz, lst, off - lo), {-1});
    };
    if (may_self_overlap(sz, st)) {
      inplace_index_add(buffer, 0, locations(sz, st, offset), reshape(gv, {-1}));
    } else {
      inplace_copy(as_strided(buffer, sz, st, offset - lo), gv);
    }
    if (base_overlaps) {
      Tensor count = zeros_like(buffer);
      Tensor at = locations(base_sizes, base_strides, base_offset);
      inplace_index_add(count, 0, at, expand(ones({1}, g.dtype()), at.sizes()));
      inplace_binary(InplaceOp::Div, buffer, count);  // 0/0 only where the input cannot see
    }
    return as_strided(buffer, base_sizes, base_strides, base_offset - lo);
  }
  if (view_overlaps || base_overlaps) {
    // Several view elements on one location add up there; a location that
    // several input elements share splits its gradient evenly between them.
    Tensor gc = kernels::aligned(contiguous(g));
    GT_DISPATCH_FLOAT(g.dtype(), "as_strided_backward", [&] {
      scalar_t* b = buffer.data<scalar_t>();
      const scalar_t* src = gc.data<scalar_t>();
      for_each_offset(sizes, strides, offset - lo,
                      [&](int64_t off, int64_t flat) { b[off] += src[flat]; });
      if (base_overlaps) {
        std::vector<int64_t> count(static_cast<size_t>(std::max<int64_t>(hi - lo, 0)), 0);
        for_each_offset(base_sizes, base_strides, base_offset - lo,
                        [&](int64_t off, int64_t) { ++count[static_cast<size_t>(off)]; });
        for (size_t i = 0; i < count.size(); ++i)
          if (count[i] > 1) b[i] /= static_cast<scalar_t>(count[i]);
      }
    });
  } else {
    kernels::copy(alias_with_geometry(buffer, sizes, strides, offset - lo), g);
  }
  // As PyTorch's: the result is a view of the buffer, written once (twice
  // when shared locations were divided).
  buffer->bump_version();
  if (base_overlaps) buffer->bump_version();
  return as_strided(buffer, base_sizes, base_strides, base_offset - lo);
}

}  // namespace gradtrack::ops
