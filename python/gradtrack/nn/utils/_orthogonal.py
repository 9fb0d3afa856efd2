"""``nn.utils.parametrizations.orthogonal``: a weight kept (semi-)orthogonal through the
matrix exponential, the Cayley map or a product of Householder reflections.

NOTE [Orthogonal maps from existing ops]
gradtrack has no ``matrix_exp``, ``householder_product`` or QR of its own yet, so the
maps are built here from differentiable ops and their gradients are those of the ops:
the exponential of a skew-symmetric matrix by scaling and squaring a degree-18 Taylor
polynomial (the scaled matrix's 1-norm is at most 1/2, so the truncation is far below
float64 rounding), the Householder product as torch defines it (reflections
``I - tau v v^T`` with ``v``'s unit entry implicit), the Cayley map with
``linalg.solve``. The orthogonal starting point (``_make_orthogonal``) is the Q factor
of NumPy's LAPACK QR with R's diagonal made non-negative, as torch's, and the
Householder map without trivialization starts from LAPACK's ``geqrf`` (NumPy's raw QR);
both are computed once, under no_grad, when the parametrization is registered or
assigned.
"""

import math
from enum import Enum, auto


from ... import _C
from ...autograd.grad_mode import no_grad
from ..modules.module import Module

_TAYLOR_DEGREE = 18


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


def _matrix_exp(a):
    """exp(a) for a batch of square matrices (NOTE [Orthogonal maps from existing ops])."""
    n = a.size(-1)
    norm = float(a.detach().abs().sum(-2).amax()) if a.numel() else 0.0
    squarings = max(0, math.ceil(math.log2(norm / 0.5))) if norm > 0.5 else 0
    scaled = a / (2.0 ** squarings) if squarings else a
    eye = _C.eye(n, dtype=a.dtype)
    result = eye + scaled / _TAYLOR_DEGREE
    for k in range(_TAYLOR_DEGREE - 1, 0, -1):
        result = eye + (scaled @ result) / k
    for _ in range(squarings):
        result = result @ result
    return result


def _householder_product(a, tau):
    """The first ``k`` columns of ``H_1 ... H_k``, ``H_i = I - tau_i v_i v_i^T`` with
    ``v_i`` column ``i`` of ``a`` below the diagonal and 1 on it."""
    n, k = a.size(-2), a.size(-1)
    v = a.tril(-1) + _C.eye(n, k, dtype=a.dtype)
    q = _C.eye(n, dtype=a.dtype).expand(*a.shape[:-2], n, n)
    for i in range(k):
        column = v[..., :, i:i + 1]
        q = q - tau[..., i:i + 1].unsqueeze(-1) * ((q @ column) @ column.mT)
    return q[..., :k]


def _is_orthogonal(q):
    import gradtrack
    n, k = q.size(-2), q.size(-1)
    eps = 10.0 * n * gradtrack.finfo(q.dtype).eps
    return bool(gradtrack.allclose(q.mH @ q, _C.eye(k, dtype=q.dtype), atol=eps))


def _make_orthogonal(a):
    """The Q factor of a tall ``a`` with R's diagonal non-negative."""
    import numpy as np  # not at import: gradtrack's import stays free of NumPy
    matrices = a.detach().double().numpy().reshape(-1, a.size(-2), a.size(-1))
    qs = []
    for matrix in matrices:
        q, r = np.linalg.qr(matrix)
        qs.append(q * np.where(np.diag(r) < 0, -1.0, 1.0))
    return _C.tensor(np.stack(qs).reshape(tuple(a.shape)), dtype=a.dtype)


def _geqrf(a):
    """LAPACK's geqrf of a tall ``a``: R above the diagonal, the reflectors below, tau."""
    import numpy as np
    matrices = a.detach().double().numpy().reshape(-1, a.size(-2), a.size(-1))
    packed, taus = [], []
    for matrix in matrices:
        h, tau = np.linalg.qr(matrix, mode="raw")  # h is the transposed (Fortran) result
        packed.append(h.T)
        taus.append(tau)
    return (_C.tensor(np.stack(packed).reshape(tuple(a.shape)), dtype=a.dtype),
            _C.tensor(np.stack(taus).reshape(tuple(a.shape[:-2]) + (a.size(-1),)),
                      dtype=a.dtype))


class _Orthogonal(Module):
    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):  # noqa: N803 - torch's name
        n, k = X.size(-2), X.size(-1)
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            X = X.tril()
            if n != k:
                X = _C.cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mH
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                Q = _matrix_exp(A)
            else:
                from ... import linalg
                eye = _C.eye(n, dtype=A.dtype)
                Q = linalg.solve(_C.add(eye, A, alpha=-0.5), _C.add(eye, A, alpha=0.5))
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = _householder_product(A, tau)
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if hasattr(self, "base"):
            Q = self.base @ Q
        if transposed:
            Q = Q.mT
        return Q

    def right_inverse(self, Q):  # noqa: N803
        with no_grad():
            return self._right_inverse(Q)

    def _right_inverse(self, Q):  # noqa: N803
        if Q.shape != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                             f"Got a tensor of shape {Q.shape}.")
        Q_init = Q  # noqa: N806
        n, k = Q.size(-2), Q.size(-1)
        transpose = n < k
        if transpose:
            Q = Q.mT
            n, k = k, n
        if not hasattr(self, "base"):
            if self.orthogonal_map in (_OrthMaps.cayley, _OrthMaps.matrix_exp):
                raise NotImplementedError(
                    "It is not possible to assign to the matrix exponential or the Cayley "
                    "parametrizations when use_trivialization=False.")
            A, tau = _geqrf(Q)  # noqa: N806
            diagonal = A.diagonal(dim1=-2, dim2=-1)
            diagonal.sign_()
            diagonal.mul_(_C.where(tau == 0.0, -1.0, 1.0).to(A.dtype))
            return A.mT if transpose else A
        if n == k:
            Q = _make_orthogonal(Q) if not _is_orthogonal(Q) else Q.clone()
        else:
            N = _C.randn(*(tuple(Q.shape[:-2]) + (n, n - k)), dtype=Q.dtype)  # noqa: N806
            Q = _make_orthogonal(_C.cat([Q, N], dim=-1))
        self.base = Q
        neg_id = Q_init.new_zeros(Q_init.shape)
        neg_id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
        return neg_id


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """Keeps ``module.<name>`` (a matrix or a batch of them) orthogonal, or
    semi-orthogonal when not square, through ``orthogonal_map``: ``"matrix_exp"`` (the
    default for square matrices), ``"cayley"`` or ``"householder"`` (the default
    otherwise). With ``use_trivialization`` the map is applied around a ``base`` buffer
    set to the orthogonalized weight, so the parametrization starts at it.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> layer = nn.utils.parametrizations.orthogonal(nn.Linear(4, 4))
    >>> w = layer.weight
    >>> bool(gradtrack.allclose(w @ w.T, gradtrack.eye(4), atol=1e-5))
    True
    >>> list(layer.state_dict())
    ['bias', 'parametrizations.weight.original', 'parametrizations.weight.0.base']
    """
    from . import parametrize
    weight = getattr(module, name, None)
    if not isinstance(weight, _C.Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError("Expected a matrix or batch of matrices. "
                         f"Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = ("matrix_exp" if weight.size(-2) == weight.size(-1)
                          or weight.is_complex() else "householder")
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", '
                         f'"householder". Got: {orthogonal_map}')
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module
