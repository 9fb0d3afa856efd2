// PyTorch's parser errors, rebuilt from the failed call and the signatures.
// See NOTE [Argument errors speak PyTorch] in arg_errors.h.
#include "python/arg_errors.h"

#include <algorithm>
#include <cstring>

namespace gradtrack::python {

namespace {

struct Param {
  std::string type;   // PyTorch's name ("Tensor", "int", "tuple of ints", ...); "" accepts anything
  std::string shown;  // the type as printed in a signature
  std::string name;
  bool has_default = false;
  bool default_none = false;
  bool kw_only = false;
};

struct Signature {
  std::vector<Param> params;
  bool varargs = false;
  std::string text;   // "(Tensor min = None, Tensor max = None)"
  size_t pieces = 0;  // how many ", "-separated pieces `text` has ("()" is one)
};

struct Call {
  std::vector<PyObject*> pos;
  std::vector<std::pair<std::string, PyObject*>> kw;  // in call order
};

struct Failure {
  PyObject* kind;
  std::string message;
};

// Splits "a, b[c, d], e" at top-level ", ".
std::vector<std::string> split_top(const std::string& s) {
  std::vector<std::string> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char ch = s[i];
    if (ch == '[' || ch == '(') ++depth;
    if (ch == ']' || ch == ')') --depth;
    if (depth == 0 && ch == ',' && i + 1 < s.size() && s[i + 1] == ' ') {
      out.push_back(s.substr(start, i - start));
      start = i + 2;
      ++i;
    }
  }
  if (start < s.size()) out.push_back(s.substr(start));
  return out;
}

void finish(Signature& sig) {
  std::string body;
  bool kw = false;
  for (const Param& p : sig.params) {
    if (p.kw_only && !kw) {
      body += body.empty() ? "*" : ", *";
      kw = true;
    }
    if (!body.empty()) body += ", ";
    body += p.shown + " " + p.name;
  }
  sig.text = "(" + body + ")";
  sig.pieces = split_top(body).size();
  if (sig.pieces == 0) sig.pieces = 1;
}

// "Tensor min = None, *, gradtrack.dtype dtype = None" (PyTorch's own spelling).
Signature torch_signature(const std::string& spec) {
  Signature sig;
  bool kw_only = false;
  std::string body;
  for (const std::string& piece : split_top(spec)) {
    if (piece == "*") {
      kw_only = true;
      continue;
    }
    Param p;
    std::string head = piece;
    size_t eq = piece.find(" = ");
    if (eq != std::string::npos) {
      head = piece.substr(0, eq);
      p.has_default = true;
      p.default_none = piece.substr(eq + 3) == "None";
    }
    size_t sp = head.rfind(' ');
    p.type = p.shown = head.substr(0, sp);
    p.name = head.substr(sp + 1);
    p.kw_only = kw_only;
    sig.params.push_back(p);
  }
  sig.text = "(" + spec + ")";
  sig.pieces = std::max<size_t>(split_top(spec).size(), 1);
  return sig;
}

// pybind11's annotation of a C++ parameter type -> PyTorch's type name.
std::string torch_type(const std::string& t) {
  if (t == "Tensor") return "Tensor";
  if (t.rfind("typing.SupportsInt", 0) == 0) return "int";
  if (t.rfind("typing.SupportsFloat", 0) == 0) return "float";
  if (t == "bool" || t == "str") return t;
  if (t == "collections.abc.Sequence[Tensor]") return "tuple of Tensors";
  return "";
}

// pybind11's "(self: Tensor, dim: typing.SupportsInt | typing.SupportsIndex = 0, *, ...) -> T".
Signature pybind_signature(const py::detail::function_record& rec) {
  Signature sig;
  std::string s = rec.signature ? rec.signature : "";
  size_t open = s.find('('), close = s.rfind(") -> ");
  if (open == std::string::npos || close == std::string::npos || close < open) close = s.size();
  bool kw_only = false, skip_self = rec.is_method;
  for (const std::string& piece : split_top(s.substr(open + 1, close - open - 1))) {
    if (piece == "*") {
      kw_only = true;
    } else if (piece == "/" || piece.rfind("**", 0) == 0) {
      continue;
    } else if (piece.rfind('*', 0) == 0) {
      sig.varargs = true;
      kw_only = true;
    } else if (skip_self) {
      skip_self = false;
    } else {
      Param p;
      size_t colon = piece.find(": ");
      p.name = piece.substr(0, colon);
      std::string type = colon == std::string::npos ? "" : piece.substr(colon + 2);
      size_t eq = type.find(" = ");
      if (eq != std::string::npos) {
        p.has_default = true;
        p.default_none = type.substr(eq + 3) == "None";
        type = type.substr(0, eq);
      }
      p.type = torch_type(type);
      p.shown = p.type.empty() ? type : p.type;
      p.kw_only = kw_only;
      sig.params.push_back(p);
    }
  }
  finish(sig);
  return sig;
}

bool is_tensor(PyObject* o) { return py::isinstance<TensorImpl>(o); }

bool is_numpy_scalar(PyObject* o) {
  const char* n = Py_TYPE(o)->tp_name;
  return std::strncmp(n, "numpy.", 6) == 0 && std::strcmp(n, "numpy.ndarray") != 0;
}

bool is_numpy_bool(PyObject* o) {
  const char* n = Py_TYPE(o)->tp_name;
  return std::strcmp(n, "numpy.bool") == 0 || std::strcmp(n, "numpy.bool_") == 0;
}

bool is_int_like(PyObject* o) {
  if (PyBool_Check(o) || PyFloat_Check(o) || is_numpy_bool(o)) return false;
  if (PyLong_Check(o)) return true;
  if (is_tensor(o)) {
    Tensor t = py::cast<Tensor>(o);
    return t.numel() == 1 && is_integral(t.dtype());
  }
  return PyIndex_Check(o) != 0;
}

bool all_items(PyObject* o, bool (*pred)(PyObject*)) {
  if (!PyList_Check(o) && !PyTuple_Check(o)) return false;
  py::sequence seq = py::reinterpret_borrow<py::sequence>(o);
  for (py::handle h : seq) {
    if (!pred(h.ptr())) return false;
  }
  return true;
}

bool is_dtype(PyObject* o) {
  static py::handle dtype = py::object(py::module_::import("gradtrack._C").attr("dtype")).release();
  return py::isinstance(o, dtype) || o == reinterpret_cast<PyObject*>(&PyFloat_Type) ||
         o == reinterpret_cast<PyObject*>(&PyLong_Type) ||
         o == reinterpret_cast<PyObject*>(&PyBool_Type);
}

bool accepts(const Param& p, PyObject* o) {
  const std::string& t = p.type;
  if (o == Py_None && p.default_none) return true;
  if (t.empty()) return true;
  if (t == "Tensor") return is_tensor(o);
  if (t == "int") return is_int_like(o);
  if (t == "float") {
    return !is_tensor(o) && (PyFloat_Check(o) || PyLong_Check(o) || is_numpy_scalar(o));
  }
  if (t == "bool") return PyBool_Check(o) || is_numpy_bool(o);
  if (t == "Number") {
    return PyLong_Check(o) || PyFloat_Check(o) || PyComplex_Check(o) || is_numpy_scalar(o);
  }
  if (t == "str") return PyUnicode_Check(o);
  if (t == "tuple of ints") return is_int_like(o) || all_items(o, is_int_like);
  if (t == "tuple of Tensors") return all_items(o, is_tensor);
  if (t == "gradtrack.dtype") return is_dtype(o);
  return true;
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? sep : "") + v[i];
  return out;
}

