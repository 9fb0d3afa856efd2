// _C._autocast: the CPU autocast state that gradtrack/amp opens and closes, and the
// casts of the float32 op list (gradtrack/_autocast.py). See ops/autocast.cpp.
#include "ops/autocast.h"
#include "python/common.h"

namespace gradtrack::python {

void init_autocast(py::module_& m) {
  namespace ac = ops::autocast;
  py::module_ a = m.def_submodule("_autocast");
  a.def("enabled", [] { return ac::enabled(); });
  a.def("set_state", [](bool enabled, py::handle dtype, bool cache) {
    ac::State& s = ac::state();
    s.enabled = enabled;
    s.dtype = to_scalar_type(dtype);
    s.cache = cache;
  });
  a.def("state", [] {
    const ac::State& s = ac::state();
    return py::make_tuple(s.enabled, dtype_object(s.dtype), s.cache);
  });
  a.def("lower", &ac::lower);
  a.def("to_float32", &ac::to_float32);
  a.def("clear_cache", &ac::clear_cache);
}

}  // namespace gradtrack::python
