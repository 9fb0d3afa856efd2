"""Statistics: the NaN-ignoring reductions (``nansum``, ``nanmean``, ``nanmedian``),
``aminmax``, the quantiles, the histograms (``histc``, ``histogram``, ``bincount``),
``cov`` and ``corrcoef``, ``dist`` and ``renorm``.

``nansum``, ``nanmedian``, ``aminmax``, ``dist`` and ``renorm`` call one C++ entry each
(``_C._ops``), which records torch's node. The others are torch's composites, written
with the same ops in the same order, so their values, ``grad_fn`` and gradients are
torch's: ``nanmean`` divides a ``nansum`` by the count of numbers (``DivBackward0``),
``quantile`` sorts and interpolates (``SqueezeBackward4``), ``cov`` is a product of
the centred observations (``SqueezeBackward0``) and ``corrcoef`` clips it
(``ClampBackward1``). The histograms count; they have no gradient.

>>> import gradtrack
>>> gradtrack.nanmean(gradtrack.tensor([1., float("nan"), 3.]))
tensor(2.)
"""

import builtins
import math
import numbers
import warnings

from .. import _C, _out, return_types
from .._autocast import runs_in_float32
from ..autograd._named_nodes import not_implemented_node
from . import check_norm_identity, methods, wrap_dim
from .scan_sort import searchsorted
from .views import _broadcast_pair, broadcast_tensors

_E = _C._ops
_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _dims(dim):
    if dim is None:
        return None
    return (dim,) if isinstance(dim, builtins.int) else tuple(dim)


def nansum(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    """The sum of the elements, NaN counted as zero (``NansumBackward0``).

    >>> import gradtrack
    >>> gradtrack.nansum(gradtrack.tensor([1., float("nan"), 2.]))
    tensor(3.)
    """
    return _E.nansum(input, _dims(dim), keepdim, dtype)


def nanmean(input, dim=None, keepdim=False, *, dtype=None, out=None):  # noqa: A002
    """The mean of the elements that are not NaN (torch's ``nansum / count``; with
    ``out=``, the sum written into ``out`` and divided there, two writes as torch's).

    >>> import gradtrack
    >>> gradtrack.nanmean(gradtrack.tensor([[1., float("nan")], [2., 4.]]), dim=1)
    tensor([1., 3.])
    """
    if not input.is_floating_point():
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype "
                           f"but got {_scalar_name(input)}")
    dims = _dims(dim)
    numbers_ = _C.logical_not(_C.isnan(input))
    factor = numbers_.sum() if dims is None and not keepdim else numbers_.sum(
        dims if dims is not None else tuple(range(input.dim())), keepdim=keepdim)
    if out is not None:
        _out.call("nanmean", nansum, (input, dim, keepdim), {"dtype": dtype}, out)
        with _out._no_grad():
            return out.div_(factor)
    return _E.nansum(input, dims, keepdim, dtype).div(factor)


def _scalar_name(t):
    from .._dtype_names import SCALAR_NAME, dtype_key

    return SCALAR_NAME[dtype_key(t.dtype)]


def nanmedian(input, dim=None, keepdim=False):  # noqa: A002
    """The lower median of the elements that are not NaN, or (values, indices) along
    ``dim``; a line of NaN only gives NaN.

    >>> import gradtrack
    >>> gradtrack.nanmedian(gradtrack.tensor([4., float("nan"), 1., 3.]))
    tensor(3.)
    """
    result = _E.nanmedian(input, dim, keepdim)
    return return_types.nanmedian(result) if isinstance(result, tuple) else result


def aminmax(input, *, dim=None, keepdim=False):  # noqa: A002
    """The smallest and largest elements, overall or along ``dim``.

    >>> import gradtrack
    >>> gradtrack.aminmax(gradtrack.tensor([2., -1., 5.]))
    gradtrack.return_types.aminmax(
    min=tensor(-1.),
    max=tensor(5.))
    """
    return return_types.aminmax(_E.aminmax(input, dim, keepdim))


def dist(input, other, p=2):  # noqa: A002
    """The ``p``-norm of ``input - other`` (broadcast).

    >>> import gradtrack
    >>> gradtrack.dist(gradtrack.tensor([0., 0.]), gradtrack.tensor([3., 4.]))
    tensor(5.)
    """
    p = float(p)
    if (p < 0 or p == math.inf) and _C._promote_types(input.dtype, other.dtype).is_floating_point:
        try:
            shape = _broadcast_pair(tuple(input.shape), tuple(other.shape))
        except RuntimeError:
            shape = None  # (the C++ op says so, after its own checks)
        if shape is not None:
            check_norm_identity(p, shape, None)
    return _E.dist(input, other, p)


