// The Tensor class: construction, geometry, conversions, autograd fields.
// Math methods and operators are in bind_tensor_ops.cpp.
#include <pybind11/numpy.h>

#include <atomic>

#include "autograd/functions.h"
#include "autograd/grad_mode.h"
#include "autograd/variable.h"
#include "kernels/kernels.h"
#include "python/common.h"

namespace gradtrack::python {

// Tensor math, bound as methods and gradtrack.* functions, by area.
using TensorClass = py::class_<TensorImpl, std::shared_ptr<TensorImpl>>;
void init_pointwise(TensorClass& cls, py::module_& m);  // bind_pointwise.cpp
void init_reduction(TensorClass& cls, py::module_& m);  // bind_reduction.cpp
void init_shape(TensorClass& cls, py::module_& m);      // bind_shape.cpp
void init_indexing(TensorClass& cls, py::module_& m);   // bind_indexing.cpp
void init_linalg(TensorClass& cls, py::module_& m);     // bind_linalg.cpp
void init_softmax(TensorClass& cls, py::module_& m);    // bind_softmax.cpp
py::object node_object(const std::shared_ptr<autograd::Node>& node);
void run_backward_py(const std::vector<Tensor>& outputs, const std::vector<py::object>& grads,
                     py::object retain_graph, bool create_graph, const std::vector<Tensor>& inputs);

namespace {

using Cls = py::class_<TensorImpl, std::shared_ptr<TensorImpl>>;
namespace ag = autograd;

std::shared_ptr<TensorImpl> construct(const py::args& args) {
  if (args.size() == 1 && py::isinstance<TensorImpl>(args[0])) {
    // Parameter(data): an alias of data (shared storage and counter). It is a
    // tensor in its own right: writes to it are not "through a detach() alias".
    Tensor src = args[0].cast<Tensor>();
    Tensor alias = ag::detach(src);
    alias->set_alias_kind(TensorImpl::AliasKind::None);
    return alias.ptr();
  }
  if (args.size() == 1 && (PyList_Check(args[0].ptr()) || PyTuple_Check(args[0].ptr()))) {
    return tensor_from_data(args[0], default_float_type()).ptr();
  }
  if (args.size() == 0) return empty({0}, default_float_type()).ptr();
  return empty(parse_sizes(args, "Tensor"), default_float_type()).ptr();
}

py::object scalar_to_py(Scalar s) {
  if (s.is_bool()) return py::bool_(s.to_int() != 0);
  if (s.is_float()) return py::float_(s.to_double());
  return py::int_(s.to_int());
}

void one_element(const Tensor& t) {
  GT_CHECK_VALUE(t.numel() == 1, "only one element tensors can be converted to Python scalars");
}

void bind_geometry(Cls& cls) {
  cls.def_property_readonly("shape", [](const Tensor& t) { return make_size(t.sizes()); })
      .def(
          "size",
          [](const Tensor& t, py::object dim) -> py::object {
            if (dim.is_none()) return make_size(t.sizes());
            return py::int_(t.sizes()[wrap_dim(unpack_long(dim), t.dim())]);
          },
          py::arg("dim") = py::none())
      .def(
          "stride",
          [](const Tensor& t, py::object dim) -> py::object {
            if (dim.is_none()) return py::tuple(py::cast(t.strides().vec()));
            return py::int_(t.strides()[wrap_dim(unpack_long(dim), t.dim())]);
          },
          py::arg("dim") = py::none())
      .def("dim", [](const Tensor& t) { return t.dim(); })
      .def("ndimension", [](const Tensor& t) { return t.dim(); })
      .def_property_readonly("ndim", [](const Tensor& t) { return t.dim(); })
      .def("numel",
           [](const Tensor& t) {
             GT_CHECK(t.numel() >= 0, "numel: integer multiplication overflow");
             return t.numel();
           })
      .def("nelement", [](const Tensor& t) { return t.numel(); })
      .def("element_size", [](const Tensor& t) { return itemsize(t.dtype()); })
      .def_property_readonly("itemsize", [](const Tensor& t) { return itemsize(t.dtype()); })
      .def_property_readonly(
          "nbytes", [](const Tensor& t) { return t.numel() * int64_t(itemsize(t.dtype())); })
      .def("storage_offset", [](const Tensor& t) { return t->offset(); })
      .def("is_contiguous", [](const Tensor& t) { return t.is_contiguous(); })
      .def("data_ptr", [](const Tensor& t) { return reinterpret_cast<uintptr_t>(t.raw()); })
      .def("untyped_storage_ptr",
           [](const Tensor& t) { return reinterpret_cast<uintptr_t>(t->storage()->data()); })
      // The size of the memory under the tensor, which torch's file format saves whole.
      .def("_storage_nbytes", [](const Tensor& t) { return t->storage()->nbytes(); })
      .def_property_readonly("dtype", [](const Tensor& t) { return dtype_object(t.dtype()); })
      .def("is_floating_point", [](const Tensor& t) { return is_floating(t.dtype()); })
      .def("is_complex", [](const Tensor&) { return false; })
      .def_property_readonly("is_cuda", [](const Tensor&) { return false; })
      .def_property_readonly("_version", [](const Tensor& t) { return t->version(); })
      .def("__len__", [](const Tensor& t) {
        GT_CHECK_TYPE(t.dim() > 0, "len() of a 0-d tensor");
        return t.sizes()[0];
      });
}

void bind_conversions(Cls& cls) {
  cls.def("item", [](const Tensor& t) { return scalar_to_py(item_of(t)); })
      .def("tolist", [](const Tensor& t) { return tensor_tolist(t); })
      .def(
          "numpy", [](py::handle self, bool force) { return tensor_numpy(self, force); },
          py::arg("force") = false)
      .def("__bool__",
           [](const Tensor& t) {
             GT_CHECK(t.numel() != 0, "Boolean value of Tensor with no values is ambiguous");
             GT_CHECK(t.numel() == 1,
                      "Boolean value of Tensor with more than one value is ambiguous");
             return item_of(t).to<bool>();
           })
      .def("__float__",
           [](const Tensor& t) {
             one_element(t);
             // torch 2.13 warns once per process, for float() (and complex()) only;
             // gradtrack's own Python code converts where torch's C++ does, silently.
             static std::atomic<bool> warned{false};
             if (ag::requires_grad(t) && !warned.load() && !called_from_package() &&
                 !warned.exchange(true))
               warn(
                   "Converting a tensor with requires_grad=True to a scalar may lead to "
                   "unexpected behavior.\nConsider using tensor.detach() first.");
             return item_of(t).to_double();
           })
      .def("__int__",
           [](const Tensor& t) -> py::object {
             one_element(t);
             Scalar v = item_of(t);
             // Python's int(float): exact for any finite value (int(1e300) is not
             // int64), and Python's ValueError / OverflowError for NaN and inf,
             // as PyTorch; a C++ cast would wrap them to INT64_MIN.
             if (!v.is_float()) return py::int_(v.to_int());
             PyObject* i = PyNumber_Long(py::float_(v.to_double()).ptr());
             if (!i) throw py::error_already_set();
             return py::reinterpret_steal<py::object>(i);
           })
      .def("__index__",
           [](const Tensor& t) {
             GT_CHECK_TYPE(
                 t.numel() == 1 && (is_integral(t.dtype()) || t.dtype() == ScalarType::Bool),
                 "only integer tensors of a single element can be converted to an index");
             return item_of(t).to_int();
           })
      .def("__hash__", [](py::handle self) { return reinterpret_cast<intptr_t>(self.ptr()) >> 4; })
      .def("__getitem__", [](const Tensor& t, py::handle idx) { return getitem(t, idx); })
      .def("_setitem_target", [](const Tensor& t, py::handle idx, py::handle value) {
        return setitem_target(t, idx, value);
      });
}

// Tensor.backward, bound directly: the common `loss.backward()` pays no
// Python frames (gradtrack.autograd.backward is the general entry).
void tensor_backward(const Tensor& self, py::object gradient, py::object retain_graph,
                     bool create_graph, py::object inputs) {
  std::vector<Tensor> ins;
  if (!inputs.is_none()) {
    if (py::isinstance<TensorImpl>(inputs)) {
      ins.push_back(inputs.cast<Tensor>());
    } else {
      ins = inputs.cast<std::vector<Tensor>>();
      GT_CHECK(!ins.empty(), "`inputs` argument to `backward()` cannot be empty.");
    }
  }
  if (create_graph) {
    py::module_ autograd = py::module_::import("gradtrack.autograd");
    autograd.attr("_warn_create_graph")();
    std::vector<Tensor> all = ins;
    all.push_back(self);
    autograd.attr("_refuse_forward_over_reverse")(all);
  }
  if (!ins.empty()) {
    // a pass that writes only the given inputs' .grad: a reentrant checkpoint refuses
    // it, as under autograd.backward(inputs=) (NOTE [Checkpoint validity])
    py::object invalid = py::module_::import("gradtrack.autograd").attr("_checkpoint_invalid")();
    invalid.attr("__enter__")();
    try {
      run_backward_py({self}, {gradient}, retain_graph, create_graph, ins);
    } catch (...) {
      invalid.attr("__exit__")(py::none(), py::none(), py::none());
      throw;
    }
    invalid.attr("__exit__")(py::none(), py::none(), py::none());
    return;
  }
  run_backward_py({self}, {gradient}, retain_graph, create_graph, ins);
}

void bind_autograd_fields(Cls& cls) {
  cls.def_property_readonly("requires_grad", [](const Tensor& t) { return ag::requires_grad(t); })
      .def_property_readonly("is_leaf", [](const Tensor& t) { return ag::is_leaf(t); })
      .def_property_readonly("grad_fn", [](const Tensor& t) { return node_object(ag::grad_fn(t)); })
      .def_property_readonly("_grad",
                             [](const Tensor& t) {
                               ag::AutogradMeta* m = ag::meta(t);
                               return m ? m->grad : Tensor();
                             })
      .def_property_readonly("retains_grad",
                             [](const Tensor& t) {
                               ag::AutogradMeta* m = ag::meta(t);
                               return m != nullptr && m->retains_grad;
                             })
      .def_property_readonly("output_nr", [](const Tensor& t) { return ag::output_nr(t); })
      .def_property_readonly("_base", [](const Tensor& t) { return ag::view_base(t); })
      .def("_is_view", [](const Tensor& t) { return ag::is_view(t); })
      .def("detach", [](const Tensor& t) { return ag::detach(t); })
      .def("_detach_inplace", [](const Tensor& t) { ag::detach_inplace(t); })
      // `.data`: the memory under a fresh counter, which the silent-write
      // detector must know of (NOTE [Silent writes]).
      .def("_data",
           [](const Tensor& t) {
             Tensor alias = alias_fresh_counter(t);
             alias->set_alias_kind(TensorImpl::AliasKind::Data);
             silent_writes::note_alias(t->storage(), silent_writes::kData);
             return alias;
           })
      .def("_check_view_rebase", [](const Tensor& t) { ag::check_view_rebase(t, false); })
      .def("backward", &tensor_backward, py::arg("gradient") = py::none(),
           py::arg("retain_graph") = py::none(), py::arg("create_graph") = false,
           py::arg("inputs") = py::none(),
           "Computes the gradient of this tensor w.r.t. graph leaves (accumulated into .grad).");
}

// NOTE [Hooks and the garbage collector]
// A hook whose closure refers to its own tensor is a cycle through C++
// (tensor -> TensorImpl -> hook -> closure -> tensor) that Python cannot see.
// Tensors are therefore GC-aware: when the Python object is the only owner of
// its TensorImpl (and of its grad_fn), the collector visits the Python
// callables that the hooks keep alive, and tp_clear drops them. Shared impls
// are not visited: something outside Python still needs those hooks.
const std::shared_ptr<TensorImpl>* holder_of(PyObject* self) {
  auto* inst = reinterpret_cast<py::detail::instance*>(self);
  // An instance of a Tensor subclass is GC-tracked (zeroed) before pybind11 lays
  // out its value and holder, and the first instance of a subclass makes pybind11
  // allocate (a weakref to the type) in between: a collection then traverses an
  // instance with no layout, whose zeroed non-simple pointer must not be read.
  if (!inst->simple_layout && inst->nonsimple.values_and_holders == nullptr) return nullptr;
  py::detail::value_and_holder vh = inst->get_value_and_holder(nullptr, false);
  if (!vh || !vh.holder_constructed()) return nullptr;
  return &vh.holder<std::shared_ptr<TensorImpl>>();
}

ag::AutogradMeta* unique_meta(PyObject* self) {
  const std::shared_ptr<TensorImpl>* h = holder_of(self);
  if (!h || !*h || h->use_count() != 1) return nullptr;
  return static_cast<ag::AutogradMeta*>((*h)->autograd_meta());
}

template <typename Hooks>
int visit_hooks(const Hooks& hooks, visitproc visit, void* arg) {
  for (const auto& h : hooks) Py_VISIT(static_cast<PyObject*>(h.owner));
  return 0;
}

int tensor_traverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(Py_TYPE(self));
  ag::AutogradMeta* m = unique_meta(self);
  if (!m) return 0;
  if (int r = visit_hooks(m->hooks, visit, arg)) return r;
  if (int r = visit_hooks(m->post_accumulate_hooks, visit, arg)) return r;
  if (m->grad_fn && m->grad_fn.use_count() == 1) {
    if (int r = visit_hooks(m->grad_fn->pre_hooks(), visit, arg)) return r;
    if (int r = visit_hooks(m->grad_fn->post_hooks(), visit, arg)) return r;
    if (int r = visit_hooks(m->grad_fn->node_pre_hooks(), visit, arg)) return r;
  }
  return 0;
}

int tensor_clear(PyObject* self) {
  ag::AutogradMeta* m = unique_meta(self);
  if (!m) return 0;
  // The lists are emptied first and their callables dropped afterwards, when
  // nothing here is read any more: a callable's end runs Python code, which
  // may touch this tensor's hooks (remove one, add one).
  auto hooks = std::move(m->hooks);
  auto post_accumulate = std::move(m->post_accumulate_hooks);
  m->hooks.clear();
  m->post_accumulate_hooks.clear();
  if (m->grad_fn && m->grad_fn.use_count() == 1) {
    std::shared_ptr<ag::Node> fn = m->grad_fn;
    auto pre = std::move(fn->pre_hooks());
    auto post = std::move(fn->post_hooks());
    auto node_pre = std::move(fn->node_pre_hooks());
    fn->pre_hooks().clear();
    fn->post_hooks().clear();
    fn->node_pre_hooks().clear();
  }
  return 0;
}

}  // namespace

