// Custom autograd Functions from Python: the node's callback into the user's
// backward, and the one call that records the node after forward ran.
#include "autograd/custom_function.h"
#include "autograd/grad_mode.h"
#include "autograd/provenance.h"
#include "autograd/variable.h"
#include "python/common.h"

namespace gradtrack::python {

namespace ag = autograd;

py::object node_object(const std::shared_ptr<ag::Node>& node);

namespace {

/// NOTE [Custom functions and the GIL]
/// The node owns the Python ctx object (torch's PyNode does the same): the
/// engine may run with the GIL released, so every touch of Python here takes
/// it first, including the final reference drop when the node dies (which
/// can happen wherever the last tensor of the graph goes). ctx points back at
/// the node only weakly (`FunctionNodeRef`), so the pair is not a cycle that
/// only the garbage collector could free: the graph and its saved tensors go
/// as soon as the last output does.
class PyCallback : public ag::FunctionCallback {
 public:
  explicit PyCallback(py::handle ctx) : ctx_(ctx.inc_ref().ptr()) {}
  ~PyCallback() override {
    if (!Py_IsInitialized()) return;  // interpreter gone: leak rather than crash
    py::gil_scoped_acquire gil;
    Py_DECREF(ctx_);
  }
  PyObject* ctx() const { return ctx_; }

  // PyTorch's ctx (grad_fn) answers next_functions after every output died;
  // here the node goes with the outputs, so a ctx still held elsewhere keeps
  // the answer (the nodes it names stay alive with it, as in PyTorch).
  void node_destroyed(const ag::Node& node) override {
    if (!Py_IsInitialized()) return;
    py::gil_scoped_acquire gil;
    if (Py_REFCNT(ctx_) <= 1) return;  // only the node held ctx
    try {
      const auto& edges = node.next_edges();
      py::tuple t(edges.size());
      for (size_t i = 0; i < edges.size(); ++i)
        t[i] = py::make_tuple(node_object(edges[i].fn), edges[i].input_nr);
      py::handle(ctx_).attr("_next_functions_after_death") = t;
    } catch (py::error_already_set& e) {
      e.discard_as_unraisable(__func__);
    }
  }

  TensorList call(TensorList&& grads) override {
    py::gil_scoped_acquire gil;
    py::tuple g(grads.size());
    for (size_t i = 0; i < grads.size(); ++i)
      g[i] = grads[i].defined() ? py::cast(grads[i]) : py::none();
    py::object r = py::reinterpret_borrow<py::object>(ctx_).attr("_call_backward")(g);
    TensorList out;
    for (py::handle item : r) out.push_back(item.is_none() ? Tensor() : item.cast<Tensor>());
    return out;
  }

 private:
  PyObject* ctx_;
};

/// ctx's handle on its node: weak (NOTE [Custom functions and the GIL]).
struct FunctionNodeRef {
  std::weak_ptr<ag::CustomFunctionNode> node;

  std::shared_ptr<ag::CustomFunctionNode> get() const {
    auto n = node.lock();
    if (!n) throw Error("the graph node of this Function is no longer alive");
    return n;
  }
};

bool same(const Tensor& a, const Tensor& b) { return a.ptr() == b.ptr(); }

bool contains(const std::vector<Tensor>& list, const Tensor& t) {
  for (const Tensor& x : list)
    if (same(x, t)) return true;
  return false;
}

std::shared_ptr<ag::CustomFunctionNode> make_node(py::handle ctx, const std::string& name,
                                                  const std::vector<Tensor>& inputs) {
  auto node = std::make_shared<ag::CustomFunctionNode>(name, std::make_unique<PyCallback>(ctx));
  for (const Tensor& t : inputs)
    node->add_next_edge(ag::requires_grad(t) ? ag::gradient_edge(t) : ag::Edge{});
  if (ag::g_node_created_hook) ag::g_node_created_hook(*node);
  return node;
}

// Records the node (when grad mode is on and an input requires grad), wires
// the outputs and saves what the user asked; returns the outputs the user
// gets and ctx's handle on the node (None when nothing was recorded).
py::tuple wrap(py::handle ctx, const std::string& name, const std::vector<Tensor>& inputs,
               const std::vector<Tensor>& outputs, const std::vector<Tensor>& dirty,
               const std::vector<Tensor>& non_differentiable, py::object to_save,
               bool materialize) {
  bool executable = false;
  if (ag::GradMode::is_enabled())
    for (const Tensor& t : inputs) executable = executable || ag::requires_grad(t);
  std::shared_ptr<ag::CustomFunctionNode> node;
  if (executable) {
    node = make_node(ctx, name, inputs);
    node->set_materialize_grads(materialize);
  }
  std::vector<ag::FunctionOutput> outs;
  outs.reserve(outputs.size());
  for (const Tensor& t : outputs)
    outs.push_back({t, contains(inputs, t), contains(dirty, t), contains(non_differentiable, t)});
  TensorList wrapped = ag::wrap_function_outputs(node, outs);
  if (node && !to_save.is_none()) {
    for (py::handle h : to_save) {
      if (h.is_none()) {
        node->save(Tensor(), false);
        continue;
      }
      Tensor t = h.cast<Tensor>();
      // A saved output (the node is its history) is kept without history, as
      // PyTorch's is_output; an input returned unchanged stays an input (the
      // user got a view of it, and saved the input itself).
      bool saved = false;
      for (size_t i = 0; i < outputs.size() && !saved; ++i) {
        if (same(outputs[i], t) && (!outs[i].is_input || outs[i].dirty) &&
            !outs[i].non_differentiable) {
          node->save(wrapped[i], true);
          saved = true;
        }
      }
      if (!saved) node->save(t, false);
    }
    node->location = ag::current_location();
  }
  py::list result;
  for (const Tensor& t : wrapped) result.append(py::cast(t));
  py::object ref = node ? py::cast(FunctionNodeRef{node}) : py::none();
  return py::make_tuple(result, ref);
}

}  // namespace

py::object function_ctx(const ag::Node& node) {
  auto* custom = dynamic_cast<const ag::CustomFunctionNode*>(&node);
  if (!custom) return py::object();
  auto* cb = dynamic_cast<PyCallback*>(custom->callback());
  if (!cb) return py::object();
  return py::reinterpret_borrow<py::object>(cb->ctx());
}

void init_function(py::module_& m) {
  py::class_<FunctionNodeRef>(m, "_FunctionNodeRef")
      .def("node",
           [](const FunctionNodeRef& r) {
             return py::cast(std::static_pointer_cast<ag::Node>(r.get()));
           })
      .def("alive", [](const FunctionNodeRef& r) { return !r.node.expired(); })
      .def("saved_tensors",
           [](const FunctionNodeRef& r) {
             TensorList saved = r.get()->unpack_saved();
             py::tuple t(saved.size());
             for (size_t i = 0; i < saved.size(); ++i)
               t[i] = saved[i].defined() ? py::cast(saved[i]) : py::none();
             return t;
           })
      .def("set_materialize_grads",
           [](const FunctionNodeRef& r, bool v) { r.get()->set_materialize_grads(v); });
  m.def("_function_wrap", &wrap, py::arg("ctx"), py::arg("name"), py::arg("inputs"),
        py::arg("outputs"), py::arg("dirty"), py::arg("non_differentiable"), py::arg("to_save"),
        py::arg("materialize"));
}

}  // namespace gradtrack::python
