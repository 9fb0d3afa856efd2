// Saved-tensor hooks from Python: the (pack, unpack) pairs of
// autograd.graph.saved_tensors_hooks, as _C._saved_hooks.
#include "autograd/saved_tensor_hooks.h"
#include "python/common.h"

namespace gradtrack::python {

namespace ag = autograd;

namespace {

/// Drops a Python reference with the GIL held (the owner may die on any
/// thread, NOTE [Custom functions and the GIL]); leaks after interpreter exit.
void release(PyObject* o) {
  if (!o || !Py_IsInitialized()) return;
  py::gil_scoped_acquire gil;
  Py_DECREF(o);
}

class PyPacked : public ag::PackedTensor {
 public:
  PyPacked(py::object packed, PyObject* unpack) : packed_(packed.release().ptr()), unpack_(unpack) {
    Py_INCREF(unpack_);
  }
  ~PyPacked() override {
    release(packed_);
    release(unpack_);
  }
  Tensor unpack() const override {
    py::gil_scoped_acquire gil;
    py::object r = py::reinterpret_borrow<py::object>(unpack_)(py::handle(packed_));
    if (!is_tensor(r)) {
      throw py::type_error(
          "Output of saved tensor unpack_hook expected to be a Tensor but got result of type " +
          std::string(py::str(py::type::handle_of(r).attr("__name__"))));
    }
    return r.cast<Tensor>();
  }

 private:
  PyObject* packed_;
  PyObject* unpack_;
};

class PyHooks : public ag::SavedTensorHooks {
 public:
  PyHooks(py::object pack, py::object unpack)
      : pack_(pack.release().ptr()), unpack_(unpack.release().ptr()) {}
  ~PyHooks() override {
    release(pack_);
    release(unpack_);
  }
  std::unique_ptr<ag::PackedTensor> pack(const Tensor& t) const override {
    py::gil_scoped_acquire gil;
    py::object packed = py::reinterpret_borrow<py::object>(pack_)(py::cast(t));
    return std::make_unique<PyPacked>(std::move(packed), unpack_);
  }

 private:
  PyObject* pack_;
  PyObject* unpack_;
};

}  // namespace

void init_saved_hooks(py::module_& root) {
  py::module_ m = root.def_submodule("_saved_hooks", "saved-tensor hooks");
  m.def("push", [](py::object pack, py::object unpack) {
    ag::saved_hooks::push(std::make_shared<PyHooks>(std::move(pack), std::move(unpack)));
  });
  m.def("pop", [] { ag::saved_hooks::pop(); });
  m.def("get_disabled_error_message", []() -> py::object {
    const auto& msg = ag::saved_hooks::disabled_message();
    return msg ? py::object(py::str(*msg)) : py::none();
  });
  // As PyTorch: disabling while a pair is in effect raises the message.
  m.def("disable", [](const std::string& message) {
    ag::saved_hooks::set_disabled_message(message);
    if (ag::saved_hooks::top()) throw Error(message);
  });
  m.def("enable", [] { ag::saved_hooks::set_disabled_message(std::nullopt); });
}

}  // namespace gradtrack::python
