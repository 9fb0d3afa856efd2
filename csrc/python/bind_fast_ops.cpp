// The per-op overhead at the Python boundary: Tensor results made
// without pybind11's registry lookups, and CPython number slots for + - * /.
//
// NOTE [Number slots]
// `a + b` on a pybind11 class runs CPython's generic slot: it looks up
// __add__ on the type, makes a bound method, and pybind11's dispatcher loads
// the arguments through its type registry; that is most of a 1-element add.
// _C._install_number_slots() (run last in `import gradtrack`) sets nb_add,
// nb_subtract, nb_multiply and nb_true_divide of Tensor to functions that
// compute Tensor op Tensor and Tensor op / op Tensor for Python numbers
// (bool, int, float) directly, as the bound __add__ / __radd__ would. Every
// other operand (subclasses such as Parameter, NumPy values and arrays,
// complex, unsupported types) goes to the bound __add__ / __radd__ in
// CPython's order, so NotImplemented and Python's TypeError stay as they were.
// Python subclasses keep CPython's generic slot (their __add__ is inherited
// as a bound function), and assigning Tensor.__add__ (or __radd__) from
// Python puts the generic slot back: the assignment then takes effect, only
// the fast path is gone. tests/test_op_fast_paths.py checks the slots are in
// place after import.
#include <Python.h>

#include "python/common.h"

