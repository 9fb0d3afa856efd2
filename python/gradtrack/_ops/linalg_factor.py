"""The factorizations of ``torch.linalg`` and the ops built on them: ``inv``,
``det``, ``slogdet``, ``logdet``, ``solve``, ``solve_triangular``, ``cholesky``,
``cholesky_solve`` (the ``_ex`` forms, torch's legacy names and Tensor methods) and
``matrix_power`` (products, as torch composes it),
with torch's argument checks and messages.

Each calls one C++ entry (``_C._linalg``: LAPACK per matrix of the batch, torch's
node recorded), which returns LAPACK's ``info`` beside its result; a singular or
non-positive-definite input then raises :class:`LinAlgError` here, with torch's
words, unless an ``_ex`` form was asked not to check.

>>> import gradtrack
>>> gradtrack.linalg.det(gradtrack.tensor([[2.0, 1.0], [1.0, 3.0]]))
tensor(5.)
"""

import warnings

from .. import _C, _out, return_types
from .._autocast import runs_in_float32, warn_level
from .._memory_format import contiguous_format
from . import methods
from .scan_sort import _dt  # torch's scalar type names

_L = _C._linalg


class _LinAlgError(RuntimeError):
    """Raised by the ``torch.linalg`` functions when the input cannot be
    factorized: a singular matrix, or one that is not positive-definite.

    >>> import gradtrack
    >>> try:
    ...     gradtrack.linalg.inv(gradtrack.zeros(2, 2))
    ... except gradtrack.linalg.LinAlgError as e:
    ...     print(e)
    linalg.inv: The diagonal element 1 is zero, the inversion could not be completed because the input matrix is singular.
    """  # noqa: E501 - the message is one line


# torch's class is torch._C._LinAlgError: tracebacks print it as gradtrack._C._LinAlgError,
# and pickle finds it there.
_LinAlgError.__module__ = "gradtrack._C"
_C._LinAlgError = _LinAlgError
LinAlgError = _LinAlgError


def _check_matrix(name, A, arg="A"):  # noqa: N803 - torch's argument names
    if A.dim() < 2:
        raise RuntimeError(f"{name}: The input tensor {arg} must have at least 2 dimensions.")
    if not A.is_floating_point():
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. "
                           f"Got {_dt(A)}")


def _check_square(name, A):  # noqa: N803
    _check_matrix(name, A)
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")


_LOW = {"bfloat16": "BFloat16", "float16": "Half"}


def _low_name(A):  # noqa: N803
    return _LOW.get(repr(A.dtype).split(".", 1)[1])


def _check_precision(name, A):  # noqa: N803
    """torch's refusal of bfloat16 and float16 where its check comes first."""
    low = _low_name(A)
    if low:
        raise RuntimeError(f"{name}: Low precision dtypes not supported. Got {low}")


def _check_kernel(kernel, A):  # noqa: N803
    """torch's refusal of bfloat16 and float16 where its CPU kernel refuses them."""
    low = _low_name(A)
    if low:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{low}'")


def _raise_from_info(info, message):
    """torch's LinAlgError for the first matrix whose LAPACK info is not 0:
    ``message(info)`` names what failed."""
    if info.dim() == 0:
        code = info.item()
        if code:
            raise LinAlgError(message("", code))
        return
    if not info.any().item():
        return
    for index, code in enumerate(info.reshape(-1).tolist()):
        if code:
            raise LinAlgError(message(f"(Batch element {index}): ", code))


def _singular_inverse(api):
    return lambda batch, i: (f"{api}: {batch}The diagonal element {i} is zero, the inversion "
                             "could not be completed because the input matrix is singular.")


def _singular_solve(api):
    return lambda batch, i: (f"{api}: {batch}The solver failed because the input matrix is "
                             "singular.")


def _not_positive_definite(api):
    return lambda batch, i: (f"{api}: {batch}The factorization could not be completed because "
                             f"the input is not positive-definite (the leading minor of order "
                             f"{i} is not positive-definite).")


def _with_out(name, result, out):
    if out is None:
        return result
    return _out.write_result(name, out, result)


