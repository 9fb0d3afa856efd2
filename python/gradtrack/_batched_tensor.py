"""Batched values: what ``vmap``'s batched path hands the mapped function.

NOTE [vmap batching rules]
torch's vmap runs the function once on tensors that carry a batch dimension, every op
following a batching rule. gradtrack's ``vmap`` first tries the same: each mapped input
becomes a :class:`BatchedTensor`, a plain tensor (its "physical" value) whose first
dimension is the batch, seen by the function as one sample (its "logical" shape, the
physical one without that dimension). Its methods and operators, and the functions of
``nn.functional`` (and the layers) that have a rule, run one op on the physical value
for the whole batch: elementwise ops (with broadcasting: a batched operand gains size-1
dimensions after the batch so that both line up from the right), matmul and linear,
reductions over logical dimensions, softmax and the losses, views. Inside ``grad``
under such a vmap the differentiated tensors become batched leaves (an unbatched
parameter is expanded along the batch, a view with stride 0), so the gradient of the
summed per-sample outputs w.r.t. those leaves is exactly one gradient per sample, as
no rule mixes samples.

Anything without a rule raises :class:`NoRule` (a C++ function handed a batched value
raises TypeError; an unknown attribute, ``bool()``, indexing by tensors, an in-place
method: NoRule), as does a drawn random number, a mix of dtypes (0-dim operands promote
differently once they carry a batch dimension), or an unusual argument. ``vmap`` then
undoes the draw and runs the function once per sample instead (NOTE [vmap by looping
over the batch]), so results are exact either way; only what the function did besides
computing (printing, appending to a list) is seen twice. Two things the try cannot see
or avoid: a draw from a ``Generator`` passed explicitly (only the default generator is
watched; the batched call gives every sample the same numbers where the loop draws one
after the other), and the cost of a refused try, at most about one batched call plus
the core's TypeError, which spells out the call's tensors (a type check before the core
call avoids it where it matters: ``linear``, the convolutions, ``mse_loss``).

>>> import gradtrack
>>> from gradtrack._batched_tensor import BatchedTensor
>>> b = BatchedTensor(gradtrack.ones(4, 2, 3))
>>> b.shape, (b.sum(1) * 2).value.shape
(gradtrack.Size([2, 3]), gradtrack.Size([4, 2]))
"""

import operator
import threading

from . import _C

__all__ = ["BatchedTensor", "NoRule", "FUNCTION_RULES", "apply", "call", "batched_size", "active"]

_Tensor = _C.Tensor
_state = threading.local()
_NUMBERS = (int, float, bool, complex)

# The rules of functions (``nn.functional``): name -> rule, filled by gradtrack.func.
FUNCTION_RULES = {}


class NoRule(Exception):
    """An op without a batching rule met a batched value (NOTE [vmap batching rules])."""


def batched_size():
    """The batch size of the batched vmap running on this thread, None outside one."""
    return getattr(_state, "size", None)


class active:
    """Marks a batched vmap of ``size`` samples as running on this thread."""

    def __init__(self, size):
        self.size = size

    def __enter__(self):
        self.outer = batched_size()
        _state.size = self.size

    def __exit__(self, *exc):
        _state.size = self.outer


def apply(name, *args, **kwargs):
    """The rule ``name`` applied to the arguments (NoRule when there is none)."""
    rule = FUNCTION_RULES.get(name)
    if rule is None:
        raise NoRule(name)
    return rule(*args, **kwargs)


def call(name, *args, **kwargs):
    """The rule ``name`` applied to the arguments when one is batched; called from an
    ``except TypeError`` block, re-raises the error being handled when none is."""
    if not any(type(a) is BatchedTensor for a in args) and \
            not any(type(a) is BatchedTensor for a in kwargs.values()):
        raise  # noqa: PLE0704 - the TypeError being handled by the caller
    return apply(name, *args, **kwargs)


def _ndim(x):
    if type(x) is BatchedTensor:
        return x.value.dim() - 1
    return x.dim() if isinstance(x, _Tensor) else 0


def pdim(d, ndim):
    """The physical dimension of logical dimension ``d`` of a ``ndim``-dim sample."""
    if type(d) is not int:
        raise NoRule("dim")
    bound = max(ndim, 1)
    if not -bound <= d < bound:
        raise NoRule("dim")
    return d % bound + 1


