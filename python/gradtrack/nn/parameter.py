"""``nn.Parameter``: a tensor that a :class:`~gradtrack.nn.Module` registers as trainable."""

from .. import _C

_Tensor = _C.Tensor
_FACTORY_FLOAT_ERROR = "Only Tensors of floating point and complex dtype can require gradients"


class Parameter(_Tensor):
    """A leaf tensor that requires grad and aliases ``data``.

    The parameter shares ``data``'s storage *and* version counter (like
    ``data.detach()``), so ``Parameter(t)`` followed by ``t.add_(1)`` is seen
    by both. Assigning one to a module attribute registers it.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> p = nn.Parameter(gradtrack.ones(2))
    >>> p
    Parameter containing:
    tensor([1., 1.], requires_grad=True)
    >>> p.is_leaf, p._version
    (True, 0)
    """

    def __init__(self, data=None, requires_grad=True):
        if data is None:
            data = _C.empty(0)
        elif not isinstance(data, _Tensor):
            # PyTorch fails on the detach() it calls first; same exception, same words.
            raise AttributeError(f"'{type(data).__name__}' object has no attribute 'detach'")
        if requires_grad and not data.dtype.is_floating_point:
            raise RuntimeError(_FACTORY_FLOAT_ERROR)
        _Tensor.__init__(self, data)
        if requires_grad:
            _C._set_requires_grad(self, True)

    def __repr__(self):
        return "Parameter containing:\n" + _Tensor.__repr__(self)

    __str__ = __repr__

    def __deepcopy__(self, memo):
        # As in PyTorch: a fresh copy of the values, no grad, version 0.
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.data.clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, protocol):
        return (_rebuild_parameter, (self.detach().numpy().copy(), self.requires_grad))


def _rebuild_parameter(array, requires_grad):
    return Parameter(_C.tensor(array), requires_grad)
