"""``Tensor.apply_``, ``map_`` and ``map2_``: a Python callable applied to each element
(with the matching elements of one or two other tensors), written back in place, as
torch's CPU tensors allow. Slow by nature (one Python call an element) and outside
autograd: a tensor that requires grad is refused, and, as in torch, the write does not
move the version counter.

>>> import gradtrack
>>> gradtrack.tensor([1.0, 2.0, 3.0]).apply_(lambda v: v * v)
tensor([1., 4., 9.])
"""

import numbers

from .. import _C
from .._dtype_names import dtype_key
from . import tensor_arg

_Tensor = _C.Tensor


def _refuse_grad(name, *tensors):
    if _C.is_grad_enabled() and any(t.requires_grad for t in tensors):
        raise RuntimeError(f"Can't call {name}() on Variable that requires grad. Use "
                           f"var.detach().{name}() instead.")


def _legacy(t):
    return f"gradtrack.{_C.Tensor.type(t).split('.')[-1]}"


def _broadcast_like(name, self, other, label):
    if other.dtype != self.dtype:
        quoted = f"'{label}'" if name == "map_" else f"argument '{label}'"
        raise TypeError(f"{name}: expected {_legacy(self)} for {quoted} (got {_legacy(other)})")
    return other.detach().expand(tuple(self.shape))


def _converter(t):
    """The Python value an element of ``t``'s dtype takes from a callable's result."""
    key = dtype_key(t.dtype)
    if key == "bool":
        return bool

    def number(value):
        if not isinstance(value, numbers.Real):
            raise TypeError(f"must be real number, not {type(value).__name__}")
        return float(value) if t.dtype.is_floating_point else int(value)
    return number


def _write(self, fn, *others):
    convert = _converter(self)
    columns = [self.detach().reshape(-1).tolist()]
    columns += [o.reshape(-1).tolist() for o in others]
    values = [convert(fn(*args)) for args in zip(*columns)]
    # through .data, whose version counter is its own: torch's write leaves _version as it is
    self.data.copy_(_C.tensor(values, dtype=self.dtype).reshape(tuple(self.shape)))
    return self


def apply_(self, callable):  # noqa: A002 - torch's name
    """Replaces each element ``v`` with ``callable(v)`` (CPU tensors; not for a tensor
    that requires grad); returns ``self``.

    >>> import gradtrack
    >>> gradtrack.tensor([1, 2, 3]).apply_(lambda v: v * 10)
    tensor([10, 20, 30])
    """
    _refuse_grad("apply_", self)
    return _write(self, callable)


def map_(self, other, callable):  # noqa: A002 - torch's name
    """Replaces each element ``v`` with ``callable(v, o)``, ``o`` the matching element of
    ``other`` (broadcast to ``self``'s shape, of ``self``'s dtype); returns ``self``.

    >>> import gradtrack
    >>> gradtrack.tensor([1.0, 2.0]).map_(gradtrack.tensor([10.0, 20.0]), lambda a, b: a + b)
    tensor([11., 22.])
    """
    _refuse_grad("map_", self, tensor_arg(other, "map_", "other", 1))
    return _write(self, callable, _broadcast_like("map_", self, other, "other"))


def map2_(self, x, y, callable):  # noqa: A002 - torch's name
    """Replaces each element ``v`` with ``callable(v, a, b)``, ``a`` and ``b`` the matching
    elements of ``x`` and ``y`` (broadcast, of ``self``'s dtype); returns ``self``.

    >>> import gradtrack
    >>> gradtrack.zeros(2).map2_(gradtrack.ones(2), gradtrack.full((2,), 3.0),
    ...                          lambda v, a, b: v + a * b)
    tensor([3., 3.])
    """
    _refuse_grad("map2_", self, tensor_arg(x, "map2_", "x", 1), tensor_arg(y, "map2_", "y", 2))
    return _write(self, callable, _broadcast_like("map2_", self, x, "x"),
                  _broadcast_like("map2_", self, y, "y"))


METHODS = {"apply_": apply_, "map_": map_, "map2_": map2_}