const Param* param_named(const Signature& s, const std::string& name) {
  for (const Param& p : s.params) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

std::optional<Failure> too_many_positional(const std::string& fn, const Signature& s, size_t n) {
  size_t most = 0, least = 0;
  for (const Param& p : s.params) {
    if (p.kw_only) continue;
    ++most;
    if (!p.has_default) ++least;
  }
  if (s.varargs || n <= most) return std::nullopt;
  std::string takes = least == most
                          ? str_cat(most, " positional argument", most == 1 ? "" : "s")
                          : str_cat("from ", least, " to ", most, " positional arguments");
  return Failure{PyExc_TypeError,
                 str_cat(fn, "() takes ", takes, " but ", n, n == 1 ? " was" : " were", " given")};
}

Failure missing(const std::string& fn, const Signature& s, const Call& c, size_t from) {
  std::vector<std::string> names;
  for (size_t k = from; k < s.params.size(); ++k) {
    const Param& q = s.params[k];
    if (q.has_default || (!q.kw_only && k < c.pos.size())) continue;
    bool given =
        std::any_of(c.kw.begin(), c.kw.end(), [&](const auto& kv) { return kv.first == q.name; });
    if (!given) names.push_back("\"" + q.name + "\"");
  }
  // (PyTorch's wording: "arguments" for one, "argument" for more.)
  return Failure{PyExc_TypeError,
                 str_cat(fn, "() missing ", names.size(), " required positional argument",
                         names.size() == 1 ? "s" : "", ": ", join(names, ", "))};
}

Failure wrong_type(const std::string& fn, const Param& p, size_t index, bool positional,
                   PyObject* o) {
  if (p.type == "int" && PyLong_Check(o) && !PyBool_Check(o)) {
    return Failure{PyExc_ValueError, "Overflow when unpacking long long"};
  }
  if (p.type == "tuple of Tensors" && (PyList_Check(o) || PyTuple_Check(o))) {
    py::sequence seq = py::reinterpret_borrow<py::sequence>(o);
    for (size_t j = 0; j < seq.size(); ++j) {
      py::object item = seq[j];
      if (!is_tensor(item.ptr())) {
        return Failure{PyExc_TypeError, str_cat("expected Tensor as element ", j, " in argument ",
                                                index, ", but got ", type_name(item))};
      }
    }
  }
  std::string where = positional ? str_cat(" (position ", index + 1, ")") : "";
  return Failure{PyExc_TypeError, str_cat(fn, "(): argument '", p.name, "'", where, " must be ",
                                          p.shown, ", not ", type_name(o))};
}

// PyTorch's parse of one signature: the first thing wrong, or nothing.
std::optional<Failure> parse_failure(const std::string& fn, const Signature& s, const Call& c) {
  if (auto f = too_many_positional(fn, s, c.pos.size())) return f;
  std::vector<bool> used(c.kw.size(), false);
  for (size_t i = 0; i < s.params.size(); ++i) {
    const Param& p = s.params[i];
    bool positional = !p.kw_only && i < c.pos.size();
    PyObject* o = positional ? c.pos[i] : nullptr;
    for (size_t j = 0; !positional && j < c.kw.size(); ++j) {
      if (!used[j] && c.kw[j].first == p.name) {
        o = c.kw[j].second;
        used[j] = true;
        break;
      }
    }
    if (o == nullptr) {
      if (p.has_default) continue;
      return missing(fn, s, c, i);
    }
    if (!accepts(p, o)) return wrong_type(fn, p, i, positional, o);
  }
  for (size_t j = 0; j < c.kw.size(); ++j) {
    if (used[j]) continue;
    const std::string& k = c.kw[j].first;
    return Failure{PyExc_TypeError,
                   param_named(s, k)
                       ? str_cat(fn, "() got multiple values for argument '", k, "'")
                       : str_cat(fn, "() got an unexpected keyword argument '", k, "'")};
  }
  return std::nullopt;
}

std::vector<std::pair<std::string, PyObject*>> sorted_kw(const Call& c) {
  auto kw = c.kw;
  std::sort(kw.begin(), kw.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return kw;
}

// "(Tensor, max=int)"; with `against`, the arguments it rejects are marked "!int!".
std::string given(const Call& c, const Signature* against) {
  std::string out = "(";
  for (size_t i = 0; i < c.pos.size(); ++i) {
    std::string t = type_name(c.pos[i]);
    // (PyTorch marks every argument given for a parameter with a default,
    // whatever its type: clamp(None, "a") shows "(!NoneType!, !str!)".)
    bool bad =
        against && !(i < against->params.size() && !against->params[i].kw_only &&
                     !against->params[i].has_default && accepts(against->params[i], c.pos[i]));
    out += (bad ? "!" + t + "!" : t) + ", ";
  }
  for (const auto& [k, o] : sorted_kw(c)) {
    std::string piece = k + "=" + type_name(o);
    const Param* p = against ? param_named(*against, k) : nullptr;
    bool bad = against && !(p && accepts(*p, o));
    out += (bad ? "!" + piece + "!" : piece) + ", ";
  }
  if (!c.pos.empty()) out.erase(out.size() - 2);
  return out + ")";
}

std::string invalid_combination(const std::string& fn, const std::vector<Signature>& sigs,
                                const Call& c) {
  std::string msg = fn + "() received an invalid combination of arguments - got " +
                    given(c, nullptr) + ", but expected one of:\n";
  for (const Signature& s : sigs) {
    msg += " * " + s.text + "\n";
    // PyTorch explains an option only when the call has as many arguments
    // as the option has pieces; a keyword matches only an argument without a
    // default (its parser reads "min = None" as the name).
    if (s.pieces != c.pos.size() + c.kw.size()) continue;
    std::vector<std::string> bad_kw;
    for (const auto& kv : sorted_kw(c)) {
      const Param* p = param_named(s, kv.first);
      if (!p || p->has_default) bad_kw.push_back(kv.first);
    }
    if (!bad_kw.empty()) {
      msg +=
          "      didn't match because some of the keywords were incorrect: " + join(bad_kw, ", ") +
          "\n";
    } else {
      msg +=
          "      didn't match because some of the arguments have invalid types: " + given(c, &s) +
          "\n";
    }
  }
  return msg;
}

std::optional<Failure> describe(const std::string& fn, const std::vector<Signature>& sigs,
                                const Call& c) {
  if (sigs.size() == 1) return parse_failure(fn, sigs[0], c);
  size_t n = c.pos.size() + c.kw.size();
  const Signature* only = nullptr;
  int plausible = 0;
  for (const Signature& s : sigs) {
    size_t least = static_cast<size_t>(std::count_if(
        s.params.begin(), s.params.end(), [](const Param& p) { return !p.has_default; }));
    if (n >= least && (s.varargs || n <= s.params.size())) {
      ++plausible;
      only = &s;
    }
  }
  if (plausible == 1) {
    if (auto f = parse_failure(fn, *only, c)) return f;
  }
  return Failure{PyExc_TypeError, invalid_combination(fn, sigs, c)};
}

// torch's overloads of a name gradtrack binds with one signature where torch's
// parser has several (gradtrack/_parser_overloads.py, imported on the first failed
// call): the error lists those, as torch's does.
std::optional<std::vector<Signature>> torch_overloads(const py::detail::function_record& rec) {
  py::object tables = py::module_::import("gradtrack._parser_overloads");
  py::dict table = tables.attr(rec.is_method ? "METHODS" : "FUNCTIONS");
  py::str name(rec.name);
  if (!table.contains(name)) return std::nullopt;
  std::vector<Signature> sigs;
  for (py::handle spec : py::list(table[name])) sigs.push_back(torch_signature(py::str(spec)));
  return sigs;
}

// A Tensor method that takes nothing is a METH_NOARGS method in torch, refused by
// CPython with its own words and the class torch binds it on (TensorBase).
std::optional<Failure> no_arguments(const py::detail::function_record& rec,
                                    const std::vector<Signature>& sigs, const Call& c) {
  if (!rec.is_method || sigs.size() != 1 || !sigs[0].params.empty() || sigs[0].varargs)
    return std::nullopt;
  // (torch's dtype conversions take memory_format=: its parser words them)
  static const char* const kParsed[] = {"bfloat16", "bool", "byte", "char", "double",
                                        "float",    "half", "int",  "long", "short"};
  for (const char* name : kParsed)
    if (std::strcmp(rec.name, name) == 0) return std::nullopt;
  if (!rec.scope || std::string(py::str(rec.scope.attr("__name__"))) != "Tensor")
    return std::nullopt;
  const std::string fn = str_cat("TensorBase.", rec.name, "()");
  if (!c.kw.empty()) return Failure{PyExc_TypeError, fn + " takes no keyword arguments"};
  return Failure{PyExc_TypeError, str_cat(fn, " takes no arguments (", c.pos.size(), " given)")};
}

std::vector<Signature> torch_signatures(const InvalidArguments& e, bool function_form) {
  std::vector<Signature> sigs;
  for (const std::string& o : e.options) {
    // The module function takes the tensor as its first argument, `input`.
    std::string spec = o;
    if (function_form) spec = o.empty() ? "Tensor input" : "Tensor input, " + o;
    sigs.push_back(torch_signature(spec));
  }
  return sigs;
}

// The TypeError raised for an InvalidArguments whose call arguments the
// dispatcher wrapper still has to supply (see rewrite()).
thread_local PyObject* t_pending_error = nullptr;
thread_local std::optional<InvalidArguments> t_pending;

void raise(const Failure& f) { PyErr_SetString(f.kind, f.message.c_str()); }

using Dispatcher = PyObject* (*)(PyObject*, PyObject* const*, Py_ssize_t, PyObject*);
Dispatcher g_pybind_dispatcher = nullptr;

Call call_of(const py::detail::function_record& rec, PyObject* const* args, Py_ssize_t nargs,
             PyObject* kwnames) {
  Call c;
  for (Py_ssize_t i = rec.is_method ? 1 : 0; i < nargs; ++i) c.pos.push_back(args[i]);
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t k = 0; k < nkw; ++k) {
    const char* name = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, k));
    c.kw.emplace_back(name ? name : "", args[nargs + k]);
  }
  return c;
}

