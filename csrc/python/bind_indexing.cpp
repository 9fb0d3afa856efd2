// gather, scatter, scatter_add, index_select and masked_fill as Tensor methods and
// gradtrack.* functions (indexing with [] is parsed in indexing.cpp).
#include "python/tensor_methods.h"

namespace gradtrack::python {

using namespace methods;  // NOLINT: the shared binding helpers

void init_indexing(Cls& cls, py::module_& m) {
  both(
      cls, m, "gather",
      [](const Tensor& a, int64_t d, const Tensor& i) { return ops::gather(a, d, i); },
      py::arg("dim"), py::arg("index"));
  both(
      cls, m, "scatter_add",
      [](const Tensor& a, int64_t d, const Tensor& i, const Tensor& s) {
        return ops::scatter_add(a, d, i, s);
      },
      py::arg("dim"), py::arg("index"), py::arg("src"));
  both(
      cls, m, "scatter",
      [](const Tensor& a, int64_t d, const Tensor& i, py::handle src, py::handle value,
         py::handle reduce) {
        GT_CHECK_IMPL(reduce.is_none(), "gradtrack: scatter with reduce= is not implemented");
        return std::visit([&](const auto& v) { return ops::scatter(a, d, i, v); },
                          scatter_source(src.is_none() ? value : src, "scatter"));
      },
      // value is keyword-only: torch's overloads take src or value third.
      py::arg("dim"), py::arg("index"), py::arg("src") = py::none(), py::kw_only(),
      py::arg("value") = py::none(), py::arg("reduce") = py::none());
  both(
      cls, m, "index_select",
      [](const Tensor& a, int64_t d, const Tensor& i) { return ops::index_select(a, d, i); },
      py::arg("dim"), py::arg("index"));
  both(
      cls, m, "masked_fill",
      [](const Tensor& a, const Tensor& mask, py::handle value) {
        bool tensor_value = is_tensor(value);
        auto number = tensor_value ? std::nullopt : to_scalar(value);
        if (!tensor_value && !number) {
          throw InvalidArguments{"masked_fill",
                                 {"Tensor mask, Tensor value", "Tensor mask, Number value"},
                                 std::nullopt};
        }
        if (number) check_fits(*number, a.dtype());
        Tensor v = tensor_value ? value.cast<Tensor>() : ops::scalar_tensor(*number, a.dtype());
        return ops::masked_fill(a, mask, v, tensor_value);
      },
      py::arg("mask"), py::arg("value"));
}

}  // namespace gradtrack::python
