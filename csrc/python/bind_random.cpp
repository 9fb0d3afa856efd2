// _C._random: torch.Generator, the default generator and its seed/state
// functions, and the random fills beyond normal_/uniform_.
#include <cstring>

#include "kernels/gamma_draws.h"
#include "kernels/kernels.h"
#include "python/arg_errors.h"
#include "python/generator_arg.h"

namespace gradtrack::python {

Generator* generator_arg(py::handle gen) {
  if (gen.is_none()) return nullptr;
  GT_CHECK_TYPE(py::isinstance<Generator>(gen), "expected a torch.Generator, but got ",
                type_name(gen));
  return gen.cast<Generator*>();
}

namespace {

// torch's seed conversion: any integer in [-2^63, 2^64), negatives wrapping.
uint64_t seed_arg(py::handle seed) {
  py::int_ v = py::reinterpret_steal<py::int_>(PyNumber_Index(seed.ptr()));
  if (!v) throw py::error_already_set();
  unsigned long long u = PyLong_AsUnsignedLongLong(v.ptr());
  if (!PyErr_Occurred()) return u;
  PyErr_Clear();
  long long s = PyLong_AsLongLong(v.ptr());
  if (!PyErr_Occurred()) return static_cast<uint64_t>(s);
  PyErr_Clear();
  throw ValueError("Overflow when unpacking long long");
}

Tensor state_tensor(Generator& g) {
  const std::vector<uint8_t> bytes = g.get_state();
  Tensor t = empty({static_cast<int64_t>(bytes.size())}, ScalarType::UInt8);
  std::memcpy(t.raw(), bytes.data(), bytes.size());
  return t;
}

void restore_state(Generator& g, py::handle state) {
  GT_CHECK_TYPE(
      py::isinstance<TensorImpl>(state) && state.cast<Tensor>().dtype() == ScalarType::UInt8,
      "RNG state must be a torch.ByteTensor");
  Tensor t = state.cast<Tensor>();
  GT_CHECK(t.is_contiguous(), "RNG state must be contiguous");
  g.set_state(reinterpret_cast<const uint8_t*>(t.raw()), static_cast<size_t>(t.numel()));
}

void bind_generator(py::module_& sub) {
  py::class_<Generator, std::shared_ptr<Generator>>(sub, "Generator")
      .def(py::init([](py::handle device) {
             if (!device.is_none()) {
               std::string d = py::str(device);
               GT_CHECK(d.rfind("cpu", 0) == 0, "gradtrack runs on the CPU only, got device '", d,
                        "'");
             }
             return std::make_shared<Generator>();
           }),
           py::arg("device") = "cpu")
      .def(
          "manual_seed",
          [](Generator& g, py::handle seed) -> Generator& {
            g.manual_seed(seed_arg(seed));
            return g;
          },
          py::arg("seed"), py::return_value_policy::reference_internal)
      .def("seed", &Generator::seed)
      .def("initial_seed", &Generator::initial_seed)
      .def("get_state", [](Generator& g) { return state_tensor(g); })
      .def(
          "set_state",
          [](Generator& g, py::handle s) -> Generator& {
            restore_state(g, s);
            return g;
          },
          py::arg("new_state"), py::return_value_policy::reference_internal)
      .def_property_readonly("device", [](py::handle) {
        return py::module_::import("gradtrack").attr("device")("cpu");
      });
  sub.attr("default_generator") = default_generator_ptr();
}

void bind_fills(py::module_& sub) {
  using G = py::handle;
  sub.def("bernoulli_scalar_", [](const Tensor& s, double p, G g) {
    return ops::inplace_bernoulli(s, p, generator_arg(g));
  });
  sub.def("bernoulli_tensor_", [](const Tensor& s, const Tensor& p, G g) {
    return ops::inplace_bernoulli(s, p, generator_arg(g));
  });
  sub.def("bernoulli", [](const Tensor& s, G g) { return ops::bernoulli(s, generator_arg(g)); });
  sub.def("exponential_", [](const Tensor& s, double l, G g) {
    return ops::inplace_exponential(s, l, generator_arg(g));
  });
  sub.def("rrelu_noise", [](const Tensor& x, double lower, double upper, G g) {
    return ops::rrelu_noise(x, lower, upper, generator_arg(g));
  });
  sub.def("geometric_", [](const Tensor& s, double p, G g) {
    return ops::inplace_geometric(s, p, generator_arg(g));
  });
  sub.def("cauchy_", [](const Tensor& s, double m, double sg, G g) {
    return ops::inplace_cauchy(s, m, sg, generator_arg(g));
  });
  sub.def("log_normal_", [](const Tensor& s, double m, double sd, G g) {
    return ops::inplace_log_normal(s, m, sd, generator_arg(g));
  });
  sub.def("random_",
          [](const Tensor& s, int64_t from, std::optional<int64_t> to, int variant, G g) {
            return ops::inplace_random(s, from, to, variant, generator_arg(g));
          });
  sub.def("multinomial", [](const Tensor& s, int64_t n, bool replacement, G g) {
    return ops::multinomial(s, n, replacement, generator_arg(g));
  });
  sub.def("normal_", [](const Tensor& s, double mean, double std, G g) {
    return ops::inplace_normal(s, mean, std, generator_arg(g));
  });
  sub.def("uniform_", [](const Tensor& s, double lo, double hi, G g) {
    return ops::inplace_uniform(s, lo, hi, generator_arg(g));
  });
  // NOTE [Gamma draws] (kernels/gamma_draws.h); the Python side checks and records
  const auto gen_of = [](G g) -> Generator& {
    Generator* p = generator_arg(g);
    return p ? *p : default_generator();
  };
  sub.def("standard_gamma",
          [gen_of](const Tensor& a, G g) { return kernels::standard_gamma(a, gen_of(g)); });
  sub.def("sample_dirichlet",
          [gen_of](const Tensor& a, G g) { return kernels::sample_dirichlet(a, gen_of(g)); });
  sub.def("standard_gamma_grad", &kernels::standard_gamma_grad);
  sub.def("dirichlet_grad", &kernels::dirichlet_grad);
}

}  // namespace

void init_random(py::module_& m) {
  py::module_ sub = m.def_submodule("_random");
  bind_generator(sub);
  bind_fills(sub);
  sub.def("manual_seed", [](py::handle seed) {
    default_generator().manual_seed(seed_arg(seed));
    return default_generator_ptr();
  });
  sub.def("get_rng_state", [] { return state_tensor(default_generator()); });
  sub.def("set_rng_state", [](py::handle s) { restore_state(default_generator(), s); });
}

}  // namespace gradtrack::python
