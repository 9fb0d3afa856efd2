"""``torch.linalg``: vector and matrix norms and the cross product.

>>> import gradtrack
>>> gradtrack.linalg.vector_norm(gradtrack.tensor([3., 4.]))
tensor(5.)
"""

import builtins

from . import _C

_E = _C._extra
_INF = float("inf")


def _dims(dim):
    return None if dim is None else (dim,) if isinstance(dim, builtins.int) else tuple(dim)


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    """The ``ord``-norm of ``x`` over ``dim`` (all dims by default) as a vector.

    >>> import gradtrack
    >>> gradtrack.linalg.vector_norm(gradtrack.tensor([[3.0, -4.0], [0.0, 1.0]]), ord=1, dim=1)
    tensor([7., 1.])
    """
    if dtype is not None:
        x = x.to(dtype)
    return _E.vector_norm(x, float(ord), _dims(dim), keepdim)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):  # noqa: N803
    """The ``ord``-norm of the matrices over ``dim``: 'fro', 1, -1, inf or -inf
    ('nuc', 2 and -2 need an SVD, not implemented).

    >>> import gradtrack
    >>> gradtrack.linalg.matrix_norm(gradtrack.tensor([[1.0, -2.0], [3.0, 4.0]]))
    tensor(5.4772)
    """
    if dtype is not None:
        A = A.to(dtype)  # noqa: N806
    if ord == "fro":
        return _E.vector_norm(A, 2.0, tuple(dim), keepdim)
    if ord in (1, -1, _INF, -_INF):
        d0, d1 = (d % A.dim() for d in dim)
        # 1-norms sum columns (over d0), inf-norms sum rows (over d1).
        summed, reduced = (d0, d1) if ord in (1, -1) else (d1, d0)
        sums = A.abs().sum(summed, keepdim=True)
        r = sums.amax(reduced, keepdim=True) if ord > 0 else -((-sums).amax(reduced, keepdim=True))
        return r if keepdim else r.squeeze((d0, d1))
    raise NotImplementedError(f"gradtrack: linalg.matrix_norm with ord={ord!r} is not implemented")


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):  # noqa: A002,N803
    """A vector norm (1-D input, an int dim, or ord None) or a matrix norm (2 dims).

    >>> import gradtrack
    >>> gradtrack.linalg.norm(gradtrack.tensor([3.0, 4.0]))
    tensor(5.)
    """
    if isinstance(dim, builtins.int) or (dim is None and (ord is None or A.dim() == 1)):
        return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)
    return matrix_norm(A, "fro" if ord is None else ord, (-2, -1) if dim is None else dim, keepdim,
                       dtype=dtype)


def cross(input, other, *, dim=-1):  # noqa: A002
    """The cross product of 3-vectors along ``dim``.

    >>> import gradtrack
    >>> gradtrack.linalg.cross(gradtrack.tensor([0.0, 1.0, 0.0]), gradtrack.tensor([0.0, 0.0, 1.0]))
    tensor([1., 0., 0.])
    """
    return _E.cross(input, other, dim)
