"""The LU factorization of ``torch.linalg`` and what reads it: ``lu_factor``,
``lu_factor_ex``, ``lu``, ``lu_solve``, and torch's older ``lu_unpack``,
``lu_solve(b, LU_data, LU_pivots)`` and ``lu``, with torch's argument checks and
messages.

The factorization is LAPACK's getrf per matrix of the batch (``_C._linalg.lu_factor``,
without history); the nodes are autograd Functions named as torch's
(``LinalgLuFactorExBackward0``, ``LinalgLuBackward0``, ``LuUnpackBackward0``,
``LinalgLuSolveBackward0``) whose formulas are written with differentiable ops, so
that they differentiate again.

NOTE [LU derivatives]
With ``A = P L U`` (``L`` m x k unit lower, ``U`` k x n upper, k = min(m, n)) and a
square leading block, ``L^-1 P^T dA U^-1 = L^-1 dL + dU U^-1`` splits into its strictly
lower part (``L^-1 dL``) and its upper part (``dU U^-1``); the rows (tall) or columns
(wide) beyond the square block follow from ``L2 = A2 U^-1`` or ``U2 = L^-1 P^T A2``.
The backward is the adjoint of that map, as in PyTorch's derivative table.

>>> import gradtrack
>>> P, L, U = gradtrack.linalg.lu(gradtrack.tensor([[1.0, 2.0], [3.0, 4.0]]))
>>> U
tensor([[3.0000, 4.0000],
        [0.0000, 0.6667]])
"""

import warnings

from .. import _C, return_types
from .._autocast import without_autocast
from .._dtype_names import SCALAR_NAME
from ..autograd.function import Function
from ..autograd._named_nodes import composite_node, named_node
from . import methods
from .linalg_factor import _with_out
from .views import broadcast_shapes


_L = _C._linalg


def _dt(t):
    """torch's ScalarType name of ``t``'s dtype."""
    return SCALAR_NAME[repr(t.dtype).split(".", 1)[1]]


def _tri(A, B, upper, left=True, unit=False):  # noqa: N803
    return _L.solve_triangular(A, B, upper, left, unit)


# ---- the permutation, the factors ------------------------------------------------------------

def _permutation(pivots, m, dtype, check=False):
    """P of ``A = P L U`` from LAPACK's 1-based row swaps ``pivots`` (..., k)."""
    k = pivots.shape[-1]
    batch = tuple(pivots.shape[:-1])
    orders = []
    for row in pivots.reshape(-1, k).tolist() if pivots.numel() else ():
        order = list(range(m))
        for i, p in enumerate(row):
            if check and not 1 <= p <= m:
                raise RuntimeError("pivots passed to lu_unpack must be between 1 and LU.size(-2) "
                                   "inclusive.Did you properly pass the result of lu_factor?")
            order[i], order[p - 1] = order[p - 1], order[i]
        orders.append(order)
    count = 1
    for b in batch:
        count *= b
    if not orders:
        orders = [list(range(m))] * count
    order = _C.tensor(orders, dtype=_C.int64).reshape(batch + (m,))
    # Row r of P^T L U is row order[r] of A: P^T is the identity's rows in that order.
    return _C.eye(m, dtype=dtype)[order].mT.contiguous()


def _factors(LU):  # noqa: N803
    """(L, U) of the packed factorization, differentiable in ``LU``."""
    m, n = LU.shape[-2:]
    k = min(m, n)
    L = LU[..., :, :k].tril(-1) + _C.eye(m, k, dtype=LU.dtype)  # noqa: N806
    U = LU[..., :k, :].triu()  # noqa: N806
    return L, U


