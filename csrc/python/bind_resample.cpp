// _C._resample: padding, interpolation, cdist and searchsorted. Their public
// functions (argument names, checks and PyTorch's messages) are in
// gradtrack/nn/_resample.py and gradtrack/_search_ops.py; these take parsed
// arguments.
#include <pybind11/stl.h>

#include <cmath>

#include "ops/resample.h"
#include "ops/memory_format.h"
#include "python/common.h"

namespace gradtrack::python {

void init_resample(py::module_& m) {
  py::module_ r = m.def_submodule("_resample");
  // mode: ResampleMode's number; scales: one per resampled dim, None for none.
  r.def("resample", [](const Tensor& x, int64_t mode, py::handle out_sizes, py::handle pads,
                       const std::vector<std::optional<double>>& scales, bool align_corners) {
    ops::ResampleSpec s;
    s.mode = ops::ResampleMode(mode);
    s.out_sizes = to_dims(out_sizes);
    s.pads = to_dims(pads);
    for (size_t j = 0; j < scales.size() && j < 3; ++j) s.scales[j] = scales[j].value_or(NAN);
    s.align_corners = align_corners;
    return ops::follow_layout(ops::resample(x, s), x);  // NOTE [Channels-last results]
  });
  r.def("constant_pad_nd", [](const Tensor& x, py::handle pad, py::handle value) {
    std::optional<Scalar> v = to_scalar(value);
    return ops::follow_layout(ops::constant_pad_nd(x, to_dims(pad), v.value_or(Scalar(0.0))), x);
  });
  r.def("cdist", [](const Tensor& x1, const Tensor& x2, double p, int64_t mode) {
    return ops::cdist(x1, x2, p, mode);
  });
  r.def("searchsorted", [](const Tensor& boundaries, const Tensor& values, bool out_int32,
                           bool right, std::optional<Tensor> sorter) {
    return ops::searchsorted(boundaries, values, out_int32, right, sorter.value_or(Tensor()));
  });
}

}  // namespace gradtrack::python
