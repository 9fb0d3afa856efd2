// _C._docs.set_doc: gives a C++-bound function (or a Tensor method) a docstring
// from Python. A builtin function's __doc__ is read-only from Python, and writing
// every docstring into the bindings would make the bind_*.cpp files the place every
// documentation edit conflicts; the texts live in gradtrack/_docs/ instead.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

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

// inspect.cleandoc's result: tabs expanded, the first line's leading blanks and
// the other lines' common indent removed, blank lines dropped at both ends.
std::string clean(const std::string& raw) {
  std::vector<std::string> lines(1);
  for (char c : raw) {
    if (c == '\n') {
      lines.emplace_back();
    } else if (c == '\t') {
      lines.back().append(8 - lines.back().size() % 8, ' ');
    } else {
      lines.back() += c;
    }
  }
  auto indent = [](const std::string& l) { return l.find_first_not_of(" \f\v\r"); };
  size_t margin = std::string::npos;
  for (size_t i = 1; i < lines.size(); ++i) margin = std::min(margin, indent(lines[i]));
  const size_t first = indent(lines[0]);
  lines[0].erase(0, first == std::string::npos ? lines[0].size() : first);
  if (margin == std::string::npos) margin = 0;
  for (size_t i = 1; i < lines.size(); ++i) lines[i].erase(0, std::min(margin, lines[i].size()));
  size_t begin = 0, end = lines.size();
  while (end > begin && lines[end - 1].empty()) --end;
  while (begin < end && lines[begin].empty()) ++begin;
  std::string out;
  for (size_t i = begin; i < end; ++i) out += (i > begin ? "\n" : "") + lines[i];
  return out;
}

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// One of pybind11's generated lines: "name(args) -> T", "2. name(args) -> T",
// "name(*args, **kwargs)".
bool signature_line(const std::string& line) {
  size_t i = 0;
  while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i]))) ++i;
  i = (i > 0 && line.compare(i, 2, ". ") == 0) ? i + 2 : 0;
  const size_t name = i;
  while (i < line.size() && word_char(line[i])) ++i;
  if (i == name || i >= line.size() || line[i] != '(') return false;
  const std::string rest = line.substr(i + 1);
  return rest.find(") -> ") != std::string::npos || rest == "*args, **kwargs)";
}

// True if `doc` says more than pybind11's generated signature lines.
bool own_words(const std::string& doc) {
  size_t start = 0;
  while (start <= doc.size()) {
    size_t stop = doc.find('\n', start);
    if (stop == std::string::npos) stop = doc.size();
    std::string line = doc.substr(start, stop - start);
    const size_t a = line.find_first_not_of(" \t\r\f\v"), b = line.find_last_not_of(" \t\r\f\v");
    line = a == std::string::npos ? "" : line.substr(a, b - a + 1);
    if (!line.empty() && !signature_line(line) && line != "Overloaded function.") return true;
    start = stop + 1;
  }
  return false;
}

// What `owner` (a module, or a class and its bases) stores under `name`, not
// what reading the attribute makes of it; nullptr if nothing.
py::handle stored(py::handle owner, py::handle name) {
  if (PyType_Check(owner.ptr())) {
    py::tuple mro = owner.attr("__mro__");
    for (py::handle scope : mro) {
      PyObject* d = reinterpret_cast<PyTypeObject*>(scope.ptr())->tp_dict;
      if (PyObject* v = PyDict_GetItemWithError(d, name.ptr())) return v;
      if (PyErr_Occurred()) throw py::error_already_set();
    }
    return nullptr;
  }
  py::dict d = owner.attr("__dict__");
  PyObject* v = PyDict_GetItemWithError(d.ptr(), name.ptr());
  if (v == nullptr && PyErr_Occurred()) throw py::error_already_set();
  return v;
}

// The table's text for one name, cleaned, its first example preceded by
// `import gradtrack`.
std::string with_import(const std::string& raw) {
  std::string text = clean(raw) + "\n";
  const size_t ex = text.find(">>>");
  if (ex != std::string::npos && text.find("import gradtrack") == std::string::npos)
    text.insert(ex, ">>> import gradtrack\n");
  return text;
}

// gradtrack/_docs/__init__.py's attach() for one table {name: text}: each name
// of `owner` gets its text, unless its docstring already has an example; a
// docstring written where the name is defined keeps its words and gains only
// the example. Here and not in Python: the Python loop over ~500 names was a
// twelfth of `import gradtrack` (measured in instructions).
void attach(py::handle owner, const py::dict& table) {
  for (auto [key, value] : table) {
    py::handle raw = stored(owner, key);
    if (!raw) continue;  // the name left the package; the docstring test reports the rest
    py::object doc = owner.attr(key).attr("__doc__");
    const std::string current = doc.is_none() ? "" : doc.cast<std::string>();
    if (current.find(">>>") != std::string::npos) continue;
    std::string text = with_import(value.cast<std::string>());
    const bool builtin = PyCFunction_Check(raw.ptr()) || PyInstanceMethod_Check(raw.ptr());
    if (own_words(current)) {
      const std::string example = text.substr(text.find(">>>"));
      std::string kept = current;
      while (!kept.empty() && std::isspace(static_cast<unsigned char>(kept.back())))
        kept.pop_back();
      text = builtin ? example : kept + "\n\n" + example;
    }
    if (builtin) {
      set_doc(raw, text);
    } else if (PyObject_TypeCheck(raw.ptr(), &PyStaticMethod_Type) ||
               PyObject_TypeCheck(raw.ptr(), &PyClassMethod_Type)) {
      raw.attr("__func__").attr("__doc__") = text;
    } else {
      raw.attr("__doc__") = text;
    }
  }
}

}  // namespace

void init_docs(py::module_& m) {
  py::module_ sub = m.def_submodule("_docs", "docstrings attached from gradtrack/_docs");
  sub.def("set_doc", &set_doc, py::arg("func"), py::arg("text"));
  sub.def("attach", &attach, py::arg("owner"), py::arg("table"));
  sub.def("clean", &clean, py::arg("text"));
}

}  // namespace gradtrack::python