# ---- inverse, determinants -------------------------------------------------------------------

@runs_in_float32
def inv_ex(A, *, check_errors=False, out=None):  # noqa: N803
    """The inverse of each square matrix of ``A`` and LAPACK's ``info`` (0, or the
    index of a zero pivot); raises only when ``check_errors``.

    >>> import gradtrack
    >>> gradtrack.linalg.inv_ex(gradtrack.tensor([[2.0, 0.0], [0.0, 4.0]])).inverse
    tensor([[0.5000, 0.0000],
            [0.0000, 0.2500]])
    """
    _check_square("linalg.inv_ex", A)
    _check_precision("linalg.inv", A)
    inverse, info = _L.inv_ex(A)
    if check_errors:
        _raise_from_info(info, _singular_inverse("linalg.inv_ex"))
    return _with_out("linalg_inv_ex", return_types.linalg_inv_ex((inverse, info)), out)


@runs_in_float32
def inv(A, *, out=None):  # noqa: N803
    """The inverse of each square matrix of ``A`` (LinalgInvExBackward0); a
    singular matrix raises :class:`LinAlgError`.

    >>> import gradtrack
    >>> gradtrack.linalg.inv(gradtrack.tensor([[2.0, 1.0], [1.0, 1.0]]))
    tensor([[ 1., -1.],
            [-1.,  2.]])
    """
    _check_square("linalg.inv", A)
    _check_precision("linalg.inv", A)
    inverse, info = _L.inv_ex(A)
    _raise_from_info(info, _singular_inverse("linalg.inv"))
    return _with_out("linalg_inv", inverse, out)


@runs_in_float32
def inverse(input, *, out=None):  # noqa: A002 - torch's name
    """torch's older name of :func:`gradtrack.linalg.inv`.

    >>> import gradtrack
    >>> gradtrack.inverse(gradtrack.tensor([[4.0]]))
    tensor([[0.2500]])
    """
    return inv(input, out=out)


def det(A, *, out=None):  # noqa: N803
    """The determinant of each square matrix of ``A`` (LinalgDetBackward0; the
    gradient of a singular matrix comes from its SVD, as torch's).

    >>> import gradtrack
    >>> gradtrack.linalg.det(gradtrack.tensor([[1.0, 2.0], [3.0, 4.0]]))
    tensor(-2.)
    """
    _check_square("linalg.det", A)
    _check_kernel("lu_cpu", A)
    return _with_out("linalg_det", _L.det(A), out)


def _det(input):  # noqa: A002
    """The determinant of each square matrix of ``input``: :func:`gradtrack.linalg.det`.

    >>> import gradtrack
    >>> gradtrack.det(gradtrack.eye(3) * 2)
    tensor(8.)
    """
    return det(input)


def slogdet(A, *, out=None):  # noqa: N803
    """The sign and the natural log of the absolute value of each determinant
    (LinalgSlogdetBackward0; a singular matrix gives sign 0 and ``-inf``).

    >>> import gradtrack
    >>> gradtrack.linalg.slogdet(gradtrack.tensor([[-2.0, 0.0], [0.0, 1.0]])).logabsdet
    tensor(0.6931)
    """
    _check_square("linalg.slogdet", A)
    _check_precision("linalg.slogdet", A)
    return _with_out("linalg_slogdet", return_types.linalg_slogdet(_L.slogdet(A)), out)


def _slogdet(input):  # noqa: A002
    """torch.slogdet: :func:`gradtrack.linalg.slogdet` with torch's older result name.

    >>> import gradtrack
    >>> gradtrack.slogdet(gradtrack.eye(2) * 3).sign
    tensor(1.)
    """
    _check_square("linalg.slogdet", input)
    _check_precision("linalg.slogdet", input)
    return return_types.slogdet(_L.slogdet(input))