// Called with the error of a failed call set: replaces pybind11's generic
// mismatch message, or completes an InvalidArguments raised by the binding.
void rewrite(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  const py::detail::function_record* rec = py::detail::function_record_ptr_from_PyObject(self);
  std::optional<InvalidArguments> pending;
  PyObject* pending_error = t_pending_error;
  pending.swap(t_pending);
  t_pending_error = nullptr;
  if (rec == nullptr || !PyErr_ExceptionMatches(PyExc_TypeError)) return;
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  PyErr_NormalizeException(&type, &value, &tb);
  std::optional<Failure> f;
  try {
    Call c = call_of(*rec, args, nargs, kwnames);
    if (pending && value == pending_error) {
      f = describe(pending->fn, torch_signatures(*pending, !rec->is_method), c);
    } else {
      py::str text(value);
      if (std::string(text).find("(): incompatible function arguments.") != std::string::npos) {
        std::vector<Signature> sigs;
        for (const auto* r = rec; r != nullptr; r = r->next) sigs.push_back(pybind_signature(*r));
        if (auto listed = torch_overloads(*rec)) sigs = std::move(*listed);
        f = no_arguments(*rec, sigs, c);
        if (!f) f = describe(rec->name, sigs, c);
      }
    }
  } catch (...) {
    f.reset();
  }
  if (!f) {
    PyErr_Restore(type, value, tb);
    return;
  }
  Py_XDECREF(type);
  Py_XDECREF(value);
  Py_XDECREF(tb);
  raise(*f);
}

