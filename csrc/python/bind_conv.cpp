// _C._conv: convolution and pooling entries for nn.functional. Python has
// already turned every argument into a list of ints of the right length.
#include <pybind11/stl.h>

#include "ops/nn/conv.h"
#include "ops/autocast.h"
#include "ops/memory_format.h"
#include "python/common.h"

namespace gradtrack::python {

namespace {

using Ints = std::vector<int64_t>;

DimVector dims(const Ints& v) {
  DimVector out;
  for (int64_t x : v) out.push_back(x);
  return out;
}

// A pool's values and indices, both laid out like `x` (NOTE [Channels-last results]).
py::tuple pair_like(const std::pair<Tensor, Tensor>& p, const Tensor& x) {
  return py::make_tuple(ops::follow_layout(p.first, x), ops::follow_layout(p.second, x));
}

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
    // NOTE [Channels-last results]: a channels-last input or weight, a channels-last result
    const bool channels_last = ops::is_channels_last(x) || ops::is_channels_last(w);
    Tensor y;
    if (b.is_none()) {
      y = ops::autocast::lowered(
          [&](const Tensor& x2, const Tensor& w2) { return ops::convolution(x2, w2, nullptr, a); },
          x, w);
    } else {
      y = ops::autocast::lowered([&](const Tensor& x2, const Tensor& w2,
                                     const Tensor& b2) { return ops::convolution(x2, w2, &b2, a); },
                                 x, w, b.cast<Tensor>());
    }
    if (channels_last) ops::make_channels_last(y);
    return y;
  });
  // torch.nn.grad's entry: the gradients `need` asks for, None for the others.
  c.def("convolution_backward",
        [](const Tensor& grad, const Tensor& x, const Tensor& w, const Ints& stride,
           const Ints& padding, const Ints& dilation, int64_t groups, std::array<bool, 3> need) {
          ops::ConvArgs a;
          a.stride = dims(stride);
          a.padding = dims(padding);
          a.dilation = dims(dilation);
          a.output_padding = DimVector(stride.size(), 0);
          a.pad_extra = DimVector(stride.size(), 0);
          a.groups = groups;
          ops::check_convolution_backward(grad, x, w, a);
          const std::array<Tensor, 3> g = ops::convolution_backward(grad, x, w, a, need);
          py::tuple out(3);
          for (size_t i = 0; i < 3; ++i) out[i] = g[i].defined() ? py::cast(g[i]) : py::none();
          return out;
        });
  c.def("max_pool2d_with_indices", [](const Tensor& x, const Ints& k, const Ints& s, const Ints& p,
                                      const Ints& d, bool ceil) {
    return pair_like(ops::max_pool2d_with_indices(x, pool_args(k, s, p, d, ceil, true, 0)), x);
  });
  c.def("avg_pool2d", [](const Tensor& x, const Ints& k, const Ints& s, const Ints& p, bool ceil,
                         bool include_pad, int64_t divisor) {
    return ops::follow_layout(
        ops::avg_pool2d(x, pool_args(k, s, p, {1, 1}, ceil, include_pad, divisor)), x);
  });
  c.def("adaptive_avg_pool2d", [](const Tensor& x, const Ints& size) {
    return ops::follow_layout(ops::adaptive_avg_pool2d(x, dims(size)), x);
  });
  c.def("adaptive_max_pool2d", [](const Tensor& x, const Ints& size) {
    return pair_like(ops::adaptive_max_pool2d(x, dims(size)), x);
  });
}

}  // namespace gradtrack::python
