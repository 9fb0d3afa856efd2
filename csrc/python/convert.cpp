// Python values <-> tensors: nested sequences, numbers, numpy arrays, indices.
#include <pybind11/numpy.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "autograd/grad_mode.h"
#include "autograd/variable.h"
#include "kernels/kernels.h"
#include "kernels/reduced_float.h"
#include "python/arg_errors.h"
#include "python/common.h"

namespace gradtrack::python {

// By type, as the Tensor caster loads one: pybind11's isinstance (a registry
// lookup, then PyObject_IsInstance asking __instancecheck__) cost a.max() at
// 1K elements a seventh of its time. Before the class is
// registered only pybind11's test can answer.
bool is_tensor(py::handle h) {
  PyTypeObject* t = Py_TYPE(h.ptr());
  if (tensor_type != nullptr) return t == tensor_type || PyType_IsSubtype(t, tensor_type);
  return py::isinstance<TensorImpl>(h);
}

std::variant<Tensor, Scalar> scatter_source(py::handle v, const char* fn) {
  if (is_tensor(v)) return v.cast<Tensor>();
  auto number = v.is_none() ? std::nullopt : to_scalar(v);
  if (!number) {
    throw InvalidArguments{
        fn,
        {"int dim, Tensor index, Tensor src", "int dim, Tensor index, Tensor src, *, str reduce",
         "int dim, Tensor index, Number value",
         "int dim, Tensor index, Number value, *, str reduce"},
        std::nullopt};
  }
  return *number;
}

namespace {

// numpy is imported by the user or not at all: never pay for importing it.
bool numpy_loaded() {
  static py::handle modules = py::object(py::module_::import("sys").attr("modules")).release();
  return py::reinterpret_borrow<py::dict>(modules).contains("numpy");
}

bool is_numpy_array(py::handle h) { return numpy_loaded() && py::isinstance<py::array>(h); }

bool is_numpy_scalar(py::handle h) {
  if (!numpy_loaded()) return false;
  static py::handle generic = py::object(py::module_::import("numpy").attr("generic")).release();
  return py::isinstance(h, generic);
}

bool is_int_like(py::handle h) {
  PyObject* o = h.ptr();
  if (PyLong_Check(o)) return !PyBool_Check(o);
  if (is_tensor(h)) {
    Tensor t = h.cast<Tensor>();
    return t.numel() == 1 && is_integral(t.dtype());
  }
  return is_numpy_scalar(h) && std::string(py::str(h.attr("dtype").attr("kind"))) == "i";
}

int64_t int_value(py::handle h) {
  if (is_tensor(h))
    return kernels::load<int64_t>(ops::to_dtype(h.cast<Tensor>(), ScalarType::Int64).raw());
  return unpack_long(h);
}

// An int beyond int64: unsigned up to 2**64 - 1 (PyTorch keeps such a Scalar
// as uint64), beyond that CPython's own OverflowError ("int too big to
// convert", "can't convert negative int to unsigned").
Scalar int_scalar(PyObject* o) {
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
  if (overflow == 0) {
    if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
    return Scalar(static_cast<int64_t>(v));
  }
  unsigned long long u = PyLong_AsUnsignedLongLong(o);
  if (PyErr_Occurred()) throw py::error_already_set();
  return Scalar::from_uint64(u);
}

}  // namespace

int64_t unpack_long(py::handle h) {
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(h.ptr(), &overflow);
  if (overflow != 0) throw ValueError("Overflow when unpacking long long");
  if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
  return v;
}

std::optional<Scalar> to_scalar(py::handle h) {
  PyObject* o = h.ptr();
  if (PyBool_Check(o)) return Scalar(o == Py_True);
  if (PyLong_Check(o)) return int_scalar(o);
  if (PyFloat_Check(o)) return Scalar(PyFloat_AS_DOUBLE(o));
  if (is_numpy_scalar(h)) {
    py::object kind = h.attr("dtype").attr("kind");
    std::string k = py::str(kind);
    if (k == "b") return Scalar(h.cast<bool>());
    if (k == "i" || k == "u")
      return int_scalar(py::int_(py::reinterpret_borrow<py::object>(h)).ptr());
    if (k == "f") return Scalar(h.cast<double>());
  }
  return std::nullopt;
}

py::object make_size(const DimVector& sizes) {
  static py::handle size_type =
      py::object(py::module_::import("gradtrack._size").attr("Size")).release();
  py::tuple t(sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i) t[i] = py::int_(sizes[i]);
  // tuple's own constructor: these are ints already, so Size.__new__'s checks of
  // what a program passes are skipped (a shape is read on every .shape)
  py::tuple args = py::make_tuple(t);
  PyObject* made =
      PyTuple_Type.tp_new(reinterpret_cast<PyTypeObject*>(size_type.ptr()), args.ptr(), nullptr);
  if (!made) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(made);
}

int64_t int_arg(py::handle h, const char* fn, const char* name, int position) {
  if (PyLong_Check(h.ptr()) && !PyBool_Check(h.ptr())) return unpack_long(h);
  GT_CHECK_TYPE(is_int_like(h), fn, "(): argument '", name, "' (position ", position,
                ") must be int, not ", type_name(h));
  return int_value(h);
}

namespace {

// One element of an int list: PyTorch names its position and the reason.
int64_t list_item(py::handle e, size_t pos, const char* fn, const char* name) {
  std::string why;
  if (!is_int_like(e)) {
    why = "type must be tuple of ints,but got " + type_name(e);
  } else {
    try {
      return int_value(e);
    } catch (const ValueError& err) {
      why = err.what();
    }
  }
  throw TypeError(str_cat(fn, "(): argument '", name, "' failed to unpack the object at pos ", pos,
                          " with error \"", why, "\""));
}

}  // namespace

DimVector int_list(py::handle h, const char* fn, const char* name, int position) {
  DimVector out;
  if (is_int_like(h)) {
    out.push_back(list_item(h, 1, fn, name));
    return out;
  }
  GT_CHECK_TYPE(PyTuple_Check(h.ptr()) || PyList_Check(h.ptr()), fn, "(): argument '", name,
                "' (position ", position, ") must be tuple of ints, not ", type_name(h));
  py::sequence seq = py::reinterpret_borrow<py::sequence>(h);
  for (size_t i = 0; i < seq.size(); ++i) out.push_back(list_item(seq[i], i + 1, fn, name));
  return out;
}

DimVector to_dims(py::handle h) { return int_list(h, "size", "size", 1); }

DimVector parse_sizes(const py::args& args, const char* fn, const char* name) {
  // PyTorch's IntArrayRef argument: one list, or the ints themselves when
  // the first argument is an int.
  if (args.size() == 1) return int_list(args[0], fn, name, 1);
  GT_CHECK_TYPE(args.size() == 0 || is_int_like(args[0]), fn, "() takes 1 positional argument but ",
                args.size(), " were given");
  DimVector out;
  for (size_t i = 0; i < args.size(); ++i) out.push_back(list_item(args[i], i + 1, fn, name));
  return out;
}

std::vector<Tensor> tensor_list(py::handle h, const char* fn, const char* name, int position) {
  GT_CHECK_TYPE(PyTuple_Check(h.ptr()) || PyList_Check(h.ptr()), fn, "(): argument '", name,
                "' (position ", position, ") must be tuple of Tensors, not ", type_name(h));
  py::sequence seq = py::reinterpret_borrow<py::sequence>(h);
  std::vector<Tensor> out;
  out.reserve(seq.size());
  for (size_t i = 0; i < seq.size(); ++i) {
    py::object e = seq[i];
    GT_CHECK_TYPE(is_tensor(e), "expected Tensor as element ", i, " in argument ", position - 1,
                  ", but got ", type_name(e));
    out.push_back(e.cast<Tensor>());
  }
  return out;
}

Scalar item_of(const Tensor& t) {
  GT_CHECK(t.numel() == 1, "a Tensor with ", t.numel(), " elements cannot be converted to Scalar");
  if (is_reduced_float(t.dtype())) return item_of(kernels::widen(t));
  return GT_DISPATCH_ALL(t.dtype(), [&]() -> Scalar {
    scalar_t v = kernels::load<scalar_t>(t.raw());
    if constexpr (std::is_same_v<scalar_t, bool>)
      return Scalar(v);
    else if constexpr (std::is_floating_point_v<scalar_t>)
      return Scalar(static_cast<double>(v));
    else
      return Scalar(static_cast<int64_t>(v));
  });
}

std::optional<Scalar> number_param(py::handle h) {
  if (auto s = to_scalar(h)) return s;
  if (!is_tensor(h)) return std::nullopt;
  Tensor t = h.cast<Tensor>();
  if (t.dim() != 0 || autograd::requires_grad(t)) return std::nullopt;
  return item_of(t);
}

namespace {

// PyTorch's Number parameter also takes a 0-dim tensor (its value).
std::optional<Scalar> number_or_0dim(py::handle h) {
  if (auto s = to_scalar(h)) return s;
  if (!is_tensor(h)) return std::nullopt;
  Tensor t = h.cast<Tensor>();
  if (t.dim() != 0) return std::nullopt;
  return item_of(t);
}

}  // namespace

ClampBounds clamp_bounds(const char* fn, py::handle lo, py::handle hi, bool explicit_args) {
  ClampBounds b;
  // The (Tensor, Tensor) form when every bound given is a tensor, else the
  // (Number, Number) form, which takes 0-dim tensors too: clamp(t0, 5).
  bool all_tensors = (lo.is_none() || is_tensor(lo)) && (hi.is_none() || is_tensor(hi));
  b.tensors = all_tensors && (is_tensor(lo) || is_tensor(hi));
  bool ok = true;
  for (int i = 0; i < 2; ++i) {
    py::handle h = i == 0 ? lo : hi;
    if (h.is_none()) continue;
    if (b.tensors) {
      (i == 0 ? b.lo_t : b.hi_t) = h.cast<Tensor>();
    } else if (auto s = number_or_0dim(h)) {
      (i == 0 ? b.lo : b.hi) = *s;
    } else {
      ok = false;
    }
  }
  if (ok) return b;
  InvalidArguments e{
      fn,
      {"Tensor min = None, Tensor max = None", "Number min = None, Number max = None"},
      std::nullopt};
  if (explicit_args) {
    // As the user wrote them: trailing defaults left out.
    std::vector<py::object> given{py::reinterpret_borrow<py::object>(lo),
                                  py::reinterpret_borrow<py::object>(hi)};
    while (!given.empty() && given.back().is_none()) given.pop_back();
    e.args = std::move(given);
  }
  throw e;
}

// ---- numpy ----

namespace {

std::optional<ScalarType> numpy_to_dtype(py::dtype dt) {
  char kind = dt.kind();
  size_t size = static_cast<size_t>(dt.itemsize());
  if (kind == 'b') return ScalarType::Bool;
  if (kind == 'u' && size == 1) return ScalarType::UInt8;
  if (kind == 'i' && size == 1) return ScalarType::Int8;
  if (kind == 'i' && size == 2) return ScalarType::Int16;
  if (kind == 'f' && size == 2) return ScalarType::Float16;
  if (kind == 'i' && size == 4) return ScalarType::Int32;
  if (kind == 'i' && size == 8) return ScalarType::Int64;
  if (kind == 'f' && size == 4) return ScalarType::Float32;
  if (kind == 'f' && size == 8) return ScalarType::Float64;
  return std::nullopt;
}

const char* numpy_char(ScalarType t) {
  switch (t) {
    case ScalarType::Bool: return "?";
    case ScalarType::UInt8: return "u1";
    case ScalarType::Int32: return "i4";
    case ScalarType::Int64: return "i8";
    case ScalarType::Float32: return "f4";
    case ScalarType::Float64: return "f8";
    case ScalarType::Int8: return "i1";
    case ScalarType::Int16: return "i2";
    case ScalarType::Float16: return "f2";
    case ScalarType::BFloat16: break;
  }
  // NumPy has no bfloat16: PyTorch's TypeError.
  throw TypeError("Got unsupported ScalarType BFloat16");
}

[[noreturn]] void unsupported_numpy(py::dtype dt) {
  std::string name = py::str(dt.attr("type").attr("__name__"));
  throw TypeError("can't convert np.ndarray of type numpy." + name +
                  ". The only supported types are: float64, float32, int64, int32, uint8, and "
                  "bool.");
}

void warn_not_writable() {
  static bool warned = false;
  if (warned) return;
  warned = true;
  PyErr_WarnEx(PyExc_UserWarning,
               "The given NumPy array is not writable, and gradtrack does not support non-writable "
               "tensors. This means writing to this tensor will result in undefined behavior. You "
               "may want to copy the array to protect its data or make it writable before "
               "converting it to a tensor. This type of warning will be suppressed for the rest of "
               "this program.",
               1);
}

// NOTE [Bool bytes are 0 or 1]
// A numpy bool array may hold any nonzero byte for True (np.frombuffer of
// b'\x02'); the kernels read bool as C++ bool, which must be 0 or 1, so
// such a byte counted 2 in sum(), compared unequal to True, and so on. The
// bytes are normalised where arrays come in: tensor() copies normalised
// values; from_numpy() (which shares memory) rewrites a writable array's
// bytes in place (numpy's values are unchanged: nonzero is True there too)
// and copies a read-only one it may not write, which it could not have
// shared writes with anyway.
py::array canonical_bools(py::array arr, bool in_place) {
  if (arr.dtype().kind() != 'b' || arr.size() == 0) return arr;
  py::module_ np = py::module_::import("numpy");
  py::object bytes = arr.attr("view")(np.attr("uint8"));
  if (!py::bool_(bytes.attr("__gt__")(1).attr("any")())) return arr;
  if (!in_place) return bytes.attr("__ne__")(0);
  np.attr("not_equal")(bytes, 0, py::arg("out") = arr);
  return arr;
}

}  // namespace

Tensor tensor_from_numpy(py::handle obj, bool shares, bool warn_read_only) {
  if (!is_numpy_array(obj)) throw TypeError("expected np.ndarray (got " + type_name(obj) + ")");
  py::array arr = py::reinterpret_borrow<py::array>(obj);
  py::dtype dt = arr.dtype();
  if (dt.kind() == 'O' || dt.kind() == 'U' || dt.kind() == 'S' || dt.kind() == 'V')
    unsupported_numpy(dt);
  std::string order = py::str(dt.attr("byteorder"));
  if (order == ">") {
    throw ValueError(
        "given numpy array has byte order different from the native byte order. "
        "Conversion between byte orders is currently not supported.");
  }
  auto st = numpy_to_dtype(dt);
  if (!st) unsupported_numpy(dt);
  const int64_t item = static_cast<int64_t>(dt.itemsize());
  DimVector sizes, strides;
  for (py::ssize_t i = 0; i < arr.ndim(); ++i) {
    sizes.push_back(arr.shape(i));
    int64_t s = arr.strides(i);
    if (s < 0) {
      throw ValueError(
          "At least one stride in the given numpy array is negative, and tensors with "
          "negative strides are not currently supported. (You can probably work "
          "around this by making a copy of your array  with array.copy().) ");
    }
    if (s % item != 0) {
      throw ValueError(
          "given numpy array strides not a multiple of the element byte size. Copy "
          "the numpy array to reallocate the memory.");
    }
    strides.push_back(s / item);
  }
  // tensor() copies at once: nothing will write through it (torch's
  // tensor() does not warn either).
  if (!arr.writeable() && shares && warn_read_only) warn_not_writable();
  // See NOTE [Bool bytes are 0 or 1]: a read-only array comes back a new one.
  arr = canonical_bools(arr, arr.writeable() && shares);
  if (!arr.is(obj)) {
    for (py::ssize_t i = 0; i < arr.ndim(); ++i) strides[i] = arr.strides(i) / item;
  }
  int64_t extent = 1;
  for (size_t i = 0; i < sizes.size(); ++i) extent += (sizes[i] - 1) * strides[i];
  if (numel_of(sizes) == 0) extent = 0;
  // The storage holds a reference to the array; released with the GIL held.
  PyObject* owner = arr.ptr();
  Py_INCREF(owner);
  auto storage =
      Storage::wrap(const_cast<void*>(arr.data()), static_cast<size_t>(extent * item), [owner] {
        py::gil_scoped_acquire gil;
        Py_DECREF(owner);
      });
  return Tensor(std::make_shared<TensorImpl>(std::move(storage), sizes, strides, 0, *st,
                                             std::make_shared<VersionCounter>()));
}

py::object tensor_numpy(py::handle self, bool force) {
  Tensor t = self.cast<Tensor>();
  if (autograd::requires_grad(t)) {
    if (!force) {
      throw Error(
          "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
          "instead.");
    }
  }
  std::vector<py::ssize_t> shape, strides;
  const py::ssize_t item = static_cast<py::ssize_t>(itemsize(t.dtype()));
  for (int64_t i = 0; i < t.dim(); ++i) {
    shape.push_back(t.sizes()[i]);
    strides.push_back(t.strides()[i] * item);
  }
  // The array's base owns a reference to the storage itself, not to the
  // tensor: `t.data = other` gives the tensor another storage, and the array
  // must not be left pointing at freed (or reused) memory.
  auto* owner = new std::shared_ptr<Storage>(t->storage());
  py::capsule base(owner, [](void* p) { delete static_cast<std::shared_ptr<Storage>*>(p); });
  silent_writes::note_alias(t->storage(), silent_writes::kNumpy);  // NOTE [Silent writes]
  return py::array(py::dtype(numpy_char(t.dtype())), shape, strides, t.raw(), base);
}

// ---- Python data -> tensor ----

namespace {

// PyTorch reads any sequence as data (list, tuple, range, deque, ...) except
// text; a Tensor inside a list is one element.
bool is_data_sequence(py::handle h) {
  PyObject* o = h.ptr();
  if (PyList_Check(o) || PyTuple_Check(o)) return true;
  if (PyUnicode_Check(o) || PyBytes_Check(o) || is_tensor(h)) return false;
  return PySequence_Check(o) != 0;
}

// PyTorch's limit on tensor(data) nesting; it also stops a list that
// contains itself, and keeps the recursion below shallow.
constexpr size_t kMaxDataDims = 128;

[[noreturn]] void too_many_dims(py::handle h) {
  throw ValueError("too many dimensions '" + type_name(h) + "'");
}

// PyTorch's shape inference: follow the first element down each level.
DimVector compute_sizes(py::handle h) {
  DimVector shape;
  py::object cur = py::reinterpret_borrow<py::object>(h);
  while (is_data_sequence(cur)) {
    if (shape.size() == kMaxDataDims) too_many_dims(cur);
    py::sequence s = py::reinterpret_borrow<py::sequence>(cur);
    int64_t n = static_cast<int64_t>(s.size());
    shape.push_back(n);
    if (n == 0) break;
    cur = s[0];
    if (PyUnicode_Check(cur.ptr())) too_many_dims(cur);
  }
  return shape;
}

[[noreturn]] void invalid_data_type(py::handle h) {
  throw TypeError("new(): invalid data type '" + type_name(h) + "'");
}

// NOTE [Sequences that change under us]
// A sequence's items may be new objects on each access (array.array,
// user classes whose __getitem__ builds a float), and its __len__ may
// change between calls (a user's __getitem__ can grow or shrink it). So
// every item is held by an owned reference while it is read, and the fill
// takes one snapshot per level (PySequence_Fast: the list itself, or a new
// list of the items), compares its length with the shape, and writes
// exactly that many items; the buffer never sees more or fewer than the
// shape promised. The dtype scan reads len() then item i for each i, as
// PyTorch's does, so a sequence that changes reports the same error.

// The dtype of the data: PyTorch promotes the types of all leaves, a Python
// float counting as the default float, an int as int64, a bool as bool, and a
// numpy scalar or a tensor as its own dtype ([np.int32(1)] is int32,
// [np.uint8(1), np.int32(1)] int32, [np.float64(1)] float64). A numpy scalar
// of a dtype gradtrack lacks (float16, int8, ...) counts as its kind's
// default (float32, int64), as it always has here.
void infer_type(py::handle h, std::optional<ScalarType>& type, size_t depth) {
  auto add = [&](ScalarType t) { type = type ? promote_types(*type, t) : t; };
  if (is_data_sequence(h)) {
    if (depth == kMaxDataDims) too_many_dims(h);
    const Py_ssize_t n = PySequence_Size(h.ptr());
    if (n < 0) throw py::error_already_set();
    // An empty sequence counts as the default float, wherever it is:
    // [False, []] is float32 in PyTorch.
    if (n == 0) add(default_float_type());
    for (Py_ssize_t i = 0; i < n; ++i) {
      py::object e = py::reinterpret_steal<py::object>(PySequence_GetItem(h.ptr(), i));
      if (!e) throw py::error_already_set();
      infer_type(e, type, depth + 1);
    }
    return;
  }
  if (PyUnicode_Check(h.ptr()) || PyBytes_Check(h.ptr())) invalid_data_type(h);
  if (py::isinstance<TensorImpl>(h)) {
    add(h.cast<Tensor>().dtype());
    return;
  }
  if (PyLong_Check(h.ptr()) && !PyBool_Check(h.ptr())) {
    // Not unpacked here: whether an int beyond int64 is an error depends on
    // the dtype it is stored as (fill_from), as in PyTorch.
    add(ScalarType::Int64);
    return;
  }
  if (is_numpy_scalar(h)) {
    if (auto t = numpy_to_dtype(py::reinterpret_borrow<py::object>(h.attr("dtype")))) {
      add(*t);
      return;
    }
  }
  auto s = to_scalar(h);
  if (!s) throw Error("Could not infer dtype of " + type_name(h));
  add(s->kind() == NumberKind::Bool  ? ScalarType::Bool
      : s->kind() == NumberKind::Int ? ScalarType::Int64
                                     : default_float_type());
}

// NOTE [Data numbers are range-checked]
// tensor(data, dtype=<integer>) refuses a value the dtype cannot hold, as
// PyTorch does, instead of wrapping it (NaN became INT64_MIN, 300 became 44
// in uint8): a float outside [lowest, max] of the dtype (NaN included), an
// int outside it, where an unsigned dtype also takes negatives down to -max
// (as two's complement; PyTorch keeps uint8(-1) == 255). Bool and floating
// dtypes take every value (1e300 becomes inf in float32, as in PyTorch).
template <typename T>
T checked_to(const Scalar& v) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using L = std::numeric_limits<T>;
    bool ok = true;
    if (v.is_float()) {
      const double d = v.to_double();
      ok = !(std::isnan(d) || d < double(L::lowest()) || d > double(L::max()));
      // 2**63 passes the check above (int64's max rounds up to it as a
      // double); PyTorch gives INT64_MIN there, without the C++ cast's UB.
      if (ok && d >= 9223372036854775808.0) return L::min();
    } else if (!v.is_bool() && !v.is_uint64() && !std::is_same_v<T, int64_t>) {
      const int64_t i = v.to_int();
      ok = std::is_unsigned_v<T> ? (i <= int64_t(L::max()) && i >= -int64_t(L::max()))
                                 : (i >= int64_t(L::min()) && i <= int64_t(L::max()));
    }
    if (!ok) {
      throw Error(str_cat("value cannot be converted to type ",
                          std::is_unsigned_v<T> ? "uint" : "int", sizeof(T) * 8,
                          " without overflow"));
    }
  }
  return v.template to<T>();
}

