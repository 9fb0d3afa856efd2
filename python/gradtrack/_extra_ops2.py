"""More round-2 tensor ops (issue 19): order statistics, diagonals,
nan_to_num, lerp, norms, baddbmm/addmv, cross, einsum, tensordot,
isclose/allclose and one_hot, with torch's argument names and defaults.

>>> import gradtrack
>>> gradtrack.trace(gradtrack.eye(3))
tensor(3.)
"""

import builtins
import math
import string
import warnings

from . import _C, return_types

_E = _C._ops


def kthvalue(input, k, dim=-1, keepdim=False):  # noqa: A002 - torch's argument name
    """The k-th smallest element along ``dim`` and its index.

    >>> import gradtrack
    >>> gradtrack.kthvalue(gradtrack.tensor([3., 1., 2.]), 2).values
    tensor(2.)
    """
    return return_types.kthvalue(_E.kthvalue(input, k, dim, keepdim))


def median(input, dim=None, keepdim=False):  # noqa: A002
    """The lower median of all elements, or (values, indices) along ``dim``;
    NaN wins (a line holding NaN has median NaN).

    >>> import gradtrack
    >>> gradtrack.median(gradtrack.tensor([4., 1., 3., 2.]))
    tensor(2.)
    """
    result = _E.median(input, dim, keepdim)
    return return_types.median(result) if isinstance(result, tuple) else result


def mode(input, dim=-1, keepdim=False):  # noqa: A002
    """The most frequent value along ``dim`` (the smallest of a tie) and the
    last index holding it.

    >>> import gradtrack
    >>> gradtrack.mode(gradtrack.tensor([3, 1, 3, 1, 2])).values
    tensor(1)
    """
    return return_types.mode(_E.mode(input, dim, keepdim))


def diagonal(input, offset=0, dim1=0, dim2=1):  # noqa: A002
    """A view of the diagonal ``offset`` of the dims ``dim1``, ``dim2``
    (which move to the end).

    >>> import gradtrack
    >>> gradtrack.diagonal(gradtrack.eye(2))
    tensor([1., 1.])
    """
    return _E.diagonal(input, offset, dim1, dim2, False)


def diag_embed(input, offset=0, dim1=-2, dim2=-1):  # noqa: A002
    """Zeros with the last dim of ``input`` on the diagonal of ``dim1``, ``dim2``.

    >>> import gradtrack
    >>> gradtrack.diag_embed(gradtrack.tensor([1., 2.]))
    tensor([[1., 0.],
            [0., 2.]])
    """
    return _E.diag_embed(input, offset, dim1, dim2)


def diag(input, diagonal=0):  # noqa: A002
    """A matrix with the 1-D ``input`` on a diagonal, or a 2-D input's diagonal (a copy).

    >>> import gradtrack
    >>> gradtrack.diag(gradtrack.tensor([[1, 2], [3, 4]]))
    tensor([1, 4])
    """
    if input.dim() == 1:
        return _E.diag_embed(input, diagonal, 0, 1)
    if input.dim() == 2:
        return _E.diagonal(input, diagonal, 0, 1, True)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.dim()}D")


def trace(input):  # noqa: A002
    """The sum of a matrix's main diagonal."""
    return _E.trace(input)


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):  # noqa: A002
    """NaN, +inf and -inf replaced by ``nan``, ``posinf`` and ``neginf``
    (by default 0 and the dtype's largest and lowest finite values).

    >>> import gradtrack
    >>> gradtrack.nan_to_num(gradtrack.tensor([float('nan'), 1.]))
    tensor([0., 1.])
    """
    return _E.nan_to_num(input, nan, posinf, neginf)


def lerp(input, end, weight):  # noqa: A002
    """``input + weight * (end - input)``; ``weight`` a number or a tensor.

    >>> import gradtrack
    >>> gradtrack.lerp(gradtrack.tensor([0.]), gradtrack.tensor([10.]), 0.25)
    tensor([2.5000])
    """
    return _E.lerp(input, end, weight)


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):  # noqa: A002
    """``beta * input + alpha * (batch1 @ batch2)`` for batches of matrices."""
    return _E.baddbmm(input, batch1, batch2, beta, alpha)


def addmv(input, mat, vec, *, beta=1, alpha=1):  # noqa: A002
    """``beta * input + alpha * (mat @ vec)``."""
    return _E.addmv(input, mat, vec, beta, alpha)


