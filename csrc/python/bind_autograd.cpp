// Autograd from Python: graph nodes as Python objects, backward/grad, hooks,
// grad modes, anomaly detection.
#include <unordered_map>

#include "autograd/engine.h"
#include "autograd/functions.h"
#include "autograd/fusion.h"
#include "autograd/grad_mode.h"
#include "autograd/provenance.h"
#include "autograd/variable.h"
#include "python/common.h"

namespace gradtrack::python {

namespace ag = autograd;

py::object node_object(const std::shared_ptr<ag::Node>& node);
py::object function_ctx(const ag::Node& node);

namespace {

PyObject* g_node_base = nullptr;
std::unordered_map<std::string, PyObject*> g_node_types;

// One Python class per node name (PowBackward0, ...), so that
// type(t.grad_fn).__name__ is PyTorch's; all share the bound Node layout.
PyObject* node_type(const std::string& name) {
  auto it = g_node_types.find(name);
  if (it != g_node_types.end()) return it->second;
  py::dict ns;
  ns["__slots__"] = py::tuple();
  ns["__module__"] = "gradtrack.autograd.graph";
  py::object t = py::reinterpret_borrow<py::object>(reinterpret_cast<PyObject*>(&PyType_Type))(
      name, py::make_tuple(py::handle(g_node_base)), ns);
  PyObject* raw = t.release().ptr();
  // The subclass adds no fields (__slots__ = ()), so pybind11's deallocator is
  // the right one for it too; matching it lets `__class__` be reassigned.
  auto* sub = reinterpret_cast<PyTypeObject*>(raw);
  auto* base = reinterpret_cast<PyTypeObject*>(g_node_base);
  sub->tp_dealloc = base->tp_dealloc;
  sub->tp_free = base->tp_free;
  sub->tp_traverse = base->tp_traverse;
  sub->tp_clear = base->tp_clear;
  sub->tp_flags = (sub->tp_flags & ~Py_TPFLAGS_HAVE_GC) | (base->tp_flags & Py_TPFLAGS_HAVE_GC);
  g_node_types[name] = raw;
  return raw;
}

struct DebugTrace : ag::NodeDebugInfo {
  std::string trace;
};

// Python callables (raw, leaked references: no destructor after Python exits):
// one returns the forward stack (anomaly mode), one emits the anomaly warning.
PyObject* g_capture = nullptr;
PyObject* g_warn = nullptr;

void capture_node_trace(ag::Node& node) {
  if (!ag::AnomalyMode::is_enabled() || !g_capture) return;
  auto d = std::make_shared<DebugTrace>();
  d->trace = py::str(py::reinterpret_borrow<py::object>(g_capture)());
  node.debug = d;
}

void anomaly_warn(const ag::Node& node) {
  if (!g_warn) return;
  auto d = std::dynamic_pointer_cast<DebugTrace>(node.debug);
  // Never let the warning replace the error that is being raised.
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  try {
    py::reinterpret_borrow<py::object>(g_warn)(node.name(), d ? d->trace : std::string());
  } catch (py::error_already_set& e) {
    e.discard_as_unraisable("gradtrack anomaly warning");
  }
  PyErr_Restore(type, value, tb);
}

// ---- provenance: interned user source locations (NOTE [Write provenance]) ----

// NOTE [Bounded site tables]
// A site is kept as its text ("file.py:12"), resolved when it is interned, so
// that no code object has to outlive its code: a program that exec()s or
// compiles code in a loop (a REPL, a notebook, a template engine) would
// otherwise keep every code object it ever ran alive. Both tables are capped:
//  * g_code_cache maps a code object and instruction offset to a site id (the
//    fast path: no line-table lookup per recorded node). It holds a strong
//    reference to each code object it knows, so a cached pointer can never
//    name a newer object at a recycled address, and it is simply emptied when
//    it holds kCodeCacheCap of them.
//  * the site table holds at most kSiteCap texts. When it is full it starts
//    over under a new generation; an id carries its generation, so a node
//    recorded before the reset describes its site as unknown instead of
//    borrowing a newer site's text.
constexpr size_t kCodeCacheCap = 2048;
constexpr uint32_t kSiteBits = 14;
constexpr uint32_t kSiteCap = 1u << kSiteBits;  // 16384 distinct source lines

struct CodeInfo {
  bool internal;
  std::unordered_map<int, uint32_t> sites;  // instruction offset -> site id
};
std::unordered_map<PyCodeObject*, CodeInfo>* g_code_cache =
    new std::unordered_map<PyCodeObject*, CodeInfo>();
std::vector<std::string>* g_sites = new std::vector<std::string>();
std::unordered_map<std::string, uint32_t>* g_site_ids =
    new std::unordered_map<std::string, uint32_t>();
uint32_t g_site_generation = 1;  // never 0, so that no id is 0 ("no location")
std::string* g_package_dir = new std::string();

void clear_code_cache() {
  // Moved out first: a code object's deallocation must not see a half-cleared map.
  std::unordered_map<PyCodeObject*, CodeInfo> old;
  old.swap(*g_code_cache);
  for (auto& entry : old) Py_DECREF(entry.first);
}

CodeInfo& code_info(PyCodeObject* code) {
  auto it = g_code_cache->find(code);
  if (it != g_code_cache->end()) return it->second;
  if (g_code_cache->size() >= kCodeCacheCap) clear_code_cache();
  const char* file = PyUnicode_AsUTF8(code->co_filename);
  if (!file) PyErr_Clear();
  bool internal = file && !g_package_dir->empty() &&
                  std::string(file).compare(0, g_package_dir->size(), *g_package_dir) == 0;
  Py_INCREF(code);
  return (*g_code_cache)[code] = CodeInfo{internal, {}};
}

uint32_t intern_site(PyCodeObject* code, CodeInfo& info, int lasti) {
  auto cached = info.sites.find(lasti);
  if (cached != info.sites.end()) return cached->second;
  const char* file = PyUnicode_AsUTF8(code->co_filename);
  if (!file) PyErr_Clear();
  std::string text =
      std::string(file ? file : "?") + ":" + std::to_string(PyCode_Addr2Line(code, lasti));
  auto it = g_site_ids->find(text);
  uint32_t id;
  if (it != g_site_ids->end()) {
    id = it->second;
  } else {
    if (g_sites->size() >= kSiteCap) {
      // Start over (NOTE [Bounded site tables]); the cache holds old ids too.
      g_sites->clear();
      g_site_ids->clear();
      ++g_site_generation;
      if (g_site_generation >= (1u << (32 - kSiteBits))) g_site_generation = 1;
      for (auto& entry : *g_code_cache) entry.second.sites.clear();
    }
    g_sites->push_back(text);
    id = (g_site_generation << kSiteBits) | static_cast<uint32_t>(g_sites->size() - 1);
    (*g_site_ids)[std::move(text)] = id;
  }
  info.sites[lasti] = id;
  return id;
}

// The innermost frame outside the gradtrack package.
uint32_t capture_location() {
  if (!PyGILState_Check()) return 0;
  PyFrameObject* f = PyEval_GetFrame();
  Py_XINCREF(f);
  while (f) {
    PyCodeObject* code = PyFrame_GetCode(f);
    CodeInfo& info = code_info(code);
    if (!info.internal) {
#if PY_VERSION_HEX >= 0x030B0000
      int lasti = PyFrame_GetLasti(f);
#else
      int lasti = f->f_lasti;
#endif
      uint32_t id = intern_site(code, info, lasti);
      Py_DECREF(code);
      Py_DECREF(f);
      return id;
    }
    PyFrameObject* back = PyFrame_GetBack(f);
    Py_DECREF(code);
    Py_DECREF(f);
    f = back;
  }
  return 0;
}

}  // namespace

bool called_from_package() {
  if (!PyGILState_Check()) return false;
  PyFrameObject* f = PyEval_GetFrame();  // borrowed
  if (!f) return false;
  PyCodeObject* code = PyFrame_GetCode(f);
  const bool internal = code_info(code).internal;
  Py_DECREF(code);
  return internal;
}

namespace {

std::string describe_site(uint32_t id) {
  uint32_t slot = id & (kSiteCap - 1);
  if (id == 0 || (id >> kSiteBits) != g_site_generation || slot >= g_sites->size())
    return "an unknown location";
  return (*g_sites)[slot];
}

void check_interrupt() {
  if (PyErr_CheckSignals() != 0) throw py::error_already_set();
}

ag::TensorHook wrap_hook(py::function fn) {
  return [fn](const Tensor& g) -> Tensor {
    py::object r = fn(g);
    if (r.is_none()) return Tensor();
    return r.cast<Tensor>();
  };
}

// Gradients as Python sees them in node hooks: a tuple, None for missing ones.
py::tuple grads_tuple(const TensorList& grads) {
  py::tuple t(grads.size());
  for (size_t i = 0; i < grads.size(); ++i)
    t[i] = grads[i].defined() ? py::cast(grads[i]) : py::none();
  return t;
}

struct HookHandle {
  int64_t id;
  std::weak_ptr<ag::Node> node;
  std::weak_ptr<TensorImpl> tensor;
  bool post_accumulate = false;
  void remove() {
    // The removed entry is moved out and dies after the list is whole again:
    // its callable's end runs Python code, which may remove another hook of
    // the same list (NOTE [Hooks and the garbage collector]).
    auto erase = [this](auto& v) {
      auto it = std::find_if(v.begin(), v.end(), [this](const auto& h) { return h_id(h) == id; });
      if (it == v.end()) return;
      auto gone = std::move(*it);
      v.erase(it);
    };
    if (auto n = node.lock()) {
      erase(n->pre_hooks());
      erase(n->post_hooks());
      erase(n->node_pre_hooks());
    }
    if (auto t = tensor.lock()) {
      Tensor tt(t);
      if (ag::AutogradMeta* m = ag::meta(tt)) {
        erase(m->hooks);
        erase(m->post_accumulate_hooks);
      }
    }
  }
  template <typename H>
  static int64_t h_id(const H& h) {
    return h.id;
  }
};

std::string shape_repr(const Tensor& t) { return size_repr(t.sizes(), ag::kModule); }

// Validates outputs and seeds their gradients (torch's _make_grads).
void make_roots(const std::vector<Tensor>& outputs, const std::vector<py::object>& grads,
                std::vector<ag::Edge>& roots, TensorList& root_grads) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& t = outputs[i];
    // A view made under no_grad of a tensor that requires grad requires grad
    // but has nowhere to send a gradient: PyTorch refuses it the same way.
    ag::Edge edge = ag::requires_grad(t) ? ag::gradient_edge(t) : ag::Edge{};
    GT_CHECK(edge.valid(), "element ", i,
             " of tensors does not require grad and does not have a grad_fn");
    Tensor g;
    py::object gi = i < grads.size() ? grads[i] : py::none();
    if (gi.is_none()) {
      GT_CHECK(t.numel() == 1, "grad can be implicitly created only for scalar outputs");
      g = ops::ones(t.sizes(), t.dtype());
    } else {
      GT_CHECK_TYPE(py::isinstance<TensorImpl>(gi),
                    "gradients can be either Tensors or None, but got ",
                    Py_TYPE(gi.ptr())->tp_name);
      g = gi.cast<Tensor>();
      GT_CHECK(g.sizes() == t.sizes(), "Mismatch in shape: grad_output[", i, "] has a shape of ",
               shape_repr(g), " and output[", i, "] has a shape of ", shape_repr(t), ".");
      if (g.dtype() != t.dtype()) g = ops::to_dtype(g, t.dtype());
    }
    roots.push_back(edge);
    root_grads.push_back(g);
  }
}