def renorm(input, p, dim, maxnorm):  # noqa: A002
    """Each slice of ``input`` along ``dim`` whose ``p``-norm exceeds ``maxnorm``
    scaled down to norm ``maxnorm``; the others as they are.

    >>> import gradtrack
    >>> gradtrack.renorm(gradtrack.tensor([[3., 4.], [0.3, 0.4]]), 2, 0, 1.)
    tensor([[0.6000, 0.8000],
            [0.3000, 0.4000]])
    """
    return _E.renorm(input, float(p), dim, float(maxnorm))


# ---- quantiles ---------------------------------------------------------------------------------

def _quantile(input, q, dim, keepdim, interpolation, ignore_nan):  # noqa: A002
    # (nanquantile's messages say quantile() too, as torch's)
    if isinstance(q, numbers.Number) and not isinstance(q, _C.Tensor):
        if not 0 <= q <= 1:
            raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {q}")
        q = _C.full((), q, dtype=input.dtype)
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError("quantile() interpolation must be one of linear, lower, higher, "
                           f"midpoint or nearest, but got {interpolation}")
    if input.numel() == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    if q.dim() > 1:
        raise RuntimeError("quantile() q must be a scalar or 1D tensor")
    if input.dtype not in (_C.float32, _C.float64):
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if input.dtype != q.dtype:
        raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
    if q.numel() and not bool(((q >= 0) & (q <= 1)).all()):
        raise RuntimeError("quantile() q values must be in the range [0, 1]")
    # torch's output shape: q's length first, then the reduced shape
    if dim is not None and input.dim() > 0:
        d = wrap_dim(dim, input.dim())
        out_shape = list(input.shape)
        if keepdim:
            out_shape[d] = 1
        else:
            del out_shape[d]
    else:
        if dim is not None:
            wrap_dim(dim, input.dim())
        d = None
        out_shape = [1] * input.dim() if keepdim else []
    if q.dim() > 0:
        out_shape.insert(0, q.numel())
    # Sorted along the last dim (NaN last), viewed as the output's shape plus that dim.
    if d is None:
        ordered = input.flatten().sort().values
    elif d == input.dim() - 1:
        ordered = input.sort().values
    else:
        ordered = input.unsqueeze(-1).transpose(d, -1).sort().values
    if q.dim() == 0:
        out_shape.insert(0, 1)
    in_shape = out_shape[1:] + [ordered.shape[-1]]
    ordered = ordered.view(in_shape)
    last = ordered.shape[-1] - 1
    nan = ordered.isnan()
    if ignore_nan:
        # ranks among the numbers; a line of NaN only ranks 0 (its quantile is NaN)
        ranks = q * (nan.logical_not().sum(-1, True) - 1)
        ranks.masked_fill_(ranks < 0, 0)
    else:
        # a line holding NaN ranks its last element, so its quantile is NaN
        ranks, has_nan = broadcast_tensors(q * last, nan.any(-1, True))
        ranks = ranks.masked_fill(has_nan, last)
    if interpolation == "lower":
        ranks.floor_()
    elif interpolation == "higher":
        ranks.ceil_()
    elif interpolation == "nearest":
        ranks.round_()
    ranks_below = ranks.long()
    values = ordered.gather(-1, ranks_below)
    if interpolation in ("linear", "midpoint"):
        weights = (ranks.new_full(ranks.shape, 0.5) if interpolation == "midpoint"
                   else ranks - ranks_below)
        ranks_above = ranks.ceil_().long()
        values.lerp_(ordered.gather(-1, ranks_above), weights)
    if q.dim() == 0:
        values.squeeze_(-1)
    else:
        values.unsqueeze_(0).transpose_(0, -1).squeeze_(-1)
    return values


@runs_in_float32
def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):  # noqa: A002
    """The ``q``-th quantiles (``q`` a number or a 1-D tensor in [0, 1]) of all elements
    or along ``dim``; ``interpolation`` picks between the two nearest ranks: linear,
    lower, higher, midpoint or nearest. A line holding NaN gives NaN.

    >>> import gradtrack
    >>> gradtrack.quantile(gradtrack.tensor([1., 2., 3., 4.]), 0.5)
    tensor(2.5000)
    """
    return _quantile(input, q, dim, keepdim, interpolation, False)


@runs_in_float32
def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):  # noqa: A002
    """``quantile`` of the elements that are not NaN (NaN where a line has none).

    >>> import gradtrack
    >>> gradtrack.nanquantile(gradtrack.tensor([1., float("nan"), 3.]), 0.5)
    tensor(2.)
    """
    return _quantile(input, q, dim, keepdim, interpolation, True)


# ---- histograms --------------------------------------------------------------------------------

