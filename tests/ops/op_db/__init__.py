"""The op table that drives the op tests: one ``OpSpec`` per op variant, by area.

tests/ops/test_ops.py runs every row against numpy and torch (values, gradients, grad_fn
names, double backward); test_inplace_variants.py, test_forward_ad_table.py,
test_stream_stores.py and the op-table fuzzer (fuzz_op_table.py) draw from the same rows.

The rows live in one module per area, with the words of the library
(``python/gradtrack/_declarations``, ``csrc/ops/<area>.cpp``):

- ``pointwise``: arithmetic, unary math, float predicates, comparisons and logic,
  where/clamp/maximum/minimum, type promotion;
- ``reduction``: sums, means, extrema, statistics, order statistics, norms;
- ``statistics``: the NaN-ignoring reductions, aminmax, quantiles, histograms, cov, dist;
- ``views``: view/reshape, transposes, squeeze/expand, select/narrow/split, as_strided;
- ``shape``: joins, clones, casts, tril/triu, flip, roll, repeat, diag;
- ``indexing``: ``tensor[...]``, gather/scatter, index_select, masked ops, nonzero;
- ``scan_sort``: cumsum/cumprod, diff, sort/argsort/topk, searchsorted;
- ``linalg``: the matmul family, baddbmm/addmv, cross, trace, einsum, tensordot, cdist;
- ``linalg_factor``: inv, det, slogdet, logdet, solve, solve_triangular, cholesky,
  cholesky_solve (on invertible or positive-definite inputs built from the samples);
- ``linalg_decompose``: svd, svdvals, qr, eigh, eigvalsh, matrix_rank, cond, multi_dot,
  pinv, matrix_exp (sign-free functions of singular vectors and eigenvectors, separated
  spectra);
- ``linalg_lu``: lu_factor, lu, lu_unpack, lu_solve, lstsq (pivoting inputs, full rank);
- ``nn``, ``conv``, ``resample``: nn.functional (softmax, activations, norms, losses),
  convolution and pooling, padding and interpolation;
- ``special_functions``: torch.special's Bessel functions and orthogonal polynomials
  (value-only: no gradient rows);
- ``sampling``: the random draws (poisson, binomial) from a seeded generator;
- ``creation``: the factories (``CREATION``, ``CreationSpec`` rows).

What their rows are made of is shared: ``rows`` (dtype groups, value domains, ``Arg`` and
its constructors, ``OpSpec``), ``samples`` (the sample sets several areas use) and
``reference`` (the numpy helpers several areas use). ``OPS`` is the areas' rows, area
after area in the order above, each area's rows in the order of its module. Add a row to
the module of its area; every test above picks it up.
"""

from . import (conv, creation, indexing, linalg, linalg_decompose, linalg_factor, linalg_lu, nn,
               pointwise, reduction, resample, sampling, scan_sort, shape, special_functions,
               statistics, views)
from .rows import (ALL, AWAY0, CASTABLE, DISTINCT, EXPONENT, FLOAT, INT, INTB, LOG1P, NONNEG, NONZERO,  # noqa: F401
                   NUM, POS, REAL, SIGNED, SMALL, A, Arg, CreationSpec, Domain, E, Fixed, Idx, Mask,
                   OpSpec, S, Sample, Step, T, Tr, View)
from .samples import (BINARY, BINARY_SMALL, LOSS_PAIR, MATRIX, RED_ALL, RED_ALL_EMPTY, RED_DIM,  # noqa: F401
                      RED_DIM_EMPTY, SCAN, SHAPE, STAT, UNARY, UNARY_SMALL, V23, V23C, V234)

AREAS = (pointwise, reduction, statistics, views, shape, indexing, scan_sort, linalg, linalg_factor,
         linalg_decompose, linalg_lu, nn, conv, resample, special_functions, sampling)

OPS = [spec for area in AREAS for spec in area.OPS]
CREATION = creation.CREATION


def spec_by_name(name):
    for spec in OPS:
        if spec.name == name:
            return spec
    raise KeyError(name)


# A name is one row, but for the 1-d and 2-d forms of reflect and replicate padding
# (pytest numbers their test ids, and the fuzzer calls them row k of that name).
_names = [s.name for s in OPS]
_repeated = {n for n in _names if _names.count(n) > 1}
assert _repeated <= {"nn.functional.pad_reflect", "nn.functional.pad_replicate"}, \
    f"duplicate op spec names: {sorted(_repeated)}"
