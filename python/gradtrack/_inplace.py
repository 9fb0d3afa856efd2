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
    ``dim``; returns ``self``."""
    if reduce is not None:
        raise NotImplementedError("gradtrack: scatter_ with reduce= is not implemented")
    v = value if src is None else src
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


def _methods():
    """Every in-place method and augmented assignment: {name: function}."""
    # The op list's variants first; the ones with arguments of their own
    # (alpha, rounding_mode) are then replaced by their functions below.
    methods = {name + "_": _binary(name) if operands else _unary(name)
               for name, (_, operands) in _OPS.items()}
    for fn in (add_, sub_, div_, true_divide_, clamp_, clamp_min_, clamp_max_, fill_, zero_,
               copy_, normal_, uniform_, masked_fill_, index_put_, scatter_, scatter_add_, t_,
               transpose_, unsqueeze_, squeeze_, pow_):
        methods[fn.__name__] = fn
    methods.update({
        "clip_": clamp_, "negative_": methods["neg_"], "absolute_": methods["abs_"],
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
    })
    return methods


# What this module gives Tensor (NOTE [One registry] in _registry.py).
METHODS = _methods()
