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


class Buffer(_Tensor):
    """Marks a tensor as a buffer: assigned to a module attribute, it is registered as one
    (``persistent=False`` keeps it out of ``state_dict``). ``Buffer(t)`` aliases ``t``
    (storage and version counter, as ``t.detach()``) and keeps ``t.requires_grad``.

    torch's ``Buffer(t)`` is a plain tensor carrying a mark; gradtrack's tensors carry no
    attributes, so here it is an instance of this subclass (``isinstance`` answers as
    torch's). A module keeps what was assigned.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> module = nn.Module()
    >>> module.scale = nn.Buffer(gradtrack.ones(2), persistent=False)
    >>> list(dict(module.named_buffers())), list(module.state_dict())
    (['scale'], [])
    """

    def __init__(self, data=None, *, persistent=True):
        if data is None:
            data = _C.empty(0)
        _Tensor.__init__(self, data)
        if data.requires_grad:
            _C._set_requires_grad(self, True)
        self.persistent = persistent
        self._is_buffer = True


_UNINITIALIZED_SHAPE_ERROR = (
    "Can't access the shape of an uninitialized parameter or buffer. This error usually "
    "happens in `load_state_dict` when trying to load an uninitialized parameter into an "
    "initialized one. Call `forward` to initialize the parameters before accessing their "
    "attributes.")


class UninitializedTensorMixin:
    """What uninitialized parameters and buffers share: no shape until ``materialize``.

    >>> from gradtrack import nn
    >>> p = nn.UninitializedParameter()
    >>> p.materialize((2, 3))
    >>> type(p).__name__, p.shape
    ('Parameter', gradtrack.Size([2, 3]))
    """

    def materialize(self, shape, device=None, dtype=None) -> None:
        """Gives the tensor ``shape`` (uninitialized memory) and turns it into the
        class it stands for: a :class:`Parameter` or a plain tensor.

        >>> from gradtrack import nn
        >>> b = nn.UninitializedBuffer()
        >>> b.materialize((4,))
        >>> type(b).__name__, b.shape
        ('Buffer', gradtrack.Size([4]))
        """
        if dtype is None:
            dtype = self.data.dtype
        self.data = _C.empty(tuple(shape), dtype=dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        """Raises: an uninitialized tensor has no shape yet."""
        raise RuntimeError(_UNINITIALIZED_SHAPE_ERROR)

    def share_memory_(self):
        """Raises: an uninitialized tensor has no memory to share yet."""
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer. Call `forward` to "
            "initialize the parameters before calling `module.share_memory()`.")

    def __repr__(self) -> str:
        return f"<{self.__class__.__name__}>"

    __str__ = __repr__

    def __reduce_ex__(self, proto):
        return (self.__class__, (self.requires_grad,))


def is_lazy(param) -> bool:
    """Whether ``param`` is an :class:`UninitializedParameter` or :class:`UninitializedBuffer`.

    >>> from gradtrack import nn
    >>> nn.parameter.is_lazy(nn.LazyLinear(2).weight), nn.parameter.is_lazy(nn.Linear(1, 2).weight)
    (True, False)
    """
    return isinstance(param, UninitializedTensorMixin)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A parameter whose shape is not known yet (a lazy module's before its first call).

    It holds no data; ``materialize(shape)`` makes it a :class:`Parameter` of that shape,
    the same object, so an optimizer built before the first call sees the real values.

    >>> from gradtrack import nn
    >>> p = nn.UninitializedParameter()
    >>> p, p.requires_grad
    (<UninitializedParameter>, True)
    """

    cls_to_become = Parameter

    def __init__(self, requires_grad=True, device=None, dtype=None):
        Parameter.__init__(self, _C.empty(0, dtype=dtype), requires_grad)

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.requires_grad, None, self.data.dtype)
        memo[id(self)] = result
        return result


class UninitializedBuffer(UninitializedTensorMixin, Buffer):
    """A buffer whose shape is not known yet (a lazy norm's running statistics).

    ``materialize(shape)`` makes it a :class:`Buffer` of that shape (a lazy module then
    holds a plain tensor alias of it, as torch's holds a plain tensor).

    >>> from gradtrack import nn
    >>> b = nn.UninitializedBuffer()
    >>> b, b.requires_grad, b.persistent
    (<UninitializedBuffer>, False, True)
    """

    cls_to_become = Buffer

    def __init__(self, requires_grad=False, device=None, dtype=None, persistent=True):
        Buffer.__init__(self, _C.empty(0, dtype=dtype), persistent=persistent)
        if requires_grad:
            _C._set_requires_grad(self, True)
