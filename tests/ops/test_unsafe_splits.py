"""torch's ``unsafe_split``, ``unsafe_split_with_sizes`` and ``unsafe_chunk`` (functions
and Tensor methods): pieces that share the input's memory without being views (no
``_base``, a version counter each), their nodes, gradients, double backward, tangents and
refusals, and ``split``'s own checks, compared with torch 2.13 (NOTE [Unsafe splits])."""

import numpy as np
import pytest

import gradtrack

from helpers import both_errors

CALLS = {
    "unsafe_split": lambda lib, x: lib.unsafe_split(x, 2),
    "unsafe_split_dim1": lambda lib, x: lib.unsafe_split(x, 3, 1),
    "unsafe_split_with_sizes": lambda lib, x: lib.unsafe_split_with_sizes(x, [1, 2]),
    "unsafe_split_with_sizes_dim1": lambda lib, x: lib.unsafe_split_with_sizes(x, [1, 0, 3], -1),
    "unsafe_chunk": lambda lib, x: lib.unsafe_chunk(x, 2, 1),
    "unsafe_chunk_empty": lambda lib, x: lib.unsafe_chunk(x[:, :0], 3, 1),
    "Tensor.unsafe_split": lambda lib, x: x.unsafe_split(split_size=2, dim=1),
    "Tensor.unsafe_split_with_sizes": lambda lib, x: x.unsafe_split_with_sizes([2, 1]),
    "Tensor.unsafe_chunk": lambda lib, x: x.unsafe_chunk(chunks=3),
}


def _x(lib):
    values = np.random.default_rng(0).standard_normal((3, 4))
    return lib.tensor(values, dtype=lib.float64, requires_grad=True)


def _facts(t):
    return (t.grad_fn.name() if t.grad_fn is not None else None, t._base is None, t._version,
            tuple(t.shape), t.stride(), t.storage_offset(), t.requires_grad, t.is_leaf)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_pieces_nodes_and_gradients_match_torch(torch, name):
    res = []
    for lib in (gradtrack, torch):
        x = _x(lib)
        outs = CALLS[name](lib, x)
        facts = [_facts(o) for o in outs]
        shared = [o.data_ptr() == x.data_ptr() + o.storage_offset() * 8 for o in outs
                  if o.numel()]
        total = sum(((o * (k + 1)) ** 2).sum() for k, o in enumerate(outs)) + x.sum()
        (g,) = lib.autograd.grad(total, x, create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), x)
        res.append((type(outs).__name__, facts, shared, g.detach().numpy(), gg.numpy()))
    (mine, theirs) = res
    assert mine[:3] == theirs[:3]
    np.testing.assert_allclose(mine[3], theirs[3], rtol=1e-12)
    np.testing.assert_allclose(mine[4], theirs[4], rtol=1e-12)


def test_pieces_are_not_views_and_count_their_own_writes(torch):
    res = []
    for lib in (gradtrack, torch):
        y = lib.arange(12.0).reshape(3, 4)
        a, b = lib.unsafe_split(y, 2)
        a.add_(1)  # writes y's memory, bumps only a's counter
        first = (y.tolist(), a._version, b._version, y._version)
        y.mul_(2)  # and a write to y bumps none of the pieces'
        second = (a.tolist(), a._version, b._version, y._version)
        x = _x(lib)
        p, q = lib.unsafe_split(x * 1, 2)
        p.mul_(3)  # no view write: the piece's own node, no CopySlices
        (g,) = lib.autograd.grad(p.sum() + q.sum(), x)
        with lib.no_grad():
            n = lib.unsafe_chunk(x, 2)[0]
        res.append((first, second, p.grad_fn.name(), p._version, g.tolist(),
                    (n.requires_grad, n._base is None, n._version)))
    assert res[0] == res[1]


def test_unused_pieces_get_zero_gradients_and_tangents_are_pieces(torch):
    res = []
    for lib in (gradtrack, torch):
        x = _x(lib)
        pieces = lib.unsafe_split(x, 1)
        (g,) = lib.autograd.grad(pieces[1].sum(), x)
        fw = lib.autograd.forward_ad
        with fw.dual_level():
            dual = fw.make_dual(x.detach(), lib.arange(12.0, dtype=lib.float64).reshape(3, 4))
            tangents = [fw.unpack_dual(t).tangent for t in lib.unsafe_chunk(dual, 2, 1)]
        res.append((g.tolist(), [(t.tolist(), t._base is None) for t in tangents]))
    assert res[0] == res[1]


REFUSALS = [
    lambda lib: lib.unsafe_chunk(lib.ones(2, 3), 0),
    lambda lib: lib.unsafe_chunk(lib.ones(2, 3), 2, 5),
    lambda lib: lib.unsafe_chunk(lib.tensor(1.0), 1),
    lambda lib: lib.unsafe_chunk(lib.ones(2, 3), 2.0),
    lambda lib: lib.unsafe_split(lib.ones(2, 3), 0),
    lambda lib: lib.unsafe_split(lib.ones(2, 3), -1),
    lambda lib: lib.unsafe_split(lib.tensor(1.0), 1),
    lambda lib: lib.unsafe_split(lib.ones(2, 3), [1, 1]),
    lambda lib: lib.unsafe_split(lib.ones(2, 3), True),
    lambda lib: lib.unsafe_split(lib.ones(2, 3), 2, 1.0),
    lambda lib: lib.unsafe_split_with_sizes(lib.ones(2, 3), [1, 2]),
    lambda lib: lib.unsafe_split_with_sizes(lib.ones(2, 3), [3, -1]),
    lambda lib: lib.unsafe_split_with_sizes(lib.ones(2, 3), [1, 1], 4),
    lambda lib: lib.unsafe_split_with_sizes(lib.ones(2, 3), [1.5, 0.5]),
    lambda lib: lib.unsafe_split_with_sizes(lib.ones(2, 3), 2),
    lambda lib: lib.unsafe_split_with_sizes(lib.tensor(1.0), [1]),
    lambda lib: lib.ones(2, 3).unsafe_split(1.5),
    lambda lib: lib.ones(2, 3).unsafe_chunk(2, 1.0),
    lambda lib: lib.ones(2, 3).unsafe_split_with_sizes([1.0, 1]),
    # split's own checks, which the unsafe splits share
    lambda lib: lib.split(lib.tensor(1.0), 1),
    lambda lib: lib.split(lib.ones(2, 3), [3, -1]),
    lambda lib: lib.ones(3, 2).split([4, -1]),
    lambda lib: lib.split_with_sizes(lib.ones(3, 2), [4, -1]),
    lambda lib: lib.ones(3, 2).split_with_sizes([4, -1]),
]


@pytest.mark.parametrize("call", REFUSALS)
def test_refusals_match_torch(torch, call):
    mine, theirs = both_errors(call, torch)
    assert mine == theirs
