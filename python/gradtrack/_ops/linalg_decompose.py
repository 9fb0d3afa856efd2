"""The decompositions of ``torch.linalg`` and what is built on them: ``svd``,
``svdvals``, ``qr``, ``eigh``, ``eigvalsh`` (and torch's older ``svd(some=)``,
``qr(some=)`` with their Tensor methods), ``matrix_rank``, ``cond`` and
``multi_dot``, with torch's argument checks and messages.

Each decomposition calls one C++ entry (``_C._linalg``: LAPACK's gesdd, geqrf and
orgqr, syevd per matrix of the batch; torch's node recorded), which returns LAPACK's
``info`` where the routine can fail; :class:`LinAlgError` is raised here from it.

>>> import gradtrack
>>> gradtrack.linalg.eigvalsh(gradtrack.tensor([[2.0, 1.0], [1.0, 2.0]]))
tensor([1., 3.])
"""

import warnings

from .. import _C, return_types
from .._autocast import runs_in_float32
from . import methods
from .linalg_factor import (
    _check_kernel,
    _check_matrix,
    _check_square,
    _raise_from_info,
    _with_out,
    inv_ex,
)
from .scan_sort import _dt  # torch's scalar type names

_L = _C._linalg
_INF = float("inf")


def _svd_failed(batch, code):
    if code < 0:
        return (f"linalg.svd: {batch}The algorithm failed to converge because the input matrix "
                "contained non-finite values.")
    return (f"linalg.svd: {batch}The algorithm failed to converge because the input matrix is "
            f"ill-conditioned or has too many repeated singular values (error code: {code}).")


def _eigh_failed(batch, code):
    return (f"linalg.eigh: {batch}The algorithm failed to converge because the input matrix is "
            f"ill-conditioned or has too many repeated eigenvalues (error code: {code}).")


def _check_driver(driver):
    if driver is not None:
        raise RuntimeError("torch.linalg.svd: keyword argument `driver=` is only supported on "
                           "CUDA inputs with cuSOLVER backend.")


def _svd(A, full_matrices, compute_uv, driver):  # noqa: N803
    _check_matrix("linalg.svd", A)
    _check_driver(driver)
    _check_kernel("linalg_svd_cpu", A)
    u, s, vh, info = _L.svd(A, full_matrices, compute_uv)
    _raise_from_info(info, _svd_failed)
    return u, s, vh


# ---- svd -------------------------------------------------------------------------------------

@runs_in_float32
def svd(A, full_matrices=True, *, driver=None, out=None):  # noqa: N803
    """The singular value decomposition ``A = U diag(S) Vh`` of each matrix of ``A``
    (LAPACK's gesdd), S descending; ``full_matrices=False`` keeps the ``min(m, n)``
    singular vectors. Gradients flow through U, S and Vh (LinalgSvdBackward0); the
    signs of U's columns and Vh's rows are LAPACK's, so use them in functions that
    do not depend on them.

    >>> import gradtrack
    >>> A = gradtrack.tensor([[3.0, 0.0], [0.0, -2.0], [0.0, 0.0]])
    >>> U, S, Vh = gradtrack.linalg.svd(A, full_matrices=False)
    >>> S
    tensor([3., 2.])
    >>> gradtrack.dist(U @ gradtrack.diag(S) @ Vh, A) < 1e-6
    tensor(True)
    """
    result = return_types.linalg_svd(_svd(A, full_matrices, True, driver))
    return _with_out("linalg_svd", result, out)


@runs_in_float32
def svdvals(A, *, driver=None, out=None):  # noqa: N803
    """The singular values of each matrix of ``A``, descending (LinalgSvdBackward0).

    >>> import gradtrack
    >>> gradtrack.linalg.svdvals(gradtrack.tensor([[0., 2.], [1., 0.]]))
    tensor([2., 1.])
    """
    return _with_out("linalg_svdvals", _svd(A, False, False, driver)[1], out)


