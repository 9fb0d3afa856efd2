// _C._bench: reference loops for the benchmark runner (NOTE [Benchmark
// floors], kernels/bench_floor.h). Private; nothing in gradtrack uses them.
#include "kernels/bench_floor.h"
#include "kernels/parallel.h"
#include "python/common.h"

namespace gradtrack::python {

void init_bench(py::module_& m) {
  py::module_ b = m.def_submodule("_bench", "benchmark reference loops (private)");
  b.def("read_floor", [](const Tensor& t) {
    GT_CHECK(t.dtype() == ScalarType::Float32 && t.is_contiguous(),
             "read_floor: expected a contiguous float32 tensor");
    py::gil_scoped_release nogil;
    return kernels::bench::read_floor(t.data<float>(), t.numel());
  });
  b.def(
      "fma_peak",
      [](double flops) {
        py::gil_scoped_release nogil;
        return kernels::bench::fma_peak(flops);
      },
      py::arg("flops"));
  b.def("fma_lanes", [] { return kernels::bench::fma_lanes(); });
}

}  // namespace gradtrack::python
