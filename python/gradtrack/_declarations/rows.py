"""The two kinds of row: a derivative (one node kind of the formula table) and a
pointwise op (one row of the op list). See NOTE [One declaration per op] in
``__init__.py``.

This module imports nothing of gradtrack: the build reads it before ``_C`` exists.
"""

from collections import namedtuple

# A forward-mode derivative derived from the backward formula: an elementwise op's
# Jacobian is diagonal, so its jvp is its backward formula applied to the tangent
# (torch's ``auto_element_wise``). Only rows of elementwise ops may use it.
ELEMENTWISE = "<elementwise>"

# Dtype rules of the op list (the C++ op function is generated for FLOAT and SAME):
FLOAT = "Float"    # integer inputs compute in the default float type (exp)
SAME = "Same"      # the (promoted) input dtype (abs, floor, add)
FLOATING = "Floating"  # the promoted dtype, which must be floating (torch: "*_cpu" not implemented)
CUSTOM = "Custom"  # the op function is written by hand in ops/pointwise.cpp

# ``number=`` / ``number_self=`` of an op that takes a Python number there but never
# records a node (the bitwise ops and shifts: integers and bools only).
NUMBER = "<number>"


class Derivative(namedtuple("Derivative", [
        "kind",            # the C++ OpKind enumerator
        "grad_fn",         # torch's grad_fn name
        "backward",        # the backward formula (namespace gradtrack::autograd::formulas)
        "jvp",             # the forward-mode formula, ELEMENTWISE, or None (forward AD raises)
        "saves",           # {input position: positions of the gradients whose formula reads it}
        "saves_result",
        # x * 2: torch wraps the number in a tensor, which the node saves and gives an edge
        "saves_wrapped_number", "wrapped_number_edge",
        # torch's generated nodes save and unpack some inputs last first (mm saves mat2
        # before self; mul unpacks other first): visible to pack hooks and in which
        # modified tensor an error names
        "saves_last_input_first", "unpacks_last_input_first",
        # torch's NotImplemented node: made without a sequence number (it runs as early
        # as an AccumulateGrad), and forward AD names the aten op in its error
        "not_implemented",
        # takes each incoming gradient as given or absent (torch's undefined gradients):
        # zero-filled ones would send zeros on (a weight's .grad zeros where torch
        # leaves None) or add 0 * inf = NaN (var_mean with dof <= 0)
        "takes_absent_grads",
        "aten_name",         # the aten name forward AD's error names, where not the grad_fn's
    ], defaults=(None, {}, False, False, False, False, False, False, False, None))):
    """One node kind: what ``record()`` builds for an op, and its formulas.

    ``saves`` maps an input position to the positions (a string such as "01") of the
    gradients whose formula reads it: the input is saved only when one of those is
    needed (torch's ``should_compute_output``), and whether a later in-place write
    makes backward raise depends on exactly that.
    """

    __slots__ = ()


