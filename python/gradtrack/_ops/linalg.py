"""Products and contractions written in Python: ``baddbmm``/``addmv``, ``cross``,
``trace``, ``einsum``, ``tensordot``, ``inner`` and ``cdist``, with torch's argument
names, checks and messages. (``gradtrack.linalg``, torch.linalg's namespace, is the
public module ``linalg.py``.)

``baddbmm``, ``addmv``, ``cross``, ``trace`` and ``cdist`` call one C++ entry each
(``_C._ops``, ``_C._resample``), which records torch's node. ``einsum`` and
``tensordot`` are permute/reshape/``bmm`` compositions, as torch's own are, so their
gradients come from those ops. ``mm``, ``bmm``, ``mv``, ``dot``, ``outer``,
``matmul`` and ``addmm`` are bound in C++ as they are.

>>> import gradtrack
>>> gradtrack.trace(gradtrack.eye(3))
tensor(3.)
"""

import builtins
import math
import operator
import string
import warnings

from .. import _C
from .._autocast import runs_in_float32
from .._dtype_names import CPP_NAME, dtype_key
from ..autograd._named_nodes import _has_tangent, composite_node
from . import methods, number
from .scan_sort import _dt  # torch's scalar type names, as its distance checks print them

_E = _C._ops
_R = _C._resample

BOUND = ("mm", "bmm", "mv", "dot", "outer", "matmul", "addmm")


@runs_in_float32
def trace(input):  # noqa: A002
    """The sum of a matrix's main diagonal."""
    return _E.trace(input)


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):  # noqa: A002
    """``beta * input + alpha * (batch1 @ batch2)`` for batches of matrices."""
    return _E.baddbmm(input, batch1, batch2, beta, alpha)


def addmv(input, mat, vec, *, beta=1, alpha=1):  # noqa: A002
    """``beta * input + alpha * (mat @ vec)``."""
    return _E.addmv(input, mat, vec, beta, alpha)


def addr(input, vec1, vec2, *, beta=1, alpha=1):  # noqa: A002
    """``beta * input + alpha * outer(vec1, vec2)`` (AddrBackward0).

    >>> import gradtrack
    >>> gradtrack.addr(gradtrack.zeros(2, 2), gradtrack.tensor([1., 2.]), gradtrack.tensor([3., 4.]))
    tensor([[3., 4.],
            [6., 8.]])
    """
    return _E.addr(input, vec1, vec2, number(beta, "addr", "beta"), number(alpha, "addr", "alpha"))


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):  # noqa: A002
    """``beta * input + alpha * sum(batch1[i] @ batch2[i])`` over the batch (AddbmmBackward0).

    >>> import gradtrack
    >>> gradtrack.addbmm(gradtrack.zeros(1, 1), gradtrack.ones(3, 1, 2), gradtrack.ones(3, 2, 1))
    tensor([[6.]])
    """
    return _E.addbmm(input, batch1, batch2, number(beta, "addbmm", "beta"),
                     number(alpha, "addbmm", "alpha"))


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


def inner(input, other):  # noqa: A002
    """Sums products over the last dims of both tensors (a scalar times a tensor when
    one is 0-d).

    >>> import gradtrack
    >>> gradtrack.inner(gradtrack.tensor([1., 2.]), gradtrack.tensor([3., 4.]))
    tensor(11.)
    """
    if input.dim() == 0 or other.dim() == 0:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(
            "inner() the last dimension must match on both input tensors but got shapes "
            f"{list(input.shape)} and {list(other.shape)}")
    return tensordot(input, other, ([-1], [-1]))


_COMPUTE_MODES = {"use_mm_for_euclid_dist_if_necessary": 0, "use_mm_for_euclid_dist": 1,
                  "donot_use_mm_for_euclid_dist": 2}


@runs_in_float32
def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """The ``p``-norm distance between each row of ``x1`` and each row of
    ``x2`` (batched over leading dims, which broadcast). For ``p=2``,
    ``compute_mode`` picks torch's matrix-multiply path (used by default when
    either side has more than 25 rows).

    >>> import gradtrack
    >>> gradtrack.cdist(gradtrack.tensor([[0., 0.]]), gradtrack.tensor([[3., 4.], [1., 0.]]))
    tensor([[5., 1.]])
    """
    if compute_mode not in _COMPUTE_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    if x1.dim() >= 2 and x2.dim() >= 2 and x1.dtype != x2.dtype and x1.shape[-1] == x2.shape[-1]:
        if x1.is_floating_point() and x2.is_floating_point():
            raise RuntimeError(f"expected scalar type {_dt(x1)} but found {_dt(x2)}")
    return _R.cdist(x1, x2, builtins.float(p), _COMPUTE_MODES[compute_mode])


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