@runs_in_float32
def _torch_svd(input, some=True, compute_uv=True, *, out=None):  # noqa: A002
    """torch.svd: ``(U, S, V)`` with ``A = U diag(S) V^T`` (V, not Vh); ``some=False``
    gives the full U and V; without ``compute_uv`` U and V are zeros.

    >>> import gradtrack
    >>> U, S, V = gradtrack.svd(gradtrack.tensor([[1.0, 0.0], [0.0, 4.0]]))
    >>> S
    tensor([4., 1.])
    """
    if input.dim() < 2:
        raise RuntimeError("linalg.svd: input should have at least 2 dimensions, but has "
                           f"{input.dim()} dimensions instead")
    if compute_uv:
        u, s, vh = _svd(input, not some, True, None)
        result = return_types.svd((u, s, vh.mT))
    else:
        s = _svd(input, False, False, None)[1]
        batch, m, n = tuple(input.shape[:-2]), input.shape[-2], input.shape[-1]
        result = return_types.svd((_C.zeros(batch + (m, m), dtype=s.dtype), s,
                                   _C.zeros(batch + (n, n), dtype=s.dtype)))
    return _with_out("svd", result, out)


# ---- qr --------------------------------------------------------------------------------------

_QR_MODES = {"reduced": 0, "complete": 1, "r": 2}


@runs_in_float32
def qr(A, mode="reduced", *, out=None):  # noqa: N803
    """The QR decomposition ``A = Q R`` of each matrix of ``A`` (Householder, LAPACK's
    geqrf and orgqr): Q with orthonormal columns, R upper triangular. ``mode`` is
    'reduced' (Q m x k, R k x n, k = min(m, n)), 'complete' (Q m x m) or 'r' (R only,
    Q empty). Gradients: LinalgQrBackward0.

    >>> import gradtrack
    >>> Q, R = gradtrack.linalg.qr(gradtrack.tensor([[3.0, 1.0], [4.0, 2.0]]))
    >>> R
    tensor([[-5.0000, -2.2000],
            [ 0.0000,  0.4000]])
    """
    _check_matrix("linalg.qr", A)
    if mode not in _QR_MODES:
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                           "'reduced' (default), 'r', or 'complete'")
    _check_kernel("geqrf_cpu", A)
    return _with_out("linalg_qr", return_types.linalg_qr(_L.qr(A, _QR_MODES[mode])), out)


_QR_DEPRECATED = (
    "gradtrack.qr is deprecated in favor of gradtrack.linalg.qr and will be removed in a future "
    "PyTorch release.\nThe boolean parameter 'some' has been replaced with a string parameter "
    "'mode'.\nQ, R = gradtrack.qr(A, some)\nshould be replaced with\nQ, R = "
    "gradtrack.linalg.qr(A, 'reduced' if some else 'complete')")


@runs_in_float32
def _torch_qr(input, some=True, *, out=None):  # noqa: A002
    """torch.qr, deprecated by torch for :func:`gradtrack.linalg.qr`: ``some=False``
    is mode 'complete'.

    >>> import gradtrack, warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     gradtrack.qr(gradtrack.tensor([[2.0]]))
    gradtrack.return_types.qr(
    Q=tensor([[1.]]),
    R=tensor([[2.]]))
    """
    warnings.warn(_QR_DEPRECATED, UserWarning, stacklevel=3)  # past runs_in_float32
    _check_matrix("linalg.qr", input)
    _check_kernel("geqrf_cpu", input)
    return _with_out("qr", return_types.qr(_L.qr(input, 0 if some else 1)), out)


# ---- eigh ------------------------------------------------------------------------------------

def _eigh(A, UPLO, compute_v):  # noqa: N803
    _check_matrix("linalg.eigh", A)
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError("linalg.eigh: A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")
    if not isinstance(UPLO, str) or UPLO.upper() not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    _check_kernel("linalg_eigh_cpu", A)
    values, vectors, info = _L.eigh(A, UPLO.upper() == "U", compute_v)
    _raise_from_info(info, _eigh_failed)
    return values, vectors


def _check_eigh_input(A):  # noqa: N803
    """torch's kernel refuses integer input before the other checks."""
    if A.dim() >= 2 and not A.is_floating_point():
        raise NotImplementedError(f"\"linalg_eigh_cpu\" not implemented for '{_dt(A)}'")


