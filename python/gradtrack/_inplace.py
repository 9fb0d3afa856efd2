"""The in-place choke point: every in-place tensor method passes through here.

NOTE [In-place rules]
Before any in-place write, PyTorch checks, in this order, and only when grad
mode is on and some operand requires grad (measured on torch 2.13):

1. a view made in a special way (under ``no_grad``, in inference mode, or as
   one output of ``split``/``chunk``/``unbind``) may not be written
   (the message lives in C++ because reading such a view's ``grad_fn`` can
   raise it too);
2. a view of a leaf that requires grad may not be written;
3. a leaf that requires grad may not be written;
4. the operands' histories are read (PyTorch collects the node's edges before
   its kernel runs), which raises for an operand that is a no-grad view whose
   base was modified since: that error comes before the kernel's own (overlap,
   shape, dtype).

A refused write changes nothing: the check runs before the C++ entry, which
itself validates shapes and dtypes before touching memory, and bumps the
version counter only after the kernel succeeded.
"""

from . import _C
from ._dtype_names import SCALAR_NAME, dtype_key
from ._ops import number
from ._ops.round_decimals import round_in_place
from ._ops import scatter_with_reduce

LEAF_ERROR = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_OF_LEAF_ERROR = ("a view of a leaf Variable that requires grad is being used in an "
                      "in-place operation.")

_Tensor = _C.Tensor
_grad_enabled = _C.is_grad_enabled
_OPS = _C._inplace.ops  # {name: (id, operands besides self)}: the op list


LEAF_NOTE = (
    "To change a parameter without recording the change, write it under "
    "`with gradtrack.no_grad():` or through `.detach()`, e.g. "
    "`w.detach().sub_(w.grad, alpha=lr)`. Do not write `p = p - lr * p.grad`: that makes p "
    "a new non-leaf tensor, so its .grad stays None and optimizers refuse it.")


def _leaf_error(message):
    error = RuntimeError(message)
    if _C._is_provenance_enabled():
        error.add_note(LEAF_NOTE) if hasattr(error, "add_note") else None
    return error


def check(self, *others):
    """Raises PyTorch's error if writing ``self`` in place is forbidden."""
    if not _grad_enabled():
        return
    if not self.requires_grad:
        for other in others:
            if isinstance(other, _Tensor) and other.requires_grad:
                break
        else:
            return
    if self._is_view():
        self._check_view_rebase()
        if self.requires_grad and self._base.is_leaf:
            raise _leaf_error(VIEW_OF_LEAF_ERROR)
    if self.requires_grad and self.is_leaf:
        raise _leaf_error(LEAF_ERROR)
    for other in others:
        if isinstance(other, _Tensor) and other.requires_grad and other._is_view():
            other.grad_fn  # noqa: B018 - reading it is the check


def _binary(name):
    op = _OPS[name][0]

    def method(self, other):
        check(self, other)
        return _C._inplace.binary_(op, self, other, 1, False, None)

    method.__name__ = name + "_"
    method.__doc__ = f"In-place :meth:`{name}`; returns ``self``."
    return method


def pow_(self, exponent):
    """In-place :meth:`pow` (torch names its argument ``exponent``); returns ``self``."""
    check(self, exponent)
    return _C._inplace.binary_(_OPS["pow"][0], self, exponent, 1, False, None)


def _unary(name):
    op = _OPS[name][0]

    def method(self):
        check(self)
        return _C._inplace.unary_(op, self)

    method.__name__ = name + "_"
    method.__doc__ = f"In-place :meth:`{name}`; returns ``self``."
    return method


def add_(self, other, *, alpha=1):
    """``self += alpha * other``; returns ``self``.

    >>> import gradtrack
    >>> x = gradtrack.zeros(2)
    >>> x.add_(1)._version
    1
    """
    check(self, other)
    return _C._inplace.binary_(_OPS["add"][0], self, other, alpha, False, None)


def sub_(self, other, *, alpha=1):
    """``self -= alpha * other``; the manual SGD step ``w.detach().sub_(w.grad, alpha=lr)``."""
    check(self, other)
    return _C._inplace.binary_(_OPS["sub"][0], self, other, alpha, False, None)


_UNSET = object()