template <typename T>
void fill_from(py::handle h, const DimVector& shape, size_t depth, T*& out) {
  bool seq = is_data_sequence(h);
  if (depth < shape.size()) {
    if (!seq) throw TypeError("not a sequence");
    // See NOTE [Sequences that change under us]. A list is its own snapshot,
    // and a nested element's __len__ may mutate it: its size is read again
    // before each item, and each item is held while it is converted.
    py::object fast = py::reinterpret_steal<py::object>(PySequence_Fast(h.ptr(), "not a sequence"));
    if (!fast) throw py::error_already_set();
    for (int64_t i = 0;; ++i) {
      const int64_t n = static_cast<int64_t>(PySequence_Fast_GET_SIZE(fast.ptr()));
      if (n != shape[depth]) {
        throw ValueError(str_cat("expected sequence of length ", shape[depth], " at dim ", depth,
                                 " (got ", n, ")"));
      }
      if (i == n) break;
      py::object e = py::reinterpret_borrow<py::object>(PySequence_Fast_GET_ITEM(fast.ptr(), i));
      fill_from<T>(e, shape, depth + 1, out);
    }
    return;
  }
  if (py::isinstance<TensorImpl>(h)) {
    Tensor t = h.cast<Tensor>();
    GT_CHECK_VALUE(t.numel() == 1, "only one element tensors can be converted to Python scalars");
    const Tensor v = kernels::widen(t);  // a float16 element reads as its float32 value
    GT_DISPATCH_ALL(v.dtype(), [&] { *out++ = static_cast<T>(kernels::load<scalar_t>(v.raw())); });
    return;
  }
  if (!seq && PyLong_Check(h.ptr()) && !PyBool_Check(h.ptr())) {
    // As PyTorch stores a Python int: any size into a floating dtype
    // (Python's OverflowError past the double range), its truth into bool,
    // into an integer dtype only within int64 (ValueError beyond).
    if constexpr (std::is_floating_point_v<T>) {
      const double d = PyLong_AsDouble(h.ptr());
      if (d == -1.0 && PyErr_Occurred()) throw py::error_already_set();
      *out++ = static_cast<T>(d);
    } else if constexpr (std::is_same_v<T, bool>) {
      *out++ = PyObject_IsTrue(h.ptr()) == 1;
    } else {
      *out++ = checked_to<T>(Scalar(unpack_long(h)));
    }
    return;
  }
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    // PyTorch stores into an integer dtype a float (np.float64 is one) or an
    // object with __index__: np.bool_ and np.float32 have neither.
    if (!seq && is_numpy_scalar(h) && !PyFloat_Check(h.ptr()) && !PyIndex_Check(h.ptr()))
      throw TypeError("'" + type_name(h) + "' object cannot be interpreted as an integer");
  }
  // A leaf that was a number during the dtype scan may be something else
  // now (a fresh object per access): refused, never dereferenced.
  auto number = seq ? std::nullopt : to_scalar(h);
  if (!number) {
    throw TypeError(std::is_floating_point_v<T>
                        ? "must be real number, not " + type_name(h)
                        : "'" + type_name(h) + "' object cannot be interpreted as an integer");
  }
  *out++ = checked_to<T>(*number);
}

}  // namespace