def logdet(input):  # noqa: A002
    """The natural log of each determinant: NaN where it is negative, ``-inf``
    where it is 0 (WhereBackward0, as torch composes it from ``slogdet``).

    >>> import gradtrack
    >>> gradtrack.logdet(gradtrack.eye(2) * 3)
    tensor(2.1972)
    """
    _check_square("logdet", input)
    _check_precision("logdet", input)
    sign, logabsdet = _L.slogdet(input)
    return _C.where(sign == -1, float("nan"), logabsdet)


# ---- solves ----------------------------------------------------------------------------------

def _check_solve(A, B, left):  # noqa: N803
    _check_square("linalg.solve", A)
    if A.dtype != B.dtype:
        raise RuntimeError("linalg.solve: Expected A and B to have the same dtype, but found A of "
                           f"type {_dt(A)} and B of type {_dt(B)} instead")
    n = A.shape[-1]
    vector = B.dim() == 1 or (B.dim() == A.dim() - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    if vector:  # a column, for X A = B too
        rows, cols = B.shape[-1], 1
    else:
        rows, cols = B.shape[-2], B.shape[-1]
    fits = (rows if left else cols) == n
    if not fits:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation {eq} "
                           f"({A.shape[-2]}x{A.shape[-1]} and {rows}x{cols})")
    _check_kernel("lu_cpu", A)


@runs_in_float32
def solve_ex(A, B, *, left=True, check_errors=False, out=None):  # noqa: N803
    """The solution of ``A X = B`` (``X A = B`` when not ``left``) and LAPACK's
    ``info``; raises only when ``check_errors``.

    >>> import gradtrack
    >>> gradtrack.linalg.solve_ex(gradtrack.eye(2) * 2, gradtrack.tensor([2.0, 4.0])).result
    tensor([1., 2.])
    """
    _check_solve(A, B, left)
    result, info = _L.solve_ex(A, B, left)
    if check_errors:
        _raise_from_info(info, _singular_solve("gradtrack.linalg.solve_ex"))
    return _with_out("linalg_solve_ex", return_types.linalg_solve_ex((result, info)), out)


@runs_in_float32
def solve(A, B, *, left=True, out=None):  # noqa: N803
    """The solution ``X`` of ``A X = B`` (``X A = B`` when not ``left``), batched
    and broadcast; ``B`` may be a (batch of) vector(s) (LinalgSolveExBackward0).

    >>> import gradtrack
    >>> gradtrack.linalg.solve(gradtrack.tensor([[3.0, 1.0], [1.0, 2.0]]), gradtrack.tensor([9.0, 8.0]))
    tensor([2., 3.])
    """
    _check_solve(A, B, left)
    result, info = _L.solve_ex(A, B, left)
    _raise_from_info(info, _singular_solve("gradtrack.linalg.solve"))
    return _with_out("linalg_solve", result, out)


def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):  # noqa: N803
    """The solution of ``A X = B`` (``X A = B`` when not ``left``) for triangular
    ``A``, reading only its ``upper`` or lower triangle (and taking its diagonal
    as ones when ``unitriangular``) (LinalgSolveTriangularBackward0).

    >>> import gradtrack
    >>> A = gradtrack.tensor([[2.0, 1.0], [0.0, 4.0]])
    >>> gradtrack.linalg.solve_triangular(A, gradtrack.tensor([[3.0], [4.0]]), upper=True)
    tensor([[1.],
            [1.]])
    """
    name = "linalg.solve_triangular"
    if A.dim() < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")
    if B.dim() < 2:
        raise RuntimeError(f"{name}: The input tensor B must have at least 2 dimensions.")
    if B.shape[-2 if left else -1] != A.shape[-1]:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"{name}: Incompatible shapes of A and B for the equation {eq} "
                           f"({A.shape[-2]}x{A.shape[-1]} and {B.shape[-2]}x{B.shape[-1]})")
    if not A.is_floating_point():
        raise NotImplementedError(f"\"triangular_solve_cpu\" not implemented for '{_dt(A)}'")
    _check_kernel("triangular_solve_cpu", A)
    if B.dtype != A.dtype:  # torch solves in A's dtype
        B = B.to(A.dtype)  # noqa: N806
    return _with_out("linalg_solve_triangular",
                     _L.solve_triangular(A, B, upper, left, unitriangular), out)


