"""``torch.linalg``: vector and matrix norms, the cross product, the factorizations
(inverse, determinants, solves, Cholesky: ``_ops/linalg_factor.py``) and the
decompositions (SVD, QR, symmetric eigenproblems: ``_ops/linalg_decompose.py``), the
LU factorization (``_ops/linalg_lu.py``) and least squares (``_ops/linalg_lstsq.py``).

>>> import gradtrack
>>> gradtrack.linalg.vector_norm(gradtrack.tensor([3., 4.]))
tensor(5.)
"""

import builtins as _builtins

from . import _C
from ._dtype_names import SCALAR_NAME as _SCALAR_NAME
from ._dtype_names import dtype_key as _dtype_key
from ._ops import check_norm_identity as _check_norm_identity
from ._ops.linalg_decompose import (  # noqa: F401 - torch.linalg's names
    cond,
    eigh,
    eigvalsh,
    matrix_exp,
    matrix_rank,
    multi_dot,
    pinv,
    qr,
    svd,
    svdvals,
)
from ._ops.linalg_lstsq import lstsq  # noqa: F401 - torch.linalg's name
from ._ops.linalg_lu import lu, lu_factor, lu_factor_ex, lu_solve  # noqa: F401
from ._ops.linalg_factor import (  # noqa: F401 - torch.linalg's names
    LinAlgError,
    _check_precision,
    _check_square,
    _raise_from_info,
    _singular_inverse,
    cholesky,
    cholesky_ex,
    det,
    inv,
    inv_ex,
    matrix_power,
    slogdet,
    solve,
    solve_ex,
    solve_triangular,
)

_E = _C._ops
_INF = float("inf")


def _dims(dim):
    return None if dim is None else (dim,) if isinstance(dim, _builtins.int) else tuple(dim)


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    """The ``ord``-norm of ``x`` over ``dim`` (all dims by default) as a vector.

    >>> import gradtrack
    >>> gradtrack.linalg.vector_norm(gradtrack.tensor([[3.0, -4.0], [0.0, 1.0]]), ord=1, dim=1)
    tensor([7., 1.])
    """
    ord, dims = float(ord), _dims(dim)  # noqa: A001
    if x.is_floating_point():  # (the C++ op names an input of another dtype first)
        _check_norm_identity(ord, x.shape, dims)
        if dtype is not None:
            x = x.to(_checked_dtype("vector_norm", x, dtype))
    return _E.vector_norm(x, ord, dims, keepdim)


_DT_NAME = {"bool": "Bool", "uint8": "Byte", "int32": "Int", "int64": "Long"}
_COMPLEX_NAME = {"complex32": "ComplexHalf", "complex64": "ComplexFloat",
                 "complex128": "ComplexDouble"}


def _dtype_name(dtype):
    key = _dtype_key(dtype)
    return _SCALAR_NAME.get(key) or _COMPLEX_NAME.get(key, key)


def _checked_dtype(name, x, dtype):
    """torch's checks of a norm's ``dtype=`` for a real floating ``x``: a real floating
    dtype that ``x``'s dtype widens to."""
    if dtype.is_complex:
        raise RuntimeError(f"linalg.{name}: dtype should be real for real inputs, but got "
                           f"{_dtype_name(dtype)}")
    if not dtype.is_floating_point:
        raise RuntimeError(f"linalg.{name}: dtype should be floating point or complex, but got "
                           f"{_dtype_name(dtype)}")
    if _C._promote_types(x.dtype, dtype) != dtype:
        raise RuntimeError(f"linalg.{name}: the dtype of the input ({_dtype_name(x.dtype)}) "
                           "should be convertible without narrowing to the specified dtype "
                           f"({_dtype_name(dtype)})")
    return dtype