// A non-leaf's node gives it a copy of its gradient. A no-op for leaves, told
// apart by the stored node as PyTorch's C++ is_leaf() does: a no-grad view
// whose base was modified stays a leaf here, though reading its grad_fn raises.
void retain_grad(const Tensor& t) {
  const ag::AutogradMeta* stored = ag::meta(t);
  if (!stored || !stored->grad_fn) return;
  const auto& fn = ag::grad_fn(t);
  if (!fn) return;
  ag::AutogradMeta& meta = ag::materialize_meta(t);
  meta.retains_grad = true;
  fn->retains_grad()[meta.output_nr] = t.ptr();
}

ag::Edge input_edge(const Tensor& t) {
  const auto& fn = ag::grad_fn(t);
  if (fn) return {fn, ag::output_nr(t)};
  return {ag::grad_accumulator(t), 0};
}

}  // namespace

void run_backward_py(const std::vector<Tensor>& outputs, const std::vector<py::object>& grads,
                     py::object retain_graph, bool create_graph,
                     const std::vector<Tensor>& inputs) {
  std::vector<ag::Edge> roots;
  TensorList root_grads;
  make_roots(outputs, grads, roots, root_grads);
  ag::BackwardOptions opt;
  opt.create_graph = create_graph;
  opt.keep_graph = retain_graph.is_none() ? create_graph : retain_graph.cast<bool>();
  std::vector<ag::Edge> capture;
  for (const Tensor& t : inputs) {
    GT_CHECK(ag::requires_grad(t), "One of the differentiated Tensors does not require grad");
    capture.push_back(input_edge(t));
  }
  // A non-leaf input gets its .grad the way PyTorch gives it: it is made to
  // retain grad, and its node runs.
  for (const Tensor& t : inputs) retain_grad(t);
  ag::run_backward(roots, root_grads, opt, capture);
}

