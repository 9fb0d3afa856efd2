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

/// The attribute names read and written on every call, made once and
/// interned: Python's type attribute cache only serves interned names.
py::str interned(const char* text) {
  return py::reinterpret_steal<py::str>(PyUnicode_InternFromString(text));
}

struct Names {
  py::str backward_cls = interned("_backward_cls"), forward = interned("forward"),
          setup_context = interned("setup_context"), name = interned("__name__"),
          dict = interned("__dict__"), needs_input_grad = interned("needs_input_grad"),
          dirty_tensors = interned("dirty_tensors"), to_save = interned("to_save"),
          non_differentiable = interned("non_differentiable"),
          materialize_grads = interned("materialize_grads"), node_ref = interned("_node_ref"),
          apply = interned("apply");
};

const Names& names() {
  static const Names* n = new Names();  // never freed: outlives the interpreter's teardown
  return *n;
}

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
  /// Which of forward's inputs and outputs were tensors: backward gets one
  /// gradient per output and returns one per input, None where not a tensor.
  PyCallback(py::handle ctx, std::vector<bool> input_is_tensor, std::vector<bool> output_is_tensor)
      : ctx_(ctx.inc_ref().ptr()),
        input_is_tensor_(std::move(input_is_tensor)),
        output_is_tensor_(std::move(output_is_tensor)) {}
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

  // The engine's gradients are for the tensor outputs; the user's backward
  // (through ctx.apply, which picks backward or vjp) gets None for the others.
  TensorList call(TensorList&& grads) override {
    py::gil_scoped_acquire gil;
    py::tuple full(output_is_tensor_.size());
    for (size_t i = 0, next = 0; i < full.size(); ++i) {
      const Tensor* g = output_is_tensor_[i] && next < grads.size() ? &grads[next++] : nullptr;
      full[i] = g && g->defined() ? py::cast(*g) : py::none();
    }
    py::object r = py::reinterpret_borrow<py::object>(ctx_).attr(names().apply)(*full);
    return gradients_of(py::isinstance<py::tuple>(r) ? py::reinterpret_borrow<py::tuple>(r)
                                                     : py::make_tuple(r));
  }

 private:
  PyObject* ctx_;
  std::vector<bool> input_is_tensor_, output_is_tensor_;

  std::string name() const { return py::str(py::handle(ctx_).attr("name")()); }

  // One gradient per input, checked as PyTorch checks them; surplus Nones
  // at the end are dropped.
  TensorList gradients_of(const py::tuple& result) const {
    const size_t expected = input_is_tensor_.size();
    size_t given = result.size();
    while (given > expected && result[given - 1].is_none()) --given;
    if (given != expected)
      throw Error("function " + name() + " returned an incorrect number of gradients (expected " +
                  std::to_string(expected) + ", got " + std::to_string(result.size()) + ")");
    TensorList out;
    for (size_t i = 0; i < expected; ++i) {
      py::handle g = result[i];
      if (!input_is_tensor_[i]) {
        if (!g.is_none())
          throw Error("function " + name() + " returned a gradient different than None at " +
                      "position " + std::to_string(i + 1) +
                      ", but the corresponding forward input was not a Variable");
        continue;
      }
      if (!g.is_none() && !is_tensor(g))
        throw Error("expected Variable or None (got " +
                    py::str(py::type::handle_of(g).attr("__name__")).cast<std::string>() + ")");
      out.push_back(g.is_none() ? Tensor() : g.cast<Tensor>());
    }
    return out;
  }
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
                                                  const std::vector<Tensor>& inputs,
                                                  std::vector<bool> input_is_tensor,
                                                  std::vector<bool> output_is_tensor) {
  auto node = std::make_shared<ag::CustomFunctionNode>(
      name,
      std::make_unique<PyCallback>(ctx, std::move(input_is_tensor), std::move(output_is_tensor)));
  for (const Tensor& t : inputs)
    node->add_next_edge(ag::requires_grad(t) ? ag::gradient_edge(t) : ag::Edge{});
  if (ag::g_node_created_hook) ag::g_node_created_hook(*node);
  return node;
}

/// What one call of a Function handed in and got back, as the node needs it.
struct Call {
  std::vector<Tensor> inputs, outputs, dirty, non_differentiable;
  std::vector<bool> input_is_tensor, output_is_tensor;  // per argument, per result
};

// Records the node (when grad mode is on and an input requires grad), wires
// the outputs and saves what the user asked; returns the outputs the user
// gets and ctx's handle on the node (None when nothing was recorded).
std::pair<TensorList, py::object> wrap(py::handle ctx, const std::string& name, Call& call,
                                       py::handle to_save, bool materialize) {
  const std::vector<Tensor>& outputs = call.outputs;
  bool executable = false;
  if (ag::GradMode::is_enabled())
    for (const Tensor& t : call.inputs) executable = executable || ag::requires_grad(t);
  std::shared_ptr<ag::CustomFunctionNode> node;
  if (executable) {
    node = make_node(ctx, name, call.inputs, std::move(call.input_is_tensor),
                     std::move(call.output_is_tensor));
    node->set_materialize_grads(materialize);
  }
  std::vector<ag::FunctionOutput> outs;
  outs.reserve(outputs.size());
  for (const Tensor& t : outputs)
    outs.push_back({t, contains(call.inputs, t), contains(call.dirty, t),
                    contains(call.non_differentiable, t)});
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
  py::object ref = node ? py::cast(FunctionNodeRef{node}) : py::none();
  return {std::move(wrapped), std::move(ref)};
}

