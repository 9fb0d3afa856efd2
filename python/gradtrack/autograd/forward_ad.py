"""Forward-mode automatic differentiation: tensors that carry a tangent.

Inside a :class:`dual_level`, :func:`make_dual` gives a tensor a tangent;
every op then computes its output's tangent (its jvp) as it runs, and
:func:`unpack_dual` reads it back. Supported: every op of the op table
(elementwise, matmul, reductions, views, indexing, scans and sorts,
activations, norms, convolution, pooling), the losses, in-place ops (the
tangent is updated in place, as PyTorch's) and custom Functions that define
``jvp``; an op without a formula raises PyTorch's NotImplementedError rather
than dropping a tangent.

>>> import gradtrack
>>> import gradtrack.autograd.forward_ad as fwAD
>>> x = gradtrack.tensor([0.0, 1.0])
>>> with fwAD.dual_level():
...     y = fwAD.make_dual(x, gradtrack.ones(2)).exp()
...     fwAD.unpack_dual(y).tangent
tensor([1.0000, 2.7183])
"""

from typing import NamedTuple, Optional

from .. import _C

__all__ = ["UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual",
           "dual_level"]

_fw = _C._forward_ad
_Tensor = _C.Tensor

_current_level = -1


def enter_dual_level():
    """Enters a new forward grad level (one at a time, as PyTorch) and returns it.

    >>> import gradtrack
    >>> import gradtrack.autograd.forward_ad as fwAD
    >>> level = fwAD.enter_dual_level()
    >>> d = fwAD.make_dual(gradtrack.tensor([2.0]), gradtrack.tensor([1.0]))
    >>> fwAD.unpack_dual(d ** 2).tangent
    tensor([4.])
    >>> fwAD.exit_dual_level()
    """
    global _current_level
    new_level = _fw.enter_dual_level()
    if new_level != _current_level + 1:
        raise RuntimeError("Entering a new forward AD level but the current level is not valid. "
                           "Make sure you did not modify it directly.")
    _current_level = new_level
    return new_level


def exit_dual_level(*, level=None):
    """Exits the level: every tangent made in it is dropped.

    >>> import gradtrack
    >>> import gradtrack.autograd.forward_ad as fwAD
    >>> level = fwAD.enter_dual_level()
    >>> d = fwAD.make_dual(gradtrack.tensor([2.0]), gradtrack.tensor([1.0]))
    >>> fwAD.exit_dual_level()
    >>> fwAD.unpack_dual(d).tangent is None
    True
    """
    global _current_level
    if level is None:
        level = _current_level
    if level != _current_level:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that was "
                           "created. This is not supported.")
    _fw.exit_dual_level(level)
    _current_level = level - 1


def make_dual(tensor, tangent, *, level=None):
    """A new tensor aliasing ``tensor`` (a view of it) that carries ``tangent``.

    >>> import gradtrack
    >>> import gradtrack.autograd.forward_ad as fwAD
    >>> with fwAD.dual_level():
    ...     d = fwAD.make_dual(gradtrack.ones(2), gradtrack.tensor([1.0, 2.0]))
    ...     fwAD.unpack_dual(d * 3).tangent
    tensor([3., 6.])
    """
    if level is None:
        level = _current_level
    if level < 0:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, "
                           "make sure to enter_dual_level() first.")
    if not (tensor.is_floating_point() or tensor.is_complex()):
        raise ValueError(f"Expected primal to be floating point or complex, but got: "
                         f"{tensor.dtype}")
    if not (tangent.is_floating_point() or tangent.is_complex()):
        raise ValueError(f"Expected tangent to be floating point or complex, but got: "
                         f"{tangent.dtype}")
    return _fw.make_dual(tensor, tangent, level)


class UnpackedDualTensor(NamedTuple):
    """What :func:`unpack_dual` returns: ``(primal, tangent)``.

    >>> import gradtrack
    >>> import gradtrack.autograd.forward_ad as fwAD
    >>> fwAD.unpack_dual(gradtrack.ones(1))
    UnpackedDualTensor(primal=tensor([1.]), tangent=None)
    """

    primal: _Tensor
    tangent: Optional[_Tensor]


def unpack_dual(tensor, *, level=None):
    """``(primal, tangent)`` of ``tensor``: the primal is a view without the
    tangent; the tangent is None where the tensor has none.

    >>> import gradtrack
    >>> import gradtrack.autograd.forward_ad as fwAD
    >>> with fwAD.dual_level():
    ...     d = fwAD.make_dual(gradtrack.tensor([1.0, 2.0]), gradtrack.tensor([1.0, 0.0]))
    ...     primal, tangent = fwAD.unpack_dual(d.sin())
    >>> primal, tangent
    (tensor([0.8415, 0.9093]), tensor([0.5403, -0.0000]))
    """
    if level is None:
        level = _current_level
    if level < 0:
        return UnpackedDualTensor(tensor, None)
    primal, tangent = _fw.unpack_dual(tensor)
    return UnpackedDualTensor(primal, tangent)


class dual_level:
    """Context manager (and decorator) for a forward AD level.

    >>> import gradtrack
    >>> import gradtrack.autograd.forward_ad as fwAD
    >>> with fwAD.dual_level():
    ...     d = fwAD.make_dual(gradtrack.ones(1), gradtrack.ones(1))
    >>> fwAD.unpack_dual(d).tangent is None
    True
    """

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, exc_type, exc_value, traceback):
        exit_dual_level()

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with dual_level():
                return fn(*args, **kwargs)

        return wrapper
