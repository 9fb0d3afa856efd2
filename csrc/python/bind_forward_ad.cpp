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
    // Inside a custom Function's forward forward AD is off: no tangent shows.
    if (!tan.defined() || fw::propagation_off()) return py::make_tuple(t, py::none());
    return py::make_tuple(fw::primal_view(t), tan);
  });
  // Custom Functions (autograd/function.py): forward and jvp run without
  // propagation; the outputs' tangents are set from the user's jvp.
  m.def("_set_propagation_off", [](bool off) { return fw::set_propagation_off(off); });
  m.def("_set_tangent", [](const Tensor& t, const Tensor& tangent) {
    GT_CHECK(t.sizes() == tangent.sizes(),
             "Trying to set a forward gradient that has a different size than that of the "
             "original Tensor, this is not supported. Tensor is of size ",
             shape_str(t.sizes()), " while the given forward gradient is of size ",
             shape_str(tangent.sizes()), ".");
    fw::set_tangent(t, tangent);
  });
  m.def("tangent", [](const Tensor& t) -> py::object {
    Tensor tan = fw::tangent(t);
    return tan.defined() ? py::cast(tan) : py::none();
  });
}

}  // namespace gradtrack::python
