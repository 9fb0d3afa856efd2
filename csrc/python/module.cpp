// The extension module gradtrack._C. Private: import gradtrack instead.
#include "autograd/formulas.h"
#include "kernels/kernels.h"
#include "kernels/parallel.h"
#include "python/arg_errors.h"
#include "python/common.h"

namespace gradtrack::python {

void init_ops(py::module_& m);            // bind_ops.cpp
void init_docs(py::module_& m);           // bind_docs.cpp
void init_bench(py::module_& m);          // bind_bench.cpp: benchmark reference loops
void init_resample(py::module_& m);       // bind_resample.cpp: padding, interpolation, cdist
void init_fast_path(py::module_& m);      // bind_fast_path.cpp: the out= fast path
void init_fast_ops(py::module_& m);       // bind_fast_ops.cpp: Tensor number slots
void init_autocast(py::module_& m);       // bind_autocast.cpp: CPU autocast state
void init_profiler(py::module_& m);       // bind_profiler.cpp: backward timings
void init_shared_memory(py::module_& m);  // bind_shared_memory.cpp: storages other processes map
// bind_special_functions.cpp: torch.special's Bessel functions and polynomials
void init_special_functions(py::module_& m);

void rethrow_python() { throw py::error_already_set(); }

namespace {

// NOTE [Errors speak PyTorch] (core/error.h): one translator maps each C++
// error class to the builtin exception PyTorch raises.
void register_exception_translator() {
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const InvalidArguments& e) {
      set_invalid_arguments(e);
    } catch (const IndexError& e) {
      PyErr_SetString(PyExc_IndexError, e.what());
    } catch (const ValueError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const TypeError& e) {
      PyErr_SetString(PyExc_TypeError, e.what());
    } catch (const NotImplementedError& e) {
      PyErr_SetString(PyExc_NotImplementedError, e.what());
    } catch (const Error& e) {
      if (e.note.empty()) {
        PyErr_SetString(PyExc_RuntimeError, e.what());
        return;
      }
      // PyTorch's words stay the message; what gradtrack knows more is a note.
      py::object exc = py::reinterpret_borrow<py::object>(PyExc_RuntimeError)(e.what());
      if (py::hasattr(exc, "add_note")) {
        exc.attr("add_note")(e.note);
      } else {
        exc.attr("__notes__") = py::make_tuple(e.note);
      }
      PyErr_SetObject(PyExc_RuntimeError, exc.ptr());
    }
  });
}

}  // namespace

}  // namespace gradtrack::python

PYBIND11_MODULE(_C, m) {
  using namespace gradtrack::python;  // NOLINT
  m.doc() = "gradtrack's C++ core (private; import gradtrack instead)";
  if (!gradtrack::autograd::formula_table_ok()) {
    throw py::import_error("gradtrack: the derivative table does not match the op list");
  }
  register_exception_translator();
  gradtrack::kernels::blas_init();
  gradtrack::g_gil.release = []() -> void* {
    return PyGILState_Check() ? static_cast<void*>(PyEval_SaveThread()) : nullptr;
  };
  gradtrack::g_gil.restore = [](void* state) {
    PyEval_RestoreThread(static_cast<PyThreadState*>(state));
  };
  gradtrack::g_warning_handler = [](const std::string& message) {
    py::gil_scoped_acquire gil;
    if (PyErr_WarnEx(PyExc_UserWarning, message.c_str(), 1) < 0) throw py::error_already_set();
  };
  init_dtype(m);
  init_autograd(m);
  init_function(m);
  init_tensor(m);
  init_factories(m);
  init_inplace(m);
  init_nn(m);
  init_runtime(m);
  init_random(m);
  init_saved_hooks(m);
  init_forward_ad(m);
  init_ops(m);
  init_resample(m);   // padding, interpolation, cdist, searchsorted
  init_fast_path(m);  // the out= fast path
  init_fast_ops(m);   // + - * / number slots, installed by gradtrack/__init__
  install_argument_errors(m);
  init_conv(m);  // convolution and pooling
  init_autocast(m);
  init_profiler(m);
  init_shared_memory(m);
  init_docs(m);   // _C._docs: docstrings from gradtrack/_docs
  init_bench(m);  // benchmark reference loops
  init_special_functions(m);
}