def aligned(*operands):
    """The physical values of ``operands`` ready for one broadcasting op: batched ones
    with size-1 dimensions after the batch up to the largest logical rank; unbatched
    tensors and numbers as they are. Refuses a mix of tensor dtypes."""
    rank = 0
    dtype = None
    for x in operands:
        if isinstance(x, (BatchedTensor, _Tensor)):
            rank = max(rank, _ndim(x))
            if dtype is None:
                dtype = x.dtype
            elif x.dtype is not dtype:
                raise NoRule("dtypes")
        elif not isinstance(x, _NUMBERS):
            raise NoRule("operand")
    out = []
    for x in operands:
        if type(x) is BatchedTensor:
            v = x.value
            pad = rank - (v.dim() - 1)
            if pad:
                v = v.reshape(v.shape[0], *([1] * pad), *v.shape[1:])
            out.append(v)
        else:
            out.append(x)
    return out


def binary(op, a, b):
    """``op`` of two operands, one of them batched, as one batched value."""
    pa, pb = aligned(a, b)
    return BatchedTensor(op(pa, pb))


def matmul(a, b):
    """The batching rule of ``a @ b`` (either or both batched)."""
    pa, pb = aligned(a, b)  # also refuses mixed dtypes; pads are redone below
    na, nb = _ndim(a), _ndim(b)
    if na == 0 or nb == 0:
        raise NoRule("matmul")
    pa = a.value if type(a) is BatchedTensor else a
    pb = b.value if type(b) is BatchedTensor else b
    # a vector operand becomes a one-row / one-column matrix, dropped from the result
    if na == 1:
        pa = pa.unsqueeze(-2)
    if nb == 1:
        pb = pb.unsqueeze(-1)
    ra, rb = max(na, 2), max(nb, 2)
    rank = max(ra, rb)
    if type(a) is BatchedTensor and ra < rank:
        pa = pa.reshape(pa.shape[0], *([1] * (rank - ra)), *pa.shape[1:])
    if type(b) is BatchedTensor and rb < rank:
        pb = pb.reshape(pb.shape[0], *([1] * (rank - rb)), *pb.shape[1:])
    out = pa.matmul(pb)
    if nb == 1:
        out = out.squeeze(-1)
    if na == 1:
        out = out.squeeze(-1 if nb == 1 else -2)
    return BatchedTensor(out)


def _reduce(x, name, dim, keepdim, **kw):
    v = x.value
    k = v.dim() - 1
    if dim is None:
        dims = tuple(range(1, k + 1))
    elif type(dim) is int:
        dims = (pdim(dim, k),)
    elif isinstance(dim, (tuple, list)) and dim:
        dims = tuple(pdim(d, k) for d in dim)
        if len(set(dims)) != len(dims):
            raise NoRule("dim")
    else:
        raise NoRule("dim")
    if k == 0:  # a sample's scalar: reducing it keeps its value
        if not v.is_floating_point() or kw:
            raise NoRule(name)
        return BatchedTensor(v.clone())
    return BatchedTensor(getattr(v, name)(dim=dims, keepdim=keepdim, **kw))


def _unary(name):
    def rule(self):
        return BatchedTensor(getattr(self.value, name)())
    rule.__name__ = name
    return rule


def _method(name):
    def rule(self, other):
        return binary(lambda a, b: getattr(a, name)(b), self, other)
    rule.__name__ = name
    return rule


def _operator(op, reflected=False):
    if reflected:
        def rule(self, other):
            return binary(op, other, self)
    else:
        def rule(self, other):
            return binary(op, self, other)
    return rule


