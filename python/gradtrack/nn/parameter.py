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


# What an uninitialized tensor may still be asked (torch's list, and the mixin's own).
_ALLOWED_METHODS = frozenset({"size", "copy_", "is_complex", "is_floating_point", "half",
                              "float", "double", "char", "short", "int", "long", "cuda", "cpu",
                              "to", "get_device", "materialize", "share_memory_"})


def _refuse(cls_name, name):
    def refused(*args, **kwargs):
        raise ValueError(
            f"Attempted to use an uninitialized parameter in <method '{name}' of "
            "'gradtrack.Tensor' objects>. This error happens when you are using a "
            "`LazyModule` or explicitly manipulating "
            f"`torch.nn.parameter.{cls_name}` objects. When using LazyModules Call `forward` "
            "with a dummy batch to initialize the parameters before calling torch functions")
    return refused


def _refused_operator(name):
    def operator(self, *args):
        return _refuse(type(self).__name__, name)()
    operator.__name__ = name
    return operator


class UninitializedTensorMixin:
    """What uninitialized parameters and buffers share: no shape until ``materialize``.

    NOTE [Uninitialized tensors refuse use]: torch refuses every function but a few on an
    uninitialized tensor (through ``__torch_function__``), since its empty data would give
    empty answers. gradtrack refuses the Tensor methods and the arithmetic operators with
    torch's ValueError; a ``gradtrack.*`` function handed one sees a tensor with no
    elements (usually a shape error).

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

    def __getattribute__(self, name):
        value = object.__getattribute__(self, name)
        if name[0] == "_" or name in _ALLOWED_METHODS:
            return value
        kind = getattr(type(self), name, None)
        if (kind is None or isinstance(kind, (property, type)) or not callable(kind)):
            return value  # an attribute such as dtype, requires_grad or cls_to_become
        return _refuse(type(self).__name__, name)

    for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
                  "__truediv__", "__rtruediv__", "__floordiv__", "__rfloordiv__",
                  "__mod__", "__pow__", "__rpow__", "__matmul__", "__rmatmul__", "__neg__",
                  "__abs__", "__getitem__", "__setitem__", "__iadd__", "__isub__",
                  "__imul__", "__itruediv__", "__bool__", "__float__", "__int__", "__len__",
                  "__iter__"):
        locals()[_name] = _refused_operator(_name)
    del _name

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
