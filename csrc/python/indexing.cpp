// __getitem__ / __setitem__ index parsing: basic indices become views,
// tensors (and lists) become one advanced-indexing call.
#include "autograd/provenance.h"
#include "autograd/variable.h"
#include "python/common.h"

namespace gradtrack::python {

namespace {

bool is_int(py::handle h) {
  if (PyBool_Check(h.ptr())) return false;
  if (py::isinstance<TensorImpl>(h)) {
    // A 0-dim integer tensor indexes like an int (PyTorch: SelectBackward0).
    Tensor t = h.cast<Tensor>();
    return t.dim() == 0 && is_integral(t.dtype());
  }
  return PyLong_Check(h.ptr()) || PyIndex_Check(h.ptr());
}

// How many tensor dims an index item consumes.
int64_t consumed(py::handle item) {
  if (item.is_none() || item.ptr() == Py_Ellipsis || PyBool_Check(item.ptr())) return 0;
  if (py::isinstance<TensorImpl>(item)) {
    Tensor t = item.cast<Tensor>();
    return t.dtype() == ScalarType::Bool || t.dtype() == ScalarType::UInt8 ? t.dim() : 1;
  }
  return 1;
}

struct Parsed {
  Tensor view;
  ops::IndexList adv;
  bool has_adv = false;
};

// A 0-dim bool (or uint8) tensor indexes like the Python bool it holds.
bool is_bool_scalar_tensor(py::handle h) {
  if (!py::isinstance<TensorImpl>(h)) return false;
  Tensor t = h.cast<Tensor>();
  return t.dim() == 0 && (t.dtype() == ScalarType::Bool || t.dtype() == ScalarType::UInt8);
}

bool truth_of(py::handle h) {
  if (PyBool_Check(h.ptr())) return h.ptr() == Py_True;
  return PyObject_IsTrue(h.ptr()) == 1;
}

Tensor to_index_tensor(py::handle item) {
  if (py::isinstance<TensorImpl>(item)) return item.cast<Tensor>();
  return tensor_from_data(item, std::nullopt);
}

// NOTE [Whole-dim slices]
// A slice with start 0 (as written, or omitted), step 1 and a stop at or past
// the dim's end is skipped (no view, no node) by PyTorch inside a tuple index
// and in every __setitem__, so `x[:] = v` writes x itself (CopyBackwards) and
// `x[-1:]` on a size-1 dim still slices. A lone `x[:]` read is always a slice.
Parsed parse(const Tensor& self, py::handle index, bool setitem) {
  const bool is_tuple = PyTuple_Check(index.ptr());
  std::vector<py::handle> items;
  py::tuple holder;
  if (is_tuple) {
    holder = py::reinterpret_borrow<py::tuple>(index);
    for (py::handle h : holder) items.push_back(h);
  } else {
    items.push_back(index);
  }
  int64_t explicit_dims = 0;
  bool seen_ellipsis = false;
  for (py::handle h : items) {
    if (h.ptr() == Py_Ellipsis) {
      GT_CHECK_INDEX(!seen_ellipsis, "an index can only have a single ellipsis ('...')");
      seen_ellipsis = true;
    }
    explicit_dims += consumed(h);
  }
  GT_CHECK_INDEX(explicit_dims <= self.dim() || (self.dim() == 0 && is_int(items[0])),
                 "too many indices for tensor of dimension ", self.dim());
  Parsed p;
  Tensor cur = self;
  int64_t dim = 0;  // position in `cur`
  // Errors name the item's position in the index, as PyTorch's do (so
  // x[..., -1] of a 3-D tensor reports "dimension 1").
  int64_t pos = -1;
  for (py::handle item : items) {
    ++pos;
    if (is_int(item)) {
      GT_CHECK_INDEX(self.dim() > 0,
                     "invalid index of a 0-dim tensor. Use `tensor.item()` in "
                     "Python or `tensor.item<T>()` in C++ to convert a 0-dim tensor to a number");
      int64_t i = unpack_long(py::int_(py::reinterpret_borrow<py::object>(item)));
      int64_t size = cur.sizes()[dim];
      GT_CHECK_INDEX(i >= -size && i < size, "index ", i, " is out of bounds for dimension ", pos,
                     " with size ", size);
      cur = ops::select(cur, dim, i);
    } else if (PySlice_Check(item.ptr())) {
      Py_ssize_t start, stop, step;
      if (PySlice_Unpack(item.ptr(), &start, &stop, &step) < 0) throw py::error_already_set();
      GT_CHECK_VALUE(step > 0, "step must be greater than zero");
      py::slice s = py::reinterpret_borrow<py::slice>(item);
      std::optional<int64_t> b, e;
      if (!s.attr("start").is_none()) b = start;
      if (!s.attr("stop").is_none()) e = stop;
      // NOTE [Whole-dim slices]; PySlice_Unpack gave 0 / PY_SSIZE_T_MAX for None.
      bool whole = step == 1 && start == 0 && cur.dim() > 0 && stop >= cur.sizes()[dim];
      if (!(whole && (setitem || is_tuple))) cur = ops::slice(cur, dim, b, e, step);
      ++dim;
    } else if (item.is_none()) {
      cur = ops::unsqueeze(cur, dim);
      ++dim;
    } else if (item.ptr() == Py_Ellipsis) {
      dim += self.dim() - explicit_dims;
    } else if (PyBool_Check(item.ptr()) || is_bool_scalar_tensor(item)) {
      // x[True] / x[False]: a new dim, advanced-indexed with [0] or [].
      cur = ops::unsqueeze(cur, dim);
      Tensor idx =
          truth_of(item) ? ops::zeros({1}, ScalarType::Int64) : ops::zeros({0}, ScalarType::Int64);
      p.adv.resize(static_cast<size_t>(dim));
      p.adv.emplace_back(idx);
      p.has_adv = true;
      ++dim;
    } else if (py::isinstance<TensorImpl>(item) || PyList_Check(item.ptr()) ||
               py::hasattr(item, "__array__")) {
      Tensor t = to_index_tensor(item);
      GT_CHECK_INDEX(is_integral(t.dtype()) || t.dtype() == ScalarType::Bool,
                     "tensors used as indices must be long, int, byte or bool tensors");
      if (static_cast<int64_t>(p.adv.size()) < dim) p.adv.resize(static_cast<size_t>(dim));
      p.adv.resize(static_cast<size_t>(dim));
      p.adv.emplace_back(t);
      p.has_adv = true;
      int64_t used = consumed(py::cast(t));
      dim += used;
    } else if (PyUnicode_Check(item.ptr())) {
      throw TypeError("new(): invalid data type 'str'");
    } else {
      throw IndexError(
          "only integers, slices (`:`), ellipsis (`...`), None and long or byte "
          "Variables are valid indices (got " +
          std::string(py::str(py::type::handle_of(item).attr("__name__"))) + ")");
    }
  }
  p.view = cur;
  return p;
}

}  // namespace

Tensor getitem(const Tensor& self, py::handle index) {
  // The common cases first: one int, one slice.
  if (self.dim() > 0 && PyLong_Check(index.ptr()) && !PyBool_Check(index.ptr())) {
    int64_t i = unpack_long(index);
    int64_t size = self.sizes()[0];
    GT_CHECK_INDEX(i >= -size && i < size, "index ", i,
                   " is out of bounds for dimension 0 with size ", size);
    return ops::select(self, 0, i);
  }
  Parsed p = parse(self, index, false);
  if (!p.has_adv) {
    // x[...] / x[()] alias the tensor as a view.
    if (p.view.is_same(self)) return ops::alias(self);
    return p.view;
  }
  return ops::index(p.view, p.adv);
}

namespace {

// PyTorch turns a number into a 0-dim tensor of self's dtype before indexing.
Tensor setitem_value(const Tensor& self, py::handle value) {
  if (py::isinstance<TensorImpl>(value)) return value.cast<Tensor>();
  std::optional<Scalar> s = to_scalar(value);
  if (!s) {
    std::string target = self.dtype() == ScalarType::Bool
                             ? "gradtrack.BoolTensor"
                             : legacy_type_name(self.dtype(), "gradtrack");
    throw TypeError(std::string("can't assign a ") + Py_TYPE(value.ptr())->tp_name + " to a " +
                    target);
  }
  check_fits(*s, self.dtype());
  return ops::scalar_tensor(*s, self.dtype());
}

// The value with its leading size-1 dims dropped (a view, as PyTorch makes).
Tensor drop_leading_ones(const Tensor& v, bool always_view) {
  DimVector sizes(v.sizes());
  size_t k = 0;
  while (k < sizes.size() && sizes[k] == 1) ++k;
  if (k == 0 && !always_view) return v;
  return ops::view(v, DimVector(sizes.begin() + static_cast<std::ptrdiff_t>(k), sizes.end()));
}

}  // namespace

// NOTE [setitem]
// x[index] = value, as PyTorch does it: the value becomes a tensor, the basic
// part of the index a view (NOTE [Whole-dim slices]); then
//  - with tensor indices: index_put_, the value without leading size-1 dims;
//  - else, a value of the target's shape: copy_; a 0-dim value: fill_;
//  - else copy_ of the value without leading size-1 dims, expanded.
// Returns (target, indices or None, value, kind) for _inplace.setitem, which
// applies the in-place rules to the target and then calls _setitem_.
py::tuple setitem_target(const Tensor& self, py::handle index, py::handle value) {
  Tensor v = setitem_value(self, value);
  if (index.ptr() == Py_False) return py::make_tuple(self, py::none(), v, int(SetitemKind::None));
  Tensor target;
  py::object idx = py::none();
  if (index.ptr() == Py_True) {
    target = ops::unsqueeze(self, 0);
  } else {
    Parsed p = parse(self, index, true);
    target = p.view;
    if (p.has_adv) {
      py::list l;
      for (const auto& t : p.adv) l.append(t ? py::cast(*t) : py::none());
      return py::make_tuple(target, l, drop_leading_ones(v, false), int(SetitemKind::IndexPut));
    }
  }
  if (v.sizes() == target.sizes()) return py::make_tuple(target, idx, v, int(SetitemKind::Copy));
  if (v.dim() == 0) return py::make_tuple(target, idx, v, int(SetitemKind::Fill));
  v = drop_leading_ones(v, true);
  if (v.sizes() != target.sizes()) v = ops::expand(v, target.sizes());
  return py::make_tuple(target, idx, v, int(SetitemKind::Copy));
}

void setitem_write(const Tensor& target, py::handle indices, const Tensor& value, int kind) {
  autograd::ScopedWriteLabel label("__setitem__", true);
  switch (static_cast<SetitemKind>(kind)) {
    case SetitemKind::Copy: ops::inplace_copy(target, value); break;
    case SetitemKind::Fill: ops::inplace_fill(target, value); break;
    case SetitemKind::IndexPut: {
      ops::IndexList idx;
      for (py::handle h : indices) {
        if (h.is_none())
          idx.emplace_back(std::nullopt);
        else
          idx.emplace_back(h.cast<Tensor>());
      }
      ops::inplace_index_put(target, idx, value, false);
      break;
    }
    case SetitemKind::None: break;
  }
}

}  // namespace gradtrack::python