namespace {

py::tuple run_grad_py(const std::vector<Tensor>& outputs, const std::vector<py::object>& grads,
                      const std::vector<Tensor>& inputs, py::object retain_graph, bool create_graph,
                      bool allow_unused, bool materialize) {
  std::vector<ag::Edge> roots;
  TensorList root_grads;
  make_roots(outputs, grads, roots, root_grads);
  std::vector<ag::Edge> capture;
  for (const Tensor& t : inputs) {
    GT_CHECK(ag::requires_grad(t), "One of the differentiated Tensors does not require grad");
    capture.push_back(input_edge(t));
  }
  ag::BackwardOptions opt;
  opt.create_graph = create_graph;
  opt.keep_graph = retain_graph.is_none() ? create_graph : retain_graph.cast<bool>();
  opt.accumulate_grad = false;
  TensorList got = ag::run_backward(roots, root_grads, opt, capture);
  py::tuple out(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!got[i].defined()) {
      GT_CHECK(allow_unused || materialize, "The differentiated Tensor at index ", i,
               " appears to not have been used in the graph. Set allow_unused=True if this is the "
               "desired behavior.");
      if (materialize) got[i] = ops::zeros_like(inputs[i]);
    }
    // Results are returned as the engine made them (PyTorch does the same): an
    // expand of the seed stays a view, in-place sums show in _version, and a
    // repeated input gets the very same tensor twice.
    out[i] = got[i].defined() ? py::cast(got[i]) : py::none();
  }
  return out;
}

