// _C._ops: the entries of the tensor ops whose public functions and methods
// (argument names, defaults, named results) are written in Python; these take
// already-parsed arguments.
#include <pybind11/stl.h>

#include "ops/autocast.h"
#include "python/arg_errors.h"
#include "python/common.h"

namespace gradtrack::python {

namespace {

py::tuple pair(const std::pair<Tensor, Tensor>& p) { return py::make_tuple(p.first, p.second); }

}  // namespace

void check_device(py::handle device) {
  if (device.is_none()) return;
  const std::string s = py::str(device);
  const std::string type = s.substr(0, s.find(':'));
  if (type == "cpu") return;
  if (type == "cuda") {
    PyErr_SetString(PyExc_AssertionError, "Torch not compiled with CUDA enabled");
    throw py::error_already_set();
  }
  static const char* const kTypes[] = {"cpu",    "cuda",   "ipu",   "xpu",  "mkldnn",
                                       "opengl", "opencl", "ideep", "hip",  "ve",
                                       "fpga",   "maia",   "xla",   "lazy", "vulkan",
                                       "mps",    "meta",   "hpu",   "mtia", "privateuseone"};
  std::string all;
  for (const char* t : kTypes) {
    if (type == t) throw Error(str_cat("gradtrack runs on the CPU only, got device '", s, "'"));
    all += all.empty() ? t : str_cat(", ", t);
  }
  throw Error(str_cat("Expected one of ", all, " device type at start of device string: ", s));
}

void init_ops(py::module_& m) {
  py::module_ e = m.def_submodule("_ops");
  e.def("cumsum", [](const Tensor& a, int64_t dim, py::handle dtype) {
    return ops::cumsum(a, dim, optional_dtype(dtype));
  });
  e.def("cumprod", [](const Tensor& a, int64_t dim, py::handle dtype) {
    return ops::cumprod(a, dim, optional_dtype(dtype));
  });
  e.def("cummax_cummin", [](const Tensor& a, int64_t dim, bool is_max) {
    return pair(ops::cummax_cummin(a, dim, is_max));
  });
  e.def("logcumsumexp", &ops::logcumsumexp);
  e.def("nanmedian", [](const Tensor& a, py::handle dim, bool keepdim) -> py::object {
    if (dim.is_none()) return py::cast(ops::nanmedian_all(a));
    return pair(ops::nanmedian_dim(a, dim.cast<int64_t>(), keepdim));
  });
  e.def("nansum", [](const Tensor& a, py::handle dim, bool keepdim, py::handle dtype) {
    DimVector dims = dim.is_none() ? DimVector{} : to_dims(dim);
    return ops::nansum(a, dims, keepdim, optional_dtype(dtype));
  });
  e.def("aminmax", [](const Tensor& a, std::optional<int64_t> dim, bool keepdim) {
    return pair(ops::aminmax(a, dim, keepdim));
  });
  e.def("dist", &ops::dist);
  e.def("renorm", &ops::renorm);
  e.def("scatter_reduce", &ops::scatter_reduce);
  e.def("index_reduce", &ops::index_reduce);
  e.def("sort", [](const Tensor& a, int64_t dim, bool descending, bool stable_given, bool stable) {
    return pair(ops::sort(a, dim, descending, stable_given, stable));
  });
  e.def("topk", [](const Tensor& a, int64_t k, int64_t dim, bool largest, bool sorted) {
    return pair(ops::topk(a, k, dim, largest, sorted));
  });
  e.def("var_std", [](const Tensor& a, py::handle dim, double correction, bool keepdim, bool is_std,
                      bool with_mean) {
    DimVector dims = dim.is_none() ? DimVector{} : to_dims(dim);
    auto r = ops::var_std(a, dims, !dim.is_none(), correction, keepdim, is_std, with_mean);
    return with_mean ? py::object(pair(r)) : py::cast(r.first);
  });
  e.def("logsumexp", [](const Tensor& a, py::handle dim, bool keepdim) {
    return ops::logsumexp(a, to_dims(dim), keepdim);
  });
  e.def("tril", [](const Tensor& a, int64_t diagonal, bool upper) {
    return ops::tril(a, diagonal, upper);
  });
  e.def("tril_", [](const Tensor& a, int64_t diagonal, bool upper) {
    return ops::inplace_tril(a, diagonal, upper);
  });
  e.def("flip", [](const Tensor& a, py::handle dims) { return ops::flip(a, to_dims(dims)); });
  e.def("unsafe_view",
        [](const Tensor& a, py::handle shape) { return ops::unsafe_view(a, to_dims(shape)); });
  e.def("roll", [](const Tensor& a, py::handle shifts, py::handle dims) {
    return ops::roll(a, to_dims(shifts), to_dims(dims));
  });
  e.def("check_device", &check_device);
  // torch's size argument of a Tensor.new_* factory named fn: the ints themselves or
  // one sequence of them, with its parser's errors.
  e.def("sizes_arg", [](const std::string& fn, const py::args& args) {
    return make_size(parse_sizes(args, fn.c_str()));
  });
  e.def("nonzero", [](const Tensor& a) { return ops::nonzero(a); });
  // torch's C++ composites divide by a number through div.Scalar (DivBackward1); the
  // Python layer's composites call this to show the same node.
  e.def("div_by_scalar",
        [](const Tensor& a, py::handle b) { return ops::div_by_scalar(a, *to_scalar(b)); });
  e.def("mul_by_scalar",
        [](const Tensor& a, py::handle b) { return ops::mul_by_scalar(a, *to_scalar(b)); });
  e.def("set_default_dtype", [](py::handle dt) { set_default_float_type(to_scalar_type(dt)); });
  e.def("get_default_dtype", [] { return dtype_object(default_float_type()); });
  e.def("kthvalue", [](const Tensor& a, int64_t k, int64_t dim, bool keepdim) {
    return pair(ops::kthvalue(a, k, dim, keepdim));
  });
  e.def("median", [](const Tensor& a, py::handle dim, bool keepdim) -> py::object {
    if (dim.is_none()) return py::cast(ops::median_all(a));
    return pair(ops::median_dim(a, dim.cast<int64_t>(), keepdim));
  });
  e.def("mode", [](const Tensor& a, int64_t dim, bool keepdim) {
    return pair(ops::mode(a, dim, keepdim));
  });
  e.def("diagonal", [](const Tensor& a, int64_t offset, int64_t d1, int64_t d2, bool copy) {
    return ops::diagonal(a, offset, d1, d2, copy);
  });
  e.def("diag_embed", [](const Tensor& a, int64_t offset, int64_t d1, int64_t d2) {
    return ops::diag_embed(a, offset, d1, d2);
  });
  e.def("trace", [](const Tensor& a) { return ops::trace(a); });
  e.def("logit", [](const Tensor& a, std::optional<double> eps) { return ops::logit(a, eps); });
  e.def("mvlgamma", [](const Tensor& a, int64_t p) { return ops::mvlgamma(a, p); });
  e.def("special_ndtr", [](const Tensor& a) { return ops::special_ndtr(a); });
  e.def("nan_to_num",
        [](const Tensor& a, std::optional<double> nan, std::optional<double> posinf,
           std::optional<double> neginf) { return ops::nan_to_num(a, nan, posinf, neginf); });
  e.def("lerp", [](const Tensor& a, const Tensor& end, py::handle w) {
    if (is_tensor(w)) return ops::lerp(a, end, w.cast<Tensor>());
    auto s = to_scalar(w);
    GT_CHECK_TYPE(s.has_value(), "lerp(): argument 'weight' (position 3) must be Number, not ",
                  type_name(w));
    return ops::lerp(a, end, *s);
  });
  e.def("vector_norm", [](const Tensor& a, double ord, py::handle dim, bool keepdim) {
    return ops::vector_norm(a, ord, dim.is_none() ? DimVector{} : to_dims(dim), keepdim);
  });
  e.def("baddbmm", [](const Tensor& a, const Tensor& b1, const Tensor& b2, py::handle beta,
                      py::handle alpha) {
    const Scalar be = *to_scalar(beta), al = *to_scalar(alpha);
    return ops::autocast::lowered([&](const Tensor& c, const Tensor& x,
                                      const Tensor& y) { return ops::baddbmm(c, x, y, be, al); },
                                  a, b1, b2);
  });
  e.def("addmv", [](const Tensor& a, const Tensor& mat, const Tensor& vec, py::handle beta,
                    py::handle alpha) {
    return ops::addmv(a, mat, vec, *to_scalar(beta), *to_scalar(alpha));
  });
  // The fused updates (ops/fused.cpp); the factors are numbers, checked in Python.
  e.def("addcmul", [](const Tensor& a, const Tensor& t1, const Tensor& t2, py::handle value) {
    return ops::addcmul(a, t1, t2, *to_scalar(value));
  });
  e.def("addcdiv", [](const Tensor& a, const Tensor& t1, const Tensor& t2, py::handle value) {
    return ops::addcdiv(a, t1, t2, *to_scalar(value));
  });
  e.def("addr",
        [](const Tensor& a, const Tensor& v1, const Tensor& v2, py::handle beta, py::handle alpha) {
          return ops::addr(a, v1, v2, *to_scalar(beta), *to_scalar(alpha));
        });
  e.def("addbmm", [](const Tensor& a, const Tensor& b1, const Tensor& b2, py::handle beta,
                     py::handle alpha) {
    const Scalar be = *to_scalar(beta), al = *to_scalar(alpha);
    return ops::autocast::lowered([&](const Tensor& c, const Tensor& x,
                                      const Tensor& y) { return ops::addbmm(c, x, y, be, al); },
                                  a, b1, b2);
  });
  // The indexed writes (ops/indexed_writes.cpp); arguments parsed in _ops/indexing.py.
  e.def("index_add",
        [](const Tensor& a, int64_t dim, const Tensor& index, const Tensor& source,
           py::handle alpha) { return ops::index_add(a, dim, index, source, *to_scalar(alpha)); });
  e.def("index_copy", &ops::index_copy);
  e.def("index_fill", [](const Tensor& a, int64_t dim, const Tensor& index, py::handle value) {
    if (is_tensor(value)) return ops::index_fill(a, dim, index, value.cast<Tensor>());
    return ops::index_fill(a, dim, index, *to_scalar(value));
  });
  // torch's out-of-place index_put: a fresh result (version 0), IndexPutBackward0
  e.def("index_put",
        [](const Tensor& a, const std::vector<Tensor>& indices, const Tensor& values, bool acc) {
          ops::IndexList idx(indices.begin(), indices.end());
          return ops::index_put(a, idx, values, acc);
        });
  e.def("take", &ops::take);
  e.def("put", &ops::put);
  e.def("masked_scatter", &ops::masked_scatter);
  e.def("select_scatter", &ops::select_scatter);
  e.def("slice_scatter", &ops::slice_scatter);
  e.def("diagonal_scatter", &ops::diagonal_scatter);
  e.def("cross",
        [](const Tensor& a, const Tensor& b, int64_t dim) { return ops::cross(a, b, dim); });
  e.def("repeat",
        [](const Tensor& a, py::handle repeats) { return ops::repeat(a, to_dims(repeats)); });
}

}  // namespace gradtrack::python
