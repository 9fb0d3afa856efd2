"""``scatter``/``scatter_`` with torch's older ``reduce=`` argument (``"add"`` or
``"multiply"``), computed by ``scatter_reduce_`` (``"sum"``/``"prod"``, self included).

NOTE [scatter with reduce]
torch 2.13 still computes these, in its order: the in-place rules (a leaf that requires
grad is refused), then, for a tensor ``src`` only, one deprecation warning a process
(shared by ``scatter``, ``scatter_`` and ``torch.scatter``), then the checks of dim,
index and src, then the reduce string ("reduce argument must be either add or
multiply."), then the index bounds, then the conversion of a number ``value`` to
self's dtype (``fill_``'s rules, except that a finite value beyond the range of
float16/bfloat16 overflows, and a complex one with an imaginary part overflows all but
bool). Every dtype is accepted (bool: or / and). torch has no derivative for either
form: a result that requires grad has a ``NotImplemented`` node whose backward raises
"derivative for aten::scatter is not implemented" (``aten::scatter_`` in place). The
in-place form bumps the version once.

>>> import gradtrack
>>> gradtrack.ones(3).scatter_(0, gradtrack.tensor([0, 2, 0]), 2.0, reduce="multiply")
tensor([4., 1., 2.])
"""

import numbers
import warnings

from .. import _C
from .._dtype_names import dtype_key
from .._dtypes import finfo
from ..autograd._named_nodes import named_node, not_implemented_node
from ..autograd.function import Function
from ..autograd.grad_mode import no_grad

_Tensor = _C.Tensor
_REDUCTIONS = {"add": "sum", "multiply": "prod"}
_WARNED = []
_INDEX_REDUCE_WARNED = []
# The type names of torch's "value cannot be converted" error.
_CONVERTED = {"bool": "bool", "uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t",
              "int32": "int", "int64": "int64_t", "float16": "c10::Half",
              "bfloat16": "c10::BFloat16", "float32": "float", "float64": "double"}
_METHOD_FORMS = ("(int dim, Tensor index, Tensor src)",
                 "(int dim, Tensor index, Tensor src, *, str reduce)",
                 "(int dim, Tensor index, Number value)",
                 "(int dim, Tensor index, Number value, *, str reduce)")
_FUNCTION_FORMS = ("(Tensor input, int dim, Tensor index, Tensor src, *, Tensor out = None)",
                   "(Tensor input, int dim, Tensor index, Tensor src, *, str reduce, Tensor out "
                   "= None)",
                   "(Tensor input, int dim, Tensor index, Number value, *, Tensor out = None)",
                   "(Tensor input, int dim, Tensor index, Number value, *, str reduce, Tensor "
                   "out = None)")


def _label(value):
    return "Tensor" if isinstance(value, _Tensor) else type(value).__name__


def _is_number(value):
    return isinstance(value, numbers.Number) or (isinstance(value, _Tensor) and value.dim() == 0)


def _refuse(name, forms, leading, dim, index, src, value, reduce):
    """torch's parser: a str ``reduce`` with one of a tensor ``src`` or a number."""
    number = value if src is None else src
    if (isinstance(reduce, str) and all(isinstance(a, _Tensor) for a in leading)
            and isinstance(dim, numbers.Integral)
            and isinstance(index, _Tensor) and (src is None or value is None)
            and (isinstance(src, _Tensor) or _is_number(number))):
        return
    keywords = {"reduce": reduce} if value is None else {"reduce": reduce, "value": value}
    given = [*(_label(a) for a in (*leading, dim, index)),
             *([] if src is None else [_label(src)]),
             *(f"{k}={_label(v)}" for k, v in sorted(keywords.items()))]
    raise TypeError(f"{name}() received an invalid combination of arguments - got "
                    f"({', '.join(given)}), but expected one of:\n"
                    + "".join(f" * {form}\n" for form in forms))


def check_arguments(dim, index, src, value, reduce):
    """The arguments of ``Tensor.scatter_`` with ``reduce``, checked as torch's parser
    checks them (before the in-place rules)."""
    _refuse("scatter_", _METHOD_FORMS, (), dim, index, src, value, reduce)


def _warn_once(stacklevel):
    if not _WARNED:  # torch warns once per process
        _WARNED.append(True)
        warnings.warn("The reduce argument of torch.scatter with Tensor src is deprecated and "
                      "will be removed in a future PyTorch release. Use torch.scatter_reduce "
                      "instead for more reduction options.", UserWarning, stacklevel=stacklevel)


def warn_index_reduce_once():
    """torch's beta warning of ``index_reduce``: once per process, after the op ran,
    attributed to the first caller outside gradtrack (as torch's C++ warnings are)."""
    if not _INDEX_REDUCE_WARNED:
        _INDEX_REDUCE_WARNED.append(True)
        from .._out import _caller_level
        warnings.warn("index_reduce() is in beta and the API may change at any time.",
                      UserWarning, stacklevel=_caller_level())