_SUBSCRIPTS = string.ascii_uppercase + string.ascii_lowercase  # a sublist's 0..51


def _subscript(n):
    """One sublist item as equation text: 0-25 are A-Z, 26-51 a-z, ``Ellipsis`` is
    ``...``."""
    if n is Ellipsis:
        return "..."
    # n >= 0 first: a non-number fails with the message of that comparison
    if not (n >= 0 and n < len(_SUBSCRIPTS)):
        raise ValueError("einsum(): subscript in subscript list is not within the valid "
                         "range [0, 52)")
    return _SUBSCRIPTS[operator.index(n)]


def _from_sublists(args):
    """``(op1, sublist1, op2, sublist2, ..., [output sublist])`` as (equation, operands):
    an odd count of arguments ends with the output's sublist."""
    paired = len(args) - len(args) % 2
    text = ",".join("".join(map(_subscript, sub)) for sub in args[1:paired:2])
    if paired != len(args):
        text += "->" + "".join(map(_subscript, args[-1]))
    return text, args[0:paired:2]


def _einsum_arguments(args):
    """(equation, operands) of either form: ``(equation, *operands)`` (the operands
    may come as one list) or the sublist form (:func:`_from_sublists`)."""
    if len(args) < 2:
        raise ValueError("einsum(): must specify the equation string and at least one operand, "
                         "or at least one operand and its subscripts list")
    if isinstance(args[0], _C.Tensor):
        equation, operands = _from_sublists(args)
    else:
        equation, *operands = args
        if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            # the older call, all operands in one list: read it as if spread out
            return _einsum_arguments((equation, *operands[0]))
    if not isinstance(equation, str):
        raise TypeError("einsum(): argument 'equation' (position 1) must be str, not "
                        f"{type(equation).__name__}")
    for i, x in enumerate(operands):
        if not isinstance(x, _C.Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 1, but got "
                            f"{type(x).__name__}")
    return equation, tuple(operands)


def _einsum_terms(lhs, count):
    """Each operand's subscripts (``...`` one item), read as torch reads them."""
    terms, i = [[]], 0
    while i < len(lhs):
        c = lhs[i]
        if c == ".":
            if "..." in terms[-1]:
                raise RuntimeError(f"einsum(): found '.' for operand {len(terms) - 1} for which "
                                   "an ellipsis was already found")
            if lhs[i:i + 3] != "...":
                raise RuntimeError(f"einsum(): found '.' for operand {len(terms) - 1} that is not "
                                   "part of any ellipsis")
            terms[-1].append("...")
            i += 3
            continue
        if c == ",":
            if len(terms) == count:
                raise RuntimeError("einsum(): fewer operands were provided than specified in the "
                                   "equation")
            terms.append([])
        elif c in string.ascii_letters:
            terms[-1].append(c)
        elif c != " ":
            raise RuntimeError(f"einsum(): invalid subscript given at index {i} in the equation "
                               "string, subscripts must be in [a-zA-Z]")
        i += 1
    if len(terms) < count:
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    return terms


def _einsum_check_output(rhs, at, terms):
    given, out, i = {c for t in terms for c in t}, [], 0
    while i < len(rhs):
        c = rhs[i]
        if c == ".":
            if "..." in out:
                raise RuntimeError("einsum(): found '.' for output but an ellipsis (...) was "
                                   "already found")
            if rhs[i:i + 3] != "...":
                raise RuntimeError("einsum(): found '.' for output that is not part of any "
                                   "ellipsis (...)")
            out.append("...")
            i += 3
            continue
        if c != " ":
            if c not in string.ascii_letters:
                raise RuntimeError(f"einsum(): invalid subscript given at index {at + i} in the "
                                   "equation string, subscripts must be in [a-zA-Z]")
            if c not in given:
                raise RuntimeError(f"einsum(): output subscript {c} does not appear in the "
                                   "equation for any input operand")
            if c in out:
                raise RuntimeError(f"einsum(): output subscript {c} appears more than once in "
                                   "the output")
            out.append(c)
        i += 1


