"""``out=``: torch's rules for writing a result into ``out``, which functions take
it, and the wrappers that give it to them.

Which functions take ``out=`` is data: the op list's rows (``out`` column: NOTE
[One declaration per op] in ``_declarations``), ``RULES`` for the other functions
bound in C++ (each with the dtype rule torch's kernel applies), ``COMPOSED`` for the
Python functions of ``_ops``, and the factories. :func:`wrap` gives each its wrapper
when the registry assembles ``gradtrack`` (NOTE [One registry] in ``_registry.py``);
a wrapper called without ``out=`` is the function itself (``_wrappers.fast_path``).

NOTE [out= rules] (measured on torch 2.13)
- with grad mode on, any tensor argument (out included) that requires grad
  is refused: "<name>(): functions with out=... arguments don't support
  automatic differentiation, but one of the arguments requires grad.";
- the result is written into ``out`` in place: its ``_version`` bumps once
  and views of it see the write (the elementwise functions compute straight
  into it: NOTE [out= written in place] in csrc/ops/common.h);
- an ``out`` of another shape is resized first, with torch's deprecation
  warning when it had elements; it keeps its storage when that holds the new
  shape, and a resized ``out`` takes the result's layout;
- a forward-AD tangent on any argument, or on ``out``, is refused;
- elementwise ops refuse a result dtype that cannot be cast to ``out``'s
  ("result type Float can't be cast to the desired output type Long");
  reductions and scans cast freely;
- ops returning (values, indices) take a tuple of two tensors.
"""

import functools
import os
import sys
import warnings

from . import _C
from ._declarations import pointwise_ops
from ._dtype_names import CPP_NAME
from ._dtype_names import SCALAR_NAME as _NAME
from ._dtype_names import dtype_key as _key
from ._wrappers import fast_path, insert_keywords, lazy_signature, param_names, parameters

_RESIZED = ("An output with one or more elements was resized since it had shape {old}, which does "
            "not match the required output shape {new}. This behavior is deprecated, and in a "
            "future PyTorch release outputs will not be resized unless they have zero elements. "
            "You can explicitly reuse an out tensor t by resizing it, inplace, to zero elements "
            "with t.resize_(0).")
_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep
_KIND = {"bool": 0, "uint8": 1, "int32": 1, "int64": 1, "float32": 2, "float64": 2,
         "int8": 1, "int16": 1, "float16": 2, "bfloat16": 2}


def _shape(t):
    return "[" + ", ".join(str(s) for s in t.shape) + "]"


def check_grad(name, args, out, differentiable=True):
    """torch's refusals before an out= write: a forward-AD tangent on any
    argument (or out), and, for a ``differentiable`` function with grad mode
    on, an argument (or out) that requires grad."""
    _C._inplace.check_out_tangents(name, out, tuple(args))
    if not differentiable or not _C.is_grad_enabled():
        return
    if _any_requires_grad(args) or _any_requires_grad((out,)):
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support "
                           "automatic differentiation, but one of the arguments requires grad.")


def _any_requires_grad(items):
    """True if a tensor in ``items``, or in a tuple/list in it (cat's), requires grad."""
    tensor = _C.Tensor
    for a in items:
        if isinstance(a, tensor):
            if a.requires_grad:
                return True
        elif isinstance(a, (tuple, list)) and _any_requires_grad(a):
            return True
    return False


