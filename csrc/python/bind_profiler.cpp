// _C._profiler: the backward timings the engine records while gradtrack.profiler runs.
#include "autograd/profiling.h"
#include "core/allocation_count.h"
#include "python/common.h"

namespace gradtrack::python {

void init_profiler(py::module_& m) {
  namespace prof = autograd::profiling;
  py::module_ p = m.def_submodule("_profiler");
  p.def("start", &prof::start, py::arg("record_shapes") = false);
  p.def("stop", [] {
    py::list out;
    for (const prof::Event& e : prof::stop()) {
      py::list shapes;
      for (const std::vector<int64_t>& s : e.shapes) shapes.append(py::cast(s));
      out.append(py::make_tuple(e.name, e.start_ns, e.end_ns, e.thread, shapes, e.memory));
    }
    return out;
  });
  p.def("count_allocations", &allocation_count::set_counting,
        "Starts or stops counting the bytes of tensor memory allocated less those freed.");
  p.def("allocated_bytes", &allocation_count::bytes,
        "The bytes counted since counting first started (allocated less freed).");
  p.def("now_ns", &prof::now_ns);
}

}  // namespace gradtrack::python
