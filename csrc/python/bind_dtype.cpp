// gradtrack.dtype: one singleton per ScalarType, printed as `gradtrack.float32`.
#include "python/common.h"

namespace gradtrack::python {

namespace {

struct DType {
  ScalarType type;
};

// Raw references, leaked on purpose: no destructor may run after Python exits.
PyObject* g_dtypes[kNumScalarTypes];

}  // namespace

py::object dtype_object(ScalarType t) {
  return py::reinterpret_borrow<py::object>(g_dtypes[static_cast<int>(t)]);
}

ScalarType to_scalar_type(py::handle h) {
  if (py::isinstance<DType>(h)) return h.cast<const DType&>().type;
  // Python's builtins float/int/bool are accepted as in PyTorch.
  if (h.ptr() == reinterpret_cast<PyObject*>(&PyFloat_Type)) return ScalarType::Float64;
  if (h.ptr() == reinterpret_cast<PyObject*>(&PyLong_Type)) return ScalarType::Int64;
  if (h.ptr() == reinterpret_cast<PyObject*>(&PyBool_Type)) return ScalarType::Bool;
  // A dtype gradtrack names but has no tensors of (complex64 & co., _dtypes.py).
  if (py::hasattr(h, "_no_tensors_message"))
    throw TypeError(py::str(h.attr("_no_tensors_message")).cast<std::string>());
  throw TypeError("argument 'dtype' must be gradtrack.dtype, not " +
                  std::string(py::str(py::type::handle_of(h).attr("__name__"))));
}

bool is_dtype_object(py::handle h) {
  return py::isinstance<DType>(h) || h.ptr() == reinterpret_cast<PyObject*>(&PyFloat_Type) ||
         h.ptr() == reinterpret_cast<PyObject*>(&PyLong_Type) ||
         h.ptr() == reinterpret_cast<PyObject*>(&PyBool_Type);
}

std::optional<ScalarType> optional_dtype(py::handle h) {
  if (!h || h.is_none()) return std::nullopt;
  return to_scalar_type(h);
}

void init_dtype(py::module_& m) {
  py::class_<DType> cls(m, "dtype");
  cls.def_property_readonly("is_floating_point", [](const DType& d) { return is_floating(d.type); })
      .def_property_readonly("is_complex", [](const DType&) { return false; })
      .def_property_readonly(
          "is_signed",
          [](const DType& d) { return d.type != ScalarType::Bool && d.type != ScalarType::UInt8; })
      .def_property_readonly("itemsize", [](const DType& d) { return itemsize(d.type); })
      .def("__repr__",
           [](const DType& d) { return std::string("gradtrack.") + dtype_name(d.type); })
      .def("__reduce__", [](const DType& d) { return std::string(dtype_name(d.type)); })
      .def("_scalar_type", [](const DType& d) { return static_cast<int>(d.type); });
  for (int i = 0; i < kNumScalarTypes; ++i) {
    auto t = static_cast<ScalarType>(i);
    g_dtypes[i] = py::cast(DType{t}).release().ptr();
    m.attr(dtype_name(t)) = dtype_object(t);
  }
  cls.attr("__module__") = "gradtrack";
  // torch.promote_types / can_cast / result_type (the Python wrappers in
  // gradtrack/_dtypes.py give them torch's argument checks).
  m.def("_promote_types", [](py::handle a, py::handle b) {
    return dtype_object(promote_types(to_scalar_type(a), to_scalar_type(b)));
  });
  m.def("_can_cast", [](py::handle from, py::handle to) {
    return can_cast(to_scalar_type(from), to_scalar_type(to));
  });
  // Operands: (dtype, tier) pairs; tier 0 a tensor with dims, 1 a 0-dim
  // tensor, 2 a Python number of that dtype's kind.
  m.def("_result_type", [](const std::vector<std::pair<py::handle, int>>& operands) {
    ResultTypeState state;
    for (const auto& [dt, tier] : operands) {
      const ScalarType t = to_scalar_type(dt);
      if (tier < 2) {
        state.add_tensor(t, tier == 1);
      } else {
        state.add_number(t == ScalarType::Bool ? NumberKind::Bool
                         : is_floating(t)      ? NumberKind::Float
                                               : NumberKind::Int);
      }
    }
    return dtype_object(state.result());
  });
}

}  // namespace gradtrack::python