def _caller_level():
    """The ``stacklevel`` that makes a warning raised in the calling function
    name the first frame outside gradtrack, however many of the package's
    wrappers lie between (the out= paths go through two to four)."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level


def write(out, result, strict_cast):
    """Writes ``result`` into ``out`` (resized if needed); returns ``out``."""
    if strict_cast and _KIND[_key(result.dtype)] > _KIND[_key(out.dtype)]:
        raise RuntimeError(f"result type {_NAME[_key(result.dtype)]} can't be cast to the desired "
                           f"output type {_NAME[_key(out.dtype)]}")
    if tuple(out.shape) != tuple(result.shape):
        if out.numel() != 0:
            warnings.warn(_RESIZED.format(old=_shape(out), new=_shape(result)), UserWarning,
                          stacklevel=_caller_level())
        _C._inplace.resize_out(out, result)
    with _no_grad():
        out.copy_(result)
    return out


class _GradOff:
    """Grad mode off for a ``with`` block: ``no_grad`` without its decorator
    machinery and import. Every out= call enters two (the op, the write); with
    ``no_grad`` they were half of out='s ~10 us fixed cost."""

    __slots__ = ("prev",)

    def __enter__(self):
        self.prev = _C.is_grad_enabled()
        _C._set_grad_enabled(False)

    def __exit__(self, *exc):
        _C._set_grad_enabled(self.prev)


_no_grad = _GradOff


def call(name, fn, args, kwargs, out, strict_cast=False):
    """``fn(*args, **kwargs)`` written into ``out`` (a tensor, or a tuple of
    tensors for a tuple result)."""
    check_grad(name, (*args, *kwargs.values()), out)
    with _no_grad():
        result = fn(*args, **kwargs)
    return write_result(name, out, result, strict_cast)


def write_result(name, out, result, strict_cast=False, refusal=None):
    """Writes ``result`` (a tensor, or a tuple of them) into ``out`` (a tensor,
    or a tuple of as many); returns what the op returns. ``refusal(o, r)``, if
    given, returns torch's error for writing r into o, or None: every pair is
    checked before the first write."""
    if isinstance(result, tuple):
        if not isinstance(out, (tuple, list)) or len(out) != len(result):
            raise TypeError(f"{name}(): argument 'out' must be tuple of Tensors")
        pairs = tuple(zip(out, result))
    else:
        pairs = ((out, result),)
    for o, r in pairs if refusal is not None else ():
        error = refusal(o, r)
        if error is not None:
            raise error
    for o, r in pairs:
        write(o, r, strict_cast)
    return type(result)(tuple(out)) if isinstance(result, tuple) else out


def accepts_out(name, strict_cast=False):
    """Decorates ``fn`` so that ``out=`` routes through :func:`call`."""
    def wrap(fn):
        @functools.wraps(fn)
        def with_out(*args, out=None, **kwargs):
            if out is None:
                return fn(*args, **kwargs)
            return call(name, fn, args, kwargs, out, strict_cast)

        def signature():
            import inspect

            sig = inspect.signature(fn)
            out_param = inspect.Parameter("out", inspect.Parameter.KEYWORD_ONLY, default=None)
            return sig.replace(parameters=[*sig.parameters.values(), out_param])
        return fast_path(fn, lazy_signature(with_out, signature), ("out",))
    return wrap


# ---- which functions take out= ---------------------------------------------------------------

# The op list's functions that take out= (NOTE [One declaration per op]), true_divide,
# div's alias, and polygamma (its order first). gradtrack.special wraps its own rows.
_LIST = [op for op in pointwise_ops() if op.out and not op.special]
UNARY = tuple(op.name for op in _LIST if op.arity == 1)
BINARY = tuple(op.name for op in _LIST if op.arity == 2) + ("true_divide", "polygamma")
FACTORIES = ("arange", "linspace", "eye", "full", "randperm", "randint", "logspace", "range")
# torch's "Same"-dtype unary ops want out's dtype to be the result's exactly.
EXACT = {op.name for op in _LIST if op.out == "exact"}
# Not differentiable in torch: an argument that requires grad is fine.
NO_GRAD = {op.name for op in _LIST if not op.differentiable}
# The name torch's error gives (the op it calls).
ERROR_NAME = {**{op.name: op.out_error_name for op in _LIST if op.out_error_name},
              "true_divide": "div", "concat": "cat", "clip": "clamp"}