/// One call of a Function: ctx, what forward returned, and the tensors the
/// user receives for its tensor outputs (in order).
struct Forward {
  py::object ctx, outputs;
  TensorList wrapped;
};

/// NOTE [Function.apply in C++]
/// Runs on every call of a custom Function, so it is here rather than in
/// Python (where it was more than half of a small Function's forward): ctx is
/// made and told which inputs need grad, forward runs with grad mode off
/// (then setup_context, when the Function has one), and the node is recorded
/// for the tensor outputs. function.py keeps the paths around it (keyword
/// arguments, forward-mode AD).
Forward run_forward(py::handle cls, py::tuple args, bool separate_setup) {
  const Names& n = names();
  Call call;
  py::tuple needs(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    py::handle a = args[i];
    const bool tensor = is_tensor(a);
    if (tensor) call.inputs.push_back(a.cast<Tensor>());
    needs[i] = py::bool_(tensor && ag::requires_grad(call.inputs.back()));
    call.input_is_tensor.push_back(tensor);
  }
  py::object ctx = cls.attr(n.backward_cls)();
  ctx.attr(n.needs_input_grad) = needs;
  py::object outputs;
  {
    ag::AutoGradMode no_grad(false);
    if (separate_setup) {
      outputs = cls.attr(n.forward)(*args);
      cls.attr(n.setup_context)(ctx, args, outputs);
    } else {
      outputs = cls.attr(n.forward)(ctx, *args);
    }
  }
  const bool several = py::isinstance<py::tuple>(outputs);
  for (py::handle o :
       several ? py::reinterpret_borrow<py::tuple>(outputs) : py::make_tuple(outputs)) {
    const bool tensor = is_tensor(o);
    if (tensor) call.outputs.push_back(o.cast<Tensor>());
    call.output_is_tensor.push_back(tensor);
  }
  py::dict state = ctx.attr(n.dict);
  if (state.contains(n.dirty_tensors)) {
    for (py::handle d : py::object(state[n.dirty_tensors])) {
      if (!is_tensor(d) || !contains(call.outputs, d.cast<Tensor>()))
        throw Error(
            "Some elements marked as dirty during the forward method were not returned as "
            "output. The inputs that are modified inplace must all be outputs of the Function.");
      call.dirty.push_back(d.cast<Tensor>());
    }
  }
  if (state.contains(n.non_differentiable))
    for (py::handle t : py::object(state[n.non_differentiable]))
      call.non_differentiable.push_back(t.cast<Tensor>());
  py::object to_save = state.contains(n.to_save) ? py::object(state[n.to_save]) : py::none();
  if (!to_save.is_none()) {
    size_t i = 0;
    for (py::handle t : to_save) {
      if (!t.is_none() && !is_tensor(t))
        throw TypeError("save_for_backward can only save variables, but argument " +
                        std::to_string(i) + " is of type " +
                        py::str(py::type::handle_of(t).attr("__name__")).cast<std::string>());
      ++i;
    }
  }
  const std::string name = py::str(cls.attr(n.backward_cls).attr(n.name));
  const bool materialize = py::bool_(ctx.attr(n.materialize_grads));
  auto [wrapped, ref] = wrap(ctx, name, call, to_save, materialize);
  if (!ref.is_none()) {
    ctx.attr(n.node_ref) = ref;
    // The saved tensors now live in the node (checked on unpack).
    ctx.attr(n.to_save) = py::none();
  }
  return {std::move(ctx), std::move(outputs), std::move(wrapped)};
}

/// What the user gets back: forward's result with each tensor output replaced
/// by its wrapped tensor.
py::object user_outputs(const Forward& f) {
  if (!py::isinstance<py::tuple>(f.outputs))
    return f.wrapped.empty() ? f.outputs : py::cast(f.wrapped[0]);
  auto outs = py::reinterpret_borrow<py::tuple>(f.outputs);
  py::tuple result(outs.size());
  size_t next = 0;
  for (size_t i = 0; i < outs.size(); ++i)
    result[i] = is_tensor(outs[i]) ? py::cast(f.wrapped[next++]) : outs[i];
  return result;
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
  m.def(
      "_function_apply",
      [](py::handle cls, py::tuple args, bool separate_setup) {
        return user_outputs(run_forward(cls, std::move(args), separate_setup));
      },
      py::arg("cls"), py::arg("args"), py::arg("separate_setup"));
  m.def(
      "_function_forward",
      [](py::handle cls, py::tuple args, bool separate_setup) {
        Forward f = run_forward(cls, std::move(args), separate_setup);
        py::list wrapped;
        for (const Tensor& t : f.wrapped) wrapped.append(py::cast(t));
        return py::make_tuple(f.ctx, f.outputs, wrapped);
      },
      py::arg("cls"), py::arg("args"), py::arg("separate_setup"));
}

}  // namespace gradtrack::python
