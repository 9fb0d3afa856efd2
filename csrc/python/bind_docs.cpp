// _C._docs.set_doc: gives a C++-bound function (or a Tensor method) a docstring
// from Python. A builtin function's __doc__ is read-only from Python, and writing
// every docstring into the bindings would make the bind_*.cpp files the place every
// documentation edit conflicts; the texts live in gradtrack/_docs/ instead.
#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_map>

#include "python/common.h"

namespace gradtrack::python {

namespace {

// Sets the function's docstring to pybind11's signature lines (they stay first:
// help(), the stubs and the signature tests read them), a blank line, then `text`.
// The first call keeps the original; later calls replace the text, never stack it.
// pybind11 malloc'ed the old string and frees ml_doc with free(), so malloc here.
void set_doc(py::handle func, const std::string& text) {
  static std::unordered_map<PyMethodDef*, std::string> originals;
  py::handle target = func;
  if (PyInstanceMethod_Check(target.ptr())) target = PyInstanceMethod_GET_FUNCTION(target.ptr());
  // Only pybind11's functions: their ml_doc is malloc'ed. A CPython builtin's (len)
  // is a static string that free() must never see.
  if (!PyCFunction_Check(target.ptr()) ||
      !py::detail::is_function_record_PyObject(PyCFunction_GET_SELF(target.ptr()))) {
    throw py::type_error("set_doc expects a builtin function bound by gradtrack (or its method)");
  }
  PyMethodDef* def = reinterpret_cast<PyCFunctionObject*>(target.ptr())->m_ml;
  auto it = originals.find(def);
  if (it == originals.end()) {
    std::string old = def->ml_doc ? def->ml_doc : "";
    while (!old.empty() && old.back() == '\n') old.pop_back();
    it = originals.emplace(def, std::move(old)).first;
  }
  const std::string doc = it->second.empty() ? text : it->second + "\n\n" + text;
  char* copy = static_cast<char*>(std::malloc(doc.size() + 1));
  if (copy == nullptr) throw std::bad_alloc();
  std::memcpy(copy, doc.c_str(), doc.size() + 1);
  char* old = const_cast<char*>(def->ml_doc);
  def->ml_doc = copy;
  std::free(old);
}

}  // namespace

void init_docs(py::module_& m) {
  py::module_ sub = m.def_submodule("_docs", "docstrings attached from gradtrack/_docs");
  sub.def("set_doc", &set_doc, py::arg("func"), py::arg("text"));
}

}  // namespace gradtrack::python
