"""autograd.grad(is_grads_batched=True): one vector-Jacobian product per row of each
grad_output's first dim, stacked, with torch 2.13's checks, errors and None handling
(NOTE [Batched gradients] in autograd/__init__.py)."""

import pytest

import gradtrack

from helpers import same


def _x(lib):
    return lib.tensor([1.0, 2.0, 3.0], requires_grad=True)


def _grad(lib, *args, **kwargs):
    return lib.autograd.grad(*args, is_grads_batched=True, **kwargs)


# ---- values -------------------------------------------------------------------------------

def test_the_identity_batch_gives_the_jacobian():
    x = _x(gradtrack)
    (jac,) = _grad(gradtrack, x ** 3, x, gradtrack.eye(3))
    assert jac.tolist() == [[3.0, 0.0, 0.0], [0.0, 12.0, 0.0], [0.0, 0.0, 27.0]]
    assert jac.grad_fn is None and not jac.requires_grad
    assert x.grad is None


def test_each_row_is_the_unbatched_gradient():
    x = _x(gradtrack)
    y = x.sin() * x
    rows = gradtrack.tensor([[1.0, 0.5, -2.0], [0.0, 3.0, 1.0]])
    (batched,) = _grad(gradtrack, y, x, rows, retain_graph=True)
    for b in range(2):
        (one,) = gradtrack.autograd.grad(y, x, rows[b], retain_graph=True)
        assert batched[b].tolist() == one.tolist()


@pytest.mark.parametrize("case", [
    "elementwise", "sin", "matmul", "scalar output", "int grad_output", "float64 grad_output",
    "batch of one", "two outputs", "two inputs one output", "grad_output requires grad",
    "output is the input", "broadcast"])
def test_values_and_shapes_match_torch(case):
    def scenario(lib):
        x = _x(lib)
        w = lib.tensor([[1.0, -1.0, 2.0], [0.5, 0.0, 1.0]], requires_grad=True)
        if case == "elementwise":
            return _grad(lib, x ** 3, x, lib.eye(3))
        if case == "sin":
            return _grad(lib, x.sin(), x, lib.eye(3) * 2)
        if case == "matmul":
            return _grad(lib, w @ x, [w, x], lib.eye(2))
        if case == "scalar output":
            return _grad(lib, (x ** 2).sum(), x, lib.tensor([1.0, 2.0]))
        if case == "int grad_output":
            return _grad(lib, x ** 3, x, lib.ones(2, 3, dtype=lib.int64))
        if case == "float64 grad_output":
            return _grad(lib, x ** 3, x, lib.ones(2, 3, dtype=lib.float64))
        if case == "batch of one":
            return _grad(lib, x ** 3, x, lib.ones(1, 3))
        if case == "two outputs":
            return _grad(lib, [x * 2, w.sum(1)], [x, w], [lib.ones(4, 3), lib.ones(4, 2)])
        if case == "two inputs one output":
            return _grad(lib, w @ x, [x, w], lib.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]))
        if case == "grad_output requires grad":
            return _grad(lib, x ** 3, x, lib.ones(2, 3, requires_grad=True))
        if case == "output is the input":
            return _grad(lib, x, x, lib.eye(3))
        return _grad(lib, x * lib.ones(2, 1), x, lib.ones(5, 2, 3))
    same(scenario)


def test_create_graph_gives_a_differentiable_batch():
    x = _x(gradtrack)
    (jac,) = _grad(gradtrack, x ** 3, x, gradtrack.eye(3), create_graph=True)
    assert jac.requires_grad
    (second,) = gradtrack.autograd.grad(jac.sum(), x)
    assert second.tolist() == [6.0, 12.0, 18.0]


def test_create_graph_values_and_second_derivative_match_torch():
    def scenario(lib):
        x = _x(lib)
        (jac,) = _grad(lib, x ** 3, x, lib.eye(3), create_graph=True)
        (second,) = lib.autograd.grad((jac * jac).sum(), x)
        return jac.tolist(), jac.requires_grad, second
    same(scenario)


# ---- unused inputs and None ---------------------------------------------------------------

@pytest.mark.parametrize("flags", [{}, {"allow_unused": True}, {"materialize_grads": True},
                                   {"allow_unused": False, "materialize_grads": True}],
                         ids=["default", "allow_unused", "materialize", "materialize_refused"])
def test_an_unused_input_matches_torch(flags):
    def scenario(lib):
        x, y = _x(lib), lib.tensor([1.0, -1.0], requires_grad=True)
        return _grad(lib, x * 2, [x, y], lib.ones(4, 3), **flags)
    same(scenario)