def _matrix_dims(A, dim):  # noqa: N803
    if not isinstance(dim, (tuple, list)) or len(dim) != 2:
        given = " ".join(str(d) for d in dim) if isinstance(dim, (tuple, list)) else dim
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {given}")
    d0, d1 = (d % A.dim() for d in dim)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, {dim[1]})")
    return d0, d1


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):  # noqa: A002,N803
    """The ``ord``-norm of the matrices over ``dim``: 'fro', 'nuc', 1, -1, 2,
    -2, inf or -inf (2, -2 and 'nuc' from the singular values).

    >>> import gradtrack
    >>> gradtrack.linalg.matrix_norm(gradtrack.tensor([[3., 0.], [0., -2.]]), ord='nuc')
    tensor(5.)
    """
    if A.dim() < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 "
                           "dimensions.")
    if ord not in ("fro", "nuc", 1, -1, 2, -2, _INF, -_INF):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if not A.is_floating_point():
        raise RuntimeError("linalg.matrix_norm: Expected a floating point or complex tensor as "
                           f"input. Got {_DT_NAME[repr(A.dtype).split('.', 1)[1]]}")
    d0, d1 = _matrix_dims(A, dim)
    if dtype is not None:
        A = A.to(_checked_dtype("matrix_norm", A, dtype))  # noqa: N806
    if ord == "fro":
        return _E.vector_norm(A, 2.0, (d0, d1), keepdim)
    if ord in ("nuc", 2, -2):
        # torch: the singular values of A with dims (d0, d1) moved last; with
        # keepdim, the result gets them back (unsqueeze, then the inverse permute).
        perm = [d for d in range(A.dim()) if d not in (d0, d1)] + [d0, d1]
        s = svdvals(A.permute(tuple(perm)))
        r = (s.sum(-1, keepdim=keepdim) if ord == "nuc" else
             _amax(s, -1, keepdim) if ord == 2 else _amin(s, -1, keepdim))
        if keepdim:
            r = r.unsqueeze(-1).permute(tuple(perm.index(d) for d in range(A.dim())))
        return r
    # 1-norms sum columns (over d0), inf-norms sum rows (over d1).
    summed, reduced = (d0, d1) if ord in (1, -1) else (d1, d0)
    sums = _E.vector_norm(A, 1.0, (summed,), keepdim)
    if not keepdim and reduced > summed:
        reduced -= 1
    return _amax(sums, reduced, keepdim) if ord > 0 else _amin(sums, reduced, keepdim)


def _amax(x, dim, keepdim):
    """The largest values along ``dim``; over an empty ``dim``, zeros without a graph, as
    torch's matrix norms of positive order give (the negative ones raise amin's error)."""
    if x.shape[dim] != 0:
        return x.amax(dim, keepdim=keepdim)
    shape = list(x.shape)
    if keepdim:
        shape[dim] = 1
    else:
        del shape[dim]
    return _C.zeros(shape, dtype=x.dtype)


def _amin(x, dim, keepdim):
    """The smallest values along ``dim`` (AminBackward0, as torch's negative orders)."""
    return x.amin(dim, keepdim=keepdim)


def norm(A, ord=None, dim=None, keepdim=False, *, out=None, dtype=None):  # noqa: A002,N803
    """A vector norm (1-D input, an int dim, or ord None) or a matrix norm (2 dims).

    >>> import gradtrack
    >>> gradtrack.linalg.norm(gradtrack.tensor([[3., 0.], [0., -2.]]), ord=2)
    tensor(3.)
    """
    if out is not None:
        raise NotImplementedError("gradtrack: linalg.norm(out=...) is not implemented")
    if dim is not None and not isinstance(dim, _builtins.int) and len(dim) not in (1, 2):
        raise RuntimeError("linalg.norm: If dim is specified, it must be of length 1 or 2. "
                           f"Got {list(dim)}")
    if dim is not None and not isinstance(dim, _builtins.int) and len(dim) == 1:
        dim = dim[0]
    if isinstance(dim, _builtins.int) or (dim is None and ord is None):
        if isinstance(ord, str):
            raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {dim}")
        return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)
    if dim is None:
        if A.dim() not in (1, 2):
            raise RuntimeError("linalg.norm: If dim is not specified but ord is, the input must be "
                               f"1D or 2D. Got {A.dim()}D.")
        if A.dim() == 1:
            if isinstance(ord, str):
                raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 "
                                   "dimensions.")
            return vector_norm(A, ord, None, keepdim, dtype=dtype)
        dim = (-2, -1)
    return matrix_norm(A, "fro" if ord is None else ord, dim, keepdim, dtype=dtype)


def cross(input, other, *, dim=-1):  # noqa: A002
    """The cross product of 3-vectors along ``dim``.

    >>> import gradtrack
    >>> gradtrack.linalg.cross(gradtrack.tensor([0.0, 1.0, 0.0]), gradtrack.tensor([0.0, 0.0, 1.0]))
    tensor([1., 0., 0.])
    """
    return _E.cross(input, other, dim)


def vander(x, N=None):  # noqa: N803 - torch's argument name
    """The Vandermonde matrix of the last dim of ``x``: column j is ``x ** j``, for
    j < ``N`` (the last dim's size by default); batched over the other dims.

    >>> import gradtrack
    >>> gradtrack.linalg.vander(gradtrack.tensor([1, 2, 3]))
    tensor([[1, 1, 1],
            [1, 2, 4],
            [1, 3, 9]])
    """
    if x.dtype == _C.bool:
        raise RuntimeError("linalg.vander supports floating point, complex, and integer tensors, "
                           "but got Bool")
    x_ = x.unsqueeze(-1) if x.dim() == 0 else x
    shape = list(x_.shape)
    n = shape[-1] if N is None else N
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    # torch's composite: the running product of copies of x, after a column of ones
    powers = x_.unsqueeze(-1).expand(shape + [n - 1]).cumprod(-1)
    return _C.cat([_C.ones(shape + [1], dtype=powers.dtype), powers], -1)