def _counts(positions, weight, bins, dtype):
    """How many of ``positions`` (or their ``weight``) fall in each of ``bins``."""
    out = _C.zeros(bins, dtype=dtype)
    if not positions.numel():
        return out
    add = weight.to(dtype) if weight is not None else _C.ones(positions.shape, dtype=dtype)
    return out.index_add(0, positions, add)  # a new tensor at version 0, as torch's


def _bin_positions(x, edges, bins):
    """The bin of each element (the last bin holds its right edge) and which fall in."""
    inside = (x >= edges[0]) & (x <= edges[-1])
    pos = searchsorted(edges, x, right=True) - 1
    pos = pos.clamp(0, bins - 1)
    return pos, inside


def _linear_edges(lo, hi, bins, dtype):
    return _C.linspace(lo, hi, bins + 1, dtype=dtype)


def histc(input, bins=100, min=0, max=0):  # noqa: A001, A002 - torch's argument names
    """A histogram of ``bins`` equal bins over [min, max] (the data's range when
    min == max); elements outside are not counted.

    >>> import gradtrack
    >>> gradtrack.histc(gradtrack.tensor([1., 2., 2., 4.]), bins=3)
    tensor([1., 2., 1.])
    """
    if input.dtype not in (_C.float32, _C.float64):
        raise NotImplementedError(f"\"histogram_cpu\" not implemented for '{_scalar_name(input)}'")
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    lo, hi = float(min), float(max)
    if lo == hi and input.numel() > 0:
        lo, hi = float(input.min()), float(input.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if not all(math.isfinite(v) for v in (lo, hi)):
        raise RuntimeError(f"torch.histc: range of [{_num(lo)}, {_num(hi)}] is not finite")
    if not lo < hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    x = input.detach().flatten()
    edges = _linear_edges(lo, hi, bins, input.dtype)
    pos, inside = _bin_positions(x, edges, bins)
    return _counts(pos[inside], None, bins, input.dtype)


def _num(v):
    """A bound as torch's messages print it: 3, 1.5, inf, -inf, nan."""
    if not math.isfinite(v):
        return "nan" if v != v else "inf" if v > 0 else "-inf"
    return str(int(v)) if v == int(v) else str(v)


def histogram(input, bins, *, range=None, weight=None, density=False):  # noqa: A001, A002
    """The histogram of ``input``: ``bins`` equal bins over ``range`` (the data's range
    by default) or the bin edges ``bins`` (a 1-D tensor); the counts (or ``weight``
    sums, or a density) and the edges.

    >>> import gradtrack
    >>> gradtrack.histogram(gradtrack.tensor([1., 2., 1.]), bins=2).hist
    tensor([2., 1.])
    """
    if input.dtype not in (_C.float32, _C.float64):
        raise NotImplementedError(f"\"histogramdd\" not implemented for '{_scalar_name(input)}'")
    x = input.detach().flatten()
    if isinstance(bins, _C.Tensor):
        if bins.dim() != 1:
            raise RuntimeError("torch.histogramdd: bins tensor should have one dimension, but got "
                               f"{bins.dim()} dimensions in the bins tensor for dimension 0")
        edges = bins.detach().to(input.dtype).clone()
        count = edges.numel() - 1
    else:
        count = int(bins)
        if count <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {count} for "
                               "dimension 0")
        if range is not None:
            lo, hi = float(range[0]), float(range[1])
        elif x.numel():
            lo, hi = float(x.min()), float(x.max())
        else:
            lo, hi = 0.0, 1.0
        if lo > hi:
            raise RuntimeError("torch.histogramdd: min should not exceed max, but got min "
                               f"{_num(lo)} max {_num(hi)} for dimension 0")
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges = _linear_edges(lo, hi, count, input.dtype)
    if count <= 0 or not bool(edges[0] <= edges[-1]):
        hist = _C.zeros(builtins.max(count, 0), dtype=input.dtype)
    else:
        pos, inside = _bin_positions(x, edges, count)
        w = weight.detach().flatten()[inside] if weight is not None else None
        hist = _counts(pos[inside], w, count, input.dtype)
        if density:
            hist = hist / (hist.sum() * (edges[1:] - edges[:-1]))
    # torch has no derivative for histogram (NOTE [Ops without a derivative])
    hist, edges = not_implemented_node("histogram", (hist, edges), input,
                                       bins if isinstance(bins, _C.Tensor) else None, weight)
    return return_types.histogram((hist, edges))


