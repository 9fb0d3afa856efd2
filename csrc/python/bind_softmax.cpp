// softmax and log_softmax as Tensor methods and gradtrack.* functions (their
// torch.nn.functional forms are in gradtrack/nn).
#include "python/tensor_methods.h"

namespace gradtrack::python {

using namespace methods;  // NOLINT: the shared binding helpers

void init_softmax(Cls& cls, py::module_& m) {
  both(
      cls, m, "softmax",
      [](const Tensor& a, int64_t d, py::handle dtype) {
        auto dt = optional_dtype(dtype);
        return ops::softmax(dt ? ops::to_dtype(a, *dt) : a, d);
      },
      py::arg("dim"), py::kw_only(), py::arg("dtype") = py::none());
  both(
      cls, m, "log_softmax",
      [](const Tensor& a, int64_t d, py::handle dtype) {
        auto dt = optional_dtype(dtype);
        return ops::log_softmax(dt ? ops::to_dtype(a, *dt) : a, d);
      },
      py::arg("dim"), py::kw_only(), py::arg("dtype") = py::none());
}

}  // namespace gradtrack::python
