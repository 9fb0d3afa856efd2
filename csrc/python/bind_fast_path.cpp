// _C._fast_path(fast, slow, triggers): a callable that calls `fast` unless one of
// the keyword names in `triggers` is given, then `slow`.
//
// NOTE [The out= fast path]
// torch's module functions take out= (and factories layout=, pin_memory=); here a
// Python wrapper handles them, which put a Python frame (about 0.6 us, measured)
// in front of every gradtrack.add(a, b). This object keeps that frame for the
// calls that use those keywords: a plain call goes through CPython's vectorcall
// straight to the C++-bound function. Everything else about it is the wrapper's:
// attribute reads and writes (name, docstring, signature, __class__) are
// forwarded to `slow`, so inspect, doctest and pickle see the wrapper function.
#include <Python.h>

#include "python/common.h"

namespace gradtrack::python {

namespace {

struct FastPath {
  PyObject_HEAD vectorcallfunc vectorcall;
  PyObject* fast;
  PyObject* slow;
  PyObject* triggers;  // a tuple of str
};

bool triggered(const FastPath* f, PyObject* kwnames) {
  if (kwnames == nullptr) return false;
  const Py_ssize_t nk = PyTuple_GET_SIZE(kwnames), nt = PyTuple_GET_SIZE(f->triggers);
  for (Py_ssize_t i = 0; i < nk; ++i) {
    PyObject* name = PyTuple_GET_ITEM(kwnames, i);
    for (Py_ssize_t j = 0; j < nt; ++j)
      if (PyUnicode_Compare(name, PyTuple_GET_ITEM(f->triggers, j)) == 0) return true;
  }
  return false;
}

PyObject* fast_path_call(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  auto* f = reinterpret_cast<FastPath*>(self);
  return PyObject_Vectorcall(triggered(f, kwnames) ? f->slow : f->fast, args, nargsf, kwnames);
}

void fast_path_dealloc(PyObject* self) {
  auto* f = reinterpret_cast<FastPath*>(self);
  PyObject_GC_UnTrack(self);
  Py_CLEAR(f->fast);
  Py_CLEAR(f->slow);
  Py_CLEAR(f->triggers);
  PyObject_GC_Del(self);
}

int fast_path_traverse(PyObject* self, visitproc visit, void* arg) {
  auto* f = reinterpret_cast<FastPath*>(self);
  Py_VISIT(f->fast);
  Py_VISIT(f->slow);
  Py_VISIT(f->triggers);
  return 0;
}

// NOTE [Lazy signatures]
// Each wrapper's inspect.Signature (torch's parameters plus out=/layout=) took
// parsing the C++ function's docstring and making Parameter objects: ~150 of
// them were a tenth of `import gradtrack`. A wrapper may instead carry
// `_gt_signature`, a function that builds it: the first read of __signature__
// calls it and stores the result on the wrapper, as if it had been set.
PyObject* lazy_signature(PyObject* slow, PyObject* name) {
  PyObject* make = PyObject_GetAttrString(slow, "_gt_signature");
  if (make == nullptr) {
    if (!PyErr_ExceptionMatches(PyExc_AttributeError)) return nullptr;
    PyErr_Clear();
    return PyObject_GetAttr(slow, name);
  }
  PyObject* sig = PyObject_CallNoArgs(make);
  Py_DECREF(make);
  if (sig == nullptr || PyObject_SetAttr(slow, name, sig) < 0 ||
      PyObject_DelAttrString(slow, "_gt_signature") < 0) {
    Py_XDECREF(sig);
    return nullptr;
  }
  return sig;
}

// Pickled (torch.save of a module holding gradtrack.tanh, a function sent to a
// worker process) by name, as a function is: the wrapper's __qualname__ in its
// __module__, which gradtrack sets to where the object lives.
PyObject* fast_path_reduce(PyObject* self, PyObject* /*protocol*/) {
  return PyObject_GetAttrString(reinterpret_cast<FastPath*>(self)->slow, "__qualname__");
}

PyMethodDef fast_path_methods[] = {
    {"__reduce_ex__", fast_path_reduce, METH_O, nullptr},
    {"__reduce__", reinterpret_cast<PyCFunction>(+[](PyObject* self, PyObject*) {
       return fast_path_reduce(self, nullptr);
     }),
     METH_NOARGS, nullptr},
    {nullptr, nullptr, 0, nullptr}};

// Its own three fields by their _gt_ names and its pickling; every other
// attribute is the wrapper's.
PyObject* fast_path_getattr(PyObject* self, PyObject* name) {
  auto* f = reinterpret_cast<FastPath*>(self);
  if (PyUnicode_CompareWithASCIIString(name, "__reduce_ex__") == 0 ||
      PyUnicode_CompareWithASCIIString(name, "__reduce__") == 0)
    return PyObject_GenericGetAttr(self, name);
  if (PyUnicode_CompareWithASCIIString(name, "_gt_fast") == 0) return Py_NewRef(f->fast);
  if (PyUnicode_CompareWithASCIIString(name, "_gt_slow") == 0) return Py_NewRef(f->slow);
  if (PyUnicode_CompareWithASCIIString(name, "_gt_triggers") == 0) return Py_NewRef(f->triggers);
  if (PyUnicode_CompareWithASCIIString(name, "__signature__") == 0)
    return lazy_signature(f->slow, name);
  return PyObject_GetAttr(f->slow, name);
}

int fast_path_setattr(PyObject* self, PyObject* name, PyObject* value) {
  return PyObject_SetAttr(reinterpret_cast<FastPath*>(self)->slow, name, value);
}

PyObject* fast_path_repr(PyObject* self) {
  return PyObject_Repr(reinterpret_cast<FastPath*>(self)->slow);
}

PyObject* fast_path_get(PyObject* self, PyObject* obj, PyObject* /*type*/) {
  // Stored on a class (Tensor.new_zeros) it binds as a function does, itself:
  // a bound call takes the fast path too, and inspect finds the signature.
  if (obj == nullptr || obj == Py_None) return Py_NewRef(self);
  return PyMethod_New(self, obj);
}

PyTypeObject fast_path_type = [] {
  PyTypeObject t{PyVarObject_HEAD_INIT(nullptr, 0)};
  t.tp_name = "gradtrack._C._FastPath";
  t.tp_basicsize = sizeof(FastPath);
  t.tp_dealloc = fast_path_dealloc;
  t.tp_vectorcall_offset = offsetof(FastPath, vectorcall);
  t.tp_call = PyVectorcall_Call;
  t.tp_repr = fast_path_repr;
  t.tp_getattro = fast_path_getattr;
  t.tp_methods = fast_path_methods;
  t.tp_setattro = fast_path_setattr;
  t.tp_descr_get = fast_path_get;
  t.tp_traverse = fast_path_traverse;
  t.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL;
  t.tp_doc = "A callable that skips its Python wrapper when no trigger keyword is given.";
  return t;
}();

}  // namespace

void init_fast_path(py::module_& m) {
  if (PyType_Ready(&fast_path_type) < 0) throw py::error_already_set();
  m.def(
      "_fast_path",
      [](py::object fast, py::object slow, py::tuple triggers) {
        auto* f = PyObject_GC_New(FastPath, &fast_path_type);
        if (f == nullptr) throw py::error_already_set();
        f->vectorcall = fast_path_call;
        f->fast = fast.release().ptr();
        f->slow = slow.release().ptr();
        f->triggers = triggers.release().ptr();
        PyObject_GC_Track(reinterpret_cast<PyObject*>(f));
        return py::reinterpret_steal<py::object>(reinterpret_cast<PyObject*>(f));
      },
      py::arg("fast"), py::arg("slow"), py::arg("triggers"));
}

}  // namespace gradtrack::python
