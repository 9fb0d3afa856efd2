"""Memory formats: ``contiguous_format``, ``channels_last`` (NHWC order for 4-d
tensors), ``channels_last_3d`` (NDHWC for 5-d) and ``preserve_format``, and the
Tensor methods that take them: ``contiguous``, ``is_contiguous``, ``clone``, ``to``.

Strides are torch's: a channels-last tensor of sizes (N, C, H, W) has strides
(C*H*W, 1, W*C, C), computed from the sizes as torch computes them (size-1 and
size-0 dimensions included), and ``is_contiguous(memory_format=)`` applies torch's
test, which skips size-1 dimensions. Elementwise results, ``clone()`` and the
``*_like`` factories keep their input's layout (``preserve_format``), as torch.

>>> import gradtrack
>>> x = gradtrack.zeros(2, 3, 4, 5).to(memory_format=gradtrack.channels_last)
>>> x.stride(), x.is_contiguous(memory_format=gradtrack.channels_last)
((60, 1, 15, 3), True)
"""

import builtins

from . import _C


class memory_format:
    """A tensor memory layout: ``gradtrack.contiguous_format``, ``channels_last``,
    ``channels_last_3d`` or ``preserve_format``.

    >>> import gradtrack
    >>> gradtrack.channels_last
    gradtrack.channels_last
    """

    # named and pickled as gradtrack.<name>, as torch's are torch.<name>
    __module__ = "gradtrack"

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return "gradtrack." + self._name

    def __reduce__(self):
        return self._name


contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
preserve_format = memory_format("preserve_format")

# (rank, the dims from fastest to slowest) of the channels-last formats
_CHANNELS_LAST = {channels_last: (4, (1, 3, 2, 0)), channels_last_3d: (5, (1, 4, 3, 2, 0))}


def _check(fn, value):
    if not isinstance(value, memory_format):
        raise TypeError(f"{fn}(): argument 'memory_format' must be torch.memory_format, not "
                        f"{type(value).__name__}")


def _channels_last_strides(tensor, fmt):
    rank, order = _CHANNELS_LAST[fmt]
    if tensor.dim() != rank:
        raise RuntimeError(f"required rank {rank} tensor to use {fmt._name} format")
    sizes = tensor.shape
    strides = [0] * rank
    step = 1
    for d in order:
        strides[d] = step
        step *= sizes[d]
    return strides


def _strides_like(tensor, fmt):
    """torch's guess that ``tensor``'s strides are ``fmt``'s (``suggest_memory_format``):
    ambiguous layouts (N111, a size-0 dim, a zero channel stride) count as contiguous."""
    rank, order = _CHANNELS_LAST[fmt]
    if tensor.dim() != rank:
        return False
    sizes, strides = tensor.shape, tensor.stride()
    if strides[1] == 0:
        return False
    lowest = 0
    for d in order:
        if sizes[d] == 0 or strides[d] < lowest:
            return False
        if d == 0 and lowest == strides[1]:
            return False
        lowest = strides[d] * (sizes[d] if sizes[d] > 1 else 1)
    return True


def _is_channels_last(tensor, fmt):
    rank, order = _CHANNELS_LAST[fmt]
    if tensor.dim() != rank:
        return False
    sizes, strides = tensor.shape, tensor.stride()
    expected = 1
    for d in order:
        if sizes[d] != 1:
            if strides[d] != expected:
                return False
            expected *= sizes[d]
    return True


_cxx_contiguous = _C.Tensor.contiguous
_cxx_is_contiguous = _C.Tensor.is_contiguous
_cxx_clone = _C.Tensor.clone


def _no_positional(fn, args):
    if args:
        raise TypeError(f"{fn}() takes 0 positional arguments but {len(args)} "
                        f"{'was' if len(args) == 1 else 'were'} given")


def is_contiguous(self, *args, memory_format=contiguous_format) -> bool:
    """True if the elements lie in memory in the order ``memory_format`` names
    (row-major for ``contiguous_format``, NHWC for ``channels_last``).

    >>> import gradtrack
    >>> x = gradtrack.zeros(2, 3)
    >>> x.is_contiguous(), x.t().is_contiguous()
    (True, False)
    """
    _no_positional("is_contiguous", args)
    if memory_format in _CHANNELS_LAST:
        return _is_channels_last(self, memory_format)
    _check("is_contiguous", memory_format)
    return _cxx_is_contiguous(self)


def contiguous(self, *args, memory_format=contiguous_format):
    """This tensor if it is contiguous in ``memory_format``, else a copy laid out so.

    >>> import gradtrack
    >>> x = gradtrack.arange(6).reshape(2, 3).t()
    >>> x.contiguous().is_contiguous(), x.contiguous().stride()
    (True, (2, 1))
    """
    _no_positional("contiguous", args)
    if memory_format is contiguous_format:
        return _cxx_contiguous(self)
    _check("contiguous", memory_format)
    if is_contiguous(self, memory_format=memory_format):
        return self
    if memory_format is preserve_format:
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    return _C._restride(self, self.dtype, _channels_last_strides(self, memory_format), False)


def clone(self, *, memory_format=preserve_format):
    """A copy with its own memory (in ``self``'s layout unless ``memory_format`` says
    otherwise); gradients flow back to ``self``.

    >>> import gradtrack
    >>> gradtrack.tensor([1.0, 2.0]).clone()
    tensor([1., 2.])
    """
    if memory_format is preserve_format:
        return _cxx_clone(self)
    _check("clone", memory_format)
    if memory_format is contiguous_format:
        strides = _contiguous_strides(self.shape)
    else:
        strides = _channels_last_strides(self, memory_format)
    return _C._restride(self, self.dtype, strides, False)