@runs_in_float32
def eigh(A, UPLO="L", *, out=None):  # noqa: N803
    """The eigenvalues (ascending) and orthonormal eigenvectors (columns) of each
    symmetric matrix of ``A``, read from its lower (``UPLO='L'``) or upper triangle
    (LAPACK's syevd). Gradients: LinalgEighBackward0.

    >>> import gradtrack
    >>> L, V = gradtrack.linalg.eigh(gradtrack.tensor([[2.0, 0.0], [0.0, 1.0]]))
    >>> L
    tensor([1., 2.])
    >>> V.abs()
    tensor([[0., 1.],
            [1., 0.]])
    """
    _check_eigh_input(A)
    return _with_out("linalg_eigh", return_types.linalg_eigh(_eigh(A, UPLO, True)), out)


@runs_in_float32
def eigvalsh(A, UPLO="L", *, out=None):  # noqa: N803
    """The eigenvalues of each symmetric matrix of ``A``, ascending.

    >>> import gradtrack
    >>> gradtrack.linalg.eigvalsh(gradtrack.tensor([[1.0, 2.0], [2.0, 1.0]]))
    tensor([-1.,  3.])
    """
    _check_eigh_input(A)
    return _with_out("linalg_eigvalsh", _eigh(A, UPLO, False)[0], out)


# ---- built on them ---------------------------------------------------------------------------

def matrix_rank(A, *, atol=None, rtol=None, hermitian=False, out=None):  # noqa: N803
    """The number of singular values (eigenvalue magnitudes when ``hermitian``)
    above ``max(atol, rtol * the largest)``; by default ``rtol`` is
    ``eps * max(m, n)`` of A's dtype.

    >>> import gradtrack
    >>> gradtrack.linalg.matrix_rank(gradtrack.ones(3, 3))
    tensor(1)
    """
    if A.dim() < 2:
        raise RuntimeError("torch.linalg.matrix_rank: The input tensor input must have at "
                           "least 2 dimensions.")
    if not A.is_floating_point():
        raise RuntimeError("This function doesn't handle types other than float and double")
    from ..autograd.grad_mode import no_grad
    with no_grad():
        s = eigvalsh(A).abs() if hermitian else svdvals(A)
        if s.shape[-1] == 0:
            rank = _C.zeros(tuple(A.shape[:-2]), dtype=_C.int64)
            rank.add_(0)  # torch writes its count through sum's out=: _version 1
            return _with_out("linalg_matrix_rank", rank, out)
        largest = s.amax(-1, keepdim=True)
        if rtol is None:
            eps = 1.1920928955078125e-07 if A.dtype == _C.float32 else 2.220446049250313e-16
            rtol = 0.0 if atol is not None and _positive(atol) else eps * max(A.shape[-2:])
        tol = largest * rtol
        if atol is not None:
            tol = _C.maximum(tol, atol if isinstance(atol, _C.Tensor) else
                             _C.full((), float(atol), dtype=s.dtype))
        rank = (s > tol).sum(-1)
        rank.add_(0)  # torch writes its count through sum's out=: _version 1
    return _with_out("linalg_matrix_rank", rank, out)


def _positive(atol):
    """torch's default rtol is 0 when atol is given and positive."""
    if isinstance(atol, _C.Tensor):
        return bool((atol > 0).all().item())
    return atol > 0


_COND_NORMS = (None, 2, -2, "fro", "nuc", 1, -1, _INF, -_INF)


def cond(A, p=None, *, out=None):  # noqa: N803
    """The condition number of each matrix of ``A`` in the ``p``-norm: the ratio of
    its largest to smallest singular value for ``p`` None, 2 (-2: the inverse),
    otherwise ``norm(A, p) * norm(inv(A), p)`` (square matrices; singular: inf).

    >>> import gradtrack
    >>> gradtrack.linalg.cond(gradtrack.tensor([[4.0, 0.0], [0.0, 2.0]]))
    tensor(2.)
    """
    if p not in _COND_NORMS:
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    if A.dim() < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    if p in (None, 2, -2):
        s = svdvals(A)
        first, last = s.narrow(-1, 0, 1), s.narrow(-1, s.shape[-1] - 1, 1)
        ratio = first / last if p != -2 else last / first
        return _with_out("linalg_cond", ratio.squeeze(-1), out)
    _check_square(f"linalg.cond(ord={p})", A)
    if p == "nuc":
        s = svdvals(A)
        return _with_out("linalg_cond", s.sum(-1) * s.reciprocal().sum(-1), out)
    # a singular matrix's inverse counts as infinite, and so does its condition number
    inverse, info = inv_ex(A)
    singular = info > 0
    any_singular = bool(singular.any().item())
    if any_singular:
        inverse = inverse.masked_fill(singular.unsqueeze(-1).unsqueeze(-1), _INF)
    result = _matrix_norm(A, p) * _matrix_norm(inverse, p)
    return _with_out("linalg_cond", result.nan_to_num(_INF, _INF), out)