def _lu_backward(gL, gU, P, L, U):  # noqa: N803 - the factors' names
    """The gradient of A from those of L and U (NOTE [LU derivatives])."""
    m, k = L.shape[-2:]
    n = U.shape[-1]
    if m == n:
        phi = (L.mT @ gL).tril(-1) + (gU @ U.mT).triu()
        return P @ _tri(U.mT, _tri(L.mT, phi, True, unit=True), False, left=False)
    if m < n:
        U1, U2, gU1, gU2 = U[..., :m], U[..., m:], gU[..., :m], gU[..., m:]  # noqa: N806
        phi = (L.mT @ gL - gU2 @ U2.mT).tril(-1) + (gU1 @ U1.mT).triu()
        g1 = _tri(U1.mT, _tri(L.mT, phi, True, unit=True), False, left=False)
        g2 = _tri(L.mT, gU2, True, unit=True)
        return P @ _C.cat([g1, g2], -1)
    L1, L2, gL1, gL2 = L[..., :n, :], L[..., n:, :], gL[..., :n, :], gL[..., n:, :]  # noqa: N806
    phi = (L1.mT @ gL1).tril(-1) + (gU @ U.mT - L2.mT @ gL2).triu()
    g1 = _tri(U.mT, _tri(L1.mT, phi, True, unit=True), False, left=False)
    g2 = _tri(U.mT, gL2, False, left=False)
    return P @ _C.cat([g1, g2], -2)


def _lu_jvp(dA, P, L, U):  # noqa: N803
    """(dL, dU) along dA (NOTE [LU derivatives])."""
    m, k = L.shape[-2:]
    n = U.shape[-1]
    dA = P.mT @ dA  # noqa: N806
    if m == n:
        X = _tri(U, _tri(L, dA, False, unit=True), True, left=False)  # noqa: N806
        return L @ X.tril(-1), X.triu() @ U
    if m < n:
        Y = _tri(L, dA, False, unit=True)  # noqa: N806 - L^-1 P^T dA
        X = _tri(U[..., :m], Y[..., :m], True, left=False)  # noqa: N806
        low = X.tril(-1)
        return L @ low, _C.cat([X.triu() @ U[..., :m], Y[..., m:] - low @ U[..., m:]], -1)
    L1, L2 = L[..., :n, :], L[..., n:, :]  # noqa: N806
    X = _tri(U, _tri(L1, dA[..., :n, :], False, unit=True), True, left=False)  # noqa: N806
    dL2 = _tri(U, dA[..., n:, :], True, left=False) - L2 @ X.triu()  # noqa: N806
    return _C.cat([L1 @ X.tril(-1), dL2], -2), X.triu() @ U


def _empty_safe(fn, like):
    """fn(), or zeros shaped as ``like`` where a matrix is empty (no factor to solve with)."""
    if like.numel() == 0:
        return _C.zeros(tuple(like.shape), dtype=like.dtype)
    return fn()


# ---- the nodes -------------------------------------------------------------------------------

class _LuFactorEx(Function):
    @staticmethod
    def forward(ctx, A):  # noqa: N803
        LU, pivots, info = _L.lu_factor(A)  # noqa: N806
        ctx.save_for_backward(LU)
        ctx.lu, ctx.pivots = LU, pivots
        ctx.mark_non_differentiable(pivots, info)
        return LU, pivots, info

    @staticmethod
    def backward(ctx, gLU, _pivots, _info):  # noqa: N803
        (LU,) = ctx.saved_tensors  # noqa: N806
        m, n = LU.shape[-2:]
        k = min(m, n)
        P = _permutation(ctx.pivots, m, LU.dtype)  # noqa: N806
        L, U = _factors(LU)  # noqa: N806
        return _empty_safe(lambda: _lu_backward(gLU[..., :, :k].tril(-1),
                                                gLU[..., :k, :].triu(), P, L, U), LU)

    @staticmethod
    def jvp(ctx, dA):  # noqa: N803
        LU = ctx.lu  # noqa: N806
        m, n = LU.shape[-2:]
        P = _permutation(ctx.pivots, m, LU.dtype)  # noqa: N806

        def tangent():
            dL, dU = _lu_jvp(dA, P, *_factors(LU))  # noqa: N806
            if m < n:
                dL = _C.cat([dL, _C.zeros(tuple(dL.shape[:-1]) + (n - m,), dtype=dL.dtype)], -1)  # noqa: N806
            elif m > n:
                dU = _C.cat([dU, _C.zeros(tuple(dU.shape[:-2]) + (m - n, n), dtype=dU.dtype)], -2)  # noqa: N806
            return dL + dU
        return _empty_safe(tangent, LU), None, None


named_node(_LuFactorEx, "LinalgLuFactorExBackward0")