# Non-elementwise functions with out=, each with the dtype rule torch's kernel applies
# (measured on torch 2.13 with float32 inputs and float64/int64/bool outs).
RULES = {
    **dict.fromkeys(("mm", "bmm", "mv", "matmul", "addmm", "gather", "scatter", "scatter_add",
                     "diag", "softmax", "log_softmax", "argmax", "argmin"), "expect"),
    **dict.fromkeys(("clamp", "clip", "clamp_min", "clamp_max"), "found"),
    **dict.fromkeys(("outer", "mean"), "cast"),
    **dict.fromkeys(("cat", "concat", "stack"), "cat"),
    "dot": "dot", "index_select": "index_select", "where": "where", "all": "bool", "any": "bool",
    "amax": "same", "amin": "same", "masked_select": "masked_select", "nonzero": "nonzero",
    "signbit": "signbit",
}
# argmax/argmin/all/any are not differentiable; diag and the softmaxes take out= with an
# argument that requires grad in torch 2.13 (measured).
NO_GRAD |= {"argmax", "argmin", "all", "any", "diag", "softmax", "log_softmax", "nonzero",
            "signbit"}
# The Python functions of _ops that take out= in torch: {name: (the op torch's out= errors
# name, strict)}. strict: elementwise ops, whose result dtype must cast to out's; the others
# cast freely. A composite names the op underneath ("cat(): functions with out=...").
COMPOSED = {
    **{name: (name, False) for name in ("cumsum", "cumprod", "sort", "topk", "var", "std",
                                         "logsumexp", "tril", "triu", "kthvalue", "median",
                                         "mode")},
    **{name: (name, True) for name in ("nan_to_num", "lerp", "baddbmm", "addmv", "cross",
                                        "logit", "mvlgamma")},
    **{name: (name, True) for name in ("addcmul", "addcdiv", "addr", "addbmm")},
    **{name: (name, False) for name in ("index_add", "index_copy", "take", "msort")},
    **{name: (name, False) for name in ("cummax", "cummin", "logcumsumexp", "nanmedian", "nansum",
                                         "quantile", "nanquantile", "aminmax",
                                         "histc", "histogram", "renorm", "scatter_reduce",
                                         "index_reduce")},
    "hstack": ("cat", False), "vstack": ("cat", False), "dstack": ("cat", False),
    "column_stack": ("cat", False), "take_along_dim": ("gather", False),
    "inner": ("inner", False), "float_power": ("pow", True), "fix": ("trunc", True),
    "kron": ("kron", False), "chain_matmul": ("chain_matmul", False),
    "vdot": ("vdot", False), "ger": ("outer", False), "isin": ("isin", False),
    "concatenate": ("cat", False), "cholesky_inverse": ("cholesky_inverse", False),
    "narrow_copy": ("narrow_copy", False),
}


# Elementwise ops whose out= refusal names the op rather than the result type (torch's
# ldexp is a multiply under its own name).
CAST_ERROR_NAME = {"ldexp": "ldexp"}


# Elementwise ops with no forward derivative: torch says so before the out= function's
# own refusal of a tangent.
NO_FORWARD_AD = {"heaviside"}


def _refuse_tangents(name, args, out):
    if any(isinstance(a, _C.Tensor) and _C._forward_ad.unpack_dual(a)[1] is not None
           for a in (*args, out)):
        raise NotImplementedError(f"Trying to use forward AD with aten::{name} that does not "
                                  "support it.")


def _heaviside_checks(fn, args, kwargs, out):
    # torch's kernel takes one dtype for both inputs and out
    tensors = [a for a in (*args, out) if isinstance(a, _C.Tensor)]
    if len({t.dtype for t in tensors}) > 1:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")


def _alpha_checks(fn, args, kwargs, out):
    # torch refuses an alpha of the wrong kind (a bool alpha for a result that is not
    # bool, a float alpha for an integer one) after it has broadcast the operands and
    # checked out's dtype; the function checks alpha first, so those go here.
    alpha = kwargs.get("alpha", 1)
    if not isinstance(alpha, (bool, float)):
        return
    result = fn(*args, **{k: v for k, v in kwargs.items() if k != "alpha"})
    kind = _KIND[_key(result.dtype)]
    if (kind == 0) if isinstance(alpha, bool) else (kind == 2):
        return
    if kind > _KIND[_key(out.dtype)]:
        raise RuntimeError(f"result type {_dt(result)} can't be cast to the desired output type "
                           f"{_dt(out)}")


