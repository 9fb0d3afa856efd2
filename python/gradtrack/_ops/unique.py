"""``unique`` and ``unique_consecutive``, as torch's: the distinct elements (by a
stable sort and a comparison of neighbours), or with ``dim=`` the distinct slices
along ``dim``, which compare as whole rows (lexicographic order; NaN never equals
NaN); the inverse indices and counts refer to those rows.

>>> import gradtrack
>>> gradtrack.unique(gradtrack.tensor([3, 1, 3, 2]))
tensor([1, 2, 3])
"""

from .. import _C

_E = _C._ops


def _unique_flat(input, sorted=True, return_inverse=False, return_counts=False):  # noqa: A002
    """The distinct elements of ``input`` (flattened), in ascending order, and
    optionally the index of each element's value among them and their counts.

    >>> import gradtrack
    >>> gradtrack.unique(gradtrack.tensor([3, 1, 3, 2]), return_counts=True)
    (tensor([1, 2, 3]), tensor([1, 1, 2]))
    """
    with _no_grad():
        flat = input.reshape(-1)
        values, order = _E.sort(flat, 0, False, False, True)  # equal values in place order
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


def _no_grad():
    from ..autograd.grad_mode import no_grad
    return no_grad()


def _rows(input, dim):  # noqa: A002 - torch's argument name
    """``input`` with ``dim`` first, flattened to rows: (rows, moved shape)."""
    if input.dim() == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    n = input.dim()
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but "
                         f"got {dim})")
    dim %= n
    if input.numel() == 0 and input.shape[dim] != 0:
        raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so unique "
                           "cannot be applied")
    moved = input.transpose(0, dim) if dim else input
    cols = 1
    for size in moved.shape[1:]:
        cols *= size
    return moved.reshape(moved.shape[0], cols), tuple(moved.shape), dim


def _lexsort(rows):
    """The permutation that sorts rows lexicographically: stable sorts by
    each column, the last column first."""
    order = _C.arange(rows.shape[0])
    for c in range(rows.shape[1] - 1, -1, -1):
        keys = rows[:, c][order]
        order = order[keys.sort(stable=True)[1]]
    return order


def _groups(rows, input, dim, moved_shape, order, return_inverse, return_counts):
    """The first row of each run of equal consecutive rows, with inverse and
    counts (``order``: the permutation the rows were taken in)."""
    n = rows.shape[0]
    if n > 0:
        change = _C.ones(n, dtype=_C.bool)
        if n > 1:
            change[1:] = (rows[1:] != rows[:-1]).any(1) if rows.shape[1] else False
        group = change.cumsum(0) - 1
        firsts = rows[change]
    else:
        group = _C.zeros(0, dtype=_C.int64)
        firsts = rows
    values = firsts.reshape((firsts.shape[0],) + moved_shape[1:])
    values = values.transpose(0, dim) if dim else values
    out = [values]
    if return_inverse:
        out.append(_C.zeros(n, dtype=_C.int64).scatter_(0, order, group))
    if return_counts:
        out.append(_C.zeros(firsts.shape[0], dtype=_C.int64).scatter_add_(
            0, group, _C.ones(n, dtype=_C.int64)))
    return out[0] if len(out) == 1 else tuple(out)


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    """The distinct elements of ``input`` (or, with ``dim``, its distinct
    slices along ``dim``) in ascending order, optionally with the inverse
    indices and the counts.

    >>> import gradtrack
    >>> gradtrack.unique(gradtrack.tensor([[1, 2], [0, 5], [1, 2]]), dim=0, return_counts=True)
    (tensor([[0, 5],
            [1, 2]]), tensor([1, 2]))
    """
    if dim is None:
        return _unique_flat(input, sorted, return_inverse, return_counts)
    with _no_grad():
        rows, moved_shape, d = _rows(input, dim)
        order = _lexsort(rows) if rows.shape[1] else _C.arange(rows.shape[0])
        return _groups(rows[order], input, d, moved_shape, order, return_inverse, return_counts)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    """Keeps the first element (or slice along ``dim``) of each run of equal
    consecutive ones, optionally with the inverse indices and run lengths.

    >>> import gradtrack
    >>> gradtrack.unique_consecutive(gradtrack.tensor([1, 1, 2, 2, 3, 1]), return_counts=True)
    (tensor([1, 2, 3, 1]), tensor([2, 2, 1, 1]))
    """
    with _no_grad():
        if dim is None:
            flat = input.reshape(-1, 1)
            n = flat.shape[0]
            r = _groups(flat, input, 0, (n,), _C.arange(n), return_inverse, return_counts)
            if not return_inverse:
                return r
            r = list(r)
            r[1] = r[1].reshape(tuple(input.shape))
            return tuple(r)
        rows, moved_shape, d = _rows(input, dim)
        n = rows.shape[0]
        return _groups(rows, input, d, moved_shape, _C.arange(n), return_inverse, return_counts)


def _unique_method(self, sorted=True, return_inverse=False, return_counts=False, dim=None):  # noqa: A002,E501
    return unique(self, sorted, return_inverse, return_counts, dim)


def _unique_consecutive_method(self, return_inverse=False, return_counts=False, dim=None):
    return unique_consecutive(self, return_inverse, return_counts, dim)


for _method, _function in ((_unique_method, unique),
                           (_unique_consecutive_method, unique_consecutive)):
    _method.__name__ = _method.__qualname__ = _function.__name__
    _method.__doc__ = _function.__doc__
del _method, _function

FUNCTIONS = (unique, unique_consecutive)
METHODS = {"unique": _unique_method, "unique_consecutive": _unique_consecutive_method}