def div_(self, other, *, rounding_mode=_UNSET):
    """``self /= other`` (``rounding_mode``: None, 'trunc' or 'floor'); returns ``self``.

    As in PyTorch, giving ``rounding_mode`` (None included) records DivBackward2,
    whose gradient is zero for 'trunc' and 'floor':

    >>> import gradtrack
    >>> x = gradtrack.tensor([3.0, 5.0], requires_grad=True)
    >>> y = (x * 1).div_(2.0, rounding_mode="floor")
    >>> y.grad_fn.name()
    'DivBackward2'
    >>> y.sum().backward()
    >>> x.grad
    tensor([0., 0.])
    """
    check(self, other)
    given = rounding_mode is not _UNSET
    return _C._inplace.binary_(_OPS["div"][0], self, other, 1, given, rounding_mode if given else None)


def true_divide_(self, other):
    """``self /= other`` (true division, DivBackward0); returns ``self``."""
    check(self, other)
    return _C._inplace.binary_(_OPS["div"][0], self, other, 1, False, None)


def clamp_min_(self, min):  # noqa: A002 - PyTorch's argument name
    """Clamps ``self`` from below in place (ClampMinBackward0, or 1 for a tensor bound)."""
    check(self, min)
    return _C._inplace.clamp_bound_(True, self, min)


def clamp_max_(self, max):  # noqa: A002 - PyTorch's argument name
    """Clamps ``self`` from above in place (ClampMaxBackward0, or 1 for a tensor bound)."""
    check(self, max)
    return _C._inplace.clamp_bound_(False, self, max)


def clamp_(self, min=None, max=None):  # noqa: A002 - PyTorch's argument names
    """Clamps ``self`` into ``[min, max]`` in place."""
    check(self)
    return _C._inplace.clamp_(self, min, max)


_COMPARISONS = ("eq", "ne", "lt", "le", "gt", "ge")  # ops::Cmp's order


def _compare(name):
    cmp = _COMPARISONS.index(name)

    def method(self, other):
        check(self, other)
        return _C._inplace.compare_(cmp, self, other, name + "_")

    method.__name__ = name + "_"
    method.__doc__ = _COMPARE_DOC.format(name=name, result=_COMPARE_EXAMPLE[name])
    return method


_COMPARE_DOC = """In-place :meth:`{name}`: writes the comparison into ``self`` as 1 or 0 (in
    self's dtype); returns ``self`` (its node's gradients are zeros, as torch's).

    >>> import gradtrack
    >>> gradtrack.tensor([1., 2., 3.]).{name}_(2)
    {result}
    """
_COMPARE_EXAMPLE = {"eq": "tensor([0., 1., 0.])", "ne": "tensor([1., 0., 1.])",
                    "lt": "tensor([1., 0., 0.])", "le": "tensor([1., 1., 0.])",
                    "gt": "tensor([0., 0., 1.])", "ge": "tensor([0., 1., 1.])"}


def addcmul_(self, tensor1, tensor2, *, value=1):
    """``self += value * tensor1 * tensor2``; returns ``self`` (AddcmulBackward0).

    >>> import gradtrack
    >>> gradtrack.ones(2).addcmul_(gradtrack.tensor([1., 2.]), gradtrack.tensor([3., 4.]))
    tensor([4., 9.])
    """
    value = number(value, "addcmul_", "value")
    check(self, tensor1, tensor2)
    return _C._inplace.addcmul_(self, tensor1, tensor2, value)


def addcdiv_(self, tensor1, tensor2, *, value=1):
    """``self += value * tensor1 / tensor2``; returns ``self`` (AddcdivBackward0).

    >>> import gradtrack
    >>> gradtrack.ones(2).addcdiv_(gradtrack.tensor([1., 2.]), gradtrack.tensor([4., 4.]))
    tensor([1.2500, 1.5000])
    """
    value = number(value, "addcdiv_", "value")
    check(self, tensor1, tensor2)
    return _C._inplace.addcdiv_(self, tensor1, tensor2, value)


def _beta_alpha_(name, self, a, b, beta, alpha):
    beta, alpha = number(beta, name, "beta"), number(alpha, name, "alpha")
    check(self, a, b)
    return getattr(_C._inplace, name)(self, a, b, beta, alpha)


def addmm_(self, mat1, mat2, *, beta=1, alpha=1):
    """``self = beta * self + alpha * (mat1 @ mat2)``; returns ``self``.

    >>> import gradtrack
    >>> gradtrack.ones(1, 1).addmm_(gradtrack.ones(1, 2), gradtrack.ones(2, 1), beta=2)
    tensor([[4.]])
    """
    return _beta_alpha_("addmm_", self, mat1, mat2, beta, alpha)


