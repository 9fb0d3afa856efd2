// Forward-mode AD from Python: dual levels, make_dual, unpack_dual, as
// _C._forward_ad (NOTE [Forward-mode AD]).
#include "autograd/forward_ad.h"
#include "python/common.h"

namespace gradtrack::python {

namespace fw = autograd::forward_ad;

void init_forward_ad(py::module_& root) {
  py::module_ m = root.def_submodule("_forward_ad", "forward-mode AD");
  m.def("enter_dual_level", [] { return fw::enter_level(); });
  m.def("exit_dual_level", [](int64_t level) { fw::exit_level(level); });
  m.def("current_level", [] { return fw::g_level.load(); });
  m.def("make_dual", [](const Tensor& primal, const Tensor& tangent, int64_t level) {
    return fw::make_dual(primal, tangent, level);
  });
  // (primal view, tangent or None)
  m.def("unpack_dual", [](const Tensor& t) -> py::tuple {
    Tensor tan = fw::tangent(t);
    if (!tan.defined()) return py::make_tuple(t, py::none());
    return py::make_tuple(fw::primal_view(t), tan);
  });
  m.def("tangent", [](const Tensor& t) -> py::object {
    Tensor tan = fw::tangent(t);
    return tan.defined() ? py::cast(tan) : py::none();
  });
}

}  // namespace gradtrack::python
