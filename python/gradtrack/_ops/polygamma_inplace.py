"""``Tensor.polygamma_(n)``: the ``n``-th derivative of digamma written into ``self``,
recorded as torch records it (PolygammaBackward1, one version; differentiable twice).

>>> import gradtrack
>>> gradtrack.tensor([0.5, 2.0]).polygamma_(1)
tensor([4.9348, 0.6449])
"""

import numbers

from .. import _C
from .._dtype_names import SCALAR_NAME, dtype_key
from .._inplace import check
from ..autograd._named_nodes import named_node
from ..autograd.function import Function
from ..autograd.grad_mode import no_grad


class _PolygammaInPlace(Function):
    @staticmethod
    def forward(ctx, input, n, before):  # noqa: A002 - torch's name
        # `before`: input's value before the write, kept with its graph (a tuple, so no
        # edge) for the derivative polygamma(n + 1, before), itself differentiable
        ctx.n, ctx.before = n, before[0]
        # written through .data, whose counter is its own: marking input dirty is the
        # write's one version, as torch's kernel makes one
        input.data.copy_(_C.polygamma(n, before[0].detach()))
        ctx.mark_dirty(input)
        return input

    @staticmethod
    def backward(ctx, grad):
        return grad * _C.polygamma(ctx.n + 1, ctx.before), None, None


named_node(_PolygammaInPlace, "PolygammaBackward1")


def polygamma_(self, n):
    """In-place :func:`gradtrack.polygamma` of order ``n``; returns ``self``.

    >>> import gradtrack
    >>> gradtrack.tensor([1.0, 2.0], dtype=gradtrack.float64).polygamma_(0)
    tensor([-0.5772,  0.4228], dtype=gradtrack.float64)
    """
    if not isinstance(n, numbers.Integral) or isinstance(n, bool):
        raise TypeError(f"polygamma_(): argument 'n' (position 1) must be int, not "
                        f"{type(n).__name__}")
    check(self)
    value = _C.polygamma(int(n), self.detach())  # torch's errors for n and for self
    if value.dtype != self.dtype:
        raise RuntimeError(f"result type {SCALAR_NAME[dtype_key(value.dtype)]} can't be cast "
                           f"to the desired output type {SCALAR_NAME[dtype_key(self.dtype)]}")
    if _C.is_grad_enabled() and self.requires_grad:
        return _PolygammaInPlace.apply(self, int(n), (self.clone(),))
    with no_grad():
        return self.copy_(value)


METHODS = {"polygamma_": polygamma_}