# Checks torch's kernel makes before an out= write, by op: each is given the function,
# its arguments and out.
KERNEL_CHECKS = {"heaviside": _heaviside_checks, "add": _alpha_checks, "sub": _alpha_checks,
                 "subtract": _alpha_checks}


# ---- the wrappers ----------------------------------------------------------------------------

def _with_signature(wrapper, fn):
    return lazy_signature(wrapper, lambda: insert_keywords(parameters(fn), (("out", None),)))


def _dt(t):
    return _NAME[_key(t.dtype)]


def elementwise(fn, name):
    """``fn`` with ``out=`` (torch's elementwise dtype rules and grad refusal)."""
    error_name = ERROR_NAME.get(name, name)

    @functools.wraps(fn)
    def op(*args, out=None, **kwargs):
        if out is None:
            return fn(*args, **kwargs)
        if name in NO_FORWARD_AD:
            _refuse_tangents(name, args, out)
        check_grad(error_name, (*args, *kwargs.values()), out, name not in NO_GRAD)
        if name in KERNEL_CHECKS:
            KERNEL_CHECKS[name](fn, args, kwargs, out)
        with _no_grad():  # NOTE [out= written in place] in csrc/ops/common.h
            result, written = _C._inplace.into(out, fn, args, kwargs)
        if written:
            return out
        if name in EXACT and result.dtype != out.dtype:
            raise RuntimeError(f"Found dtype {_dt(out)} but expected {_dt(result)}")
        if name in CAST_ERROR_NAME and _KIND[_key(result.dtype)] > _KIND[_key(out.dtype)]:
            raise RuntimeError(f"{CAST_ERROR_NAME[name]} can't be cast to the desired output "
                               f"type {_dt(out)}")
        return write(out, result, True)
    return fast_path(fn, _with_signature(op, fn), ("out",))


def _dtype_error(rule, name, result, out):
    """torch's refusal of ``out``'s dtype for ``rule``, or None when it is accepted."""
    if out.dtype == result.dtype:
        return None
    if rule == "expect":
        return RuntimeError(f"Expected out tensor to have dtype {CPP_NAME[_key(result.dtype)]}, "
                            f"but got {CPP_NAME[_key(out.dtype)]} instead")
    if rule == "found":
        return RuntimeError(f"Found dtype {_dt(out)} but expected {_dt(result)}")
    if rule == "dot":
        return RuntimeError(f"result dtype {_dt(out)} does not match input dtype {_dt(result)}")
    if rule == "index_select":
        return RuntimeError("index_select(): self and result must have the same scalar type")
    if rule == "where":
        return RuntimeError(f"Expected out type to be {_dt(result)} but got {_dt(out)}")
    if rule == "bool":
        return RuntimeError(f"{name} only supports bool tensor for result, got: {_dt(out)}")
    if rule == "same":
        return RuntimeError(f"Expected the dtype for input and out to match, but got {_dt(result)} "
                            f"for input's dtype and {_dt(out)} for out's dtype.")
    if rule == "masked_select":
        return RuntimeError("masked_select(): self and result must have the same scalar type")
    if rule == "nonzero":  # sic: no space before the dtype in torch's message
        return RuntimeError("nonzero: Expected out tensor to have scalar type Long but got scalar "
                            f"type{_dt(out)}")
    if rule == "signbit":
        return RuntimeError("signbit does not support non-boolean outputs.")
    if rule == "can_cast" and _KIND[_key(result.dtype)] > _KIND[_key(out.dtype)]:
        return RuntimeError("Expected canCast( typeMetaToScalarType(self.dtype()), "
                            "typeMetaToScalarType(out.dtype())) to be true, but got false.  (Could "
                            "this error message be improved?  If so, please report an enhancement "
                            "request to PyTorch.)")
    if _KIND[_key(result.dtype)] > _KIND[_key(out.dtype)]:
        if rule == "cat":
            return TypeError(f"torch.cat(): input types can't be cast to the desired output type "
                             f"{_dt(out)}")
        return RuntimeError(f"result type {_dt(result)} can't be cast to the desired output type "
                            f"{_dt(out)}")
    return None


