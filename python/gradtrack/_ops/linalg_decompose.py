"""The decompositions of ``torch.linalg`` and what is built on them: ``svd``,
``svdvals``, ``qr``, ``eigh``, ``eigvalsh`` (and torch's older ``svd(some=)``,
``qr(some=)`` with their Tensor methods), ``matrix_rank``, ``cond``, ``multi_dot``,
``pinv`` (``pinverse``) and ``matrix_exp``, with torch's argument checks and messages.

Each decomposition calls one C++ entry (``_C._linalg``: LAPACK's gesdd, geqrf and
orgqr, syevd per matrix of the batch; torch's node recorded), which returns LAPACK's
``info`` where the routine can fail; :class:`LinAlgError` is raised here from it.

>>> import gradtrack
>>> gradtrack.linalg.eigvalsh(gradtrack.tensor([[2.0, 1.0], [1.0, 2.0]]))
tensor([1., 3.])
"""

import warnings

from .. import _C, return_types
from .._autocast import runs_in_float32, warn_level, without_autocast
from ..autograd.function import Function
from ..autograd._named_nodes import named_node
from . import methods
from .linalg_factor import (
    _check_kernel,
    _check_matrix,
    _check_square,
    _raise_from_info,
    _with_out,
    inv_ex,
)
from .linalg import _chain_order, _multiply
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
    warnings.warn(_QR_DEPRECATED, UserWarning, stacklevel=warn_level(2))
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
        tol = _tolerance(s, A, atol, rtol)
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
    return _multiply(mats, _chain_order(dims), 0, n - 1)  # chain_matmul's dynamic program


# ---- pinv, matrix_exp --------------------------------------------------------------------------

_TYPE = {"float16": "Half", "bfloat16": "BFloat16", "int64": "Long", "int32": "Int", "bool": "Bool",
         "uint8": "Byte", "int8": "Char", "int16": "Short", "float32": "Float", "float64": "Double"}


def _tolerance(s, A, atol, rtol):  # noqa: N803
    """torch's threshold on the singular values: max(atol, rtol * the largest), rtol
    eps * max(m, n) unless atol is given and positive."""
    if rtol is None:
        eps = 1.1920928955078125e-07 if A.dtype == _C.float32 else 2.220446049250313e-16
        rtol = 0.0 if atol is not None and _positive(atol) else eps * max(A.shape[-2:])
    largest = s.amax(-1, keepdim=True) if s.shape[-1] else s.sum(-1, keepdim=True)
    rtol = rtol.unsqueeze(-1) if isinstance(rtol, _C.Tensor) and rtol.dim() else rtol
    tol = largest * rtol
    if atol is not None:
        atol = atol.unsqueeze(-1) if isinstance(atol, _C.Tensor) and atol.dim() else atol
        tol = _C.maximum(tol, atol if isinstance(atol, _C.Tensor) else
                         _C.full((), float(atol), dtype=s.dtype))
    return tol


def _pinv_value(A, atol, rtol, hermitian):  # noqa: N803
    """A^+ from the SVD (the eigendecomposition when ``hermitian``), without history."""
    if hermitian:
        values, vectors = eigh(A)
        s = values.abs()
        keep = s > _tolerance(s, A, atol, rtol)
        inverse = _C.where(keep, 1 / values, _C.zeros((), dtype=values.dtype))
        return ((vectors * inverse.unsqueeze(-2)) @ vectors.mT).contiguous()
    u, s, vh = svd(A, full_matrices=False)
    keep = s > _tolerance(s, A, atol, rtol)
    inverse = _C.where(keep, 1 / s, _C.zeros((), dtype=s.dtype))
    return ((vh.mT * inverse.unsqueeze(-2)) @ u.mT).contiguous()