def _shape_args(shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    if not all(type(s) is int for s in shape):
        raise NoRule("shape")
    return shape


def _refuse(self, *args, **kwargs):
    raise NoRule("refused")


_UNARY = ("neg", "abs", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt",
          "square", "sin", "cos", "tan", "tanh", "sinh", "cosh", "asin", "acos", "atan",
          "sigmoid", "relu", "reciprocal", "sign", "erf", "floor", "ceil", "trunc", "frac",
          "contiguous", "clone", "detach", "float", "double", "logical_not")
_METHODS = ("add", "sub", "mul", "div", "pow", "maximum", "minimum", "atan2", "eq", "ne", "lt",
            "le", "gt", "ge", "logical_and", "logical_or")
_OPERATORS = {"add": operator.add, "sub": operator.sub, "mul": operator.mul,
              "truediv": operator.truediv, "pow": operator.pow, "and": operator.and_,
              "or": operator.or_}
_COMPARISONS = {"eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "le": operator.le,
                "gt": operator.gt, "ge": operator.ge}


class BatchedTensor:
    """A tensor whose first dimension is a batch that the code running on it does not
    see: shapes, dims and ops are those of one sample (NOTE [vmap batching rules]).

    >>> import gradtrack
    >>> from gradtrack._batched_tensor import BatchedTensor
    >>> BatchedTensor(gradtrack.arange(6.0).view(3, 2)).sum().value
    tensor([1., 5., 9.])
    """

    # ``bdim``: where the caller's tensor had the batch (a custom Function's vmap rule
    # receives it there)
    __slots__ = ("value", "bdim")
    __hash__ = object.__hash__

    def __init__(self, value, bdim=0):
        self.value = value
        self.bdim = bdim

    def __repr__(self):
        # short: pybind11 puts the repr of every argument in the TypeError of a core
        # function handed a batched value, the signal for a rule
        return f"BatchedTensor(shape={list(self.value.shape[1:])}, batch={self.value.shape[0]})"

    def __getattr__(self, name):
        raise NoRule(name)

    __bool__ = __len__ = __iter__ = __float__ = __int__ = __index__ = __array__ = _refuse
    __setitem__ = __contains__ = _refuse

    # ---- what a sample looks like ----------------------------------------------------------

    @property
    def shape(self):
        return self.value.shape[1:]

    def size(self, dim=None):
        if dim is None:
            return self.value.shape[1:]
        return self.value.shape[pdim(dim, self.value.dim() - 1)]

    def dim(self):
        return self.value.dim() - 1

    ndim = property(dim)

    def numel(self):
        n = 1
        for s in self.value.shape[1:]:
            n *= s
        return n

    @property
    def dtype(self):
        return self.value.dtype

    @property
    def device(self):
        return self.value.device

    @property
    def requires_grad(self):
        return self.value.requires_grad

    def is_floating_point(self):
        return self.value.is_floating_point()

    def is_complex(self):
        return self.value.is_complex()

    # ---- elementwise (the unary and binary methods and operators: set below) ----------

    def clamp(self, min=None, max=None):  # noqa: A002 - torch's argument names
        if not (min is None or isinstance(min, _NUMBERS)) or \
                not (max is None or isinstance(max, _NUMBERS)):
            raise NoRule("clamp")
        return BatchedTensor(self.value.clamp(min, max))

    def to(self, *args, **kwargs):
        dtype = kwargs.pop("dtype", args[0] if len(args) == 1 else None)
        if kwargs or len(args) > 1 or not isinstance(dtype, type(self.value.dtype)):
            raise NoRule("to")
        return BatchedTensor(self.value.to(dtype))

    # ---- matrix products -------------------------------------------------------------------

    def matmul(self, other):
        return matmul(self, other)

    __matmul__ = matmul

    def __rmatmul__(self, other):
        return matmul(other, self)

    def mm(self, other):
        if self.dim() != 2 or _ndim(other) != 2:
            raise NoRule("mm")
        return matmul(self, other)

    def mv(self, other):
        if self.dim() != 2 or _ndim(other) != 1:
            raise NoRule("mv")
        return matmul(self, other)

    def dot(self, other):
        if self.dim() != 1 or _ndim(other) != 1:
            raise NoRule("dot")
        return matmul(self, other)

    def bmm(self, other):
        if self.dim() != 3 or _ndim(other) != 3:
            raise NoRule("bmm")
        return matmul(self, other)

    # ---- reductions ------------------------------------------------------------------------

    def sum(self, dim=None, keepdim=False, *, dtype=None):
        if dtype is not None:
            return _reduce(self, "sum", dim, keepdim, dtype=dtype)
        return _reduce(self, "sum", dim, keepdim)

    def mean(self, dim=None, keepdim=False):
        if not self.value.is_floating_point():
            raise NoRule("mean")
        return _reduce(self, "mean", dim, keepdim)

    def amax(self, dim=(), keepdim=False):
        return _reduce(self, "amax", None if dim == () else dim, keepdim)

    def amin(self, dim=(), keepdim=False):
        return _reduce(self, "amin", None if dim == () else dim, keepdim)

    def max(self, *args, **kwargs):  # noqa: A003
        if args or kwargs:  # (values, indices) over a dim, or the elementwise maximum
            raise NoRule("max")
        return _reduce(self, "amax", None, False)

    def min(self, *args, **kwargs):  # noqa: A003
        if args or kwargs:
            raise NoRule("min")
        return _reduce(self, "amin", None, False)

    def softmax(self, dim):
        return BatchedTensor(self.value.softmax(pdim(dim, self.dim())))

    def log_softmax(self, dim):
        return BatchedTensor(self.value.log_softmax(pdim(dim, self.dim())))

    # ---- views -------------------------------------------------------------------------

    def view(self, *shape):
        return BatchedTensor(self.value.view(self.value.shape[0], *_shape_args(shape)))

    def reshape(self, *shape):
        return BatchedTensor(self.value.reshape(self.value.shape[0], *_shape_args(shape)))

    def unsqueeze(self, dim):
        if type(dim) is not int or not -self.dim() - 1 <= dim <= self.dim():
            raise NoRule("unsqueeze")
        return BatchedTensor(self.value.unsqueeze(dim % (self.dim() + 1) + 1))

    def squeeze(self, dim=None):
        k = self.dim()
        if dim is None:
            dims = [d + 1 for d in range(k) if self.value.shape[d + 1] == 1]
        elif type(dim) is int:
            dims = [pdim(dim, k)] if k else []
        else:
            raise NoRule("squeeze")
        v = self.value
        for d in sorted(dims, reverse=True):
            if v.shape[d] == 1:
                v = v.squeeze(d)
        return BatchedTensor(v if v is not self.value else v.view_as(v))

    def flatten(self, start_dim=0, end_dim=-1):
        k = self.dim()
        if k == 0:
            return BatchedTensor(self.value.reshape(self.value.shape[0], 1))
        return BatchedTensor(self.value.flatten(pdim(start_dim, k), pdim(end_dim, k)))

    def transpose(self, dim0, dim1):
        k = self.dim()
        return BatchedTensor(self.value.transpose(pdim(dim0, k), pdim(dim1, k)))

    swapaxes = transpose

    def t(self):
        k = self.dim()
        if k > 2:
            raise NoRule("t")
        return BatchedTensor(self.value.transpose(1, 2) if k == 2 else self.value.view_as(
            self.value))

    @property
    def T(self):  # noqa: N802 - torch's name
        if self.dim() != 2:
            raise NoRule("T")
        return self.t()

    @property
    def mT(self):  # noqa: N802
        if self.dim() < 2:
            raise NoRule("mT")
        return BatchedTensor(self.value.transpose(-2, -1))

    def permute(self, *dims):
        dims = _shape_args(dims)
        if len(dims) != self.dim():
            raise NoRule("permute")
        return BatchedTensor(self.value.permute(0, *(pdim(d, self.dim()) for d in dims)))

    def __getitem__(self, index):
        index = index if isinstance(index, tuple) else (index,)
        if not all(type(i) is int or i is None or i is Ellipsis or isinstance(i, slice)
                   for i in index):
            raise NoRule("index")
        return BatchedTensor(self.value[(slice(None),) + index])


def _install_elementwise():
    for name in _UNARY:
        setattr(BatchedTensor, name, _unary(name))
    for name in _METHODS:
        setattr(BatchedTensor, name, _method(name))
    for name, op in _OPERATORS.items():
        setattr(BatchedTensor, f"__{name}__", _operator(op))
        setattr(BatchedTensor, f"__r{name}__", _operator(op, reflected=True))
    for name, op in _COMPARISONS.items():
        setattr(BatchedTensor, f"__{name}__", _operator(op))
    BatchedTensor.__neg__ = _unary("neg")
    BatchedTensor.__abs__ = _unary("abs")


_install_elementwise()
