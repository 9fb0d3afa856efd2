// Factories (zeros, ones, rand, arange, ..., the *_like family) and the seed:
// module functions of _C that gradtrack re-exports as gradtrack.zeros, ...
#include <pybind11/numpy.h>

#include "autograd/variable.h"
#include "kernels/kernels.h"
#include "python/arg_errors.h"
#include "python/common.h"
#include "python/generator_arg.h"

namespace gradtrack::python {

namespace {

namespace ag = autograd;

// torch.zeros(..., requires_grad=True) and friends.
Tensor finish_factory(Tensor t, bool requires_grad) {
  if (requires_grad) {
    GT_CHECK(is_floating(t.dtype()),
             "Only Tensors of floating point and complex dtype can require gradients");
    ag::set_requires_grad(t, true);
  }
  return t;
}

// full_like's value: a number that `dtype` can hold.
Scalar fill_value(py::handle value, ScalarType dtype) {
  auto v = to_scalar(value);
  GT_CHECK_TYPE(v.has_value(),
                "full_like(): argument 'fill_value' (position 2) must be Number, not ",
                type_name(value));
  check_fits(*v, dtype);
  return *v;
}

ScalarType dtype_or(py::handle dt, ScalarType fallback) {
  auto d = optional_dtype(dt);
  return d ? *d : fallback;
}

template <typename F>
void factory(py::module_& m, const char* name, F make) {
  m.def(
      name,
      [make, name](const py::args& size, py::handle dtype, bool rg, py::handle device, py::handle) {
        check_device(device);
        GT_CHECK_TYPE(size.size() > 0, name,
                      "() missing 1 required positional arguments: \"size\"");
        DimVector sizes = parse_sizes(size, name);
        ScalarType dt;
        try {
          dt = dtype_or(dtype, default_float_type());
        } catch (const TypeError& e) {
          throw TypeError(std::string(name) + "(): " + e.what());
        }
        return finish_factory(make(sizes, dt), rg);
      },
      py::kw_only(), py::arg("dtype") = py::none(), py::arg("requires_grad") = false,
      py::arg("device") = py::none(), py::arg("out") = py::none());
}

// rand / randn: the sized factories plus `generator=`.
template <typename F>
void random_factory(py::module_& m, const char* name, F make) {
  m.def(
      name,
      [make, name](const py::args& size, py::handle gen, py::handle dtype, bool rg,
                   py::handle device, py::handle) {
        check_device(device);
        GT_CHECK_TYPE(size.size() > 0, name,
                      "() missing 1 required positional arguments: \"size\"");
        DimVector sizes = parse_sizes(size, name);
        ScalarType dt;
        try {
          dt = dtype_or(dtype, default_float_type());
        } catch (const TypeError& e) {
          throw TypeError(std::string(name) + "(): " + e.what());
        }
        return finish_factory(make(sizes, dt, generator_arg(gen)), rg);
      },
      py::kw_only(), py::arg("generator") = py::none(), py::arg("dtype") = py::none(),
      py::arg("requires_grad") = false, py::arg("device") = py::none(),
      py::arg("out") = py::none());
}

void bind_factories(py::module_& m) {
  factory(m, "zeros", [](const DimVector& s, ScalarType dt) {
    for (int64_t d : s) GT_CHECK(d >= 0, "zeros: Dimension size must be non-negative.");
    return ops::zeros(s, dt);
  });
  factory(m, "ones", [](const DimVector& s, ScalarType dt) { return ops::ones(s, dt); });
  factory(m, "empty", [](const DimVector& s, ScalarType dt) { return empty(s, dt); });
  m.def(
      "empty_strided",
      [](py::handle size, py::handle stride, py::handle dtype, bool rg, py::handle device) {
        check_device(device);
        DimVector sizes = int_list(size, "empty_strided", "size", 1);
        DimVector strides = int_list(stride, "empty_strided", "stride", 2);
        GT_CHECK(sizes.size() == strides.size(), "dimensionality of sizes (", sizes.size(),
                 ") must match dimensionality of strides (", strides.size(), ")");
        for (int64_t d : sizes)
          GT_CHECK(d >= 0, "Trying to create tensor with negative dimension ", d, ": ",
                   shape_str(sizes));
        for (int64_t st : strides)
          GT_CHECK(st >= 0, "Storage size calculation overflowed with sizes=", shape_str(sizes),
                   " and strides=", shape_str(strides));
        return finish_factory(empty_strided(sizes, strides, dtype_or(dtype, default_float_type())),
                              rg);
      },
      py::arg("size"), py::arg("stride"), py::kw_only(), py::arg("dtype") = py::none(),
      py::arg("requires_grad") = false, py::arg("device") = py::none());
  random_factory(m, "rand", [](const DimVector& s, ScalarType dt, Generator* g) {
    return ops::rand(s, dt, g);
  });
  random_factory(m, "randn", [](const DimVector& s, ScalarType dt, Generator* g) {
    return ops::randn(s, dt, g);
  });
  // `device=` is taken everywhere torch takes it, as tensor() and the sized
  // factories do: gradtrack computes on the CPU only.
  m.def(
      "full",
      [](py::handle size, py::handle value, py::handle dtype, bool rg, py::handle device) {
        check_device(device);
        DimVector sizes = int_list(size, "full", "size", 1);
        auto v = to_scalar(value);
        GT_CHECK_TYPE(v.has_value(),
                      "full(): argument 'fill_value' (position 2) must be Number, not ",
                      type_name(value));
        ScalarType dt = dtype_or(dtype, v->default_dtype());
        check_fits(*v, dt);
        return finish_factory(ops::full(sizes, *v, dt), rg);
      },
      py::arg("size"), py::arg("fill_value"), py::kw_only(), py::arg("dtype") = py::none(),
      py::arg("requires_grad") = false, py::arg("device") = py::none());
  m.def(
      "tensor",
      [](py::handle data, py::handle dtype, bool rg, py::handle device) {
        check_device(device);
        return finish_factory(tensor_from_data(data, optional_dtype(dtype)), rg);
      },
      py::arg("data"), py::kw_only(), py::arg("dtype") = py::none(),
      py::arg("requires_grad") = false, py::arg("device") = py::none());
  // The array's memory is reached outside the tensor's counter (NOTE [Silent writes]).
  m.def(
      "from_numpy",
      [](py::handle a) {
        Tensor t = tensor_from_numpy(a);
        silent_writes::note_alias(t->storage(), silent_writes::kFromNumpy);
        return t;
      },
      py::arg("ndarray"));
  m.def("_from_dlpack_array", [](py::handle a) {
    Tensor t = tensor_from_numpy(a, true, false);
    silent_writes::note_alias(t->storage(), silent_writes::kDlpack);
    return t;
  });
  m.def(
      "arange",
      [](const py::args& args, py::handle dtype, bool rg, py::handle device) {
        check_device(device);
        GT_CHECK_TYPE(args.size() >= 1 && args.size() <= 3,
                      "arange() received an invalid combination of arguments");
        std::vector<Scalar> v;
        for (py::handle h : args) {
          auto s = to_scalar(h);
          if (!s && py::isinstance<TensorImpl>(h)) {
            Tensor t = h.cast<Tensor>();
            s = is_floating(t.dtype())
                    ? Scalar(kernels::load<double>(ops::to_dtype(t, ScalarType::Float64).raw()))
                    : Scalar(kernels::load<int64_t>(ops::to_dtype(t, ScalarType::Int64).raw()));
          }
          GT_CHECK_TYPE(s.has_value(), "arange(): argument 'end' must be Number");
          v.push_back(*s);
        }
        Scalar start = v.size() > 1 ? v[0] : Scalar(int64_t(0));
        Scalar end = v.size() > 1 ? v[1] : v[0];
        Scalar step = v.size() > 2 ? v[2] : Scalar(int64_t(1));
        return finish_factory(ops::arange(start, end, step, optional_dtype(dtype)), rg);
      },
      py::kw_only(), py::arg("dtype") = py::none(), py::arg("requires_grad") = false,
      py::arg("device") = py::none());
  m.def(
      "linspace",
      [](double start, double end, int64_t steps, py::handle dtype, bool rg, py::handle device) {
        check_device(device);
        return finish_factory(
            ops::linspace(start, end, steps, dtype_or(dtype, default_float_type())), rg);
      },
      py::arg("start"), py::arg("end"), py::arg("steps"), py::kw_only(),
      py::arg("dtype") = py::none(), py::arg("requires_grad") = false,
      py::arg("device") = py::none());
  m.def(
      "eye",
      [](int64_t n, py::handle mm, py::handle dtype, bool rg, py::handle device) {
        check_device(device);
        int64_t cols = mm.is_none() ? n : int_arg(mm, "eye", "m", 2);
        return finish_factory(ops::eye(n, cols, dtype_or(dtype, default_float_type())), rg);
      },
      py::arg("n"), py::arg("m") = py::none(), py::kw_only(), py::arg("dtype") = py::none(),
      py::arg("requires_grad") = false, py::arg("device") = py::none());
  m.def(
      "randint",
      [](const py::args& args, py::handle gen, py::handle dtype, bool rg, py::handle device) {
        check_device(device);
        GT_CHECK_TYPE(args.size() == 2 || args.size() == 3,
                      "randint() received an invalid combination of arguments");
        int n = static_cast<int>(args.size());
        int64_t low = n == 3 ? int_arg(args[0], "randint", "low", 1) : 0;
        int64_t high = int_arg(args[n - 2], "randint", "high", n - 1);
        DimVector size = int_list(args[n - 1], "randint", "size", n);
        return finish_factory(
            ops::randint(low, high, size, dtype_or(dtype, ScalarType::Int64), generator_arg(gen)),
            rg);
      },
      py::kw_only(), py::arg("generator") = py::none(), py::arg("dtype") = py::none(),
      py::arg("requires_grad") = false, py::arg("device") = py::none());
  m.def(
      "randperm",
      [](int64_t n, py::handle gen, py::handle dtype, bool rg, py::handle device) {
        check_device(device);
        return finish_factory(
            ops::randperm(n, dtype_or(dtype, ScalarType::Int64), generator_arg(gen)), rg);
      },
      py::arg("n"), py::kw_only(), py::arg("generator") = py::none(), py::arg("dtype") = py::none(),
      py::arg("requires_grad") = false, py::arg("device") = py::none());
  m.def(
      "_like",
      [](const std::string& kind, py::handle input, py::handle dtype, bool rg, py::handle fill,
         py::handle gen) {
        // torch's parser names the public function and its `input`
        GT_CHECK_TYPE(py::isinstance<TensorImpl>(input), kind, "_like(): argument 'input' ",
                      "(position 1) must be Tensor, not ", type_name(input));
        const Tensor a = input.cast<Tensor>();
        ScalarType dt = dtype_or(dtype, a.dtype());
        // The new tensor keeps `a`'s memory layout (memory_format=preserve).
        Tensor t = ops::empty_like(a, dt);
        if (kind == "zeros")
          kernels::fill(t, Scalar(0));
        else if (kind == "ones")
          kernels::fill(t, Scalar(1));
        else if (kind == "full")
          kernels::fill(t, fill_value(fill, dt));
        else if (kind == "rand")
          ops::inplace_uniform(t, 0, 1, generator_arg(gen));
        else if (kind == "randn")
          ops::inplace_normal(t, 0, 1, generator_arg(gen));
        else if (kind != "empty")
          throw ValueError("unknown factory " + kind);
        if (kind == "rand" || kind == "randn")
          t->set_version_counter(std::make_shared<VersionCounter>());
        return finish_factory(t, rg);
      },
      py::arg("kind"), py::arg("a"), py::arg("dtype"), py::arg("rg"), py::arg("fill"),
      py::arg("generator") = py::none());
  // torch.broadcast_tensors' shape rule (infer_size), for the Python layer.
  m.def("_broadcast_shape", [](const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
    DimVector out = broadcast_shapes(DimVector(a.begin(), a.end()), DimVector(b.begin(), b.end()));
    return std::vector<int64_t>(out.begin(), out.end());
  });
}

}  // namespace

void init_factories(py::module_& m) { bind_factories(m); }

}  // namespace gradtrack::python