def cross(input, other, dim=None):  # noqa: A002
    """The cross product along ``dim`` (by default the first dim of size 3,
    with torch's deprecation warning; :func:`linalg.cross` uses the last)."""
    if dim is None:
        warnings.warn(
            "Using torch.cross without specifying the dim arg is deprecated.\n"
            "Please either pass the dim explicitly or simply use torch.linalg.cross.\n"
            "The default value of dim will change to agree with that of linalg.cross in a "
            "future release.", UserWarning, stacklevel=2)
        sizes = _C._broadcast_shape(list(input.shape), list(other.shape))
        dim = next((i for i, s in enumerate(sizes) if s == 3), -1)
    return _E.cross(input, other, dim)


def _norm_dims(dim):
    return None if dim is None else (dim,) if isinstance(dim, builtins.int) else tuple(dim)


def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):  # noqa: A002
    """torch.norm: the 2-norm (``'fro'``) or the ``p``-norm over ``dim``.

    >>> import gradtrack
    >>> gradtrack.norm(gradtrack.tensor([3., 4.]))
    tensor(5.)
    """
    if out is not None:
        from . import _out
        return _out.call("norm", norm, (input, p, dim, keepdim), {"dtype": dtype}, out)
    if dtype is not None:
        input = input.to(dtype)
    if p is None or p == "fro":
        p = 2
    if isinstance(p, str):
        raise NotImplementedError(f"gradtrack: norm with p='{p}' is not implemented")
    return _E.vector_norm(input, float(p), _norm_dims(dim), keepdim)


def _isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):  # noqa: A002
    if input.dtype is not other.dtype:
        from ._dtype_names import SCALAR_NAME, dtype_key
        raise RuntimeError(f"{SCALAR_NAME[dtype_key(input.dtype)]} did not match "
                           f"{SCALAR_NAME[dtype_key(other.dtype)]}")
    equal = input == other
    if input.dtype is _C.bool:
        return _isclose_version(equal, rtol, atol, False)
    a, b = (input, other) if input.dtype.is_floating_point else (input.double(), other.double())
    from .autograd.grad_mode import no_grad
    with no_grad():
        close = equal | ((a - b).abs() <= atol + rtol * b.abs())
        if equal_nan:
            close = close | (a.isnan() & b.isnan())
    return _isclose_version(close, rtol, atol, equal_nan and input.dtype.is_floating_point)


def _isclose_version(close, rtol, atol, equal_nan):
    """``close`` with torch's _version: its isclose ORs into ``self == other`` in place, once
    for equal_nan (float inputs) and once for the tolerance test (skipped when both tolerances are 0)."""
    view = close.detach().unsqueeze(0)[:0]  # an empty view of any layout: counts, writes nothing
    for _ in range(builtins.int(builtins.bool(equal_nan)) + builtins.int(rtol != 0 or atol != 0)):
        view.zero_()
    return close


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):  # noqa: A002
    """Elementwise ``|input - other| <= atol + rtol * |other|`` (or equal;
    NaNs equal only with ``equal_nan``).

    >>> import gradtrack
    >>> gradtrack.isclose(gradtrack.tensor([1., 2.]), gradtrack.tensor([1., 2.1]))
    tensor([ True, False])
    """
    return _isclose(input, other, rtol, atol, equal_nan)


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):  # noqa: A002
    """True if every element of :func:`isclose` is.

    >>> import gradtrack
    >>> gradtrack.allclose(gradtrack.tensor([1.]), gradtrack.tensor([1. + 1e-9]))
    True
    """
    return builtins.bool(_isclose(input, other, rtol, atol, equal_nan).all())