def _einsum_check_sizes(terms, operands):
    """Repeated subscripts of one operand agree; a subscript, and each dim under ``...``
    (right-aligned across operands), broadcasts across operands."""
    covered = [x.dim() - len(t) + 1 if "..." in t else 0 for t, x in zip(terms, operands)]
    ell = [1] * builtins.max(covered, default=0)
    sizes = {}
    for k, (t, x) in enumerate(zip(terms, operands)):
        shape, d, own = tuple(x.shape), 0, {}
        for c in t:
            if c == "...":
                for j, s in enumerate(shape[d:d + covered[k]]):
                    slot = len(ell) - covered[k] + j
                    if s != 1 and ell[slot] not in (1, s):
                        raise RuntimeError(
                            f"einsum(): dimension {d + j} covered by ellipsis in operand {k}has size "
                            f"{s} which does not broadcast with previously seen ellipsis with "
                            f"size {ell[slot]} for the respective dimension")
                    ell[slot] = s if s != 1 else ell[slot]
                d += covered[k]
                continue
            s, d = shape[d], d + 1
            if c in own:
                if s != own[c]:
                    raise RuntimeError(f"einsum(): subscript {c} is repeated for operand {k} but "
                                       f"the sizes don't match, {s} != {own[c]}")
                continue
            own[c] = s
            if s != 1 and sizes.get(c, 1) not in (1, s):
                raise RuntimeError(f"einsum(): subscript {c} has size {s} for operand {k} which "
                                   f"does not broadcast with previously seen size {sizes[c]}")
            sizes[c] = s if s != 1 else sizes.get(c, 1)


def _einsum_check(equation, operands):
    """torch's checks of an equation against its operands, in torch's order and words."""
    lhs, arrow, rhs = equation.partition("->")
    terms = _einsum_terms(lhs, len(operands))
    for k, (t, x) in enumerate(zip(terms, operands)):
        n = len(t) - ("..." in t)
        if "..." in t and n > x.dim():
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({n}) is more "
                               f"than the number of dimensions ({x.dim()}) for operand {k}")
        if "..." not in t and n != x.dim():
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({n}) does not "
                               f"match the number of dimensions ({x.dim()}) for operand {k} and "
                               "no ellipsis was given")
    if arrow:
        _einsum_check_output(rhs, len(lhs) + 2, terms)
    _einsum_check_sizes(terms, operands)


def einsum(*args):
    """Einstein summation: ``einsum('ij,jk->ik', a, b)``, ``...`` standing
    for broadcast dims (``einsum('...ij,...jk', a, b)``), computed with
    permute, reshape, sum and bmm. The sublist form gives each operand's
    subscripts as a list of ints in [0, 52) (``Ellipsis`` for ``...``), an
    optional output list last: ``einsum(a, [0, 1], b, [1, 2], [0, 2])``.

    >>> import gradtrack
    >>> gradtrack.einsum('ij->j', gradtrack.ones(2, 3))
    tensor([2., 2., 2.])
    >>> gradtrack.einsum(gradtrack.ones(2, 3), [0, 1], gradtrack.ones(3), [1], [0])
    tensor([3., 3.])
    """
    equation, operands = _einsum_arguments(args)
    _einsum_check(equation, operands)
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


# ---- chains of products -------------------------------------------------------------------

def _chain_order(dims):
    """The split points of the cheapest parenthesization of a chain of matrices whose
    sizes are dims[i] x dims[i + 1] (the textbook dynamic program, first best split kept)."""
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for span in range(1, n):
        for i in range(n - span):
            j = i + span
            cost[i][j] = None
            for k in range(i, j):
                q = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if cost[i][j] is None or q < cost[i][j]:
                    cost[i][j], split[i][j] = q, k
    return split


def _multiply(mats, split, i, j):
    if i == j:
        return mats[i]
    k = split[i][j]
    return _C.mm(_multiply(mats, split, i, k), _multiply(mats, split, k + 1, j))


_WARNED = []


def chain_matmul(*matrices):
    """The product of two or more matrices, in the order of fewest multiplications
    (deprecated in torch for ``linalg.multi_dot``, with the same warning).

    >>> import gradtrack
    >>> gradtrack.chain_matmul(gradtrack.ones(2, 3), gradtrack.ones(3, 4), gradtrack.ones(4, 1))
    tensor([[12.],
            [12.]])
    """
    if not _WARNED:  # torch warns once per process
        _WARNED.append(True)
        warnings.warn("torch.chain_matmul is deprecated and will be removed in a future PyTorch "
                      "release. Use torch.linalg.multi_dot instead, which accepts a list of two "
                      "or more tensors rather than multiple parameters.", UserWarning,
                      stacklevel=2)
    if len(matrices) == 1 and isinstance(matrices[0], (list, tuple)):
        matrices = tuple(matrices[0])
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for m in matrices:
        if m.dim() != 2:
            raise RuntimeError(f"Tensor dimension is {m.dim()}, expected 2 instead.")
    if len(matrices) == 1:
        result = matrices[0].clone()
    else:
        for i, m in enumerate(matrices[1:], 1):
            if m.dtype != matrices[0].dtype:
                names = [CPP_NAME[dtype_key(t.dtype)] for t in (matrices[0], m)]
                raise RuntimeError("multi_dot(): all tensors must have be the same dtype but "
                                   f"tensor 0 is {names[0]} and tensor {i} {names[1]}")
            if matrices[i - 1].shape[1] != m.shape[0]:
                raise RuntimeError(
                    f"multi_dot(): tensors {i - 1} and {i} with shapes "
                    f"{list(matrices[i - 1].shape)} and {list(m.shape)} cannot be multiplied")
        # torch's multi_dot: two at once, three by comparing both orders, more by the
        # dynamic program; then a view to the result's shape
        dims = [m.shape[0] for m in matrices] + [matrices[-1].shape[1]]
        if len(matrices) == 3:
            a, b, c, d = dims
            first = (a * c) * (b + d) <= (b * d) * (a + c)
            split = [[0, 0, 1], [0, 0, 1], [0, 0, 0]] if first else [[0, 0, 0], [0, 0, 1],
                                                                    [0, 0, 0]]
        else:
            split = _chain_order(dims)
        product = _multiply(matrices, split, 0, len(matrices) - 1)
        result = product.view(dims[0], dims[-1])
    return result