PyObject* checked_dispatch(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                           PyObject* kwnames) {
  PyObject* result = g_pybind_dispatcher(self, args, nargs, kwnames);
  if (result == nullptr) rewrite(self, args, nargs, kwnames);
  return result;
}

void patch(PyObject* fn) {
  if (fn == nullptr || !PyCFunction_Check(fn)) return;
  PyObject* self = PyCFunction_GET_SELF(fn);
  if (self == nullptr || !py::detail::is_function_record_PyObject(self)) return;
  PyMethodDef* def = reinterpret_cast<PyCFunctionObject*>(fn)->m_ml;
  auto meth = reinterpret_cast<Dispatcher>(reinterpret_cast<void (*)()>(def->ml_meth));
  if (meth == checked_dispatch) return;
  if (g_pybind_dispatcher == nullptr) g_pybind_dispatcher = meth;
  if (meth != g_pybind_dispatcher) return;
  def->ml_meth = reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(checked_dispatch));
}

void patch_attribute(py::handle v) {
  PyObject* o = v.ptr();
  if (PyInstanceMethod_Check(o)) {
    patch(PyInstanceMethod_GET_FUNCTION(o));
  } else if (PyCFunction_Check(o)) {
    patch(o);
  } else if (py::isinstance<py::staticmethod>(v)) {
    patch(v.attr("__func__").ptr());
  } else if (PyObject_TypeCheck(o, &PyProperty_Type)) {
    for (const char* accessor : {"fget", "fset"}) patch(v.attr(accessor).ptr());
  }
}

}  // namespace

std::string type_name(py::handle h) { return Py_TYPE(h.ptr())->tp_name; }

void set_invalid_arguments(const InvalidArguments& e) {
  Call c;
  if (e.args) {
    for (const py::object& o : *e.args) c.pos.push_back(o.ptr());
  }
  std::optional<Failure> f = describe(e.fn, torch_signatures(e, false), c);
  raise(f ? *f : Failure{PyExc_TypeError, e.fn + "(): invalid arguments"});
  if (e.args) return;
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  PyErr_NormalizeException(&type, &value, &tb);
  t_pending_error = value;
  t_pending = e;
  PyErr_Restore(type, value, tb);
}

void install_argument_errors(py::module_& m) {
  for (auto item : m.attr("__dict__").cast<py::dict>()) {
    py::handle v = item.second;
    if (PyType_Check(v.ptr())) {
      std::string mod = py::str(v.attr("__module__"));
      if (mod.rfind("gradtrack", 0) != 0) continue;
      for (auto attr : v.attr("__dict__").cast<py::dict>()) patch_attribute(attr.second);
    } else {
      patch_attribute(v);
    }
  }
}

}  // namespace gradtrack::python