class _Lu(Function):
    @staticmethod
    def forward(ctx, A):  # noqa: N803
        LU, pivots, _ = _L.lu_factor(A)  # noqa: N806
        P = _permutation(pivots, A.shape[-2], A.dtype)  # noqa: N806
        L, U = _factors(LU)  # noqa: N806
        L, U = L.contiguous(), U.contiguous()  # noqa: N806
        ctx.save_for_backward(P, L, U)
        ctx.factors = (P, L, U)
        ctx.mark_non_differentiable(P)
        return P, L, U

    @staticmethod
    def backward(ctx, _gP, gL, gU):  # noqa: N803
        P, L, U = ctx.saved_tensors  # noqa: N806
        shape = tuple(L.shape[:-1]) + (U.shape[-1],)
        if L.numel() == 0 or U.numel() == 0:
            return _C.zeros(shape, dtype=L.dtype)
        return _lu_backward(gL, gU, P, L, U)

    @staticmethod
    def jvp(ctx, dA):  # noqa: N803
        P, L, U = ctx.factors  # noqa: N806
        if L.numel() == 0 or U.numel() == 0:
            return None, _C.zeros(tuple(L.shape), dtype=L.dtype), _C.zeros(tuple(U.shape),
                                                                            dtype=U.dtype)
        dL, dU = _lu_jvp(dA, P, L, U)  # noqa: N806
        return None, dL, dU


named_node(_Lu, "LinalgLuBackward0")


class _LuUnpack(Function):
    @staticmethod
    def forward(ctx, LU, pivots, unpack_data, unpack_pivots):  # noqa: N803
        ctx.shape, ctx.unpacked = tuple(LU.shape), unpack_data
        P = (_permutation(pivots, LU.shape[-2], LU.dtype, check=True) if unpack_pivots  # noqa: N806
             else _C.empty(0, dtype=LU.dtype))
        ctx.mark_non_differentiable(P)
        if not unpack_data:
            return P, _C.empty(0, dtype=LU.dtype), _C.empty(0, dtype=LU.dtype)
        L, U = _factors(LU)  # noqa: N806
        return P, L.contiguous(), U.contiguous()

    @staticmethod
    def backward(ctx, _gP, gL, gU):  # noqa: N803
        m, n = ctx.shape[-2:]
        k = min(m, n)
        batch = ctx.shape[:-2]
        if gL.dim() < 2:  # nothing unpacked: no gradient
            return _C.zeros(ctx.shape, dtype=gL.dtype), None, None, None
        gL = gL.tril(-1)  # noqa: N806
        gU = gU.triu()  # noqa: N806
        if k < n:
            gL = _C.cat([gL, _C.zeros(batch + (m, n - k), dtype=gL.dtype)], -1)  # noqa: N806
        if k < m:
            gU = _C.cat([gU, _C.zeros(batch + (m - k, n), dtype=gU.dtype)], -2)  # noqa: N806
        return gL + gU, None, None, None

    @staticmethod
    def jvp(ctx, dLU, *_):  # noqa: N803
        if not ctx.unpacked:
            return None, None, None
        L, U = _factors(dLU)  # noqa: N806
        m, n = ctx.shape[-2:]
        return None, L - _C.eye(m, min(m, n), dtype=L.dtype), U


named_node(_LuUnpack, "LuUnpackBackward0")


def _lu_solve(LU, B, pivots, left, adjoint):  # noqa: N803
    """X of A X = B (X A = B when not ``left``; A^T when ``adjoint``), A = P L U packed
    in ``LU``: triangular solves with its two triangles, differentiable in LU and B."""
    P = _permutation(pivots, LU.shape[-1], LU.dtype)  # noqa: N806
    if left and not adjoint:
        return _tri(LU, _tri(LU, P.mT @ B, False, unit=True), True)
    if left:
        return P @ _tri(LU.mT, _tri(LU.mT, B, False), True, unit=True)
    if not adjoint:
        return _tri(LU, _tri(LU, B, True, left=False), False, left=False, unit=True) @ P.mT
    return _tri(LU.mT, _tri(LU.mT, B @ P, True, left=False, unit=True), False, left=False)