def baddbmm_(self, batch1, batch2, *, beta=1, alpha=1):
    """``self = beta * self + alpha * (batch1 @ batch2)``; returns ``self``.

    >>> import gradtrack
    >>> gradtrack.ones(1, 1, 1).baddbmm_(gradtrack.ones(1, 1, 2), gradtrack.ones(1, 2, 1))
    tensor([[[3.]]])
    """
    return _beta_alpha_("baddbmm_", self, batch1, batch2, beta, alpha)


def addbmm_(self, batch1, batch2, *, beta=1, alpha=1):
    """``self = beta * self + alpha * sum(batch1[i] @ batch2[i])``; returns ``self``.

    >>> import gradtrack
    >>> gradtrack.ones(1, 1).addbmm_(gradtrack.ones(3, 1, 2), gradtrack.ones(3, 2, 1))
    tensor([[7.]])
    """
    return _beta_alpha_("addbmm_", self, batch1, batch2, beta, alpha)


def addmv_(self, mat, vec, *, beta=1, alpha=1):
    """``self = beta * self + alpha * (mat @ vec)``; returns ``self``.

    >>> import gradtrack
    >>> gradtrack.ones(2).addmv_(gradtrack.ones(2, 3), gradtrack.ones(3), alpha=2)
    tensor([7., 7.])
    """
    return _beta_alpha_("addmv_", self, mat, vec, beta, alpha)


def addr_(self, vec1, vec2, *, beta=1, alpha=1):
    """``self = beta * self + alpha * outer(vec1, vec2)``; returns ``self``.

    >>> import gradtrack
    >>> gradtrack.zeros(2, 2).addr_(gradtrack.tensor([1., 2.]), gradtrack.tensor([3., 4.]))
    tensor([[3., 4.],
            [6., 8.]])
    """
    return _beta_alpha_("addr_", self, vec1, vec2, beta, alpha)


def lerp_(self, end, weight):
    """``self += weight * (end - self)``; returns ``self`` (LerpBackward0, or 1 with a tensor
    weight).

    >>> import gradtrack
    >>> gradtrack.zeros(2).lerp_(gradtrack.tensor([10., 20.]), 0.25)
    tensor([2.5000, 5.0000])
    """
    check(self, end, weight)
    return _C._inplace.lerp_(self, end, weight)


def nan_to_num_(self, nan=0.0, posinf=None, neginf=None):
    """Replaces NaN, +inf and -inf in ``self``; returns ``self`` (NanToNumBackward0).

    >>> import gradtrack
    >>> gradtrack.tensor([float('nan'), float('inf'), 1.]).nan_to_num_(posinf=5.)
    tensor([0., 5., 1.])
    """
    check(self)
    return _C._inplace.nan_to_num_(self, nan, posinf, neginf)


def cumsum_(self, dim, *, dtype=None):
    """The cumulative sum along ``dim``, written into ``self``; returns ``self``.

    >>> import gradtrack
    >>> gradtrack.tensor([1., 2., 3.]).cumsum_(0)
    tensor([1., 3., 6.])
    """
    check(self)
    return _C._inplace.scan_(self, dim, dtype, False)


def cumprod_(self, dim, *, dtype=None):
    """The cumulative product along ``dim``, written into ``self``; returns ``self``.

    >>> import gradtrack
    >>> gradtrack.tensor([1., 2., 3.]).cumprod_(0)
    tensor([1., 2., 6.])
    """
    check(self)
    return _C._inplace.scan_(self, dim, dtype, True)


def index_add_(self, dim, index, source, *, alpha=1):
    """Adds ``alpha * source`` into ``self`` at ``index`` along ``dim``; returns ``self``.

    >>> import gradtrack
    >>> gradtrack.zeros(3).index_add_(0, gradtrack.tensor([0, 2, 0]), gradtrack.ones(3))
    tensor([2., 0., 1.])
    """
    alpha = number(alpha, "index_add_", "alpha")
    check(self, source)
    return _C._inplace.index_add_(self, dim, index, source, alpha)