class _Pinv(Function):
    """A^+ computed without history (from svd or eigh), its node torch's."""

    @staticmethod
    def forward(ctx, A, atol, rtol, hermitian):  # noqa: N803
        result = _pinv_value(A, atol, rtol, hermitian)
        ctx.save_for_backward(A, result)
        ctx.pair = (A, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        A, P = ctx.saved_tensors  # noqa: N806
        return _pinv_adjoint(A, P, grad), None, None, None

    @staticmethod
    def jvp(ctx, dA, *_):  # noqa: N803
        A, P = ctx.pair  # noqa: N806
        # dP = -P dA P + P P^T dA^T (I - A P) + (I - P A) dA^T P^T P
        dAt = dA.mT  # noqa: N806
        return (-(P @ dA @ P) + (P @ P.mT) @ (dAt - dAt @ A @ P)
                + (dAt - P @ A @ dAt) @ (P.mT @ P))


def _pinv_adjoint(A, P, G):  # noqa: N803
    """The adjoint of dA -> dP at A (P = A^+), applied to G:
    -P^T G P^T + (I - A P) G^T P P^T + P^T P G^T (I - P A)."""
    Gt, Pt = G.mT, P.mT  # noqa: N806
    return ((Gt - A @ P @ Gt) @ (P @ Pt) - Pt @ G @ Pt + (Pt @ P) @ (Gt - Gt @ P @ A))


named_node(_Pinv, "LinalgPinvBackward0")


def pinv(A, *, atol=None, rtol=None, hermitian=False, out=None):  # noqa: N803
    """The pseudo-inverse of each matrix of ``A``, from its SVD (its eigendecomposition
    when ``hermitian``): singular values at or below ``max(atol, rtol * the largest)``
    count as zero (LinalgPinvBackward0).

    >>> import gradtrack
    >>> gradtrack.linalg.pinv(gradtrack.tensor([[2.0, 0.0], [0.0, 0.0]]))
    tensor([[0.5000, 0.0000],
            [0.0000, 0.0000]])
    """
    dtype = repr(A.dtype).split(".", 1)[1]
    if A.dim() < 2 or dtype not in ("float32", "float64"):
        raise RuntimeError(f"linalg.pinv({_TYPE.get(dtype, dtype)}{{{list(A.shape)}}}): expected "
                           "a tensor with 2 or more dimensions of float, double, cfloat or "
                           "cdouble types")
    with without_autocast():  # torch's kernel: its products do not autocast
        result = _Pinv.apply(A, atol, rtol, hermitian)
    return _with_out("linalg_pinv", result, out)


@runs_in_float32
def pinverse(input, rcond=1e-15):  # noqa: A002 - torch's name
    """torch.pinverse: :func:`gradtrack.linalg.pinv` with ``rtol=rcond``.

    >>> import gradtrack
    >>> gradtrack.pinverse(gradtrack.tensor([[4.0]]))
    tensor([[0.2500]])
    """
    return pinv(input, rtol=rcond)


def _exp_derivative(X, B):  # noqa: N803
    """The Frechet derivative of exp at X along B: the upper-right block of
    exp([[X, B], [0, X]]) (the gradient: at X = A^T along the incoming gradient)."""
    n = X.shape[-1]
    top = _C.cat([X, B], -1)
    bottom = _C.cat([_C.zeros(tuple(X.shape), dtype=X.dtype), X], -1)
    return _MatrixExp.apply(_C.cat([top, bottom], -2))[..., :n, n:]


class _MatrixExp(Function):
    @staticmethod
    def forward(ctx, A):  # noqa: N803
        ctx.save_for_backward(A)
        ctx.input = A
        return _L.matrix_exp(A)

    @staticmethod
    def backward(ctx, grad):
        (A,) = ctx.saved_tensors  # noqa: N806
        return _exp_derivative(A.mT, grad)

    @staticmethod
    def jvp(ctx, dA):  # noqa: N803
        return _exp_derivative(ctx.input, dA)


named_node(_MatrixExp, "LinalgMatrixExpBackward0")


def matrix_exp(A):  # noqa: N803
    """The matrix exponential of each square matrix of ``A`` (scaling and squaring;
    LinalgMatrixExpBackward0, whose gradient is the exponential of a block matrix).

    >>> import gradtrack
    >>> gradtrack.linalg.matrix_exp(gradtrack.tensor([[0.0, 1.0], [0.0, 0.0]]))
    tensor([[1., 1.],
            [0., 1.]])
    """
    _check_square("linalg.matrix_exp", A)
    return _MatrixExp.apply(A)


def _torch_matrix_exp(input):  # noqa: A002 - torch's name
    """torch.matrix_exp: :func:`gradtrack.linalg.matrix_exp`.

    >>> import gradtrack
    >>> gradtrack.matrix_exp(gradtrack.zeros(2, 2))
    tensor([[1., 0.],
            [0., 1.]])
    """
    return matrix_exp(input)


# torch's top-level names for the older forms and their Tensor methods.
_torch_svd.__name__ = _torch_svd.__qualname__ = "svd"
_torch_qr.__name__ = _torch_qr.__qualname__ = "qr"
_torch_matrix_exp.__name__ = _torch_matrix_exp.__qualname__ = "matrix_exp"
FUNCTIONS = (_torch_svd, _torch_qr, pinverse, _torch_matrix_exp)
METHODS = methods(_torch_svd, _torch_qr, pinverse, _torch_matrix_exp)
# gradtrack.linalg's names (linalg.py).
LINALG = (svd, svdvals, qr, eigh, eigvalsh, matrix_rank, cond, multi_dot, pinv, matrix_exp)