def _lu_solve_blocked(LU, B, pivots, left, adjoint):  # noqa: N803
    """_lu_solve's values in one C++ call: row swaps and the blocked solves on our GEMM
    (NOTE [LU solves from torch's factors] in csrc/ops/linalg_lapack.cpp)."""
    return _L.lu_solve(LU, pivots, B, left, adjoint)


_lu_solve_node = composite_node("LinalgLuSolveBackward0", _lu_solve, differentiable=2,
                                forward=_lu_solve_blocked)


# ---- the functions ---------------------------------------------------------------------------

def _check_lu_input(name, A):  # noqa: N803
    if A.dim() < 2:
        raise RuntimeError(f"{name}: Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(A.shape)} instead")
    if not A.is_floating_point() or _dt(A) in ("Half", "BFloat16"):
        raise NotImplementedError(f"\"lu_cpu\" not implemented for '{_dt(A)}'")


def _check_pivot(name, pivot):
    if not pivot:
        raise RuntimeError(f"{name}: LU without pivoting is not implemented on the CPU")


def _zero_pivot(api, info):
    """torch's error for the first matrix whose U has a zero on its diagonal."""
    codes = info.reshape(-1).tolist()
    for index, code in enumerate(codes):
        if code:
            batch = f"(Batch element {index}): " if info.dim() else ""
            raise RuntimeError(
                f"{api}: {batch}U[{code},{code}] is zero and using it on lu_solve would result "
                "in a division by zero. If you still want to perform the factorization, consider "
                "calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")


def lu_factor_ex(A, *, pivot=True, check_errors=False, out=None):  # noqa: N803
    """The LU factorization with partial pivoting of each matrix of ``A``, packed as
    LAPACK's getrf gives it (``L`` below the diagonal, ``U`` on and above), its
    1-based ``pivots`` (int32) and ``info`` (0, or ``i`` when ``U[i, i]`` is zero),
    raising only when ``check_errors`` (LinalgLuFactorExBackward0).

    >>> import gradtrack
    >>> gradtrack.linalg.lu_factor_ex(gradtrack.tensor([[0.0, 1.0], [2.0, 3.0]])).pivots
    tensor([2, 2], dtype=gradtrack.int32)
    """
    _check_lu_input("torch.lu_factor", A)
    _check_pivot("linalg.lu_factor", pivot)
    result = _LuFactorEx.apply(A)
    if check_errors:
        _zero_pivot("torch.linalg.lu_factor_ex", result[2])
    return _with_out("linalg_lu_factor_ex", return_types.linalg_lu_factor_ex(result), out)


def lu_factor(A, *, pivot=True, out=None):  # noqa: N803
    """The LU factorization with partial pivoting of each matrix of ``A``, packed, and
    its 1-based ``pivots``; raises when a ``U`` has a zero on its diagonal (use
    :func:`lu_factor_ex` to get ``info`` instead) (LinalgLuFactorExBackward0).

    >>> import gradtrack
    >>> LU, pivots = gradtrack.linalg.lu_factor(gradtrack.tensor([[1.0, 2.0], [3.0, 4.0]]))
    >>> LU
    tensor([[3.0000, 4.0000],
            [0.3333, 0.6667]])
    """
    _check_lu_input("torch.lu_factor", A)
    _check_pivot("linalg.lu_factor", pivot)
    LU, pivots, info = _LuFactorEx.apply(A)  # noqa: N806
    _zero_pivot("torch.linalg.lu_factor", info)
    return _with_out("linalg_lu_factor", return_types.linalg_lu_factor((LU, pivots)), out)


