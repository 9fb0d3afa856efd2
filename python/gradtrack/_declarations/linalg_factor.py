"""The factorizations of torch.linalg and the ops built on them (ops/linalg_factor.cpp):
inv_ex, det, slogdet, solve_ex, solve_triangular, cholesky_ex (and torch.cholesky's
own node) and cholesky_solve."""

from .rows import Derivative

DERIVATIVES = [
    Derivative("LinalgInvEx", "LinalgInvExBackward0", "linalg_inv_ex_bw", "linalg_inv_ex_jvp",
               saves_result=True),
    Derivative("LinalgDet", "LinalgDetBackward0", "linalg_det_bw", "linalg_det_jvp",
               saves={0: "0"}, saves_result=True),
    Derivative("LinalgSlogdet", "LinalgSlogdetBackward0", "linalg_slogdet_bw",
               "linalg_slogdet_jvp", saves={0: "0"}, takes_absent_grads=True),
    Derivative("LinalgSolveEx", "LinalgSolveExBackward0", "linalg_solve_ex_bw",
               "linalg_solve_ex_jvp", saves={0: "01"}, saves_result=True),
    Derivative("LinalgSolveTriangular", "LinalgSolveTriangularBackward0",
               "linalg_solve_triangular_bw", "linalg_solve_triangular_jvp",
               saves={0: "01"}, saves_result=True),
    Derivative("LinalgCholeskyEx", "LinalgCholeskyExBackward0", "linalg_cholesky_ex_bw",
               "linalg_cholesky_ex_jvp", saves_result=True),
    Derivative("Cholesky", "CholeskyBackward0", "cholesky_bw", saves_result=True),
    Derivative("CholeskySolve", "CholeskySolveBackward0", "cholesky_solve_bw",
               "cholesky_solve_jvp", saves={0: "01", 1: "01"}, saves_result=True),
]
