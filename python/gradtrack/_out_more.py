"""``out=`` on the elementwise functions and the factories that take it in
torch (NOTE [out= rules] in _out.py): elementwise ops refuse a result dtype
that cannot be cast to ``out``'s; a factory called with ``out=`` and no
``dtype`` makes ``out``'s dtype, as torch's.
"""

import functools

from . import _C, _out
from ._dtype_names import CPP_NAME, SCALAR_NAME, dtype_key
from ._declarations import pointwise_ops
from ._factories import insert_keywords, param_names, parameters

# The op list's functions that take out= (NOTE [One declaration per op]), and
# true_divide, div's alias.
_LIST = [op for op in pointwise_ops() if op.out]
UNARY = tuple(op.name for op in _LIST if op.arity == 1)
BINARY = tuple(op.name for op in _LIST if op.arity == 2) + ("true_divide",)
FACTORIES = ("arange", "linspace", "eye", "full", "randperm", "randint")
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


def _with_signature(wrapper, fn):
    return _out.lazy_signature(wrapper, lambda: insert_keywords(parameters(fn),
                                                                (("out", None),)))


def _dt(t):
    return SCALAR_NAME[dtype_key(t.dtype)]


def elementwise(fn, name):
    """``fn`` with ``out=`` (torch's elementwise dtype rules and grad refusal)."""
    error_name = ERROR_NAME.get(name, name)

    @functools.wraps(fn)
    def op(*args, out=None, **kwargs):
        if out is None:
            return fn(*args, **kwargs)
        _out.check_grad(error_name, (*args, *kwargs.values()), out, name not in NO_GRAD)
        with _out._no_grad():  # NOTE [out= written in place] in csrc/ops/common.h
            result, written = _C._inplace.into(out, fn, args, kwargs)
        if written:
            return out
        if name in EXACT and result.dtype != out.dtype:
            raise RuntimeError(f"Found dtype {_dt(out)} but expected {_dt(result)}")
        return _out.write(out, result, True)
    return _out.fast_path(fn, _with_signature(op, fn), ("out",))


def _key(t):
    return dtype_key(t.dtype)


def _dtype_error(rule, name, result, out):
    """torch's refusal of ``out``'s dtype for ``rule``, or None when it is accepted."""
    if out.dtype == result.dtype:
        return None
    if rule == "expect":
        return RuntimeError(f"Expected out tensor to have dtype {CPP_NAME[_key(result)]}, but got "
                            f"{CPP_NAME[_key(out)]} instead")
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
    if rule == "can_cast" and _out._KIND[_key(result)] > _out._KIND[_key(out)]:
        return RuntimeError("Expected canCast( typeMetaToScalarType(self.dtype()), "
                            "typeMetaToScalarType(out.dtype())) to be true, but got false.  (Could "
                            "this error message be improved?  If so, please report an enhancement "
                            "request to PyTorch.)")
    if _out._KIND[_key(result)] > _out._KIND[_key(out)]:
        if rule == "cat":
            return TypeError(f"torch.cat(): input types can't be cast to the desired output type "
                             f"{_dt(out)}")
        return RuntimeError(f"result type {_dt(result)} can't be cast to the desired output type "
                            f"{_dt(out)}")
    return None


def with_rule(fn, name):
    """``fn`` with ``out=`` under torch's dtype rule for ``name`` (RULES)."""
    error_name = ERROR_NAME.get(name, name)
    rule = RULES[name]

    @functools.wraps(fn)
    def op(*args, out=None, **kwargs):
        if out is None:
            return fn(*args, **kwargs)
        # check_grad looks into tensor lists (cat's) itself
        _out.check_grad(error_name, (*args, *kwargs.values()), out, name not in NO_GRAD)
        with _out._no_grad():
            result = fn(*args, **kwargs)
        return _out.write_result(error_name, out, result,
                                 refusal=lambda o, r: _dtype_error(rule, error_name, r, o))
    return _out.fast_path(fn, _with_signature(op, fn), ("out",))


def extreme(fn, name):
    """``max``/``min`` with ``out=``: a (values, indices) tuple along a dim, each
    of the result's dtype; elementwise against ``other``; cast freely from the
    all-element form unless the kind narrows (torch's canCast)."""
    @functools.wraps(fn)
    def op(*args, out=None, **kwargs):
        if out is None:
            return fn(*args, **kwargs)
        _out.check_grad(name, (*args, *kwargs.values()), out)
        with _out._no_grad():
            result = fn(*args, **kwargs)
        other = args[1] if len(args) > 1 else kwargs.get("other")
        if isinstance(other, _out._C.Tensor):  # elementwise: torch's strict cast
            return _out.write(out, result, True)
        rule = "expect" if isinstance(result, tuple) else "can_cast"
        return _out.write_result(name, out, result,
                                 refusal=lambda o, r: _dtype_error(rule, name, r, o))
    return _out.fast_path(fn, _with_signature(op, fn), ("out",))


def factory(fn, name):
    """``fn`` with ``out=``: the result takes out's dtype unless ``dtype`` is given."""
    @functools.wraps(fn)
    def make(*args, out=None, **kwargs):
        if out is None:
            return fn(*args, **kwargs)
        if kwargs.get("dtype") is None:
            kwargs["dtype"] = out.dtype
        return _out.call(name, fn, args, kwargs, out)
    return _out.fast_path(fn, _with_signature(make, fn), ("out",))


def install(namespace):
    """Wraps the functions of ``namespace`` (the gradtrack module's dict)."""
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