def scatter_reduce_(self, dim, index, src, reduce, *, include_self=True):
    """``scatter_reduce`` written into ``self``; returns ``self``.

    >>> import gradtrack
    >>> gradtrack.zeros(2).scatter_reduce_(0, gradtrack.tensor([1, 1]), gradtrack.ones(2), "sum")
    tensor([0., 2.])
    """
    check(self, src)
    return _C._inplace.scatter_reduce_(self, dim, index, src, reduce, include_self)


def index_reduce_(self, dim, index, source, reduce, *, include_self=True):
    """``index_reduce`` written into ``self``; returns ``self``.

    >>> import gradtrack
    >>> gradtrack.ones(2).index_reduce_(0, gradtrack.tensor([1, 1]),
    ...                                 gradtrack.tensor([2., 3.]), "prod")
    tensor([1., 6.])
    """
    check(self, source)
    result = _C._inplace.index_reduce_(self, dim, index, source, reduce, include_self)
    scatter_with_reduce.warn_index_reduce_once()
    return result


def renorm_(self, p, dim, maxnorm):
    """``renorm`` written into ``self``; returns ``self``.

    >>> import gradtrack
    >>> gradtrack.tensor([[3., 4.], [0.3, 0.4]]).renorm_(2, 0, 1.)
    tensor([[0.6000, 0.8000],
            [0.3000, 0.4000]])
    """
    check(self)
    return _C._inplace.renorm_(self, p, dim, maxnorm)


def index_copy_(self, dim, index, source):
    """Writes the slices of ``source`` at ``index`` along ``dim``; returns ``self``.

    >>> import gradtrack
    >>> gradtrack.zeros(3).index_copy_(0, gradtrack.tensor([2]), gradtrack.ones(1))
    tensor([0., 0., 1.])
    """
    check(self, source)
    return _C._inplace.index_copy_(self, dim, index, source)


def index_fill_(self, dim, index, value):
    """Writes ``value`` at ``index`` along ``dim``; returns ``self``.

    >>> import gradtrack
    >>> gradtrack.zeros(3).index_fill_(0, gradtrack.tensor([1]), 2.)
    tensor([0., 2., 0.])
    """
    if not isinstance(value, _Tensor):
        value = number(value, "index_fill_", "value")
    check(self, value)
    return _C._inplace.index_fill_(self, dim, index, value)


def put_(self, index, source, accumulate=False):
    """Writes (or adds) ``source`` at ``index`` of the flattened ``self``; returns ``self``.

    >>> import gradtrack
    >>> gradtrack.zeros(2, 2).put_(gradtrack.tensor([3]), gradtrack.ones(1))
    tensor([[0., 0.],
            [0., 1.]])
    """
    check(self, source)
    return _C._inplace.put_(self, index, source, accumulate)


def masked_scatter_(self, mask, source):
    """Writes the elements of ``source``, in order, where ``mask`` is True; returns ``self``.

    >>> import gradtrack
    >>> gradtrack.zeros(3).masked_scatter_(gradtrack.tensor([True, False, True]),
    ...                                    gradtrack.tensor([1., 2.]))
    tensor([1., 0., 2.])
    """
    check(self, source)
    scatter_with_reduce.warn_uint8_mask(mask)
    return _C._inplace.masked_scatter_(self, mask, source)


def fill_diagonal_(self, fill_value, wrap=False):
    """Fills the main diagonal of ``self`` (2-D, or every dim of one length) with
    ``fill_value``; with ``wrap``, a tall matrix's diagonal restarts every ``cols + 1``
    rows. A write through a strided view of ``self`` (CopySlices), as torch's.

    >>> import gradtrack
    >>> gradtrack.zeros(2, 3).fill_diagonal_(5.)
    tensor([[5., 0., 0.],
            [0., 5., 0.]])
    """
    shape = tuple(self.shape)
    if len(shape) < 2:
        raise RuntimeError("dimensions must larger than 1")
    if len(shape) > 2 and any(s != shape[0] for s in shape):
        raise RuntimeError("all dimensions of input must be of equal length")
    n = min(shape)
    step, offset = sum(self.stride()), self.storage_offset()
    self.as_strided((n,), (step,), offset).fill_(fill_value)
    if len(shape) == 2 and wrap and shape[0] > shape[1] + 1:
        # the rows below the square: every (cols + 1)-th element again, a second write as torch's
        rest = len(range(0, shape[0] * shape[1], shape[1] + 1)) - n
        self.as_strided((rest,), (step,), offset + (n + 1) * self.stride()[0]).fill_(fill_value)
    return self