void bind_node(py::module_& m) {
  py::class_<ag::Node, std::shared_ptr<ag::Node>> node(m, "Node");
  node.def("name", &ag::Node::name)
      .def_property_readonly("next_functions",
                             [](const ag::Node& n) {
                               py::tuple t(n.next_edges().size());
                               for (size_t i = 0; i < n.next_edges().size(); ++i) {
                                 const ag::Edge& e = n.next_edges()[i];
                                 t[i] = py::make_tuple(node_object(e.fn), e.input_nr);
                               }
                               return t;
                             })
      .def_property_readonly(
          "metadata",
          [](py::handle self) {
            // PyTorch keeps a dict per node; nodes here have no __dict__, so one
            // dict per node is kept in a side table keyed by the node.
            static py::handle table =
                py::object(py::module_::import("weakref").attr("WeakKeyDictionary")()).release();
            py::object t = py::reinterpret_borrow<py::object>(table);
            if (!t.contains(self)) t[self] = py::dict();
            return t[self];
          })
      .def_property_readonly("variable",
                             [](const ag::Node& n) -> py::object {
                               auto* acc = dynamic_cast<const ag::AccumulateGrad*>(&n);
                               if (!acc)
                                 throw py::attribute_error("'" + ag::short_name(n.name()) +
                                                           "' object has no attribute 'variable'");
                               return py::cast(acc->variable());
                             })
      .def("_sequence_nr", &ag::Node::sequence_nr)
      // torch's NotImplemented node has no sequence number: it runs as early as a leaf's
      .def("_drop_sequence_nr", [](ag::Node& n) { n.set_sequence_nr(UINT64_MAX); })
      .def("_location",
           [](const ag::Node& n) -> py::object {
             if (!n.location) return py::none();
             return py::str(describe_site(n.location));
           })
      .def("_register_hook",
           [](const std::shared_ptr<ag::Node>& n, py::function fn) {
             HookHandle h{ag::next_hook_id(), n, {}};
             n->post_hooks().push_back(
                 {h.id,
                  [fn](const TensorList& gi, const TensorList& go) -> TensorList {
                    py::object r = fn(grads_tuple(gi), grads_tuple(go));
                    if (r.is_none()) return {};
                    return r.cast<TensorList>();
                  },
                  fn.ptr()});
             return h;
           })
      .def("_register_prehook",
           [](const std::shared_ptr<ag::Node>& n, py::function fn) {
             HookHandle h{ag::next_hook_id(), n, {}};
             n->node_pre_hooks().push_back({h.id,
                                            [fn](const TensorList& go) -> TensorList {
                                              py::object r = fn(grads_tuple(go));
                                              if (r.is_none()) return {};
                                              return r.cast<TensorList>();
                                            },
                                            fn.ptr()});
             return h;
           })
      // One saved slot (inputs by position, then the result) as backward would read it:
      // None if nothing was saved there; torch's errors once freed or written in place.
      .def("_saved_slot",
           [](const std::shared_ptr<ag::Node>& n, size_t slot) -> py::object {
             auto* f = dynamic_cast<ag::FormulaNode*>(n.get());
             if (!f || slot >= f->saved.size() || !f->saved[slot].defined()) return py::none();
             Tensor t = f->saved[slot].unpack(n, true);
             return t.defined() ? py::cast(t) : py::none();
           })
      .def("_saved_input_count",
           [](const ag::Node& n) {
             auto* f = dynamic_cast<const ag::FormulaNode*>(&n);
             return f ? f->inputs.size() : size_t(0);
           })
      .def("_saved_versions",
           [](const ag::Node& n) {
             py::list out;
             auto* f = dynamic_cast<const ag::FormulaNode*>(&n);
             if (!f) return out;
             for (const ag::SavedTensor& s : f->saved) {
               if (!s.defined()) continue;
               const Tensor& t = s.peek();
               const uint32_t now = t.defined() ? t->version() : 0;
               // For a stale tensor, the note backward's error would carry: who
               // saved it and which writes changed it since.
               std::string note;
               if (t.defined() && now != s.saved_version() && ag::Provenance::enabled())
                 note = ag::version_error_note(t, n, s.saved_version());
               // NOTE [Silent writes]: a change the version counter did not see.
               out.append(py::make_tuple(t.defined() ? py::cast(ag::detach(t)) : py::none(),
                                         s.saved_version(), now, s.is_output(), s.released(), note,
                                         s.silent_change()));
             }
             return out;
           })
      .def("__repr__", [](py::handle self) {
        return "<" + std::string(py::str(py::type::handle_of(self).attr("__name__"))) +
               " object at " +
               std::string(py::str(py::module_::import("builtins")
                                       .attr("hex")(reinterpret_cast<uintptr_t>(self.ptr())))) +
               ">";
      });
  g_node_base = node.ptr();
  Py_INCREF(g_node_base);

  py::class_<HookHandle>(m, "_HookHandle")
      .def("remove", &HookHandle::remove)
      .def_readonly("id", &HookHandle::id);
}