# ---- Cholesky --------------------------------------------------------------------------------

@runs_in_float32
def cholesky_ex(A, *, upper=False, check_errors=False, out=None):  # noqa: N803
    """The Cholesky factor of each symmetric positive-definite matrix of ``A``
    (read from its lower triangle, or upper one when ``upper``) and LAPACK's
    ``info`` (0, or the order of the leading minor that is not positive-definite).

    >>> import gradtrack
    >>> gradtrack.linalg.cholesky_ex(gradtrack.tensor([[4.0, 2.0], [2.0, 5.0]])).L
    tensor([[2., 0.],
            [1., 2.]])
    """
    _check_square("linalg.cholesky_ex", A)
    _check_kernel("cholesky_cpu", A)
    factor, info = _L.cholesky_ex(A, upper, False)
    if check_errors:
        _raise_from_info(info, _not_positive_definite("linalg.cholesky_ex"))
    return _with_out("linalg_cholesky_ex", return_types.linalg_cholesky_ex((factor, info)), out)


@runs_in_float32
def cholesky(A, *, upper=False, out=None):  # noqa: N803
    """The lower Cholesky factor ``L`` (``A = L L^T``) of each symmetric
    positive-definite matrix, or the upper one ``U = L^T`` (LinalgCholeskyExBackward0).

    >>> import gradtrack
    >>> gradtrack.linalg.cholesky(gradtrack.tensor([[4.0, 2.0], [2.0, 5.0]]), upper=True)
    tensor([[2., 1.],
            [0., 2.]])
    """
    _check_square("linalg.cholesky", A)
    _check_kernel("cholesky_cpu", A)
    factor, info = _L.cholesky_ex(A, upper, False)
    _raise_from_info(info, _not_positive_definite("linalg.cholesky"))
    return _with_out("linalg_cholesky", factor, out)


_CHOLESKY_DEPRECATED = (
    "gradtrack.cholesky is deprecated in favor of gradtrack.linalg.cholesky and will be removed "
    "in a future PyTorch release.\nL = gradtrack.cholesky(A)\nshould be replaced with\n"
    "L = gradtrack.linalg.cholesky(A)\nand\nU = gradtrack.cholesky(A, upper=True)\n"
    "should be replaced with\nU = gradtrack.linalg.cholesky(A).mH\nThis transform will produce "
    "equivalent results for all valid (symmetric positive definite) inputs.")


@runs_in_float32
def _cholesky(input, upper=False, *, out=None):  # noqa: A002
    """torch.cholesky, deprecated by torch for :func:`gradtrack.linalg.cholesky`
    (CholeskyBackward0).

    >>> import gradtrack, warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     gradtrack.cholesky(gradtrack.tensor([[9.0]]))
    tensor([[3.]])
    """
    warnings.warn(_CHOLESKY_DEPRECATED, UserWarning, stacklevel=warn_level(2))
    _check_square("cholesky", input)
    _check_kernel("cholesky_cpu", input)
    factor, info = _L.cholesky_ex(input, upper, True)
    _raise_from_info(info, _not_positive_definite("cholesky"))
    return _with_out("cholesky", factor, out)