Tensor tensor_from_data(py::handle data, std::optional<ScalarType> dtype) {
  if (is_tensor(data)) {
    PyErr_WarnEx(PyExc_UserWarning,
                 "To copy construct from a tensor, it is recommended to use "
                 "sourceTensor.detach().clone() or "
                 "sourceTensor.detach().clone().requires_grad_(True), rather than "
                 "gradtrack.tensor(sourceTensor).",
                 1);
    Tensor t = data.cast<Tensor>();
    autograd::AutoGradMode off(false);
    return ops::to_dtype(ops::clone(t), dtype.value_or(t.dtype()));
  }
  if (is_numpy_array(data)) {
    py::array arr = py::reinterpret_borrow<py::array>(data);
    py::dtype dt = arr.dtype();
    arr = canonical_bools(arr, false);  // NOTE [Bool bytes are 0 or 1]
    Tensor src = tensor_from_numpy(arr, false);
    Tensor out = ops::empty_like(src, dtype.value_or(src.dtype()));  // keeps the array's layout
    kernels::copy(out, src);
    return out;
  }
  if (PyUnicode_Check(data.ptr()) || PyBytes_Check(data.ptr())) invalid_data_type(data);
  DimVector shape = compute_sizes(data);
  std::optional<ScalarType> inferred;
  infer_type(data, inferred, 0);
  const ScalarType st = dtype ? *dtype : inferred.value_or(default_float_type());
  if (is_reduced_float(st)) {
    // Python floats reach float16 through float32, as PyTorch stores them.
    Tensor wide = tensor_from_data(data, ScalarType::Float32);
    return ops::to_dtype(wide, st);
  }
  Tensor out = empty(shape, st);
  // No element to store, so PyTorch never reads the data a second time: a
  // ragged [[], [1]] is a (2, 0) tensor, and a sequence whose length changed
  // since the shape was taken is not looked at again.
  if (out.numel() == 0) return out;
  GT_DISPATCH_ALL(st, [&] {
    scalar_t* p = out.data<scalar_t>();
    fill_from<scalar_t>(data, shape, 0, p);
  });
  return out;
}

