// Views and shape ops as Tensor methods and gradtrack.* functions, and the
// dtype conversions (float(), long(), ...).
#include <algorithm>
#include "ops/memory_format.h"
#include "python/tensor_methods.h"

namespace gradtrack::ops {
// Defined in ops/shape.cpp; declared here, its one caller, so that adding it did not
// touch ops.h (which every file includes). A copy of `a` in `dtype` laid out with
// `strides` (a memory format's): a Clone node, or a ToCopy node when `to_copy`.
Tensor restride(const Tensor& a, ScalarType dtype, const DimVector& strides, bool to_copy);
}  // namespace gradtrack::ops

namespace gradtrack::python {

namespace {

using namespace methods;  // NOLINT: the shared binding helpers

// cat, channels-last when every input is (NOTE [Channels-last results]).
Tensor cat_in_layout(const std::vector<Tensor>& ts, int64_t dim) {
  Tensor y = ops::cat(ts, dim);
  bool channels_last = !ts.empty();
  for (const Tensor& t : ts) channels_last = channels_last && ops::is_channels_last(t);
  if (channels_last) ops::make_channels_last(y);
  return y;
}
using ops::Cmp;
using ops::Logic;

// view(), reshape(), permute(), expand(): the sizes are required.
DimVector shape_args(const py::args& args, const char* fn, const char* name) {
  GT_CHECK_TYPE(args.size() > 0, fn, "() missing 1 required positional arguments: \"", name, "\"");
  return parse_sizes(args, fn, name);
}

void bind_shape(Cls& cls, py::module_& m) {
  cls.def("view",
          [](const Tensor& a, const py::args& args, const py::kwargs& kwargs) {
            // PyTorch's view has a (dtype) and a (tuple of ints size) signature,
            // each also by keyword.
            py::tuple shape = args;
            if (args.size() == 0 && kwargs.size() == 1) {
              if (kwargs.contains("dtype") && is_dtype_object(kwargs["dtype"]))
                return autograd::view_dtype(a, to_scalar_type(kwargs["dtype"]));
              if (kwargs.contains("size")) shape = py::make_tuple(kwargs["size"]);
            } else if (kwargs.size() > 0) {
              shape = py::tuple();
            }
            if (shape.size() == 1 && is_dtype_object(shape[0]))
              return autograd::view_dtype(a, to_scalar_type(shape[0]));
            if (shape.size() == 0 ||
                (shape.size() == 1 && !PyLong_Check(shape[0].ptr()) &&
                 !PyTuple_Check(shape[0].ptr()) && !PyList_Check(shape[0].ptr()) &&
                 !py::isinstance<TensorImpl>(shape[0]))) {
              throw InvalidArguments{
                  "view", {"gradtrack.dtype dtype", "tuple of ints size"}, std::nullopt};
            }
            return ops::view(a, parse_sizes(shape, "view"));
          })
      .def(
          "view_as", [](const Tensor& a, const Tensor& o) { return ops::view(a, o.sizes()); },
          py::arg("other"))
      .def("reshape",
           [](const Tensor& a, const py::args& shape) {
             return ops::reshape(a, shape_args(shape, "reshape", "shape"));
           })
      .def(
          "reshape_as", [](const Tensor& a, const Tensor& o) { return ops::reshape(a, o.sizes()); },
          py::arg("other"))
      .def("expand",
           [](const Tensor& a, const py::args& sizes) {
             return ops::expand(a, shape_args(sizes, "expand", "size"));
           })
      .def(
          "expand_as", [](const Tensor& a, const Tensor& o) { return ops::expand(a, o.sizes()); },
          py::arg("other"))
      .def("permute",
           [](const Tensor& a, const py::args& dims) {
             return ops::permute(a, shape_args(dims, "permute", "dims"));
           })
      .def("contiguous", [](const Tensor& a) { return ops::contiguous(a); })
      .def_property_readonly("T",
                             [](const Tensor& a) {
                               DimVector dims;
                               for (int64_t d = a.dim() - 1; d >= 0; --d) dims.push_back(d);
                               return ops::permute(a, dims);
                             })
      .def_property_readonly("mT", [](const Tensor& a) { return ops::transpose(a, -2, -1); });
  m.def(
      "_restride",
      [](const Tensor& a, py::handle dtype, py::handle strides, bool to_copy) {
        return ops::restride(a, to_scalar_type(dtype), int_list(strides, "_restride", "strides", 2),
                             to_copy);
      },
      py::arg("input"), py::arg("dtype"), py::arg("strides"), py::arg("to_copy"));
  m.def(
      "reshape",
      [](const Tensor& a, py::handle shape) {
        return ops::reshape(a, int_list(shape, "reshape", "shape", 2));
      },
      py::arg("input"), py::arg("shape"));
  m.def(
      "permute",
      [](const Tensor& a, py::handle dims) {
        return ops::permute(a, int_list(dims, "permute", "dims", 2));
      },
      py::arg("input"), py::arg("dims"));
  both(
      cls, m, "as_strided",
      [](const Tensor& a, py::handle size, py::handle stride, py::handle off) {
        return ops::as_strided(a, int_list(size, "as_strided", "size", 1),
                               int_list(stride, "as_strided", "stride", 2),
                               opt_dim(off, "as_strided", "storage_offset", 3));
      },
      py::arg("size"), py::arg("stride"), py::arg("storage_offset") = py::none());
  both(
      cls, m, "transpose",
      [](const Tensor& a, int64_t d0, int64_t d1) { return ops::transpose(a, d0, d1); },
      py::arg("dim0"), py::arg("dim1"));
  both(
      cls, m, "swapaxes",
      [](const Tensor& a, int64_t d0, int64_t d1) { return ops::transpose(a, d0, d1); },
      py::arg("axis0"), py::arg("axis1"));
  both(
      cls, m, "unsqueeze", [](const Tensor& a, int64_t d) { return ops::unsqueeze(a, d); },
      py::arg("dim"));
  both(
      cls, m, "squeeze",
      [](const Tensor& a, py::handle d) {
        if (d.is_none()) return ops::squeeze(a);
        if (PyLong_Check(d.ptr())) return ops::squeeze(a, unpack_long(d));
        return ops::squeeze(a, int_list(d, "squeeze", "dim", 1));
      },
      py::arg("dim") = py::none());
  both(
      cls, m, "flatten",
      [](const Tensor& a, int64_t s, int64_t e) { return ops::flatten(a, s, e); },
      py::arg("start_dim") = 0, py::arg("end_dim") = -1);
  both(
      cls, m, "select", [](const Tensor& a, int64_t d, int64_t i) { return ops::select(a, d, i); },
      py::arg("dim"), py::arg("index"));
  cls.def(
      "unfold",
      [](const Tensor& a, int64_t d, int64_t size, int64_t step) {
        return ops::unfold(a, d, size, step);
      },
      py::arg("dimension"), py::arg("size"), py::arg("step"));
  both(
      cls, m, "narrow",
      [](const Tensor& a, int64_t d, int64_t s, int64_t l) { return ops::narrow(a, d, s, l); },
      py::arg("dim"), py::arg("start"), py::arg("length"));
  both(
      cls, m, "split",
      [](const Tensor& a, py::handle s, int64_t d) {
        if (PyLong_Check(s.ptr())) return as_tuple(ops::split(a, unpack_long(s), d));
        return as_tuple(
            ops::split_with_sizes(a, int_list(s, "split_with_sizes", "split_sizes", 2), d));
      },
      py::arg("split_size_or_sections"), py::arg("dim") = 0);
  both(
      cls, m, "chunk",
      [](const Tensor& a, int64_t c, int64_t d) { return as_tuple(ops::chunk(a, c, d)); },
      py::arg("chunks"), py::arg("dim") = 0);
  both(
      cls, m, "unbind", [](const Tensor& a, int64_t d) { return as_tuple(ops::unbind(a, d)); },
      py::arg("dim") = 0);
  m.def(
      "cat",
      [](py::handle tensors, int64_t d) {
        return cat_in_layout(tensor_list(tensors, "cat", "tensors", 1), d);
      },
      py::arg("tensors"), py::arg("dim") = 0);
  m.def(
      "concat",
      [](py::handle tensors, int64_t d) {
        return cat_in_layout(tensor_list(tensors, "concat", "tensors", 1), d);
      },
      py::arg("tensors"), py::arg("dim") = 0);
  m.def(
      "stack",
      [](py::handle tensors, int64_t d) {
        const std::vector<Tensor> ts = tensor_list(tensors, "stack", "tensors", 1);
        Tensor y = ops::stack(ts, d);
        if (!ts.empty()) ops::stack_layout(y, ts, d < 0 ? d + y.dim() : d);
        return y;
      },
      py::arg("tensors"), py::arg("dim") = 0);
  // NOTE [Channels-last results], for the ops written in Python (pixel_shuffle, ...)
  m.def("_follow_layout",
        [](const Tensor& y, const Tensor& like) { return ops::follow_layout(y, like); });
}

void bind_types(Cls& cls) {
  cls.def(
      "_to_dtype",
      [](const Tensor& a, py::handle dt, bool copy) {
        return ops::to_dtype(a, to_scalar_type(dt), copy);
      },
      py::arg("dtype"), py::arg("copy") = false);
  auto conv = [&](const char* name, ScalarType st) {
    cls.def(name, [st](const Tensor& a) { return ops::to_dtype(a, st); });
  };
  conv("float", ScalarType::Float32);
  conv("double", ScalarType::Float64);
  conv("long", ScalarType::Int64);
  conv("int", ScalarType::Int32);
  conv("bool", ScalarType::Bool);
  conv("byte", ScalarType::UInt8);
  // the storage dtypes: int8, int16 and the 16-bit floats
  conv("char", ScalarType::Int8);
  conv("short", ScalarType::Int16);
  conv("half", ScalarType::Float16);
  conv("bfloat16", ScalarType::BFloat16);
  cls.def(
      "type_as", [](const Tensor& a, const Tensor& o) { return ops::to_dtype(a, o.dtype()); },
      py::arg("other"));
}

}  // namespace

void init_shape(Cls& cls, py::module_& m) {
  bind_shape(cls, m);
  bind_types(cls);
}

}  // namespace gradtrack::python