def fill_(self, value):
    """Sets every element to ``value``; returns ``self``."""
    check(self, value)
    return _C._inplace.fill_(self, value)


def zero_(self):
    """Sets every element to zero; returns ``self``."""
    check(self)
    return _C._inplace.zero_(self)


def copy_(self, src, non_blocking=False):
    """Copies ``src`` (broadcast, converted to self's dtype) into ``self``."""
    if self.is_floating_point():  # an integer self can't require grad: nothing to refuse
        check(self, src)
    return _C._inplace.copy_(self, src)


def normal_(self, mean=0.0, std=1.0, *, generator=None):
    """Fills ``self`` with samples of N(mean, std^2)."""
    check(self)
    return _C._random.normal_(self, float(mean), float(std), generator)


def uniform_(self, *args, **kwargs):
    """Fills ``self`` with samples of U(from, to) (defaults 0 and 1)."""
    values = dict(zip(("from", "to"), args))
    generator = kwargs.pop("generator", None)
    values.update({k.rstrip("_"): v for k, v in kwargs.items()})
    check(self)
    return _C._random.uniform_(self, float(values.get("from", 0.0)), float(values.get("to", 1.0)),
                               generator)


def masked_fill_(self, mask, value):
    """Writes ``value`` where ``mask`` is True; returns ``self``."""
    check(self, value)
    return _C._inplace.masked_fill_(self, mask, value)


def index_put_(self, indices, values, accumulate=False):
    """``self[indices] = values`` (or ``+=`` with accumulate); returns ``self``."""
    check(self, values)
    return _C._inplace.index_put_(self, list(indices), values, accumulate)


def scatter_add_(self, dim, index, src):
    """Adds ``src`` into ``self`` at ``index`` along ``dim``; returns ``self``."""
    check(self, src)
    return _C._inplace.scatter_add_(self, dim, index, src)


def scatter_(self, dim, index, src=None, *, value=None, reduce=None):
    """Writes ``src`` (a tensor, or a number ``value``) into ``self`` at ``index`` along
    ``dim``, or with ``reduce`` (``"add"``/``"multiply"``) combines it with what is there
    (NOTE [scatter with reduce]); returns ``self``."""
    v = value if src is None else src
    if reduce is not None:
        scatter_with_reduce.check_arguments(dim, index, src, value, reduce)
        check(self, v)
        return scatter_with_reduce.scatter_in_place(self, dim, index, src, value, reduce)
    check(self, v)
    return _C._inplace.scatter_(self, dim, index, v)


def t_(self):
    """Transposes ``self`` in place (a metadata change, still a version bump)."""
    check(self)
    return _C._inplace.t_(self)


def transpose_(self, dim0, dim1):
    """Swaps two dims of ``self`` in place (a metadata change, still a version bump)."""
    check(self)
    return _C._inplace.transpose_(self, dim0, dim1)


def as_strided_(self, size, stride, storage_offset=None):
    """Gives ``self`` a new size, stride and offset over its storage, in place (a
    metadata change, still a version bump)."""
    check(self)
    return _C._inplace.as_strided_(self, size, stride, storage_offset)


def unsqueeze_(self, dim):
    """Inserts a dim of size one in place."""
    check(self)
    return _C._inplace.unsqueeze_(self, dim)


def squeeze_(self, dim=None):
    """Removes dims of size one in place."""
    check(self)
    return _C._inplace.squeeze_(self, dim)


_NOTHING, _COPY = 0, 1  # SetitemKind in csrc/python/common.h


def setitem(self, index, value):
    """``self[index] = value``: copy_, fill_ or index_put_ on a view of ``self``.

    The C++ side picks the write as PyTorch does (NOTE [setitem] in
    csrc/python/indexing.cpp); the in-place rules apply to its target. ``x[False]``
    writes nothing, and copy_ into an integer tensor is not checked (it can't
    require grad).

    >>> import gradtrack
    >>> x = gradtrack.zeros(2, 3)
    >>> x[0] = gradtrack.ones(1, 3)
    >>> x._version
    1
    """
    target, indices, value, kind = self._setitem_target(index, value)
    if kind == _NOTHING:
        return
    if kind != _COPY or target.is_floating_point():
        check(target, value)
    _C._inplace.setitem_(target, indices, value, kind)