namespace gradtrack::python {

PyObject* wrap_tensor(const Tensor& t) {
  if (!t.defined()) return Py_NewRef(Py_None);
  const py::detail::type_info* ti = tensor_type_info;
  // A TensorImpl that only `t` owns has no Python object (each one holds a
  // reference): make one without looking it up (NOTE [Tensor identity]).
  if (ti == nullptr || t.ptr().use_count() != 1) {
    using Holder = std::shared_ptr<TensorImpl>;
    return py::detail::make_caster<Holder>::cast(t.ptr(), py::return_value_policy::take_ownership,
                                                 py::handle())
        .ptr();
  }
  PyObject* obj = ti->type->tp_alloc(ti->type, 0);
  if (obj == nullptr) throw py::error_already_set();
  // What pybind11's allocate_layout and init_instance do for a simple layout.
  auto* inst = reinterpret_cast<py::detail::instance*>(obj);
  inst->simple_layout = true;
  inst->owned = true;
  inst->simple_value_holder[0] = t.get();
  py::detail::register_instance(inst, t.get(), ti);
  inst->simple_instance_registered = true;
  new (&inst->simple_value_holder[1]) std::shared_ptr<TensorImpl>(t.ptr());
  inst->simple_holder_constructed = true;
  return obj;
}

namespace {

enum Arith { kAdd, kSub, kMul, kDiv, kArithCount };

// The bound methods (functions under pybind11's instancemethod) per op:
// [op][0] is __add__, [op][1] is __radd__.
PyObject* g_bound[kArithCount][2] = {};

Tensor tensor_tensor(Arith op, const Tensor& a, const Tensor& b) {
  switch (op) {
    case kAdd: return ops::add(a, b);
    case kSub: return ops::sub(a, b);
    case kMul: return ops::mul(a, b);
    default: return ops::div(a, b);
  }
}

// `a op s`, as __add__ etc. compute it for a number.
Tensor tensor_number(Arith op, const Tensor& a, Scalar s) {
  switch (op) {
    case kAdd: return ops::add(a, s);
    case kSub: return ops::sub(a, s);
    case kMul: return ops::mul(a, s);
    default: return ops::div(a, s);
  }
}

// `s op b`, as __radd__ etc. compute it.
Tensor number_tensor(Arith op, Scalar s, const Tensor& b) {
  switch (op) {
    case kAdd: return ops::add(b, s);
    case kSub: return ops::rsub(b, s);
    case kMul: return ops::mul(b, s);
    default: return ops::rdiv(b, s);
  }
}

// Python's own numbers; their subclasses too, as to_scalar takes them.
bool is_number(PyObject* o) { return PyFloat_Check(o) || PyLong_Check(o); }

PyObject* call_bound(PyObject* fn, PyObject* self, PyObject* other) {
  PyObject* args[2] = {self, other};
  return PyObject_Vectorcall(fn, args, 2, nullptr);
}

template <Arith Op>
PyObject* number_slot(PyObject* v, PyObject* w);

binaryfunc* slot_of(PyTypeObject* t, Arith op) {
  PyNumberMethods* nb = t->tp_as_number;
  if (nb == nullptr) return nullptr;
  switch (op) {
    case kAdd: return &nb->nb_add;
    case kSub: return &nb->nb_subtract;
    case kMul: return &nb->nb_multiply;
    default: return &nb->nb_true_divide;
  }
}

constexpr binaryfunc kSlots[kArithCount] = {number_slot<kAdd>, number_slot<kSub>, number_slot<kMul>,
                                            number_slot<kDiv>};

bool has_our_slot(PyObject* o, Arith op) {
  binaryfunc* s = slot_of(Py_TYPE(o), op);
  return s != nullptr && *s == kSlots[op];
}

// Everything but the fast cases: what CPython's generic slot would do with
// the bound methods. `v` has our slot: v.__add__(w); else (or when that is
// NotImplemented) `w` of another type with our slot: w.__radd__(v).
PyObject* generic(Arith op, PyObject* v, PyObject* w) {
  if (has_our_slot(v, op)) {
    PyObject* r = call_bound(g_bound[op][0], v, w);
    if (r != Py_NotImplemented) return r;
    Py_DECREF(r);
  }
  if (Py_TYPE(w) != Py_TYPE(v) && has_our_slot(w, op)) return call_bound(g_bound[op][1], w, v);
  Py_RETURN_NOTIMPLEMENTED;
}

template <Arith Op>
PyObject* number_slot(PyObject* v, PyObject* w) {
  try {
    const bool vt = Py_TYPE(v) == tensor_type, wt = Py_TYPE(w) == tensor_type;
    const std::shared_ptr<TensorImpl>* hv = vt ? tensor_holder(v) : nullptr;
    const std::shared_ptr<TensorImpl>* hw = wt ? tensor_holder(w) : nullptr;
    if (hv && hw) return wrap_tensor(tensor_tensor(Op, Tensor(*hv), Tensor(*hw)));
    if (hv && is_number(w)) return wrap_tensor(tensor_number(Op, Tensor(*hv), *to_scalar(w)));
    if (hw && is_number(v)) return wrap_tensor(number_tensor(Op, *to_scalar(v), Tensor(*hw)));
    return generic(Op, v, w);
  } catch (py::error_already_set& e) {
    e.restore();
    return nullptr;
  } catch (...) {
    py::detail::try_translate_exceptions();
    return nullptr;
  }
}

constexpr const char* kNames[kArithCount][2] = {{"__add__", "__radd__"},
                                                {"__sub__", "__rsub__"},
                                                {"__mul__", "__rmul__"},
                                                {"__truediv__", "__rtruediv__"}};

// The function under Tensor.<name> as pybind11 bound it (an instancemethod).
PyObject* bound_function(const char* name) {
  PyObject* raw = PyDict_GetItemString(tensor_type->tp_dict, name);
  GT_CHECK(raw != nullptr && PyInstanceMethod_Check(raw), "gradtrack: Tensor.", name,
           " is not the bound operator");
  return Py_NewRef(PyInstanceMethod_GET_FUNCTION(raw));
}

void install_number_slots() {
  GT_CHECK(tensor_type != nullptr, "gradtrack: Tensor is not bound yet");
  for (int op = 0; op < kArithCount; ++op) {
    for (int side = 0; side < 2; ++side) {
      if (g_bound[op][side] == nullptr) g_bound[op][side] = bound_function(kNames[op][side]);
    }
    *slot_of(tensor_type, static_cast<Arith>(op)) = kSlots[op];
  }
  PyType_Modified(tensor_type);
}

// The operators whose fast slot is in place (a later `Tensor.__add__ = ...`
// in Python puts CPython's generic slot back).
py::list active_number_slots() {
  py::list out;
  for (int op = 0; op < kArithCount; ++op) {
    binaryfunc* s = tensor_type ? slot_of(tensor_type, static_cast<Arith>(op)) : nullptr;
    if (s != nullptr && *s == kSlots[op]) out.append(kNames[op][0]);
  }
  return out;
}

// NOTE [Tensor dealloc]
// pybind11's dealloc walks its generic value/holder layout (a registry lookup
// per object). A Tensor of the exact type with a holder does the same steps
// in place: unregister, drop the holder (its destructor may run Python code,
// hence the error scope), clear weak references and the instance dict, free.
// Anything else (subclasses, an object whose __init__ never ran, keep-alive
// patients) goes to pybind11's own.
destructor g_pybind_dealloc = nullptr;

void tensor_dealloc(PyObject* self) {
  auto* inst = reinterpret_cast<py::detail::instance*>(self);
  PyTypeObject* type = Py_TYPE(self);
  if (type != tensor_type || tensor_type_info == nullptr || !inst->simple_layout ||
      !inst->simple_holder_constructed || inst->has_patients ||
      inst->simple_value_holder[0] == nullptr) {
    g_pybind_dealloc(self);
    return;
  }
  PyObject_GC_UnTrack(self);
  if (inst->simple_instance_registered) {
    if (!py::detail::deregister_instance(inst, inst->simple_value_holder[0], tensor_type_info))
      py::pybind11_fail("tensor_dealloc: Tried to deallocate unregistered instance!");
    inst->simple_instance_registered = false;
  }
  using Holder = std::shared_ptr<TensorImpl>;
  auto* holder = reinterpret_cast<Holder*>(&inst->simple_value_holder[1]);
  if (PyErr_Occurred()) {
    py::error_scope keep_error;
    holder->~Holder();
  } else {
    holder->~Holder();
    PyErr_Clear();  // what the error scope's restore of "no error" does
  }
  inst->simple_holder_constructed = false;
  inst->simple_value_holder[0] = nullptr;
  if (inst->weakrefs) PyObject_ClearWeakRefs(self);
  if (PyObject** dict = _PyObject_GetDictPtr(self)) Py_CLEAR(*dict);
  type->tp_free(self);
  Py_DECREF(type);
}

}  // namespace

void init_fast_ops(py::module_& m) {
  if (tensor_type != nullptr && g_pybind_dealloc == nullptr) {
    g_pybind_dealloc = tensor_type->tp_dealloc;
    tensor_type->tp_dealloc = tensor_dealloc;
  }
  m.def("_install_number_slots", &install_number_slots,
        "Sets Tensor's + - * / slots to the fast path (NOTE [Number slots]).");
  m.def("_active_number_slots", &active_number_slots,
        "The operators of Tensor whose fast number slot is in place.");
}

}  // namespace gradtrack::python