def test_an_unused_input_is_none_or_unbatched_zeros():
    x, y = _x(gradtrack), gradtrack.tensor([1.0, -1.0], requires_grad=True)
    gx, gy = _grad(gradtrack, x * 2, [x, y], gradtrack.ones(4, 3), allow_unused=True)
    assert gx.shape == (4, 3) and gy is None
    gx, gy = _grad(gradtrack, x * 2, [x, y], gradtrack.ones(4, 3), materialize_grads=True)
    assert gy.tolist() == [0.0, 0.0]  # torch's zeros have no batch dim
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        _grad(gradtrack, x * 2, [x, y], gradtrack.ones(4, 3))


# ---- errors -------------------------------------------------------------------------------

@pytest.mark.parametrize("case", [
    "shape mismatch", "second shape mismatch", "mismatch after an equal shape",
    "0-dim grad_output", "empty batch",
    "None for a scalar output", "None for a vector output", "None for an output without grad",
    "None beside a batch", "batch sizes differ", "not a tensor", "output without grad",
    "int output implicit"])
def test_errors_match_torch(case):
    def scenario(lib):
        x = _x(lib)
        if case == "shape mismatch":
            return _grad(lib, x ** 2, x, lib.ones(2, 2))
        if case == "second shape mismatch":
            return _grad(lib, [x * 2, x.sum()], x, [lib.ones(2, 3), lib.ones(2, 2)])
        if case == "mismatch after an equal shape":  # torch's message compares them
            return _grad(lib, [x * 2, x * 3], x, [lib.ones(2, 3), lib.ones(2, 2, 3)])
        if case == "0-dim grad_output":
            return _grad(lib, (x ** 2).sum(), x, lib.tensor(1.0))
        if case == "empty batch":
            return _grad(lib, x ** 3, x, lib.ones(0, 3))
        if case == "None for a scalar output":
            return _grad(lib, (x ** 2).sum(), x)
        if case == "None for a vector output":
            return _grad(lib, x ** 2, x)
        if case == "None for an output without grad":
            return _grad(lib, [x * 2, lib.ones(3)], x, [lib.ones(2, 3), None])
        if case == "None beside a batch":
            return _grad(lib, [x * 2, (x * x).sum()], x, [lib.ones(2, 3), None])
        if case == "batch sizes differ":
            return _grad(lib, [x * 2, x * 3], x, [lib.ones(4, 3), lib.ones(3, 3)])
        if case == "not a tensor":
            return _grad(lib, x * 2, x, [3])
        if case == "output without grad":
            return _grad(lib, lib.ones(3), x, lib.ones(2, 3))
        return _grad(lib, lib.ones(1, dtype=lib.int64).sum(), x)
    same(scenario)


def test_shape_mismatch_says_torchs_sentence():
    x = _x(gradtrack)
    with pytest.raises(RuntimeError) as info:
        _grad(gradtrack, x ** 2, x, gradtrack.ones(2, 2, 4))
    assert str(info.value).startswith("If `is_grads_batched=True`, we interpret the first "
                                      "dimension of each grad_output as the batch dimension.")
    # torch reports the row's shape without its first dim
    assert "grad_output[0] has a shape of gradtrack.Size([4]) and output[0] has a shape of " \
           "gradtrack.Size([3])." in str(info.value)
    with pytest.raises(ValueError, match=r"got sizes \[4, 3\] for the mapped dimension"):
        _grad(gradtrack, [x * 2, x * 3], x, [gradtrack.ones(4, 3), gradtrack.ones(3, 3)])


# ---- the graph ----------------------------------------------------------------------------

def test_the_graph_is_freed_after_the_batch_unless_retained():
    def scenario(lib):
        x = _x(lib)
        y = x.exp()
        first = _grad(lib, y, x, lib.ones(2, 3))
        try:
            _grad(lib, y, x, lib.ones(2, 3))
        except RuntimeError as e:
            return first, "second", str(e)
        return first
    same(scenario)
    x = _x(gradtrack)
    y = x.exp()
    a = _grad(gradtrack, y, x, gradtrack.ones(3, 3), retain_graph=True)
    b = _grad(gradtrack, y, x, gradtrack.ones(3, 3))
    assert a[0].tolist() == b[0].tolist()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        _grad(gradtrack, y, x, gradtrack.ones(3, 3))


def test_leaves_get_no_grad():
    def scenario(lib):
        x = _x(lib)
        _grad(lib, x * x, x, lib.ones(2, 3))
        return x.grad
    same(scenario)


def test_grad_of_a_dict_of_inputs_is_a_dict(torch):
    """torch 2.13 takes a dict of inputs and answers with the same keys."""
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        y = lib.ones(3, requires_grad=True)
        out = (x * 2).sum() + (y * 3).sum()
        found = lib.autograd.grad(out, {"a": x, "b": y})
        return sorted(found), [found[k].tolist() for k in sorted(found)]
    assert run(gradtrack) == run(torch)
