"""A custom Function that writes a view in place and marks it dirty: the base's history
becomes CopySlices around the Function's node, and the view's own node is made again
from it, so a backward through the view runs the Function's backward (it skipped it,
giving the gradient of the write not having happened, with no error)."""

import pytest

from helpers import same


def _double(lib):
    class Double(lib.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            t.mul_(2)
            ctx.mark_dirty(t)
            return t

        @staticmethod
        def backward(ctx, g):
            return g * 2

    return Double


def _through_view(lib, write, weights):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    v = y[1:]
    write(lib, v)
    (v * lib.tensor(weights)).sum().backward()
    return [x.grad, v._version, type(v.grad_fn).__name__, y.grad_fn.name()]


def _through_base(lib, write):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    write(lib, y[1:])
    (y * lib.tensor([1.0, 10.0, 100.0])).sum().backward()
    return [x.grad]


WRITES = {
    "function_mark_dirty": lambda lib, v: _double(lib).apply(v),
    "round_decimals": lambda lib, v: v.round_(decimals=2),
    "read_node_first": lambda lib, v: (v.grad_fn, _double(lib).apply(v)),
}


@pytest.mark.parametrize("write", WRITES)
def test_backward_through_the_written_view(write):
    same(lambda lib: _through_view(lib, WRITES[write], [10.0, 100.0]))


@pytest.mark.parametrize("write", WRITES)
def test_backward_through_the_base(write):
    same(lambda lib: _through_base(lib, WRITES[write]))


def test_the_view_s_node_reaches_the_function():
    import gradtrack
    got = _through_view(gradtrack, WRITES["function_mark_dirty"], [10.0, 100.0])
    assert got[0].tolist() == [0.0, 20.0, 200.0]
