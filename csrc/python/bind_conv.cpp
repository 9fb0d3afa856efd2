// _C._conv: convolution and pooling entries for nn.functional. Python has
// already turned every argument into a list of ints of the right length.
#include <pybind11/stl.h>

#include "ops/nn/conv.h"
#include "ops/autocast.h"
#include "python/common.h"

namespace gradtrack::python {

namespace {

using Ints = std::vector<int64_t>;

DimVector dims(const Ints& v) {
  DimVector out;
  for (int64_t x : v) out.push_back(x);
  return out;
}

py::tuple pair(const std::pair<Tensor, Tensor>& p) { return py::make_tuple(p.first, p.second); }

ops::PoolArgs pool_args(const Ints& k, const Ints& s, const Ints& p, const Ints& d, bool ceil,
                        bool include_pad, int64_t divisor) {
  ops::PoolArgs a;
  a.kernel = dims(k);
  a.stride = dims(s);
  a.padding = dims(p);
  a.dilation = dims(d);
  a.ceil_mode = ceil;
  a.count_include_pad = include_pad;
  a.divisor = divisor;
  return a;
}

}  // namespace

void init_conv(py::module_& m) {
  py::module_ c = m.def_submodule("_conv");
  c.def("convolution", [](const Tensor& x, const Tensor& w, py::handle b, const Ints& stride,
                          const Ints& padding, const Ints& dilation, bool transposed,
                          const Ints& output_padding, int64_t groups, const Ints& pad_extra) {
    ops::ConvArgs a;
    a.stride = dims(stride);
    a.padding = dims(padding);
    a.dilation = dims(dilation);
    a.output_padding = dims(output_padding);
    a.pad_extra = dims(pad_extra);
    a.transposed = transposed;
    a.groups = groups;
    if (b.is_none()) {
      return ops::autocast::lowered(
          [&](const Tensor& x2, const Tensor& w2) { return ops::convolution(x2, w2, nullptr, a); },
          x, w);
    }
    return ops::autocast::lowered(
        [&](const Tensor& x2, const Tensor& w2, const Tensor& b2) {
          return ops::convolution(x2, w2, &b2, a);
        },
        x, w, b.cast<Tensor>());
  });
  c.def("max_pool2d_with_indices",
        [](const Tensor& x, const Ints& k, const Ints& s, const Ints& p, const Ints& d, bool ceil) {
          return pair(ops::max_pool2d_with_indices(x, pool_args(k, s, p, d, ceil, true, 0)));
        });
  c.def("avg_pool2d", [](const Tensor& x, const Ints& k, const Ints& s, const Ints& p, bool ceil,
                         bool include_pad, int64_t divisor) {
    return ops::avg_pool2d(x, pool_args(k, s, p, {1, 1}, ceil, include_pad, divisor));
  });
  c.def("adaptive_avg_pool2d",
        [](const Tensor& x, const Ints& size) { return ops::adaptive_avg_pool2d(x, dims(size)); });
  c.def("adaptive_max_pool2d", [](const Tensor& x, const Ints& size) {
    return pair(ops::adaptive_max_pool2d(x, dims(size)));
  });
}

}  // namespace gradtrack::python