def lu(A, *, pivot=True, out=None):  # noqa: N803
    """``A = P L U`` for each matrix of ``A``: the permutation ``P``, ``L`` unit lower
    (m x min(m, n)) and ``U`` upper (min(m, n) x n), with partial pivoting
    (LinalgLuBackward0).

    >>> import gradtrack
    >>> P, L, U = gradtrack.linalg.lu(gradtrack.tensor([[0.0, 1.0], [2.0, 3.0]]))
    >>> P
    tensor([[0., 1.],
            [1., 0.]])
    """
    _check_lu_input("linalg.lu", A)
    _check_pivot("linalg.lu_factor", pivot)
    return _with_out("linalg_lu", return_types.linalg_lu(_Lu.apply(A)), out)


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):  # noqa: N803
    """``(P, L, U)`` from the packed factorization of :func:`gradtrack.linalg.lu_factor`;
    ``unpack_data=False`` leaves L and U empty, ``unpack_pivots=False`` P
    (LuUnpackBackward0).

    >>> import gradtrack
    >>> LU, pivots = gradtrack.linalg.lu_factor(gradtrack.tensor([[0.0, 1.0], [2.0, 3.0]]))
    >>> gradtrack.lu_unpack(LU, pivots).L
    tensor([[1., 0.],
            [0., 1.]])
    """
    if LU_data.dim() < 2:
        raise RuntimeError("torch.lu_unpack: Expected tensor with 2 or more dimensions. Got "
                           f"size: {list(LU_data.shape)} instead")
    m, n = LU_data.shape[-2:]
    if unpack_pivots and (LU_pivots.dtype != _C.int32 or not LU_pivots.is_contiguous()):
        raise RuntimeError("torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of "
                           "torch.int32 dtype.\nNote: this function is intended to be used with "
                           "the output produced by torch.linalg.lu_factor")
    result = _LuUnpack.apply(LU_data, LU_pivots, unpack_data, unpack_pivots)
    return _with_out("lu_unpack", return_types.lu_unpack(result), out)


def _check_lu_solve(LU, pivots, B, left):  # noqa: N803
    name = "linalg.lu_solve"
    if LU.dim() < 2:
        raise RuntimeError(f"torch.{name}: The input tensor A must have at least 2 dimensions.")
    if LU.shape[-1] != LU.shape[-2]:
        raise RuntimeError(f"torch.{name}: A must be batches of square matrices, but they are "
                           f"{LU.shape[-2]} by {LU.shape[-1]} matrices")
    if not LU.is_floating_point():
        raise RuntimeError(f"torch.{name}: Expected a floating point or complex tensor as input. "
                           f"Got {_dt(LU)}")
    if LU.dtype != B.dtype:
        raise RuntimeError(f"{name}: Expected LU and B to have the same dtype, but found LU of "
                           f"type {_dt(LU)} and B of type {_dt(B)} instead")
    if pivots.dtype != _C.int32:
        raise RuntimeError(f"{name}: pivots should be a Tensor of scalar type torch.int32")
    if B.dim() < 2:
        raise RuntimeError(f"{name}: The input tensor B must have at least 2 dimensions.")
    if B.shape[-2 if left else -1] != LU.shape[-1]:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"{name}: Incompatible shapes of A and B for the equation {eq} "
                           f"({LU.shape[-2]}x{LU.shape[-1]} and {B.shape[-2]}x{B.shape[-1]})")
    if pivots.dim() < 1 or pivots.shape[-1] != LU.shape[-1]:
        raise RuntimeError(f"{name}: Number of pivots per batch should be same as the "
                           "dimension of the matrix")
    if tuple(pivots.shape) != tuple(LU.shape[:-1]):
        raise RuntimeError(f"{name}: Expected LU.shape[:-1] and pivots.shape to be the same, but "
                           f"got pivots with shape {list(pivots.shape)} instead")
    if _dt(LU) in ("Half", "BFloat16"):
        raise NotImplementedError(f"\"linalg.lu_solve_cpu\" not implemented for '{_dt(LU)}'")


def lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):  # noqa: N803
    """The solution ``X`` of ``A X = B`` (``X A = B`` when not ``left``; with ``A^T``
    when ``adjoint``) from the factorization ``(LU, pivots)`` of
    :func:`gradtrack.linalg.lu_factor`; batches broadcast (LinalgLuSolveBackward0).

    >>> import gradtrack
    >>> LU, pivots = gradtrack.linalg.lu_factor(gradtrack.tensor([[2.0, 0.0], [0.0, 4.0]]))
    >>> gradtrack.linalg.lu_solve(LU, pivots, gradtrack.tensor([[2.0], [2.0]]))
    tensor([[1.0000],
            [0.5000]])
    """
    _check_lu_solve(LU, pivots, B, left)
    if LU.numel() == 0 or B.numel() == 0:
        shape = broadcast_shapes(tuple(LU.shape[:-2]), tuple(B.shape[:-2]))
        return _with_out("linalg_lu_solve", _C.zeros(tuple(shape) + tuple(B.shape[-2:]),
                                                     dtype=B.dtype), out)
    with without_autocast():  # torch's kernel: its products do not autocast
        result = _lu_solve_node(LU, B, pivots, left, adjoint)
    return _with_out("linalg_lu_solve", result, out)