@runs_in_float32
def cholesky_solve(input, input2, upper=False, *, out=None):  # noqa: A002 - torch's names
    """The solution ``X`` of ``A X = B`` (B: ``input``) given the Cholesky factor
    ``L`` (``input2``) of ``A``: ``A = L L^T``, or ``U^T U`` when ``upper``
    (CholeskySolveBackward0).

    >>> import gradtrack
    >>> L = gradtrack.tensor([[2.0, 0.0], [1.0, 1.0]])
    >>> gradtrack.cholesky_solve(gradtrack.tensor([[6.0], [4.0]]), L)
    tensor([[1.],
            [1.]])
    """
    B, L = input, input2  # noqa: N806 - the math's names
    if B.dim() < 2:
        raise RuntimeError(f"b should have at least 2 dimensions, but has {B.dim()} dimensions "
                           "instead")
    if L.dim() < 2:
        raise RuntimeError(f"u should have at least 2 dimensions, but has {L.dim()} dimensions "
                           "instead")
    if B.dtype != L.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{_dt(B)} and A of type {_dt(L)} instead.")
    if L.shape[-1] != L.shape[-2]:
        raise RuntimeError(f"A must be batches of square matrices, but they are {L.shape[-2]} by "
                           f"{L.shape[-1]} matrices")
    if L.shape[-1] != B.shape[-2]:
        raise RuntimeError(f"Incompatible matrix sizes for cholesky_solve: each A matrix is "
                           f"{L.shape[-2]} by {L.shape[-1]} but each b matrix is {B.shape[-2]} "
                           f"by {B.shape[-1]}")
    if not B.is_floating_point():
        raise NotImplementedError(f"\"cholesky_solve_cpu\" not implemented for '{_dt(B)}'")
    _check_kernel("cholesky_solve_cpu", B)
    return _with_out("cholesky_solve", _L.cholesky_solve(B, L, upper), out)


# ---- matrix powers ---------------------------------------------------------------------------

def _matrix_power(A, n, name):  # noqa: N803
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"{name}(): argument 'n' (position 2) must be int, not "
                        f"{type(n).__name__}")
    if A.dim() < 2:
        raise RuntimeError("linalg.matrix_power: The input tensor A must have at least 2 "
                           "dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError("linalg.matrix_power: A must be batches of square matrices, but they "
                           f"are {A.shape[-2]} by {A.shape[-1]} matrices")
    # torch's order of products (grad_fn names and rounding follow it)
    if n == 0:
        eye = _C.eye(A.shape[-1], dtype=A.dtype).expand(tuple(A.shape))
        return A.clone(memory_format=contiguous_format).copy_(eye)
    if n == 1:
        return A.clone(memory_format=contiguous_format)
    if n == -1:
        return inv(A)
    if n < 0:
        A, n = inv(A), -n  # noqa: N806
    if n == 2:
        return A @ A
    if n == 3:
        return (A @ A) @ A
    z = result = None
    while n > 0:
        bit, n = n % 2, n // 2
        z = A if z is None else z @ z
        if bit:
            result = z if result is None else result @ z
    return result


def matrix_power(A, n, *, out=None):  # noqa: N803
    """``A`` multiplied by itself ``n`` times (batched); ``n = 0`` gives the
    identity, a negative ``n`` the power of the inverse.

    >>> import gradtrack
    >>> gradtrack.linalg.matrix_power(gradtrack.tensor([[1.0, 1.0], [0.0, 1.0]]), 3)
    tensor([[1., 3.],
            [0., 1.]])
    """
    return _with_out("linalg_matrix_power", _matrix_power(A, n, "linalg_matrix_power"), out)


def _torch_matrix_power(input, n, *, out=None):  # noqa: A002
    """torch.matrix_power: :func:`gradtrack.linalg.matrix_power`.

    >>> import gradtrack
    >>> gradtrack.matrix_power(gradtrack.tensor([[2.0]]), -2)
    tensor([[0.2500]])
    """
    return _with_out("matrix_power", _matrix_power(input, n, "matrix_power"), out)


# torch's top-level names for these and their Tensor methods.
_det.__name__ = _det.__qualname__ = "det"
_slogdet.__name__ = _slogdet.__qualname__ = "slogdet"
_cholesky.__name__ = _cholesky.__qualname__ = "cholesky"
_torch_matrix_power.__name__ = _torch_matrix_power.__qualname__ = "matrix_power"
FUNCTIONS = (inverse, _det, _slogdet, logdet, _cholesky, cholesky_solve, _torch_matrix_power)
METHODS = methods(inverse, _det, _slogdet, logdet, _cholesky, cholesky_solve,
                  _torch_matrix_power)
# gradtrack.linalg's names (linalg.py).
LINALG = (LinAlgError, inv, inv_ex, det, slogdet, solve, solve_ex, solve_triangular, cholesky,
          cholesky_ex, matrix_power)