void init_tensor(py::module_& m) {
  Cls cls(m, "Tensor", py::custom_type_setup([](PyHeapTypeObject* heap_type) {
            auto* type = &heap_type->ht_type;
            type->tp_flags |= Py_TPFLAGS_HAVE_GC;
            type->tp_traverse = tensor_traverse;
            type->tp_clear = tensor_clear;
          }));
  tensor_type = reinterpret_cast<PyTypeObject*>(cls.ptr());
  // The fast paths of NOTE [Tensor fast paths] assume pybind11's simple layout.
  const py::detail::type_info* ti = py::detail::get_type_info(typeid(TensorImpl));
  if (ti->simple_ancestors &&
      ti->holder_size_in_ptrs <= py::detail::instance_simple_holder_in_ptrs())
    tensor_type_info = ti;
  cls.def(py::init(&construct));
  bind_geometry(cls);
  bind_conversions(cls);
  bind_autograd_fields(cls);
  init_pointwise(cls, m);
  init_reduction(cls, m);
  init_shape(cls, m);
  init_indexing(cls, m);
  init_linalg(cls, m);
  init_softmax(cls, m);
  cls.attr("__module__") = "gradtrack";
  // Python names the type in its own errors ("unsupported operand type(s) for
  // +: 'Tensor' and 'str'") from tp_name, which pybind11 sets module-qualified.
  reinterpret_cast<PyTypeObject*>(cls.ptr())->tp_name = "Tensor";
}

}  // namespace gradtrack::python