def vdot(input, other):  # noqa: A002 - torch's names
    """The dot product of two 1-D tensors (for real numbers, :func:`dot`), recorded as
    torch's ``VdotBackward0``.

    >>> import gradtrack
    >>> gradtrack.vdot(gradtrack.tensor([1.0, 2.0]), gradtrack.tensor([3.0, 4.0]))
    tensor(11.)
    """
    if _graphless((input, other)):
        return input.dot(other)
    return _vdot(input, other)


def ger(input, vec2):  # noqa: A002 - torch's names
    """The outer product of two 1-D tensors: torch's older name of :func:`outer`.

    >>> import gradtrack
    >>> gradtrack.ger(gradtrack.tensor([1.0, 2.0]), gradtrack.tensor([3.0, 4.0]))
    tensor([[3., 4.],
            [6., 8.]])
    """
    return input.outer(vec2)


def cholesky_inverse(input, upper=False):  # noqa: A002 - torch's name
    """The inverse of ``A`` from its Cholesky factor: ``(L L^T)^-1``, or ``(U^T U)^-1``
    when ``upper``; batches of matrices too.

    >>> import gradtrack
    >>> gradtrack.cholesky_inverse(gradtrack.tensor([[2.0, 0.0], [1.0, 1.0]]))
    tensor([[ 0.5000, -0.5000],
            [-0.5000,  1.0000]])
    """
    L = input  # noqa: N806 - the math's name
    if L.dim() < 2:
        raise RuntimeError("cholesky_inverse: The input tensor A must have at least 2 "
                           "dimensions.")
    if L.shape[-1] != L.shape[-2]:
        raise RuntimeError(f"cholesky_inverse: A must be batches of square matrices, but they "
                           f"are {L.shape[-2]} by {L.shape[-1]} matrices")
    if _graphless((L,)):
        return _cholesky_inverse_value(L, upper).data  # a tensor of its own, not a view
    return _cholesky_inverse(L, upper)


def _cholesky_inverse_value(L, upper):  # noqa: N803 - the math's name
    eye = _C.eye(L.shape[-1], dtype=L.dtype).expand(*L.shape)
    # torch's result is laid out column-major (LAPACK's potri writes it so); the matrix is
    # symmetric, so the transposed copy's transpose holds the same values
    return eye.cholesky_solve(L, upper).mT.contiguous().mT


# NOTE [vdot and cholesky_inverse name their nodes]
# torch gives both a node of its own (VdotBackward0, CholeskyInverseBackward0) with the
# gradient of the composition here: one named composite node each. Forward-mode AD runs
# the composition: for cholesky_inverse its tangent is the derivative (finite differences
# agree), where torch 2.13's own formula is not (tests/ops/test_forward_ad_table.py).
_vdot = composite_node("VdotBackward0", lambda a, b: a.dot(b), differentiable=2)


def _graphless(tensors):
    # nothing to record: the plain computation, without the named node's Function
    return not (_C.is_grad_enabled() and any(t.requires_grad for t in tensors)) \
        and not _has_tangent(tensors)
_cholesky_inverse = composite_node("CholeskyInverseBackward0", _cholesky_inverse_value)




FUNCTIONS = (trace, baddbmm, addmv, cross, einsum, tensordot, inner, cdist, addr, addbmm,
             chain_matmul, vdot, ger, cholesky_inverse)
METHODS = methods(trace, baddbmm, addmv, cross, inner, addr, addbmm, vdot, ger,
                  cholesky_inverse)