void bind_tensor_autograd(py::module_& m) {
  m.def("_set_requires_grad", [](const Tensor& t, bool v) { ag::set_requires_grad(t, v); });
  m.def("_set_grad", [](const Tensor& t, py::handle g) {
    if (g.is_none()) {
      if (ag::AutogradMeta* meta = ag::meta(t)) meta->grad = Tensor();
      return;
    }
    ag::materialize_meta(t).grad = g.cast<Tensor>();
  });
  m.def("_retain_grad", &retain_grad);
  m.def("_fused_pairs", [] { return ag::fused_pairs(); });
  m.def("_set_fusion_enabled", [](bool on) { return ag::set_fusion_enabled(on); });
  m.def("_register_hook", [](const Tensor& t, py::function fn) {
    HookHandle h{ag::next_hook_id(), {}, {}};
    const auto& node = ag::grad_fn(t);
    if (node) {
      node->pre_hooks().push_back({h.id, ag::output_nr(t), wrap_hook(fn), fn.ptr()});
      h.node = node;
    } else {
      ag::materialize_meta(t).hooks.push_back({h.id, 0, wrap_hook(fn), fn.ptr()});
      h.tensor = t.ptr();
    }
    return h;
  });
  m.def("_register_post_accumulate_grad_hook", [](const Tensor& t, py::function fn) {
    HookHandle h{ag::next_hook_id(), {}, t.ptr(), true};
    ag::materialize_meta(t).post_accumulate_hooks.push_back(
        {h.id, [fn](const Tensor& v) { fn(v); }, fn.ptr()});
    return h;
  });
}

