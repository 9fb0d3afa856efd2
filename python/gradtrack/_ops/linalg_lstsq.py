"""``torch.linalg.lstsq``: least squares with LAPACK's drivers (gels, gelsy, gelsd,
gelss; ``_C._linalg.lstsq`` per matrix of the batch, without history), torch's
named result (``residuals``, ``rank`` and ``singular_values`` where the driver gives
them, as torch returns them on the CPU), its checks and messages.

The node is an autograd Function named ``LinalgLstsqBackward0``: as torch's, its
gradient is that of ``X = pinv(A) B`` (and of the residuals ``|A X - B|^2``), which
is written with differentiable ops and so differentiates again.

>>> import gradtrack
>>> A = gradtrack.tensor([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
>>> gradtrack.linalg.lstsq(A, gradtrack.tensor([[1.0], [2.0], [3.0]])).solution
tensor([[1.],
        [2.]])
"""

from .. import _C, return_types
from ..autograd.function import Function
from ..autograd._named_nodes import named_node
from .linalg_decompose import _pinv_adjoint, pinv
from .linalg_factor import LinAlgError
from .linalg_lu import _dt  # torch's scalar type names
from .views import _broadcast_pair

_L = _C._linalg
_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")
_EPS = {"Float": 1.1920928955078125e-07, "Double": 2.220446049250313e-16}


class _Lstsq(Function):
    @staticmethod
    def forward(ctx, A, B, driver, rcond, vector):  # noqa: N803
        m, n = A.shape[-2:]
        B_input = B  # noqa: N806
        B = B.unsqueeze(-1) if vector else B  # noqa: N806
        code = _DRIVERS.index(driver)
        full, rank, s, info, X = _L.lstsq(A, B, code, rcond, vector)  # noqa: N806
        for index, failed in enumerate(info.reshape(-1).tolist()):
            if failed > 0:
                batch = f"(Batch element {index}): " if info.dim() else ""
                raise LinAlgError(
                    f"torch.linalg.lstsq: {batch}The least squares solution could not be computed "
                    "because the input matrix does not have full rank (error code: "
                    f"{failed}).")
        with_residuals = m > n and driver != "gelsy" and (
            driver == "gels" or bool((rank == n).all().item()))
        residuals = (full[..., n:, :].pow(2).sum(-2) if with_residuals
                     else _C.empty(0, dtype=A.dtype))
        if driver == "gels":
            rank = _C.empty(0, dtype=_C.int64)
        if driver not in ("gelsd", "gelss"):
            s = _C.empty(0, dtype=A.dtype)
        X_column = X.unsqueeze(-1) if vector else X  # noqa: N806
        # B itself (a column made here would have no history: double backward would give
        # B no gradient) and the solution, which torch's node keeps: writing into it in
        # place makes backward raise, though the formula below does not read it
        ctx.save_for_backward(A, B_input, X)
        ctx.with_residuals, ctx.vector = with_residuals, vector
        ctx.saved = (A, B, X_column)
        ctx.mark_non_differentiable(rank, s)
        # not a view: a tensor over LAPACK's whole buffer with its strides, as torch's
        return X, residuals, rank, s

    @staticmethod
    def backward(ctx, gX, gR, _rank, _s):  # noqa: N803
        A, B, _ = ctx.saved_tensors  # noqa: N806
        if ctx.vector:
            gX, B = gX.unsqueeze(-1), B.unsqueeze(-1)  # noqa: N806
        P = pinv(A)  # noqa: N806
        X = P @ B  # noqa: N806 - with history, for double backward
        gA = _pinv_adjoint(A, P, gX @ B.mT)  # noqa: N806
        gB = P.mT @ gX  # noqa: N806
        if ctx.with_residuals:
            # d|A X - B|^2 with X = P B: 2 (A X - B) (dA X + A dX - dB) summed over rows
            r2 = (A @ X - B) * gR.unsqueeze(-2) * 2
            gA = gA + r2 @ X.mT  # noqa: N806
            gX2 = A.mT @ r2
            gA = gA + _pinv_adjoint(A, P, gX2 @ B.mT)  # noqa: N806
            gB = gB + P.mT @ gX2 - r2  # noqa: N806
        return gA, (gB.squeeze(-1) if ctx.vector else gB), None, None, None

    @staticmethod
    def jvp(ctx, dA, dB, *_):  # noqa: N803
        A, B, X = ctx.saved  # noqa: N806
        if ctx.vector:
            dB = dB.unsqueeze(-1)  # noqa: N806
        P = pinv(A)  # noqa: N806
        dAt = dA.mT  # noqa: N806
        dP = (-(P @ dA @ P) + (P @ P.mT) @ (dAt - dAt @ A @ P)  # noqa: N806
              + (dAt - P @ A @ dAt) @ (P.mT @ P))
        dX = dP @ B + P @ dB  # noqa: N806
        dR = None  # noqa: N806
        if ctx.with_residuals:
            dR = (2 * (A @ X - B) * (dA @ X + A @ dX - dB)).sum(-2)  # noqa: N806
        return (dX.squeeze(-1) if ctx.vector else dX), dR, None, None