def _legacy_lu_solve(input, LU_data, LU_pivots, *, out=None):  # noqa: A002, N803
    """torch.lu_solve (deprecated): :func:`gradtrack.linalg.lu_solve` with its
    arguments reordered, ``(b, LU_data, LU_pivots)``.

    >>> import gradtrack
    >>> LU, pivots = gradtrack.linalg.lu_factor(gradtrack.tensor([[2.0, 0.0], [0.0, 4.0]]))
    >>> gradtrack.lu_solve(gradtrack.tensor([[2.0], [4.0]]), LU, pivots)
    tensor([[1.],
            [1.]])
    """
    warnings.warn(
        "torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in "
        "a future PyTorch release.\nNote that torch.linalg.lu_solve has its arguments "
        "reversed.\nX = torch.lu_solve(B, LU, pivots)\nshould be replaced with\nX = "
        "torch.linalg.lu_solve(LU, pivots, B)", UserWarning, stacklevel=2)
    return lu_solve(LU_data, LU_pivots, input, out=out)


def _legacy_lu(A, pivot=True, get_infos=False, out=None):  # noqa: N803
    """torch.lu (deprecated): :func:`gradtrack.linalg.lu_factor` (``get_infos``: with
    ``info``, as :func:`gradtrack.linalg.lu_factor_ex`).

    >>> import gradtrack
    >>> LU, pivots = gradtrack.lu(gradtrack.tensor([[1.0, 2.0], [3.0, 4.0]]))
    >>> pivots
    tensor([2, 2], dtype=gradtrack.int32)
    """
    _warn_lu()
    return _lu_factor_legacy(A, pivot, get_infos, out)


def _warn_lu():
    warnings.warn(
        "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex "
        "and will be removed in a future PyTorch release.\nLU, pivots = torch.lu(A, "
        "compute_pivots)\nshould be replaced with\nLU, pivots = torch.linalg.lu_factor(A, "
        "compute_pivots)\nand\nLU, pivots, info = torch.lu(A, compute_pivots, get_infos=True)\n"
        "should be replaced with\nLU, pivots, info = torch.linalg.lu_factor_ex(A, "
        "compute_pivots)", UserWarning, stacklevel=3)


def _lu_factor_legacy(A, pivot, get_infos, out):  # noqa: N803
    _check_lu_input("torch.lu_factor", A)
    _check_pivot("linalg.lu_factor", pivot)
    LU, pivots, info = _LuFactorEx.apply(A)  # noqa: N806
    if not get_infos:  # torch's check_errors does not raise here: a zero pivot passes
        result = (LU, pivots)
    else:
        result = return_types._lu_with_info((LU, pivots, info))
    if out is None:
        return result
    from .. import _out
    return _out.write_result("lu", out, result)


def _lu_method(self, pivot=True, get_infos=False):
    """Tensor.lu (deprecated): :func:`gradtrack.lu` of this tensor.

    >>> import gradtrack
    >>> LU, pivots = gradtrack.tensor([[1.0, 2.0], [3.0, 4.0]]).lu()
    >>> LU
    tensor([[3.0000, 4.0000],
            [0.3333, 0.6667]])
    """
    _warn_lu()
    return _lu_factor_legacy(self, pivot, get_infos, None)


# torch's top-level names and their Tensor methods.
_legacy_lu_solve.__name__ = _legacy_lu_solve.__qualname__ = "lu_solve"
_legacy_lu.__name__ = _legacy_lu.__qualname__ = _lu_method.__name__ = _lu_method.__qualname__ = "lu"
FUNCTIONS = (lu_unpack, _legacy_lu_solve, _legacy_lu)
METHODS = {**methods(_legacy_lu_solve), "lu": _lu_method}
# gradtrack.linalg's names (linalg.py).
LINALG = (lu_factor, lu_factor_ex, lu, lu_solve)