def swapaxes_(self, axis0, axis1):
    """torch's other name of :meth:`transpose_` (``TransposeBackward1``).

    >>> import gradtrack
    >>> gradtrack.zeros(2, 3).swapaxes_(0, 1).shape
    gradtrack.Size([3, 2])
    """
    return transpose_(self, axis0, axis1)


def swapdims_(self, dim0, dim1):
    """torch's other name of :meth:`transpose_` (``TransposeBackward1``).

    >>> import gradtrack
    >>> gradtrack.zeros(2, 3).swapdims_(0, 1).shape
    gradtrack.Size([3, 2])
    """
    return transpose_(self, dim0, dim1)
def logit_(self, eps=None):
    """In-place :meth:`logit` (``eps`` clamps the input first); returns ``self``.

    >>> import gradtrack
    >>> gradtrack.tensor([0.25, 0.5]).logit_()
    tensor([-1.0986,  0.0000])
    """
    check(self)
    if eps is not None and (isinstance(eps, bool) or not isinstance(eps, (int, float))):
        raise TypeError(f"logit_(): argument 'eps' (position 1) must be float, not "
                        f"{type(eps).__name__}")
    return _C._inplace.logit_(self, None if eps is None else float(eps))


def mvlgamma_(self, p):
    """In-place :meth:`mvlgamma`; returns ``self``.

    >>> import gradtrack
    >>> gradtrack.tensor([2.5, 3.0]).mvlgamma_(2)
    tensor([0.8570, 1.5502])
    """
    check(self)
    if isinstance(p, bool) or not isinstance(p, int):
        raise TypeError(f"mvlgamma_(): argument 'p' (position 1) must be int, not "
                        f"{type(p).__name__}")
    return _C._inplace.mvlgamma_(self, p)


def float_power_(self, exponent):
    """In-place :meth:`float_power`: ``self`` must be float64; returns ``self``.

    >>> import gradtrack
    >>> gradtrack.tensor([2.0, 3.0], dtype=gradtrack.float64).float_power_(2)
    tensor([4., 9.], dtype=gradtrack.float64)
    """
    if self.dtype != _C.float64:
        raise RuntimeError(f"the base given to float_power_ has dtype {_dtype_name(self)} but "
                           f"the operation's result requires dtype Double")
    if isinstance(exponent, _Tensor):
        return pow_(self, exponent.to(_C.float64))
    return pow_(self, float(number(exponent, "float_power_", "exponent")))


def round_(self, *, decimals=_UNSET):
    """In-place :meth:`round` (``decimals``: to that many decimal places); returns
    ``self``.

    >>> import gradtrack
    >>> gradtrack.tensor([1.25, 2.5]).round_(decimals=1)
    tensor([1.2000, 2.5000])
    """
    check(self)
    if decimals is _UNSET:
        return _C._inplace.unary_(_OPS["round"][0], self)
    return round_in_place(self, decimals)


def heaviside_(self, values):
    """In-place :meth:`heaviside` (torch names its argument ``values``); returns ``self``.

    >>> import gradtrack
    >>> gradtrack.tensor([-1.5, 0.0, 2.0]).heaviside_(gradtrack.tensor([0.5]))
    tensor([0.0000, 0.5000, 1.0000])
    """
    if not isinstance(values, _Tensor):
        raise TypeError(f"heaviside_(): argument 'values' (position 1) must be Tensor, not "
                        f"{type(values).__name__}")
    check(self, values)
    return _C._inplace.binary_(_OPS["heaviside"][0], self, values, 1, False, None)


def _dtype_name(t):
    return SCALAR_NAME[dtype_key(t.dtype)]


