// __getitem__ / __setitem__ index parsing: basic indices become views,
// tensors (and lists) become one advanced-indexing call.
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

Tensor to_index_tensor(py::handle item) {
  if (py::isinstance<TensorImpl>(item)) return item.cast<Tensor>();
  return tensor_from_data(item, std::nullopt);
}

Parsed parse(const Tensor& self, py::handle index) {
  std::vector<py::handle> items;
  py::tuple holder;
  if (PyTuple_Check(index.ptr())) {
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
  int64_t dim = 0;       // position in `cur`
  int64_t self_dim = 0;  // position in `self`, for error messages
  for (py::handle item : items) {
    if (is_int(item)) {
      GT_CHECK_INDEX(self.dim() > 0, "invalid index of a 0-dim tensor. Use `tensor.item()` in "
                     "Python or `tensor.item<T>()` in C++ to convert a 0-dim tensor to a number");
      int64_t i = unpack_long(py::int_(py::reinterpret_borrow<py::object>(item)));
      int64_t size = cur.sizes()[dim];
      GT_CHECK_INDEX(i >= -size && i < size, "index ", i, " is out of bounds for dimension ",
                     self_dim, " with size ", size);
      cur = ops::select(cur, dim, i);
      ++self_dim;
    } else if (PySlice_Check(item.ptr())) {
      Py_ssize_t start, stop, step;
      if (PySlice_Unpack(item.ptr(), &start, &stop, &step) < 0) throw py::error_already_set();
      GT_CHECK_VALUE(step > 0, "step must be greater than zero");
      py::slice s = py::reinterpret_borrow<py::slice>(item);
      std::optional<int64_t> b, e;
      if (!s.attr("start").is_none()) b = start;
      if (!s.attr("stop").is_none()) e = stop;
      // Inside a tuple, a slice covering the whole dim is skipped (no node),
      // as PyTorch does; a lone `x[:]` still makes a view.
      int64_t size = cur.sizes()[dim];
      int64_t lo = b.value_or(0), hi = e.value_or(size);
      if (lo < 0) lo += size;
      if (hi < 0) hi += size;
      bool whole = step == 1 && lo <= 0 && hi >= size;
      if (!(whole && items.size() > 1)) cur = ops::slice(cur, dim, b, e, step);
      ++dim;
      ++self_dim;
    } else if (item.is_none()) {
      cur = ops::unsqueeze(cur, dim);
      ++dim;
    } else if (item.ptr() == Py_Ellipsis) {
      dim += self.dim() - explicit_dims;
      self_dim += self.dim() - explicit_dims;
    } else if (PyBool_Check(item.ptr())) {
      // x[True] / x[False]: a new dim, advanced-indexed with [0] or [].
      cur = ops::unsqueeze(cur, dim);
      Tensor idx = item.ptr() == Py_True ? ops::zeros({1}, ScalarType::Int64)
                                         : ops::zeros({0}, ScalarType::Int64);
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
      self_dim += used;
    } else if (PyUnicode_Check(item.ptr())) {
      throw TypeError("new(): invalid data type 'str'");
    } else {
      throw IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte "
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
    GT_CHECK_INDEX(i >= -size && i < size, "index ", i, " is out of bounds for dimension 0 with size ",
                   size);
    return ops::select(self, 0, i);
  }
  Parsed p = parse(self, index);
  if (!p.has_adv) {
    // x[...] / x[()] alias the tensor as a view.
    if (p.view.is_same(self)) return ops::alias(self);
    return p.view;
  }
  return ops::index(p.view, p.adv);
}

py::tuple setitem_target(const Tensor& self, py::handle index) {
  Parsed p = parse(self, index);
  if (!p.has_adv) return py::make_tuple(p.view, py::none());
  py::list idx;
  for (const auto& t : p.adv) idx.append(t ? py::cast(*t) : py::none());
  return py::make_tuple(p.view, idx);
}

}  // namespace gradtrack::python