# Products whose one allocation is their result, computed straight into a fitting out
# (NOTE [out= written in place] in csrc/ops/common.h); matmul only of two matrices.
_INTO = {"mm": None, "bmm": None, "matmul": 2}


def _into(name, args):
    if name not in _INTO:
        return False
    dims = _INTO[name]
    return dims is None or (len(args) == 2 and all(
        isinstance(a, _C.Tensor) and a.dim() == dims for a in args))


def with_rule(fn, name):
    """``fn`` with ``out=`` under torch's dtype rule for ``name`` (RULES)."""
    error_name = ERROR_NAME.get(name, name)
    rule = RULES[name]

    @functools.wraps(fn)
    def op(*args, out=None, **kwargs):
        if out is None:
            return fn(*args, **kwargs)
        # check_grad looks into tensor lists (cat's) itself
        check_grad(error_name, (*args, *kwargs.values()), out, name not in NO_GRAD)
        with _no_grad():
            if _into(name, args):
                result, written = _C._inplace.into(out, fn, args, kwargs)
                if written:
                    return out
            else:
                result = fn(*args, **kwargs)
        return write_result(error_name, out, result,
                            refusal=lambda o, r: _dtype_error(rule, error_name, r, o))
    return fast_path(fn, _with_signature(op, fn), ("out",))


def extreme(fn, name):
    """``max``/``min`` with ``out=``: a (values, indices) tuple along a dim, each
    of the result's dtype; elementwise against ``other``; cast freely from the
    all-element form unless the kind narrows (torch's canCast)."""
    @functools.wraps(fn)
    def op(*args, out=None, **kwargs):
        if out is None:
            return fn(*args, **kwargs)
        check_grad(name, (*args, *kwargs.values()), out)
        with _no_grad():
            result = fn(*args, **kwargs)
        other = args[1] if len(args) > 1 else kwargs.get("other")
        if isinstance(other, _C.Tensor):  # elementwise: torch's strict cast
            return write(out, result, True)
        rule = "expect" if isinstance(result, tuple) else "can_cast"
        return write_result(name, out, result,
                            refusal=lambda o, r: _dtype_error(rule, name, r, o))
    return fast_path(fn, _with_signature(op, fn), ("out",))


def factory(fn, name):
    """``fn`` with ``out=``: the result takes out's dtype unless ``dtype`` is given."""
    @functools.wraps(fn)
    def make(*args, out=None, **kwargs):
        if out is None:
            return fn(*args, **kwargs)
        if kwargs.get("dtype") is None:
            kwargs["dtype"] = out.dtype
        return call(name, fn, args, kwargs, out)
    return fast_path(fn, _with_signature(make, fn), ("out",))


def wrap(namespace):
    """Gives ``out=`` to the functions of ``namespace`` (gradtrack's) that take it in torch."""
    for name, (error_name, strict) in COMPOSED.items():
        namespace[name] = accepts_out(error_name, strict)(namespace[name])
    for name in UNARY + BINARY:
        if name in namespace:
            namespace[name] = elementwise(namespace[name], name)
    for name in FACTORIES:
        if name in namespace:
            namespace[name] = factory(namespace[name], name)
    for name in RULES:
        if name in namespace and "out" not in _names(namespace[name]):
            namespace[name] = with_rule(namespace[name], name)
    for name in ("max", "min"):
        namespace[name] = extreme(namespace[name], name)


def _names(fn):
    if "out" in getattr(fn, "_gt_triggers", ()):
        return {"out"}
    return param_names(fn)