def _methods():
    """Every in-place method and augmented assignment: {name: function}."""
    # The op list's variants first; the ones with arguments of their own
    # (alpha, rounding_mode) are then replaced by their functions below.
    methods = {name + "_": _binary(name) if operands else _unary(name)
               for name, (_, operands) in _OPS.items()}
    for fn in (add_, sub_, div_, true_divide_, clamp_, clamp_min_, clamp_max_, fill_, zero_,
               copy_, normal_, uniform_, masked_fill_, index_put_, scatter_, scatter_add_, t_,
               transpose_, as_strided_, unsqueeze_, squeeze_, pow_, addcmul_, addcdiv_, addmm_, baddbmm_,
               addbmm_, addmv_, addr_, lerp_, nan_to_num_, cumsum_, cumprod_, index_add_,
               index_copy_, index_fill_, put_, masked_scatter_, fill_diagonal_, scatter_reduce_,
               index_reduce_, renorm_, logit_, mvlgamma_, float_power_, heaviside_, round_):
        methods[fn.__name__] = fn
    methods.update({name + "_": _compare(name) for name in _COMPARISONS})
    methods.update({
        "greater_": methods["gt_"], "greater_equal_": methods["ge_"], "less_": methods["lt_"],
        "less_equal_": methods["le_"], "not_equal_": methods["ne_"],
        "arccos_": methods["acos_"], "arcsin_": methods["asin_"], "arctan_": methods["atan_"],
        "arccosh_": methods["acosh_"], "arcsinh_": methods["asinh_"],
        "arctanh_": methods["atanh_"], "arctan2_": methods["atan2_"],
        "clip_": clamp_, "negative_": methods["neg_"], "absolute_": methods["abs_"],
        "fix_": methods["trunc_"], "swapaxes_": swapaxes_, "swapdims_": swapdims_,
        "multiply_": methods["mul_"], "subtract_": sub_, "divide_": div_,
        "__setitem__": setitem,
        # augmented assignment: x += y is add_(x, y); the op list's methods are looked up
        # on the class at each call
        "__iadd__": lambda self, other: add_(self, other),
        "__isub__": lambda self, other: sub_(self, other),
        "__imul__": lambda self, other: _Tensor.mul_(self, other),
        "__itruediv__": lambda self, other: div_(self, other),
        "__ifloordiv__": lambda self, other: _Tensor.floor_divide_(self, other),
        "__imod__": lambda self, other: _Tensor.remainder_(self, other),
        "__ipow__": lambda self, other: _Tensor.pow_(self, other),
        "__iand__": lambda self, other: _Tensor.bitwise_and_(self, other),
        "__ior__": lambda self, other: _Tensor.bitwise_or_(self, other),
        "__ixor__": lambda self, other: _Tensor.bitwise_xor_(self, other),
        "__ilshift__": lambda self, other: _Tensor.bitwise_left_shift_(self, other),
        "__irshift__": lambda self, other: _Tensor.bitwise_right_shift_(self, other),
    })
    return methods


# NOTE [Writes torch does not record]
# torch has no derivative for the logical ops and bitwise_not, and its in-place forms
# skip autograd entirely: no leaf check, no node, the tensor keeps its grad_fn, and only
# the version counter sees the write. Here the result is computed, its shape checked
# against self's as torch's kernels check it, and copied in through a detached alias
# (which shares the version counter), so nothing is written when a check fails.

def _unrecorded_write(self, result, name):
    if tuple(result.shape) != tuple(self.shape):
        raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the broadcast "
                           f"shape {list(result.shape)}")
    self.detach().copy_(result)
    return self


def _logical_(name):
    op = getattr(_C, name)

    def method(self, other):
        if not isinstance(other, _Tensor):
            raise TypeError(f"{name}_(): argument 'other' (position 1) must be Tensor, not "
                            f"{type(other).__name__}")
        return _unrecorded_write(self, op(self.detach(), other.detach()), name)
    method.__name__ = method.__qualname__ = name + "_"
    method.__doc__ = f"""``{name}`` written into ``self`` (cast to its dtype), without a
    record in the graph, as torch's (NOTE [Writes torch does not record]).

    >>> import gradtrack
    >>> gradtrack.tensor([1.0, 0.0, 2.0]).{name}_(gradtrack.tensor([1.0, 1.0, 0.0]))._version
    1
    """
    return method


def _unary_unrecorded_(name):
    op = getattr(_C, name)

    def method(self):
        return _unrecorded_write(self, op(self.detach()), name)
    method.__name__ = method.__qualname__ = name + "_"
    method.__doc__ = f"""``{name}`` written into ``self`` (cast to its dtype), without a
    record in the graph, as torch's (NOTE [Writes torch does not record]).

    >>> import gradtrack
    >>> gradtrack.tensor([1, 0]).{name}_()._version
    1
    """
    return method


# What this module gives Tensor (NOTE [One registry] in _registry.py).
METHODS = {**_methods(),
           **{name + "_": _logical_(name) for name in ("logical_and", "logical_or",
                                                       "logical_xor")},
           "logical_not_": _unary_unrecorded_("logical_not"),
           "bitwise_not_": _unary_unrecorded_("bitwise_not")}