def one_hot(input, num_classes=-1):  # noqa: A002 - the name torch's parser takes
    """Class indices (int64) as one-hot rows of ``num_classes`` (by default
    the largest index + 1).

    >>> import gradtrack
    >>> gradtrack.nn.functional.one_hot(gradtrack.tensor([0, 2]), 3)
    tensor([[1, 0, 0],
            [0, 0, 1]])
    """
    tensor = input
    if tensor.dtype is not _C.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if tensor.numel() > 0:
        if builtins.bool((tensor < 0).any()):
            raise RuntimeError("Class values must be non-negative.")
        top = builtins.int(tensor.max())
        if num_classes == -1:
            num_classes = top + 1
        elif top >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
    elif num_classes == -1:
        raise RuntimeError("Can not infer total number of classes from empty tensor.")
    out = _C.zeros(tuple(tensor.shape) + (num_classes,), dtype=_C.int64)
    if tensor.numel() > 0:
        # torch's result has _version 2 (its zeros is zero-filled in place, then scattered):
        # an in-place zero_ of an empty view of it adds that write without touching values.
        out.detach().unsqueeze(0)[:0].zero_()
        out.scatter_(-1, tensor.unsqueeze(-1), 1)
    return out


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    """The distinct elements of ``input`` (flattened), in ascending order, and
    optionally the index of each element's value among them and their counts.

    >>> import gradtrack
    >>> gradtrack.unique(gradtrack.tensor([3, 1, 3, 2]), return_counts=True)
    (tensor([1, 2, 3]), tensor([1, 1, 2]))
    """
    if dim is not None:
        raise NotImplementedError("gradtrack: unique(dim=...) is not implemented")
    from .autograd.grad_mode import no_grad
    with no_grad():
        flat = input.reshape(-1)
        values, order = _E.sort(flat, 0, False, False)
        n = flat.numel()
        if n > 0:
            change = _C.ones(n, dtype=_C.bool)
            change[1:] = values[1:] != values[:-1]
            uniq = values[change]
            group = change.cumsum(0) - 1
        else:
            uniq, group = values, _C.zeros(0, dtype=_C.int64)
        out = [uniq]
        if return_inverse:
            inverse = _C.zeros(n, dtype=_C.int64).scatter_(0, order, group)
            out.append(inverse.reshape(tuple(input.shape)))
        if return_counts:
            out.append(_C.zeros(uniq.numel(), dtype=_C.int64).scatter_add_(
                0, group, _C.ones(n, dtype=_C.int64)))
    return out[0] if len(out) == 1 else tuple(out)


def _repeat_index(repeats):
    """[0, 0, 1, 2, 2, ...]: each position i repeated repeats[i] times."""
    if repeats.dim() != 1 or repeats.dtype not in (_C.int64, _C.int32):
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    if repeats.numel() and builtins.bool((repeats < 0).any()):
        raise RuntimeError("repeats can not be negative")
    repeats = repeats.long()
    total = builtins.int(repeats.sum()) if repeats.numel() else 0
    marks = _C.zeros(total + 1, dtype=_C.int64)
    if repeats.numel() > 1:
        marks.scatter_add_(0, repeats.cumsum(0)[:-1], _C.ones(repeats.numel() - 1, dtype=_C.int64))
    return marks.cumsum(0)[:total]


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):  # noqa: A002
    """Each element (or slice along ``dim``) repeated ``repeats`` times in place;
    with one int tensor argument, its positions repeated by its values.

    >>> import gradtrack
    >>> gradtrack.tensor([1, 2]).repeat_interleave(2)
    tensor([1, 1, 2, 2])
    """
    from .autograd.grad_mode import no_grad
    if repeats is None:
        with no_grad():
            return _repeat_index(input)
    if dim is None:
        input, dim = input.reshape(-1), 0
    dim = dim % builtins.max(input.dim(), 1)
    if isinstance(repeats, _C.Tensor) and repeats.numel() == 1 and repeats.dim() <= 1:
        repeats = builtins.int(repeats)
    if isinstance(repeats, builtins.int):
        if repeats < 0:
            raise RuntimeError("Repeats must be non-negative")
        sizes = list(input.shape)
        wide = input.unsqueeze(dim + 1).expand(*sizes[:dim + 1], repeats, *sizes[dim + 1:])
        return wide.contiguous().flatten(dim, dim + 1)
    if repeats.numel() != input.shape[dim]:
        raise RuntimeError(
            "repeats must have the same size as input along dim, but got repeats.size(0) = "
            f"{repeats.numel()} and input.size({dim}) = {input.shape[dim]}")
    with no_grad():
        index = _repeat_index(repeats)
    return input.index_select(dim, index)


# ---- einsum and tensordot: permute/reshape/bmm, so their gradients come from those ops ----