named_node(_Lstsq, "LinalgLstsqBackward0")


def lstsq(A, B, rcond=None, *, driver=None):  # noqa: N803
    """The least-squares solution ``X`` of ``A X = B`` for each matrix of the batch
    (the minimum-norm one where ``A`` is rank-deficient, except with ``gels``), with
    LAPACK's ``driver`` (default ``gelsy``); singular values below ``rcond`` times the
    largest count as zero (default: eps * max(m, n)). ``B`` may be a vector batch.
    Returns ``(solution, residuals, rank, singular_values)`` (LinalgLstsqBackward0).

    >>> import gradtrack
    >>> A = gradtrack.tensor([[1.0, 1.0], [1.0, 2.0], [1.0, 3.0]])
    >>> r = gradtrack.linalg.lstsq(A, gradtrack.tensor([1.0, 2.0, 2.0]), driver="gelsd")
    >>> r.solution
    tensor([0.6667, 0.5000])
    >>> r.rank
    tensor(2)
    """
    name = "torch.linalg.lstsq"
    if A.dim() < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if B.dim() < 1:
        raise RuntimeError(f"{name}: other must have at least 1 dimension.")
    if A.dtype != B.dtype:
        raise RuntimeError(f"{name}: Expected input and other to have the same dtype, but got "
                           f"input's dtype {_dt(A)} and other's dtype {_dt(B)}")
    if not (A.dim() >= B.dim() and A.dim() - B.dim() <= 1):
        raise RuntimeError(f"{name}: input.dim() must be greater or equal to other.dim() and "
                           "(input.dim() - other.dim()) <= 1")
    vector = B.dim() == A.dim() - 1
    Bm = B.unsqueeze(-1) if vector else B  # noqa: N806
    batch = _broadcast_pair(tuple(A.shape[:-2]), tuple(Bm.shape[:-2]))
    if Bm.shape[-2] != A.shape[-2]:
        raise RuntimeError(f"{name}: input.size(-2) should match other.size(-2)")
    if driver is None:
        driver = "gelsy"
    if driver not in _DRIVERS:
        raise RuntimeError(f"{name}: parameter `driver` should be one of (gels, gelsy, gelsd, "
                           "gelss)")
    if _dt(A) not in _EPS:
        raise RuntimeError("This function doesn't handle types other than float and double")
    if rcond is None:
        rcond = _EPS[_dt(A)] * max(A.shape[-2:])
    A2 = A.expand(batch + tuple(A.shape[-2:])) if tuple(A.shape[:-2]) != batch else A  # noqa: N806
    if tuple(Bm.shape[:-2]) == batch:  # B itself: its node's edge goes to B, as torch's
        B2 = B  # noqa: N806
    else:
        B2 = Bm.expand(batch + tuple(Bm.shape[-2:]))  # noqa: N806
        B2 = B2.squeeze(-1) if vector else B2  # noqa: N806
    return return_types.linalg_lstsq(_Lstsq.apply(A2, B2, driver, float(rcond), vector))