void bind_modes(py::module_& m) {
  m.def("is_grad_enabled", [] { return ag::GradMode::is_enabled(); });
  m.def("_set_grad_enabled", [](bool v) { ag::GradMode::set_enabled(v); });
  m.def("is_inference_mode_enabled", [] { return ag::InferenceMode::is_enabled(); });
  m.def("_set_inference_mode", [](bool v) { ag::InferenceMode::set_enabled(v); });
  m.def("is_anomaly_enabled", [] { return ag::AnomalyMode::is_enabled(); });
  m.def("is_anomaly_check_nan_enabled", [] { return ag::AnomalyMode::check_nan(); });
  m.def("_set_anomaly_enabled", [](bool v, bool nan) { ag::AnomalyMode::set(v, nan); });
  m.def("_set_anomaly_hooks", [](py::object capture, py::object warn) {
    Py_XDECREF(g_capture);
    Py_XDECREF(g_warn);
    g_capture = capture.is_none() ? nullptr : capture.inc_ref().ptr();
    g_warn = warn.is_none() ? nullptr : warn.inc_ref().ptr();
    ag::g_node_created_hook = capture.is_none() ? nullptr : &capture_node_trace;
    ag::g_anomaly_warn = warn.is_none() ? nullptr : &anomaly_warn;
  });
  m.def("_run_backward", &run_backward_py, py::arg("tensors"), py::arg("grad_tensors"),
        py::arg("retain_graph"), py::arg("create_graph"), py::arg("inputs"));
  m.def("_run_grad", &run_grad_py, py::arg("outputs"), py::arg("grad_outputs"), py::arg("inputs"),
        py::arg("retain_graph"), py::arg("create_graph"), py::arg("allow_unused"),
        py::arg("materialize_grads"));
  m.def("_formula_table_ok", [] { return ag::formula_table_ok(); });
  m.def("_set_package_dir", [](const std::string& dir) {
    *g_package_dir = dir;
    clear_code_cache();  // which code is internal depends on it
  });
  // NOTE [Silent writes]: the detector's mode, and aliases made in Python (DLPack).
  m.def("_set_detect_silent_writes", [](bool v) { silent_writes::set_enabled(v); });
  m.def("_is_detect_silent_writes_enabled", [] { return silent_writes::enabled(); });
  m.def("_note_dlpack_alias",
        [](const Tensor& t) { silent_writes::note_alias(t->storage(), silent_writes::kDlpack); });
  m.def("_set_provenance", [](bool v) { ag::Provenance::set(v); });
  m.def("_is_provenance_enabled", [] { return ag::Provenance::enabled(); });
  m.def("_current_location", [] { return describe_site(capture_location()); });
}

}  // namespace

py::object node_object(const std::shared_ptr<ag::Node>& node) {
  if (!node) return py::none();
  // A custom Function's node is its ctx object, as in PyTorch (grad_fn is ctx).
  if (py::object ctx = function_ctx(*node)) return ctx;
  py::object o = py::cast(node);
  PyObject* want = node_type(ag::short_name(node->name()));
  if (reinterpret_cast<PyObject*>(Py_TYPE(o.ptr())) != want) o.attr("__class__") = py::handle(want);
  return o;
}

void init_autograd(py::module_& m) {
  bind_node(m);
  bind_tensor_autograd(m);
  bind_modes(m);
  ag::g_check_interrupt = &check_interrupt;
  ag::g_capture_location = &capture_location;
  ag::g_describe_location = &describe_site;
}

}  // namespace gradtrack::python