def bincount(input, weights=None, minlength=0):  # noqa: A002
    """How often each value 0, 1, ... occurs in the 1-D non-negative integer
    ``input`` (or the sum of ``weights`` at it), at least ``minlength`` long.

    >>> import gradtrack
    >>> gradtrack.bincount(gradtrack.tensor([1, 2, 2]))
    tensor([0, 1, 2])
    """
    if input.is_floating_point() or input.dtype == _C.bool:
        raise NotImplementedError(f"\"bincount_cpu\" not implemented for '{_scalar_name(input)}'")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if input.dim() != 1 or (input.numel() and bool((input < 0).any())):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None and (weights.dim() != 1 or weights.shape[0] != input.shape[0]):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    size = builtins.max(int(input.max()) + 1 if input.numel() else 0, minlength)
    if weights is None:
        dtype = _C.int64
    else:
        dtype = weights.dtype if weights.is_floating_point() else _C.float64
    counts = _counts(input.long(), weights.detach() if weights is not None else None, size, dtype)
    # torch has no derivative for bincount (NOTE [Ops without a derivative])
    return not_implemented_node("bincount", counts, weights) if weights is not None else counts


# ---- covariance ---------------------------------------------------------------------------------

def cov(input, *, correction=1, fweights=None, aweights=None):  # noqa: A002
    """The covariance matrix of the variables in the rows of ``input`` (columns are
    observations), with divisor N - ``correction``; ``fweights`` (integer frequencies)
    and ``aweights`` (floating weights) weight the observations.

    >>> import gradtrack
    >>> gradtrack.cov(gradtrack.tensor([[0., 1., 2.], [2., 1., 0.]]))
    tensor([[ 1., -1.],
            [-1.,  1.]])
    """
    if input.dim() > 2:
        raise RuntimeError("cov(): expected input to have two or fewer dimensions but got an "
                           f"input with {input.dim()} dimensions")
    if input.dtype == _C.bool:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = input.view(1, -1) if input.dim() < 2 else input
    n = x.shape[1]
    w = None
    if fweights is not None:
        w = fweights
        if w.dim() > 1:
            raise RuntimeError("cov(): expected fweights to have one or fewer dimensions but got "
                               f"fweights with {w.dim()} dimensions")
        if w.is_floating_point() or w.dtype == _C.bool:
            raise RuntimeError("cov(): expected fweights to have integral dtype but got fweights "
                               f"with {_scalar_name(w)} dtype")
        if w.numel() != n:
            raise RuntimeError("cov(): expected fweights to have the same numel as there are "
                               f"observations in the input but got {w.numel()} != {n}")
        if n and not bool(w.min() >= 0):
            raise RuntimeError("cov(): fweights cannot be negative")
    if aweights is not None:
        aw = aweights
        if aw.dim() > 1:
            raise RuntimeError("cov(): expected aweights to have one or fewer dimensions but got "
                               f"aweights with {aw.dim()} dimensions")
        if not aw.is_floating_point():
            raise RuntimeError("cov(): expected aweights to have floating point dtype but got "
                               f"aweights with {_scalar_name(aw)} dtype")
        if aw.numel() != n:
            raise RuntimeError("cov(): expected aweights to have the same numel as there are "
                               f"observations in the input but got {aw.numel()} != {n}")
        if n and not bool(aw.min() >= 0):
            raise RuntimeError("cov(): aweights cannot be negative")
        w = aw if w is None else w * aw
    w_sum = w.sum() if w is not None else _C.full((), n, dtype=_C.int64)
    if w is not None and not bool(w_sum != 0):
        raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    avg = (x * w if w is not None else x).sum(1) / w_sum
    if w is not None and aweights is not None and correction != 0:
        norm_factor = w_sum - correction * (w * aweights).sum() / w_sum
    else:
        norm_factor = w_sum - correction
    if bool(norm_factor <= 0):
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the number of observations.", UserWarning, stacklevel=2)
        norm_factor = norm_factor * 0
    x = x - avg.unsqueeze(1)
    c = _C.mm(x, (x * w if w is not None else x).t())
    return c.div(norm_factor).squeeze()


def corrcoef(input):  # noqa: A002
    """The Pearson correlation coefficients of the variables in the rows of ``input``.

    >>> import gradtrack
    >>> gradtrack.corrcoef(gradtrack.tensor([[0., 1., 2.], [2., 1., 0.]]))
    tensor([[ 1., -1.],
            [-1.,  1.]])
    """
    if input.dim() > 2:
        raise RuntimeError("corrcoef(): expected input to have two or fewer dimensions but got "
                           f"an input with {input.dim()} dimensions")
    c = cov(input)
    if c.dim() == 0:
        return c / c  # a single variable: 1, or NaN where its variance is 0, inf or NaN
    stddev = _C.sqrt(c.diagonal())
    c = c / stddev.view(-1, 1)
    c = c / stddev.view(1, -1)
    return _C.clamp(c, -1, 1)


FUNCTIONS = (nansum, nanmean, nanmedian, aminmax, dist, renorm, quantile, nanquantile, histc,
             histogram, bincount, cov, corrcoef)
METHODS = methods(nansum, nanmean, nanmedian, aminmax, dist, renorm, quantile, nanquantile, histc,
                  histogram, bincount, cov, corrcoef)