class Pointwise(namedtuple("Pointwise", [
        "name", "arity", "dtype",
        "derivative",          # recorded with tensor operands: a Derivative, another row's kind, or None
        # the number forms (torch's Scalar and Scalar_Self overloads): the node recorded when
        # other is a Python number, and when self is one; NUMBER: the form exists and records
        # nothing; None: torch takes no number there (TypeError)
        "number",
        # what Tensor.NAME_ records, where it is not ``derivative`` (torch's in-place
        # inverse hyperbolics have a node of their own, which raises)
        "inplace_derivative",
        "kernel",              # the kernel enumerator; default: the name in CamelCase
        "inplace",             # Tensor.NAME_ exists
        # out=: None (torch has none), "cast" (the result must cast to out's dtype) or
        # "exact" (out's dtype must be the result's: "Found dtype ... but expected ...")
        "out",
        "out_error_name",      # the op torch's out= errors name, where it is another
        "generated",           # the C++ entry and binding come from this row; False: by hand
        "doc",
        "example",             # the arguments of the example call: self first
        "prints",              # what the example prints
        # a function of gradtrack.special only (torch.special's): NAME is torch's aten
        # name, ``special_`` and the public name; no method, no in-place form
        "special",
        "number_self",
    ], defaults=(None, None, "", True, "cast", "", True, "", (), "", False, None))):
    """One elementwise op: ``gradtrack.NAME``, ``Tensor.NAME``, ``Tensor.NAME_``.

    ``derivative`` is the node the op records with tensor operands: its own row, the
    kind of another row (``square`` records ``PowScalar``), or None (never records:
    comparisons, bitwise ops).
    """

    __slots__ = ()

    @property
    def kernel_name(self):
        return self.kernel or camel(self.name)

    @property
    def public_name(self):
        """The name users call: ``special_i0e`` is ``gradtrack.special.i0e``."""
        return self.name[len("special_"):] if self.special else self.name

    @property
    def tensor_kind(self):
        return _kind(self.derivative)

    @property
    def number_kind(self):
        return None if self.number == NUMBER else _kind(self.number)

    @property
    def number_self_kind(self):
        return None if self.number_self == NUMBER else _kind(self.number_self)

    @property
    def number_form(self):
        """Which operands may be Python numbers: "Tensors" (neither), "NumberOther",
        "NumberBoth" (the tokens the generated C++ tables use)."""
        if self.number_self is not None:
            return "NumberBoth"
        return "NumberOther" if self.number is not None else "Tensors"

    @property
    def inplace_kind(self):
        return _kind(self.inplace_derivative) or self.tensor_kind

    @property
    def differentiable(self):
        return self.derivative is not None


def _kind(d):
    return d.kind if isinstance(d, Derivative) else d


def camel(name):
    """``floor_divide`` -> ``FloorDivide``, ``log1p`` -> ``Log1p``."""
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))


def _derivative(name, grad_fn, backward, saves, jvp, options):
    if isinstance(saves, str):  # a unary op's "self" or "result"
        saves, options = ({0: "0"} if saves == "self" else {}), {**options,
                                                                 "saves_result": saves == "result"}
    return Derivative(camel(name), grad_fn, backward or name + "_bw", jvp, dict(saves or {}),
                      **options)


def unary(name, dtype, grad_fn=None, *, backward=None, saves=None, jvp=ELEMENTWISE, records=None,
          derivative_options=None, **op):
    """A unary op row. With ``grad_fn`` the op records a row of its own: kind
    ``camel(name)``, backward ``NAME_bw`` unless ``backward`` names another,
    ``saves`` "self" or "result"; ``records`` names a row the op records instead."""
    derivative = records
    if grad_fn is not None:
        derivative = _derivative(name, grad_fn, backward, saves, jvp, derivative_options or {})
    return Pointwise(name, 1, dtype, derivative, **op)


def special_unary(name, dtype, grad_fn, **kw):
    """A unary row of ``gradtrack.special`` only: ``special_unary("i0e", ...)`` is
    ``gradtrack.special.i0e`` (torch's ``special_i0e``), with no method or in-place form."""
    return unary("special_" + name, dtype, grad_fn, inplace=False, special=True, **kw)


def binary(name, dtype, grad_fn=None, *, backward=None, saves=None, jvp=ELEMENTWISE, records=None,
           number=None, number_self=None, derivative_options=None, **op):
    """A binary op row, ``self.NAME(other)``: as :func:`unary`, with ``saves`` a
    map from inputs to the gradients that read them, ``number`` the row recorded
    when ``other`` is a Python number and ``number_self`` when ``self`` is one
    (torch's ``Scalar_Self`` overload, ``gradtrack.NAME(2.0, t)``); None: torch
    takes no number there."""
    derivative = records
    if grad_fn is not None:
        derivative = _derivative(name, grad_fn, backward, saves, jvp, derivative_options or {})
    return Pointwise(name, 2, dtype, derivative, number, number_self=number_self, **op)