def _einsum_parse(equation, operands):
    """The terms and output with each ``...`` replaced by letters of their
    own (right-aligned across operands, as broadcasting aligns dims)."""
    equation = equation.replace(" ", "")
    n = len(operands)
    lhs, arrow, out = equation.partition("->")
    terms = lhs.split(",")
    if len(terms) != n:
        raise RuntimeError(
            "einsum(): more operands were provided than specified in the equation"
            if len(terms) < n else
            "einsum(): fewer operands were provided than specified in the equation")
    spare = [c for c in string.ascii_letters if c not in equation]
    ell = builtins.max([x.dim() - (len(t) - 3) for t, x in zip(terms, operands) if "..." in t],
                       default=0)
    ell = builtins.max(ell, 0)
    letters = "".join(spare[:ell])
    for i, (t, x) in enumerate(zip(terms, operands)):
        if "..." in t:
            k = builtins.max(x.dim() - (len(t) - 3), 0)
            terms[i] = t.replace("...", letters[ell - k:])
    if arrow:
        out = out.replace("...", letters)
    else:
        singles = "".join(terms)
        out = letters + "".join(sorted(c for c in set(singles)
                                       if singles.count(c) == 1 and c not in letters))
    return terms, out


def _broadcast_letters(xs):
    """Expands size-1 dims to the size their letter has in other operands."""
    size = {}
    for x, sub in xs:
        for c, s in zip(sub, x.shape):
            if s != 1:
                size[c] = s
    out = []
    for x, sub in xs:
        want = tuple(size.get(c, 1) for c in sub)
        out.append((x.expand(want) if want != tuple(x.shape) else x, sub))
    return out


def _take_diagonals(x, sub):
    """Repeated letters in one operand ('ii') select a diagonal."""
    while len(set(sub)) < len(sub):
        for i, c in enumerate(sub):
            j = sub.find(c, i + 1)
            if j >= 0:
                x = _E.diagonal(x, 0, i, j, False)
                sub = sub[:i] + sub[i + 1:j] + sub[j + 1:] + c
                break
    return x, sub


def _sum_unused(x, sub, keep):
    dims = [i for i, c in enumerate(sub) if c not in keep]
    if dims:
        x = x.sum(tuple(dims))
        sub = "".join(c for c in sub if c in keep)
    return x, sub


def _aligned(x, sub, order, size):
    """``x`` permuted to the letters of ``order``, size 1 where it has none."""
    x = x.permute(tuple(sub.index(c) for c in order if c in sub))
    return x.reshape(tuple(size[c] if c in sub else 1 for c in order))


def _contract(a, sa, b, sb, keep, order=None):
    """a (subscripts sa) times b (sb), summing the letters not in ``keep``;
    a product with no sum comes out in ``order`` when given (torch's last node
    is then the product itself, not a permute after it)."""
    batch = [c for c in sa if c in sb and c in keep]
    summed = [c for c in sa if c in sb and c not in keep]
    left = [c for c in sa if c not in sb]
    right = [c for c in sb if c not in sa]
    size = {c: a.shape[sa.index(c)] for c in sa}
    size.update({c: b.shape[sb.index(c)] for c in sb})
    if not summed and order is not None and set(order) == set(sa + sb):
        return _aligned(a, sa, order, size) * _aligned(b, sb, order, size), order
    if not summed:
        # No sum: a broadcasting product (MulBackward0, as torch's).
        pa = a.permute(tuple(sa.index(c) for c in batch + left))
        pb = b.permute(tuple(sb.index(c) for c in batch + right))
        pa = pa.reshape(tuple(pa.shape) + (1,) * len(right))
        pb = pb.reshape(tuple(size[c] for c in batch) + (1,) * len(left) +
                        tuple(size[c] for c in right))
        return pa * pb, "".join(batch + left + right)
    pa = a.permute(tuple(sa.index(c) for c in batch + left + summed))
    pb = b.permute(tuple(sb.index(c) for c in batch + summed + right))
    nb, nl, ns, nr = (math.prod(size[c] for c in group) for group in (batch, left, summed, right))
    r = pa.reshape(nb, nl, ns).bmm(pb.reshape(nb, ns, nr))
    return r.reshape(tuple(size[c] for c in batch + left + right)), "".join(batch + left + right)