def warn_uint8_mask(mask):
    """torch's deprecation warning for a uint8 ``masked_scatter`` mask, at every call
    (the op then refuses the mask, as torch's does)."""
    if getattr(mask, "dtype", None) == _C.uint8:
        from .._out import _caller_level
        warnings.warn("masked_scatter_ received a mask with dtype torch.uint8, this behavior is "
                      "now deprecated,please use a mask with dtype torch.bool instead.",
                      UserWarning, stacklevel=_caller_level())


def _value_source(self, dim, index, value):
    """``value`` as a tensor of ``index``'s shape and ``self``'s dtype (NOTE [scatter with
    reduce]); a value that does not convert raises after the index is checked."""
    if isinstance(value, _Tensor):
        value = value.item()
    dtype = self.dtype
    key = dtype_key(dtype)
    try:
        if isinstance(value, complex) and dtype is not _C.bool:
            if value.imag != 0:
                raise RuntimeError(f"value cannot be converted to type {_CONVERTED[key]} without "
                                   "overflow")
            value = value.real
        if dtype in (_C.float16, _C.bfloat16) and abs(float(value)) != float("inf"):
            if abs(float(value)) > finfo(dtype).max:
                raise RuntimeError(f"value cannot be converted to type {_CONVERTED[key]} without "
                                   "overflow")
        return _C.empty(list(index.shape), dtype=dtype).fill_(value)
    except RuntimeError:
        # torch converts the value in the kernel, after checking the index
        _C._ops.scatter_reduce(self, dim, index, _C.zeros(list(index.shape), dtype=dtype),
                               "sum", True)
        raise


def _source(self, dim, index, src, value, reduce):
    """The tensor to reduce into ``self``, after torch's checks up to the reduce string."""
    if reduce not in _REDUCTIONS:
        # torch checks dim, index and src before the string: the same checks, on a copy,
        # with an index of zeros (of the index's dtype) that passes the bounds
        checked = src if isinstance(src, _Tensor) else _C.zeros(list(index.shape),
                                                                dtype=self.dtype)
        _C._ops.scatter_reduce(self, dim, _C._like("zeros", index, None, False, None), checked,
                               "sum", True)
        raise RuntimeError("reduce argument must be either add or multiply.")
    return src if isinstance(src, _Tensor) else _value_source(self, dim, index,
                                                              value if src is None else src)


class _ScatterInPlace(Function):
    """``scatter_`` with reduce on a tensor that requires grad (or with a ``src`` that
    does): torch's NotImplemented node, with an edge to each of them that requires grad
    (``graded``) and none to the others, and the write's one version."""

    @staticmethod
    def forward(ctx, arguments, *graded):
        # the arguments come in a list: a tensor there is no input of the node
        self, dim, index, source, reduce = arguments
        # written through .data, whose counter is its own: marking self dirty is the
        # write's one version
        _C._inplace.scatter_reduce_(self.data, dim, index, source, _REDUCTIONS[reduce], True)
        ctx.mark_dirty(self)
        return self

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError("derivative for aten::scatter_ is not implemented")


named_node(_ScatterInPlace, "NotImplemented")
_ScatterInPlace._backward_cls.name = lambda self: "gradtrack::autograd::NotImplemented"


def scatter_in_place(self, dim, index, src, value, reduce):
    """``self.scatter_(dim, index, src or value, reduce=reduce)`` once the arguments and
    ``self`` are checked (NOTE [scatter with reduce])."""
    if isinstance(src, _Tensor):
        _warn_once(4)
    with no_grad():
        source = _source(self.detach(), dim, index, src, value, reduce)
    graded = [t for t in (self, source) if t.requires_grad]
    if _C.is_grad_enabled() and graded:
        return _ScatterInPlace.apply([self, dim, index, source, reduce], *graded)
    return _C._inplace.scatter_reduce_(self, dim, index, source, _REDUCTIONS[reduce], True)


def scatter(input, dim, index, src=None, *, value=None, reduce=None):  # noqa: A002
    """A copy of ``input`` with ``src`` (or ``value``) written at ``index`` along ``dim``;
    with ``reduce`` (``"add"`` or ``"multiply"``) combined with what is there.

    >>> import gradtrack
    >>> gradtrack.scatter(gradtrack.ones(3), 0, gradtrack.tensor([0, 2, 0]), 2.0, reduce="add")
    tensor([5., 1., 3.])
    """
    if reduce is None:
        return _C.scatter(input, dim, index, src, value=value)
    _refuse("scatter", _FUNCTION_FORMS, (input,), dim, index, src, value, reduce)
    if isinstance(src, _Tensor):
        _warn_once(4)  # the caller, past _out.py's out= wrapper
    with no_grad():
        source = _source(input.detach(), dim, index, src, value, reduce)
        out = _C._ops.scatter_reduce(input.detach(), dim, index, source, _REDUCTIONS[reduce],
                                     True)
    return not_implemented_node("scatter", out, input, src)