def _contiguous_strides(sizes):
    strides, step = [], 1
    for size in reversed(sizes):
        strides.append(step)
        step *= builtins.max(size, 1)
    return strides[::-1]


def convert(tensor, dtype, copy, memory_format):
    """``Tensor.to(...)`` with a ``memory_format=``: ``tensor`` itself when nothing changes."""
    _check("to", memory_format)
    dtype = tensor.dtype if dtype is None else dtype
    if memory_format is preserve_format:
        return tensor._to_dtype(dtype, copy)
    if not copy and dtype == tensor.dtype and _suggested(tensor) is memory_format:
        return tensor
    if memory_format is contiguous_format:
        strides = _contiguous_strides(tensor.shape)
    else:
        strides = _channels_last_strides(tensor, memory_format)
    return _C._restride(tensor, dtype, strides, True)


def _suggested(tensor):
    for fmt in _CHANNELS_LAST:
        if _strides_like(tensor, fmt):
            return fmt
    return contiguous_format


def like_input(tensor, memory_format):
    """What a ``*_like`` factory copies its layout from: ``tensor`` itself (None or
    ``preserve_format``) or a copy of it in ``memory_format``, so that a random fill
    runs in memory order as torch's does."""
    if memory_format is None or memory_format is preserve_format:
        return tensor
    _check("empty_like", memory_format)
    if memory_format is contiguous_format:
        strides = _contiguous_strides(tensor.shape)
    else:
        strides = _channels_last_strides(tensor, memory_format)
    if list(tensor.stride()) == strides:
        return tensor
    with _no_grad():
        return _C._restride(tensor.detach(), tensor.dtype, strides, False)


def empty_in_format(empty, args, kwargs, memory_format):
    """``empty(*args, **kwargs)`` laid out in ``memory_format`` (torch's ``empty`` takes it;
    the other size-taking factories do not): NCHW sizes with NHWC strides for
    ``channels_last``, as torch's, and no view."""
    _check("empty", memory_format)
    if kwargs.get("out") is not None:
        raise RuntimeError("'memory_format' argument is incompatible with 'out' tensor argument")
    if memory_format is preserve_format:
        raise RuntimeError("unsupported memory format Preserve")
    made = empty(*args, **kwargs)
    if memory_format is contiguous_format:
        return made
    # sizes, dtype and requires_grad checked and resolved by empty itself; its block is
    # freed before the strided one is taken, so the allocator hands the same one back
    strides = _channels_last_strides(made, memory_format)
    shape, dtype, requires_grad = made.shape, made.dtype, made.requires_grad
    del made
    return _C.empty_strided(shape, strides, dtype=dtype, requires_grad=requires_grad)


def _no_grad():
    from .autograd.grad_mode import no_grad
    return no_grad()


_RESIZE_LAYOUT = {None: 0, contiguous_format: 1, channels_last: 2, channels_last_3d: 3}


def resize_(self, *size, memory_format=None):
    """``self`` with shape ``size``, laid out row-major (or in ``memory_format``) from
    its storage offset: the storage grows in place when too small (its bytes kept; the
    new elements are unspecified). Every tensor on that storage sees the growth.
    Refused for a tensor that requires grad, as torch refuses it.

    >>> import gradtrack
    >>> x = gradtrack.arange(6.0)
    >>> x.resize_(2, 3)
    tensor([[0., 1., 2.],
            [3., 4., 5.]])
    >>> x.resize_(2, 2)._version
    2
    """
    if not size:
        raise TypeError('resize_() missing 1 required positional arguments: "size"')
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    for s in size:
        if not isinstance(s, int) or isinstance(s, bool):
            raise TypeError("resize_(): argument 'size' (position 1) must be tuple of ints, "
                            f"not {type(s).__name__}")
    if memory_format is not None:
        _check("resize_", memory_format)
        if memory_format is preserve_format:
            raise RuntimeError("Unsupported memory formatPreserve")
    return _C._inplace.resize_(self, list(size), _RESIZE_LAYOUT[memory_format])


def resize_as_(self, the_template, *, memory_format=None):
    """:meth:`resize_` to ``the_template``'s shape.

    >>> import gradtrack
    >>> gradtrack.zeros(4).resize_as_(gradtrack.ones(2, 2)).shape
    gradtrack.Size([2, 2])
    """
    return resize_(self, tuple(the_template.shape), memory_format=memory_format)


def _resize_as_function(input, the_template, *, memory_format=None):  # noqa: A002
    """``input.resize_as_(the_template)``: ``input`` given the template's shape in place.

    >>> import gradtrack
    >>> gradtrack.resize_as_(gradtrack.zeros(4), gradtrack.ones(1, 4)).shape
    gradtrack.Size([1, 4])
    """
    return resize_as_(input, the_template, memory_format=memory_format)


_resize_as_function.__name__ = _resize_as_function.__qualname__ = "resize_as_"
FUNCTIONS = (_resize_as_function,)
NAMES = {"memory_format": memory_format, "contiguous_format": contiguous_format,
         "channels_last": channels_last, "channels_last_3d": channels_last_3d,
         "preserve_format": preserve_format}
METHODS = {"contiguous": contiguous, "is_contiguous": is_contiguous, "clone": clone,
           "resize_": resize_, "resize_as_": resize_as_}