def einsum(*args):
    """Einstein summation: ``einsum('ij,jk->ik', a, b)``, ``...`` standing
    for broadcast dims (``einsum('...ij,...jk', a, b)``), computed with
    permute, reshape, sum and bmm.

    >>> import gradtrack
    >>> gradtrack.einsum('ij->j', gradtrack.ones(2, 3))
    tensor([2., 2., 2.])
    """
    equation, operands = args[0], args[1:]
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    raw = equation.replace(" ", "").partition("->")[0].split(",")
    terms, out = _einsum_parse(equation, operands)
    xs = []
    for x, sub, given in zip(operands, terms, raw):
        if len(sub) != x.dim():
            if "..." in given:
                raise RuntimeError(
                    f"einsum(): the number of subscripts in the equation ({len(given) - 3}) is "
                    f"more than the number of dimensions ({x.dim()}) for operand {len(xs)}")
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({len(sub)}) does not match "
                f"the number of dimensions ({x.dim()}) for operand {len(xs)} and no ellipsis "
                "was given")
        xs.append(_take_diagonals(x, sub))
    xs = _broadcast_letters(xs)
    x, sub = xs[0]
    if len(xs) == 1:
        # torch permutes the operand to (output letters, summed letters) and
        # sums the trailing ones: its last node is the sum, else the permute.
        summed = [c for c in sub if c not in out]
        x = x.permute(tuple(sub.index(c) for c in out + "".join(summed)))
        return x.sum(tuple(range(len(out), len(sub)))) if summed else x
    for i, (y, sy) in enumerate(xs[1:], start=1):
        later = set(out).union(*[s for _, s in xs[i + 1:]])
        x, sub = _sum_unused(x, sub, later | set(sy))
        y, sy = _sum_unused(y, sy, later | set(sub))
        x, sub = _contract(x, sub, y, sy, later, out if i == len(xs) - 1 else None)
    x, sub = _sum_unused(x, sub, set(out))
    if sub != out:
        x = x.permute(tuple(sub.index(c) for c in out))
    if any(c not in out for t in terms for c in t) and _node_name(x) != "ViewBackward0":
        # torch drops the summed (size-1) dims of its last product with a view
        x = x.view(tuple(x.shape))
    return x


def _node_name(x):
    return None if x.grad_fn is None else type(x.grad_fn).__name__


def tensordot(a, b, dims=2, out=None):
    """Sums the products of ``a``'s and ``b``'s elements over ``dims`` (a
    count of a's last / b's first dims, or two lists of dims)."""
    if out is not None:
        raise NotImplementedError("gradtrack: tensordot(out=...) is not implemented")
    if isinstance(dims, builtins.int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        da, db = list(range(a.dim() - dims, a.dim())), list(range(dims))
    else:
        da, db = ([d] if isinstance(d, builtins.int) else list(d) for d in dims)
    da = [d % a.dim() for d in da]
    db = [d % b.dim() for d in db]
    for x, y in zip(da, db):
        if a.shape[x] != b.shape[y]:
            raise RuntimeError(
                f"contracted dimensions need to match, but first has size {a.shape[x]} in dim "
                f"{x} and second has size {b.shape[y]} in dim {y}")
    fa = [d for d in range(a.dim()) if d not in da]
    fb = [d for d in range(b.dim()) if d not in db]
    k = math.prod(a.shape[d] for d in da)
    ma = a.permute(tuple(fa + da)).reshape(-1, k) if a.dim() else a.reshape(1, 1)
    mb = b.permute(tuple(db + fb)).reshape(k, -1) if b.dim() else b.reshape(1, 1)
    return ma.mm(mb).reshape(tuple(a.shape[d] for d in fa) + tuple(b.shape[d] for d in fb))


def _norm_method(self, p="fro", dim=None, keepdim=False, dtype=None):
    return norm(self, p, dim, keepdim, dtype=dtype)


FUNCTIONS = (kthvalue, median, mode, diagonal, diag_embed, diag, trace, nan_to_num, lerp,
             baddbmm, addmv, cross, norm, isclose, allclose, einsum, tensordot, unique,
             repeat_interleave)


def install(cls):
    """Attaches the methods (``x.median()``, ``x.diagonal()``, ...) to the Tensor class."""
    from ._extra_ops import _method
    for fn in (kthvalue, median, mode, diagonal, diag_embed, diag, trace, nan_to_num, lerp,
               baddbmm, addmv, cross, isclose, allclose, unique, repeat_interleave):
        setattr(cls, fn.__name__, _method(fn))
    _norm_method.__name__ = "norm"
    _norm_method.__doc__ = norm.__doc__
    cls.norm = _norm_method
