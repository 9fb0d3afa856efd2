"""``CorrCholeskyTransform``: from unconstrained vectors of length ``D * (D - 1) / 2``
to the Cholesky factors of ``D x D`` correlation matrices (lower triangular, positive
diagonal, rows of unit norm). ``gradtrack.distributions.transforms`` gathers it with
the others.

Each entry goes through ``tanh`` into (-1, 1); the entries fill the strict lower
triangle row by row, and each row is completed to unit length by a signed
stick-breaking: an entry takes its share of what the entries before it left.

>>> import gradtrack
>>> from gradtrack.distributions.transforms import CorrCholeskyTransform
>>> t = CorrCholeskyTransform()
>>> L = t(gradtrack.tensor([0.5, -1.0, 2.0]))
>>> L
tensor([[ 1.0000,  0.0000,  0.0000],
        [ 0.4621,  0.8868,  0.0000],
        [-0.7616,  0.6247,  0.1723]])
>>> t.inv(L)
tensor([ 0.5000, -1.0000,  2.0000])
"""

import math

import gradtrack

from . import constraints
from .transform import Transform
from .utils import tril_matrix_to_vec, vec_to_tril_matrix

__all__ = ["CorrCholeskyTransform"]


class CorrCholeskyTransform(Transform):
    """From real vectors of length ``D * (D - 1) / 2`` to ``D x D`` Cholesky factors
    of correlation matrices, bijectively.

    >>> import gradtrack
    >>> from gradtrack.distributions.transforms import CorrCholeskyTransform
    >>> L = CorrCholeskyTransform()(gradtrack.tensor([[0.0], [1.0]]))
    >>> L @ L.mT
    tensor([[[1.0000, 0.0000],
             [0.0000, 1.0000]],
    <BLANKLINE>
            [[1.0000, 0.7616],
             [0.7616, 1.0000]]])
    """

    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def _call(self, x):
        eps = gradtrack.finfo(x.dtype).eps
        r = vec_to_tril_matrix(gradtrack.tanh(x).clamp(min=-1 + eps, max=1 - eps), diag=-1)
        # the i-th entry of a row is r_i times the root of what the entries before it
        # left: prod_{j < i} (1 - r_j ** 2)
        left = (1 - r ** 2).sqrt().cumprod(-1)
        r = r + gradtrack.eye(r.shape[-1], dtype=r.dtype, device=r.device)
        return r * gradtrack.nn.functional.pad(left[..., :-1], [1, 0], value=1)

    def _inverse(self, y):
        pad = gradtrack.nn.functional.pad
        left = pad((1 - gradtrack.cumsum(y * y, dim=-1))[..., :-1], [1, 0], value=1)
        t = tril_matrix_to_vec(y, diag=-1) / tril_matrix_to_vec(left, diag=-1).sqrt()
        return (t.log1p() - t.neg().log1p()) / 2

    def log_abs_det_jacobian(self, x, y, intermediates=None):
        """The log Jacobian determinant from ``x`` to the strict lower triangle of
        ``y`` read as a vector (the matrix has more entries than ``x``): the
        stick-breaking's term plus tanh's.

        >>> import gradtrack
        >>> from gradtrack.distributions.transforms import CorrCholeskyTransform
        >>> t = CorrCholeskyTransform()
        >>> x = gradtrack.tensor([0.5, -1.0, 2.0])
        >>> t.log_abs_det_jacobian(x, t(x))
        tensor(-4.1916)
        """
        left = 1 - (y * y).cumsum(dim=-1)
        # below the first subdiagonal: what each entry's predecessors left, unshifted
        stick_breaking = 0.5 * tril_matrix_to_vec(left, diag=-2).log().sum(-1)
        tanh = -2 * (x + gradtrack.nn.functional.softplus(-2 * x) - math.log(2.0)).sum(dim=-1)
        return stick_breaking + tanh

    def forward_shape(self, shape):
        """``(..., N)`` to ``(..., D, D)``, for ``N = D * (D - 1) / 2``.

        >>> from gradtrack.distributions.transforms import CorrCholeskyTransform
        >>> CorrCholeskyTransform().forward_shape((5, 6))
        (5, 4, 4)
        """
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        n = shape[-1]
        d = round((0.25 + 2 * n) ** 0.5 + 0.5)
        if d * (d - 1) // 2 != n:
            raise ValueError("Input is not a flattened lower-diagonal number")
        return shape[:-1] + (d, d)

    def inverse_shape(self, shape):
        """``(..., D, D)`` to ``(..., D * (D - 1) / 2)``.

        >>> from gradtrack.distributions.transforms import CorrCholeskyTransform
        >>> CorrCholeskyTransform().inverse_shape((4, 4))
        (6,)
        """
        if len(shape) < 2:
            raise ValueError("Too few dimensions on input")
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        d = shape[-1]
        return shape[:-2] + (d * (d - 1) // 2,)