def matmul(input, other, *, out=None):  # noqa: A002 - torch's argument name
    """:func:`gradtrack.matmul` under torch.linalg's name.

    >>> import gradtrack
    >>> gradtrack.linalg.matmul(gradtrack.ones(2, 3), gradtrack.ones(3))
    tensor([3., 3.])
    """
    return _C.matmul(input, other) if out is None else _matmul_out(input, other, out=out)


def _matmul_out(input, other, *, out):  # noqa: A002
    from . import matmul as with_out  # the namespace's matmul carries out=

    return with_out(input, other, out=out)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):  # noqa: N803 - torch's argument name
    """:func:`gradtrack.diagonal` with the last two dims as the default: a view of
    each matrix's ``offset``-th diagonal.

    >>> import gradtrack
    >>> gradtrack.linalg.diagonal(gradtrack.arange(8.).reshape(2, 2, 2))
    tensor([[0., 3.],
            [4., 7.]])
    """
    return A.diagonal(offset, dim1, dim2)


def vecdot(x, y, *, dim=-1, out=None):
    """The dot products of the vectors along ``dim`` of ``x`` and ``y`` (broadcast
    against each other): ``(x * y).sum(dim)``, as torch's composite.

    >>> import gradtrack
    >>> gradtrack.linalg.vecdot(gradtrack.tensor([[1., 2.], [3., 4.]]), gradtrack.tensor([1., 1.]))
    tensor([3., 7.])
    """
    if not x.is_floating_point():
        raise RuntimeError("linalg.vecdot: Expected a floating point or complex tensor as input. "
                           f"Got {_scalar_name(x)}")
    if x.dtype != y.dtype:
        raise RuntimeError("linalg.vecdot: Expected x and y to have the same dtype, but found x of "
                           f"type {_scalar_name(x)} and y of type {_scalar_name(y)} instead")
    if out is None:
        return (x * y).sum(dim)
    if out.dtype != x.dtype:
        # torch's sentence has no space after "dtype".
        raise RuntimeError(f"linalg.vecdot: Expected out of dtype{_scalar_name(x)} but found "
                           f"{_scalar_name(out)}")
    from . import _out

    return _out.call("sum", lambda a, b: (a * b).sum(dim), (x, y), {}, out)


def _scalar_name(t):
    from ._dtype_names import SCALAR_NAME, dtype_key

    return SCALAR_NAME[dtype_key(t.dtype)]


def _product(sizes):
    total = 1
    for s in sizes:
        total *= s
    return total


def tensorinv(A, ind=2):  # noqa: N803 - torch's argument name
    """The inverse of ``A`` read as a matrix: its first ``ind`` dims as rows, the rest as
    columns (their sizes' products must agree); the result has the column dims first,
    so that ``tensordot(tensorinv(A, ind), A, ind)`` is the identity.

    >>> import gradtrack
    >>> A = gradtrack.eye(6).reshape(6, 2, 3) * 2
    >>> gradtrack.linalg.tensorinv(A, ind=1).shape
    gradtrack.Size([2, 3, 6])
    """
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    rows, columns = tuple(A.shape[:ind]), tuple(A.shape[ind:])
    n, m = _product(columns), _product(rows)
    if n != m:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {n} != {m}")
    square = A.reshape(n, n)
    _check_square("linalg.inv", square)
    _check_precision("linalg.inv", square)
    inverse, info = _C._linalg.inv_ex(square)
    _raise_from_info(info, _singular_inverse("inv"))  # torch's check names it so here
    return inverse.reshape(columns + rows)


def tensorsolve(A, B, dims=None):  # noqa: N803 - torch's argument names
    """The ``X`` with ``tensordot(A, X, X.ndim) == B``: ``A``'s dims ``dims`` moved to
    the end, its first ``B.ndim`` dims read as rows and the rest as columns of a square
    matrix, solved against ``B`` flattened.

    >>> import gradtrack
    >>> A = gradtrack.eye(24).reshape(6, 4, 2, 3, 4)
    >>> gradtrack.linalg.tensorsolve(A, gradtrack.ones(6, 4)).shape
    gradtrack.Size([2, 3, 4])
    """
    if dims is not None:
        if not isinstance(dims, (tuple, list)):
            raise TypeError("linalg_tensorsolve(): argument 'dims' must be tuple of ints, not "
                            f"{type(dims).__name__}")
        dims = list(dims)
        A = A.movedim(dims, list(range(A.dim() - len(dims), A.dim())))
    shape = tuple(A.shape[B.dim():])
    n, m = _product(shape), _product(B.shape)
    if n != m:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[other.ndim:]) "
                           f"== prod(self.shape[:other.ndim]), but got {n} != {m}")
    return solve(A.reshape(n, n), B.flatten()).reshape(shape)