Tensor as_tensor_arg(py::handle h, std::optional<ScalarType> dtype) {
  if (is_tensor(h)) return h.cast<Tensor>();
  return tensor_from_data(h, dtype);
}

py::object tensor_tolist(const Tensor& t) {
  if (is_reduced_float(t.dtype())) return tensor_tolist(kernels::widen(t));
  Tensor c = t.is_contiguous() ? t : ops::contiguous(t);
  const int64_t nd = c.dim();
  std::function<py::object(int64_t, const char*)> build = [&](int64_t d,
                                                              const char* p) -> py::object {
    const size_t item = itemsize(c.dtype());
    if (d == nd) {
      return GT_DISPATCH_ALL(c.dtype(), [&]() -> py::object {
        scalar_t v = kernels::load<scalar_t>(p);
        if constexpr (std::is_same_v<scalar_t, bool>)
          return py::bool_(v);
        else if constexpr (std::is_floating_point_v<scalar_t>)
          return py::float_(static_cast<double>(v));
        else
          return py::int_(static_cast<int64_t>(v));
      });
    }
    py::list l(static_cast<size_t>(c.sizes()[d]));
    for (int64_t i = 0; i < c.sizes()[d]; ++i)
      l[static_cast<size_t>(i)] = build(d + 1, p + static_cast<size_t>(i * c.strides()[d]) * item);
    return std::move(l);
  };
  return build(0, c.raw());
}

}  // namespace gradtrack::python
