"""Selecting elements by index or by value: ``nonzero``/``argwhere`` (the C++ op
``_C._ops.nonzero`` finds the rows), ``take_along_dim`` (a ``gather`` underneath, as
torch's) and ``Tensor.where``. ``gather``, ``scatter``, ``index_select``,
``masked_fill``, ``masked_select`` and ``where`` are bound in C++ as they are.

>>> import gradtrack
>>> gradtrack.nonzero(gradtrack.tensor([[0, 3], [5, 0]]))
tensor([[0, 1],
        [1, 0]])
"""

from .. import _C
from .._dtype_names import SCALAR_NAME, dtype_key
from . import methods, wrap_dim
from .views import broadcast_shapes

BOUND = ("gather", "scatter", "scatter_add", "index_select", "masked_fill", "masked_select",
         "where")


def nonzero(input, *, as_tuple=False):  # noqa: A002 - torch's argument name
    """The indices of the nonzero elements: one row per element, or with
    ``as_tuple=True`` one 1-D tensor per dim (a 0-d input counts as 1-D).

    >>> import gradtrack
    >>> gradtrack.nonzero(gradtrack.tensor([0.0, 2.0, 1.0]), as_tuple=True)
    (tensor([1, 2]),)
    """
    rows = _C._ops.nonzero(input)
    if not as_tuple:
        return rows
    if input.dim() == 0:  # torch answers as for the 1-element 1-D tensor
        return (_C._ops.nonzero(input.reshape(1)).reshape(-1),)
    return tuple(rows[:, k] for k in range(input.dim()))


def argwhere(input):  # noqa: A002
    """``nonzero(input)``: one row of indices per nonzero element.

    >>> import gradtrack
    >>> gradtrack.argwhere(gradtrack.tensor([1, 0, 7]))
    tensor([[0],
            [2]])
    """
    return _C._ops.nonzero(input)


def take_along_dim(input, indices, dim=None):  # noqa: A002
    """Picks values along ``dim`` at ``indices`` (broadcast against ``input``); without
    ``dim`` both are flattened. A ``gather`` underneath.

    >>> import gradtrack
    >>> x = gradtrack.tensor([[10, 30, 20], [60, 40, 50]])
    >>> gradtrack.take_along_dim(x, x.argmax(1, keepdim=True), 1)
    tensor([[30],
            [60]])
    """
    if indices.dtype is not _C.int64:
        raise RuntimeError("torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{_scalar_name(indices)}")
    if dim is None:
        return input.view(-1).gather(0, indices.view(-1))
    d = wrap_dim(dim, input.dim())
    shape_in, shape_ix = list(input.shape), list(indices.shape)
    shape_in[d] = shape_ix[d] = 1
    common = list(broadcast_shapes(shape_in, shape_ix))
    want_in, want_ix = list(common), list(common)
    want_in[d], want_ix[d] = input.shape[d], indices.shape[d]
    return input.expand(want_in).gather(d, indices.expand(want_ix))


def _scalar_name(t):
    return SCALAR_NAME[dtype_key(t.dtype)]


def _where_method(self, condition, other):
    return _C.where(condition, self, other)


_where_method.__name__ = "where"
_where_method.__doc__ = "``torch.where(condition, self, other)``."
FUNCTIONS = (nonzero, argwhere, take_along_dim)
METHODS = {**methods(nonzero, argwhere, take_along_dim), "where": _where_method}
