// Reductions as Tensor methods and gradtrack.* functions.
#include "ops/autocast.h"
#include "python/tensor_methods.h"

namespace gradtrack::python {

namespace {

using namespace methods;  // NOLINT: the shared binding helpers
using ops::Cmp;
using ops::Logic;

void bind_reductions(Cls& cls, py::module_& m) {
  both(
      cls, m, "sum",
      [](const Tensor& a, py::handle dim, bool keepdim, py::handle dtype) {
        return ops::sum(a, reduce_dims(dim, "sum"), keepdim, optional_dtype(dtype), !dim.is_none());
      },
      py::arg("dim") = py::none(), py::arg("keepdim") = false, py::kw_only(),
      py::arg("dtype") = py::none());
  both(
      cls, m, "mean",
      [](const Tensor& a, py::handle dim, bool keepdim, py::handle dtype) {
        return ops::mean(a, reduce_dims(dim, "mean"), keepdim, optional_dtype(dtype),
                         !dim.is_none());
      },
      py::arg("dim") = py::none(), py::arg("keepdim") = false, py::kw_only(),
      py::arg("dtype") = py::none());
  auto extreme = [](bool is_max) {
    return [is_max](const Tensor& a, py::handle dim, bool keepdim) -> py::object {
      if (dim.is_none()) return py::cast(is_max ? ops::max(a) : ops::min(a));
      if (is_tensor(dim))
        return py::cast(is_max ? ops::maximum(a, dim.cast<Tensor>())
                               : ops::minimum(a, dim.cast<Tensor>()));
      int64_t d = int_arg(dim, is_max ? "max" : "min", "dim", 1);
      auto r = is_max ? ops::max(a, d, keepdim) : ops::min(a, d, keepdim);
      return named_pair(is_max ? "max" : "min", r.first, r.second);
    };
  };
  // Bound as the methods themselves: a Python wrapper costed a.max() a third
  // of its time at 1K elements.
  cls.def("max", extreme(true), py::arg("dim") = py::none(), py::arg("keepdim") = false);
  cls.def("min", extreme(false), py::arg("dim") = py::none(), py::arg("keepdim") = false);
  both(
      cls, m, "argmax",
      [](const Tensor& a, py::handle dim, bool keepdim) {
        return ops::argmax(a, opt_dim(dim, "argmax"), keepdim);
      },
      py::arg("dim") = py::none(), py::arg("keepdim") = false);
  both(
      cls, m, "argmin",
      [](const Tensor& a, py::handle dim, bool keepdim) {
        return ops::argmin(a, opt_dim(dim, "argmin"), keepdim);
      },
      py::arg("dim") = py::none(), py::arg("keepdim") = false);
  both(
      cls, m, "amax",
      [](const Tensor& a, py::handle dim, bool keepdim) {
        return ops::amax(a, dims_arg(dim, "amax"), keepdim);
      },
      py::arg("dim") = py::tuple(), py::arg("keepdim") = false);
  both(
      cls, m, "any",
      [](const Tensor& a, py::handle dim, bool keepdim) {
        return ops::any(a, opt_dim(dim, "any"), keepdim);
      },
      py::arg("dim") = py::none(), py::arg("keepdim") = false);
  both(
      cls, m, "all",
      [](const Tensor& a, py::handle dim, bool keepdim) {
        return ops::all(a, opt_dim(dim, "all"), keepdim);
      },
      py::arg("dim") = py::none(), py::arg("keepdim") = false);
  both(
      cls, m, "prod",
      [](const Tensor& in, py::handle dim, bool keepdim, py::handle dtype) {
        const Tensor a = ops::autocast::to_float32(in);  // on autocast's float32 list
        if (dim.is_none()) {
          auto dt = optional_dtype(dtype);
          return ops::prod_all(dt ? ops::to_dtype(a, *dt) : a);
        }
        return ops::prod(a, int_arg(dim, "prod", "dim", 1), keepdim, optional_dtype(dtype));
      },
      py::arg("dim") = py::none(), py::arg("keepdim") = false, py::kw_only(),
      py::arg("dtype") = py::none());
}

}  // namespace

void init_reduction(Cls& cls, py::module_& m) { bind_reductions(cls, m); }

}  // namespace gradtrack::python