def _matrix_norm(A, p):  # noqa: N803
    """linalg.matrix_norm of the orders cond takes besides 2, -2 and 'nuc'."""
    if p == "fro":
        return _C._ops.vector_norm(A, 2.0, (-2, -1), False)
    # 1-norms sum columns (over the rows), inf-norms sum rows
    sums = _C._ops.vector_norm(A, 1.0, (-2 if p in (1, -1) else -1,), False)
    return sums.amax(-1) if p > 0 else sums.amin(-1)


def multi_dot(tensors, *, out=None):
    """The product of the matrices ``tensors`` (the first may be a row vector, the
    last a column vector), multiplied in the order that costs the fewest
    multiplications.

    >>> import gradtrack
    >>> gradtrack.linalg.multi_dot([gradtrack.ones(2, 3), gradtrack.ones(3, 4), gradtrack.ones(4)])
    tensor([12., 12.])
    """
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    first, last = tensors[0], tensors[-1]
    if first.dim() not in (1, 2):
        raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got "
                           f"{first.dim()}D")
    if last.dim() not in (1, 2):
        raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got "
                           f"{last.dim()}D")
    for i in range(1, n - 1):
        if tensors[i].dim() != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got "
                               f"{tensors[i].dim()}D")
    for i in range(1, n):
        if tensors[i].dtype != first.dtype:
            raise RuntimeError("multi_dot(): all tensors must have be the same dtype but tensor "
                               f"0 is {_scalar(first)} and tensor {i} {_scalar(tensors[i])}")
    mats = [first.unsqueeze(0) if first.dim() == 1 else first]
    mats += list(tensors[1:-1])
    mats.append(last.unsqueeze(-1) if last.dim() == 1 else last)
    for i in range(n - 1):
        if mats[i].shape[-1] != mats[i + 1].shape[0]:
            raise RuntimeError(
                f"multi_dot(): tensors {i} and {i + 1} with shapes {list(tensors[i].shape)} "
                f"and {list(tensors[i + 1].shape)} cannot be multiplied")
    shape = (() if first.dim() == 1 and last.dim() == 1 else
             (mats[-1].shape[1],) if first.dim() == 1 else
             (mats[0].shape[0],) if last.dim() == 1 else (mats[0].shape[0], mats[-1].shape[1]))
    result = _chain(mats).view(shape)
    return _with_out("linalg_multi_dot", result, out)


def _scalar(t):
    """torch's C++ type names in multi_dot's message ("float", "double")."""
    return repr(t.dtype).split(".", 1)[1].replace("float32", "float").replace("float64", "double")


def _chain(mats):
    """The product of ``mats`` in the order of least cost (the matrix-chain
    dynamic program; two or three matrices decided directly, as torch)."""
    n = len(mats)
    if n == 2:
        return mats[0].mm(mats[1])
    dims = [mats[0].shape[0]] + [m.shape[1] for m in mats]
    if n == 3:
        a, b, c, d = dims
        cost_ab_c = a * b * c + a * c * d
        cost_a_bc = b * c * d + a * b * d
        if cost_ab_c <= cost_a_bc:  # noqa: SIM108
            return mats[0].mm(mats[1]).mm(mats[2])
        return mats[0].mm(mats[1].mm(mats[2]))
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if cost[i][j] is None or c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k

    def product(i, j):
        if i == j:
            return mats[i]
        k = split[i][j]
        return product(i, k).mm(product(k + 1, j))

    return product(0, n - 1)


# torch's top-level names for the older forms and their Tensor methods.
_torch_svd.__name__ = _torch_svd.__qualname__ = "svd"
_torch_qr.__name__ = _torch_qr.__qualname__ = "qr"
FUNCTIONS = (_torch_svd, _torch_qr)
METHODS = methods(_torch_svd, _torch_qr)
# gradtrack.linalg's names (linalg.py).
LINALG = (svd, svdvals, qr, eigh, eigvalsh, matrix_rank, cond, multi_dot)
