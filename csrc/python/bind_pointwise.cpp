// Elementwise ops as Tensor methods and gradtrack.* functions (the op list's
// rows bound from op_list.h, the others by hand), and Tensor's operators.
#include "ops/autocast.h"
#include "python/tensor_methods.h"

namespace gradtrack::python {

namespace {

using namespace methods;  // NOLINT: the shared binding helpers
using ops::Cmp;
using ops::Logic;

void bind_arith(Cls& cls, py::module_& m) {
  both(
      cls, m, "add",
      [](const Tensor& a, py::handle b, py::handle alpha) {
        Scalar al = number_arg(alpha, "add", "alpha");
        return method_binop(
            "add", a, b, [&](const Tensor& x, const Tensor& y) { return ops::add(x, y, al); },
            [&](const Tensor& x, Scalar y) { return ops::add(x, y, al); });
      },
      py::arg("other"), py::kw_only(), py::arg("alpha") = 1);
  both(
      cls, m, "sub",
      [](const Tensor& a, py::handle b, py::handle alpha) {
        Scalar al = number_arg(alpha, "sub", "alpha");
        return method_binop(
            "sub", a, b, [&](const Tensor& x, const Tensor& y) { return ops::sub(x, y, al); },
            [&](const Tensor& x, Scalar y) { return ops::sub(x, y, al); });
      },
      py::arg("other"), py::kw_only(), py::arg("alpha") = 1);
  m.def(
      "rsub",
      [](const Tensor& a, py::handle b, py::handle alpha) {
        Scalar al = number_arg(alpha, "rsub", "alpha");
        return method_binop(
            "rsub", a, b, [&](const Tensor& x, const Tensor& y) { return ops::rsub(x, y, al); },
            [&](const Tensor& x, Scalar y) { return ops::rsub(x, y, al); });
      },
      py::arg("input"), py::arg("other"), py::kw_only(), py::arg("alpha") = 1);
  both(
      cls, m, "mul",
      [](const Tensor& a, py::handle b) {
        return method_binop(
            "mul", a, b, [](const Tensor& x, const Tensor& y) { return ops::mul(x, y); },
            [](const Tensor& x, Scalar y) { return ops::mul(x, y); });
      },
      py::arg("other"));
  // An explicit rounding_mode (None included) selects PyTorch's *_mode overload.
  both(
      cls, m, "div",
      [](const Tensor& a, py::handle b, py::handle mode) {
        bool given = !mode.is(unset_marker());
        std::string r = given ? rounding(mode) : std::string();
        return method_binop(
            "div", a, b,
            [&](const Tensor& x, const Tensor& y) {
              return given ? ops::div_mode(x, y, r) : ops::div(x, y, r);
            },
            [&](const Tensor& x, Scalar y) {
              return given ? ops::div_mode(x, y, r) : ops::div(x, y, r);
            });
      },
      py::arg("other"), py::kw_only(), py::arg("rounding_mode") = unset_marker());
  both(
      cls, m, "floor_divide",
      [](const Tensor& a, py::handle b) {
        return method_binop(
            "floor_divide", a, b,
            [](const Tensor& x, const Tensor& y) { return ops::floor_divide(x, y); },
            [](const Tensor& x, Scalar y) { return ops::floor_divide(x, y); });
      },
      py::arg("other"));
  both(
      cls, m, "remainder",
      [](const Tensor& a, py::handle b) {
        return method_binop(
            "remainder", a, b,
            [](const Tensor& x, const Tensor& y) { return ops::remainder(x, y); },
            [](const Tensor& x, Scalar y) { return ops::remainder(x, y); });
      },
      py::arg("other"));
  both(
      cls, m, "pow",
      [](const Tensor& a, py::handle b) {
        return method_binop(
            "pow", a, b, [](const Tensor& x, const Tensor& y) { return ops::pow(x, y); },
            [](const Tensor& x, Scalar y) { return ops::pow(x, y); }, "exponent");
      },
      py::arg("exponent"));
  both(
      cls, m, "fmod",
      [](const Tensor& a, py::handle b) {
        return method_binop(
            "fmod", a, b, [](const Tensor& x, const Tensor& y) { return ops::fmod(x, y); },
            [](const Tensor& x, Scalar y) { return ops::fmod(x, y); });
      },
      py::arg("other"));
  both(
      cls, m, "clamp_min",
      [](const Tensor& a, py::handle b) {
        return method_binop(
            "clamp_min", a, b,
            [](const Tensor& x, const Tensor& y) { return ops::clamp_min(x, y); },
            [](const Tensor& x, Scalar y) { return ops::clamp_min(x, y); }, "min");
      },
      py::arg("min"));
  both(
      cls, m, "clamp_max",
      [](const Tensor& a, py::handle b) {
        return method_binop(
            "clamp_max", a, b,
            [](const Tensor& x, const Tensor& y) { return ops::clamp_max(x, y); },
            [](const Tensor& x, Scalar y) { return ops::clamp_max(x, y); }, "max");
      },
      py::arg("max"));

  // The op list's binary rows whose functions are generated (NOTE [One declaration
  // per op]), by their number form: a number as `other` through method_binop, a
  // number as `self` through a second overload of the function (torch's Scalar_Self).
#define GT_BIND_FORM_Tensors(name)                                                     \
  both(                                                                                \
      cls, m, #name, [](const Tensor& a, const Tensor& b) { return ops::name(a, b); }, \
      py::arg("other"));
#define GT_BIND_FORM_NumberOther(name)                                                     \
  both(                                                                                    \
      cls, m, #name,                                                                       \
      [](const Tensor& a, py::handle b) {                                                  \
        return method_binop(                                                               \
            #name, a, b, [](const Tensor& x, const Tensor& y) { return ops::name(x, y); }, \
            [](const Tensor& x, Scalar y) { return ops::name(x, y); }, "other");           \
      },                                                                                   \
      py::arg("other"));
#define GT_BIND_FORM_NumberBoth(name)                                                           \
  GT_BIND_FORM_NumberOther(name) m.def(                                                         \
      #name, [](py::handle a, const Tensor& b) { return ops::name(scalar_arg(a, "self"), b); }, \
      py::arg("self"), py::arg("other"));
#define GT_BIND_BINARY(K, name, tkind, skind, self_kind, rule, form) GT_BIND_FORM_##form(name)
  GT_BINARY_METHODS(GT_BIND_BINARY)
#undef GT_BIND_BINARY
#undef GT_BIND_FORM_NumberBoth
#undef GT_BIND_FORM_NumberOther
#undef GT_BIND_FORM_Tensors
  both(
      cls, m, "clamp",
      [](const Tensor& a, py::handle lo, py::handle hi) -> Tensor {
        ClampBounds b = clamp_bounds("clamp", lo, hi, false);
        if (b.tensors) {
          return ops::clamp(a, b.lo_t.defined() ? &b.lo_t : nullptr,
                            b.hi_t.defined() ? &b.hi_t : nullptr);
        }
        return ops::clamp(a, b.lo, b.hi);
      },
      py::arg("min") = py::none(), py::arg("max") = py::none());
  m.def(
      "pow", [](py::handle base, const Tensor& e) { return ops::pow(scalar_arg(base, "base"), e); },
      py::arg("self"), py::arg("exponent"));
  m.def(
      "where",
      [](const Tensor& cond, py::handle a, py::handle b) {
        Tensor x = is_tensor(a) ? a.cast<Tensor>() : Tensor(),
               y = is_tensor(b) ? b.cast<Tensor>() : Tensor();
        // A Python number takes the other operand's dtype class, as a wrapped number does.
        if (!x.defined() && !y.defined()) {
          x = tensor_from_data(a, std::nullopt);
          y = tensor_from_data(b, std::nullopt);
        } else if (!x.defined()) {
          Scalar s = scalar_arg(a, "input");
          x = ops::scalar_tensor(s, ops::result_type(y, s));
        } else if (!y.defined()) {
          Scalar s = scalar_arg(b, "other");
          y = ops::scalar_tensor(s, ops::result_type(x, s));
        }
        return ops::where(cond, x, y);
      },
      py::arg("condition"), py::arg("input"), py::arg("other"));
}

#define GT_UNARY(name) both(cls, m, #name, [](const Tensor& a) { return ops::name(a); })

void bind_unary(Cls& cls, py::module_& m) {
  // The op list's unary ops (NOTE [One declaration per op]), then the other unary ones.
#define GT_BIND_UNARY(K, name, ...) GT_UNARY(name);
  GT_UNARY_METHODS(GT_BIND_UNARY)
#undef GT_BIND_UNARY
  // torch.special's own functions: no method; gradtrack/special.py names them.
  py::module_ special = m.def_submodule("_special", "torch.special's own elementwise functions");
#define GT_BIND_SPECIAL(K, name, ...) \
  special.def(#name, [](const Tensor& a) { return ops::name(a); }, py::arg("input"));
  GT_SPECIAL_UNARY(GT_BIND_SPECIAL)
#undef GT_BIND_SPECIAL
  both(
      cls, m, "masked_select",
      [](const Tensor& a, const Tensor& mask) { return ops::masked_select(a, mask); },
      py::arg("mask"));
  both(
      cls, m, "amin",
      [](const Tensor& a, py::handle dim, bool keepdim) {
        return ops::amin(a, dims_arg(dim, "amin"), keepdim);
      },
      py::arg("dim") = py::tuple(), py::arg("keepdim") = false);
  GT_UNARY(t);
  GT_UNARY(clone);
  m.def(
      "polygamma",
      [](py::handle n, const Tensor& a) {
        return ops::polygamma(int_arg(n, "polygamma", "n", 1), a);
      },
      py::arg("n"), py::arg("input"));
  cls.def(
      "polygamma",
      [](const Tensor& a, py::handle n) {
        return ops::polygamma(int_arg(n, "polygamma", "n", 1), a);
      },
      py::arg("n"));
}

void bind_compare(Cls& cls, py::module_& m) {
  auto cmp = [&](const char* name, Cmp op) {
    both(
        cls, m, name,
        [op, name](const Tensor& a, py::handle b) {
          return method_binop(
              name, a, b, [op](const Tensor& x, const Tensor& y) { return ops::compare(op, x, y); },
              [op](const Tensor& x, Scalar y) { return ops::compare(op, x, y); }, "other");
        },
        py::arg("other"));
  };
  cmp("eq", Cmp::Eq);
  cmp("ne", Cmp::Ne);
  cmp("lt", Cmp::Lt);
  cmp("le", Cmp::Le);
  cmp("gt", Cmp::Gt);
  cmp("ge", Cmp::Ge);
  auto logic = [&](const char* name, Logic op) {
    both(
        cls, m, name, [op](const Tensor& a, const Tensor& b) { return ops::logical(op, a, b); },
        py::arg("other"));
  };
  auto bitwise = [&](const char* name, Logic op) {
    both(
        cls, m, name,
        [op, name](const Tensor& a, py::handle b) {
          return method_binop(
              name, a, b, [op](const Tensor& x, const Tensor& y) { return ops::bitwise(op, x, y); },
              [op](const Tensor& x, Scalar y) { return ops::bitwise(op, x, y); });
        },
        py::arg("other"));
  };
  bitwise("bitwise_and", Logic::And);
  bitwise("bitwise_or", Logic::Or);
  bitwise("bitwise_xor", Logic::Xor);
  logic("logical_and", Logic::And);
  logic("logical_or", Logic::Or);
  logic("logical_xor", Logic::Xor);
  m.def(
      "equal",
      [](const Tensor& a, const Tensor& b) {
        if (a.sizes() != b.sizes()) return false;
        Tensor eq = ops::all(ops::compare(Cmp::Eq, a, b), std::nullopt, false);
        return *eq.data<bool>();
      },
      py::arg("input"), py::arg("other"));
}

void bind_operators(Cls& cls) {
  using ops::add;
#define GT_BINOP(py_name, tensor_expr, scalar_expr)                             \
  cls.def(                                                                      \
      py_name,                                                                  \
      [](const Tensor& a, py::handle b) {                                       \
        return binop(                                                           \
            a, b, [](const Tensor& x, const Tensor& y) { return tensor_expr; }, \
            [](const Tensor& x, Scalar y) { return scalar_expr; });             \
      },                                                                        \
      py::is_operator())
  GT_BINOP("__add__", ops::add(x, y), ops::add(x, y));
  GT_BINOP("__radd__", ops::add(y, x), ops::add(x, y));
  GT_BINOP("__sub__", ops::sub(x, y), ops::sub(x, y));
  GT_BINOP("__rsub__", ops::sub(y, x), ops::rsub(x, y));
  GT_BINOP("__mul__", ops::mul(x, y), ops::mul(x, y));
  GT_BINOP("__rmul__", ops::mul(y, x), ops::mul(x, y));
  GT_BINOP("__truediv__", ops::div(x, y), ops::div(x, y));
  GT_BINOP("__rtruediv__", ops::div(y, x), ops::rdiv(x, y));
  GT_BINOP("__floordiv__", ops::floor_divide(x, y), ops::floor_divide(x, y));
  GT_BINOP("__rfloordiv__", ops::floor_divide(y, x), ops::rfloor_divide(x, y));
  GT_BINOP("__mod__", ops::remainder(x, y), ops::remainder(x, y));
  GT_BINOP("__rmod__", ops::remainder(y, x), ops::rremainder(x, y));
  GT_BINOP("__pow__", ops::pow(x, y), ops::pow(x, y));
  GT_BINOP("__rpow__", ops::pow(y, x), ops::pow(y, x));
  GT_BINOP("__eq__", ops::compare(Cmp::Eq, x, y), ops::compare(Cmp::Eq, x, y));
  GT_BINOP("__ne__", ops::compare(Cmp::Ne, x, y), ops::compare(Cmp::Ne, x, y));
  GT_BINOP("__lt__", ops::compare(Cmp::Lt, x, y), ops::compare(Cmp::Lt, x, y));
  GT_BINOP("__le__", ops::compare(Cmp::Le, x, y), ops::compare(Cmp::Le, x, y));
  GT_BINOP("__gt__", ops::compare(Cmp::Gt, x, y), ops::compare(Cmp::Gt, x, y));
  GT_BINOP("__ge__", ops::compare(Cmp::Ge, x, y), ops::compare(Cmp::Ge, x, y));
  GT_BINOP("__and__", ops::bitwise(Logic::And, x, y), ops::bitwise(Logic::And, x, y));
  GT_BINOP("__rand__", ops::bitwise(Logic::And, y, x), ops::bitwise(Logic::And, x, y));
  GT_BINOP("__or__", ops::bitwise(Logic::Or, x, y), ops::bitwise(Logic::Or, x, y));
  GT_BINOP("__ror__", ops::bitwise(Logic::Or, y, x), ops::bitwise(Logic::Or, x, y));
  GT_BINOP("__xor__", ops::bitwise(Logic::Xor, x, y), ops::bitwise(Logic::Xor, x, y));
  GT_BINOP("__rxor__", ops::bitwise(Logic::Xor, y, x), ops::bitwise(Logic::Xor, x, y));
#undef GT_BINOP
  cls.def(
      "__matmul__",
      [](const Tensor& a, py::handle b) -> py::object {
        if (!is_tensor(b)) return not_implemented();
        return py::cast(ops::autocast::lowered(
            [](const Tensor& x, const Tensor& y) { return ops::matmul(x, y); }, a,
            b.cast<Tensor>()));
      },
      py::is_operator());
  cls.def(
      "__rmatmul__",
      [](const Tensor& a, py::handle b) -> py::object {
        if (!is_tensor(b)) return not_implemented();
        return py::cast(ops::autocast::lowered(
            [](const Tensor& x, const Tensor& y) { return ops::matmul(x, y); }, b.cast<Tensor>(),
            a));
      },
      py::is_operator());
  cls.def("__neg__", [](const Tensor& a) { return ops::neg(a); });
  cls.def("__pos__", [](const Tensor& a) { return a; });
  cls.def("__abs__", [](const Tensor& a) { return ops::abs(a); });
  cls.def("__invert__", [](const Tensor& a) {
    GT_CHECK_TYPE(!is_floating(a.dtype()),
                  "~ (operator.invert) is only implemented on integer and Boolean-type tensors");
    return ops::bitwise_not(a);
  });
}

// The op list's hand-written heaviside and integer rows (ops/pointwise_special.cpp),
// then its generated functions of gradtrack.special, which take a number on either
// side (the generator checks it), bound in _C._special under torch's aten names.
void bind_special_binary(Cls& cls, py::module_& m) {
  both(
      cls, m, "heaviside",
      [](const Tensor& a, const Tensor& values) { return ops::heaviside(a, values); },
      py::arg("values"));
  both(
      cls, m, "gcd", [](const Tensor& a, const Tensor& b) { return ops::gcd(a, b); },
      py::arg("other"));
  both(
      cls, m, "lcm", [](const Tensor& a, const Tensor& b) { return ops::lcm(a, b); },
      py::arg("other"));
  // the shifts: a number on either side, as a generated row's NumberBoth form
#define GT_BIND_NUMBER_SIDES(py_name, fn)                                                       \
  both(                                                                                         \
      cls, m, py_name,                                                                          \
      [](const Tensor& a, py::handle b) {                                                       \
        return method_binop(                                                                    \
            py_name, a, b, [](const Tensor& x, const Tensor& y) { return ops::fn(x, y); },      \
            [](const Tensor& x, Scalar y) { return ops::fn(x, y); });                           \
      },                                                                                        \
      py::arg("other"));                                                                        \
  m.def(                                                                                        \
      py_name, [](py::handle a, const Tensor& b) { return ops::fn(scalar_arg(a, "self"), b); }, \
      py::arg("self"), py::arg("other"))
  GT_BIND_NUMBER_SIDES("bitwise_left_shift", bitwise_left_shift);
  GT_BIND_NUMBER_SIDES("bitwise_right_shift", bitwise_right_shift);
#undef GT_BIND_NUMBER_SIDES
  py::module_ special = m.attr("_special").cast<py::module_>();
#define GT_BIND_SPECIAL_BINARY(K, name, ...)                                                    \
  special.def(                                                                                  \
      #name,                                                                                    \
      [](const Tensor& a, py::handle b) {                                                       \
        ArgOffset offset; /* a function: `other` is argument 2 */                               \
        return method_binop(                                                                    \
            #name, a, b, [](const Tensor& x, const Tensor& y) { return ops::name(x, y); },      \
            [](const Tensor& x, Scalar y) { return ops::name(x, y); });                         \
      },                                                                                        \
      py::arg("input"), py::arg("other"));                                                      \
  special.def(                                                                                  \
      #name, [](py::handle a, const Tensor& b) { return ops::name(scalar_arg(a, "self"), b); }, \
      py::arg("self"), py::arg("other"));
  GT_SPECIAL_BINARY(GT_BIND_SPECIAL_BINARY)
#undef GT_BIND_SPECIAL_BINARY
}

void bind_shift_operators(Cls& cls) {
#define GT_SHIFT(py_name, tensor_expr, scalar_expr)                             \
  cls.def(                                                                      \
      py_name,                                                                  \
      [](const Tensor& a, py::handle b) {                                       \
        return binop(                                                           \
            a, b, [](const Tensor& x, const Tensor& y) { return tensor_expr; }, \
            [](const Tensor& x, Scalar y) { return scalar_expr; });             \
      },                                                                        \
      py::is_operator())
  GT_SHIFT("__lshift__", ops::bitwise_left_shift(x, y), ops::bitwise_left_shift(x, y));
  GT_SHIFT("__rlshift__", ops::bitwise_left_shift(y, x), ops::bitwise_left_shift(y, x));
  GT_SHIFT("__rshift__", ops::bitwise_right_shift(x, y), ops::bitwise_right_shift(x, y));
  GT_SHIFT("__rrshift__", ops::bitwise_right_shift(y, x), ops::bitwise_right_shift(y, x));
#undef GT_SHIFT
}

}  // namespace

void init_pointwise(Cls& cls, py::module_& m) {
  bind_arith(cls, m);
  bind_unary(cls, m);
  bind_special_binary(cls, m);
  bind_shift_operators(cls);
  bind_compare(cls, m);
  bind_operators(cls);
}

}  // namespace gradtrack::python
