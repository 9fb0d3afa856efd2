"""autograd.functional (vjp, jvp, jacobian, hessian, vhp, hvp): every scenario
runs on gradtrack and on torch 2.13; values, result structure, requires_grad
and error types and texts must agree."""

import numpy as np
import pytest

import gradtrack


def _obs(value, lib):
    """A comparable picture of a result: nesting kept, tensors as rounded values."""
    if isinstance(value, lib.Tensor):
        arr = np.round(value.detach().numpy().astype(np.float64), 5)
        return ("T", list(arr.shape), arr.tolist(), value.requires_grad)
    if isinstance(value, tuple):
        return tuple(_obs(v, lib) for v in value)
    if isinstance(value, list):
        return [_obs(v, lib) for v in value]
    return value


def _run(fn, lib):
    try:
        return ("ok", _obs(fn(lib), lib))
    except Exception as e:  # noqa: BLE001 - the type and text are what is compared
        text = str(e).replace(lib.__name__ + ".", "LIB.").replace("gradtrack", "torch")
        return (type(e).__name__, text)


def _same(fn, torch):
    ours, theirs = _run(fn, gradtrack), _run(fn, torch)
    assert ours == theirs
    return ours


def _x(lib):
    return lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64)


def _m(lib):
    return lib.tensor([[1.0, 2.0], [3.0, -1.0]], dtype=lib.float64)


def _f1(x):
    return x.exp() * x.sin()


def _f2(x, y):
    return (x * y.sum(), x.pow(2) + y.mean())


def _scalar(x, y=None):
    return (x.pow(3) * x.sin()).sum() if y is None else (x.pow(2).sum() * (y * y.exp()).sum())


SCENARIOS = {
    "vjp_single": lambda lib: lib.autograd.functional.vjp(_f1, _x(lib), lib.ones(3, dtype=lib.float64)),
    "vjp_scalar_v_none": lambda lib: lib.autograd.functional.vjp(lambda x: (x * x).sum(), _x(lib)),
    "vjp_tuple": lambda lib: lib.autograd.functional.vjp(
        _f2, (_x(lib), _m(lib)), (_x(lib), lib.ones(3, dtype=lib.float64))),
    "vjp_create_graph": lambda lib: lib.autograd.functional.vjp(
        _f1, _x(lib).requires_grad_(), lib.ones(3, dtype=lib.float64), create_graph=True),
    "vjp_unused_input": lambda lib: lib.autograd.functional.vjp(
        lambda x, y: x * 2, (_x(lib), _x(lib)), lib.ones(3, dtype=lib.float64)),
    "vjp_strict_independent": lambda lib: lib.autograd.functional.vjp(
        lambda x, y: x * 2, (_x(lib), _x(lib)), lib.ones(3, dtype=lib.float64), strict=True),
    "vjp_strict_no_grad_output": lambda lib: lib.autograd.functional.vjp(
        lambda x: lib.ones(3), _x(lib), lib.ones(3), strict=True),
    "vjp_v_none_bad": lambda lib: lib.autograd.functional.vjp(_f1, _x(lib)),
    "vjp_v_wrong_size": lambda lib: lib.autograd.functional.vjp(_f1, _x(lib), lib.ones(2)),
    "vjp_v_wrong_len": lambda lib: lib.autograd.functional.vjp(
        _f2, (_x(lib), _m(lib)), (lib.ones(3),)),
    "vjp_v_entry_size": lambda lib: lib.autograd.functional.vjp(
        _f2, (_x(lib), _m(lib)), (lib.ones(3), lib.ones(2))),
    "vjp_single_v_tuple2": lambda lib: lib.autograd.functional.vjp(
        _f1, _x(lib), (lib.ones(3), lib.ones(3))),
    "vjp_bad_input": lambda lib: lib.autograd.functional.vjp(_f1, [1.0, 2.0]),
    "vjp_bad_input_tuple": lambda lib: lib.autograd.functional.vjp(_f1, (_x(lib), 3)),
    "vjp_bad_output": lambda lib: lib.autograd.functional.vjp(lambda x: 3, _x(lib)),
    "jvp_single": lambda lib: lib.autograd.functional.jvp(_f1, _x(lib), lib.ones(3, dtype=lib.float64)),
    "jvp_tuple": lambda lib: lib.autograd.functional.jvp(
        _f2, (_x(lib), _m(lib)), (_x(lib), lib.ones(2, 2, dtype=lib.float64))),
    "jvp_create_graph": lambda lib: lib.autograd.functional.jvp(
        _f1, _x(lib).requires_grad_(), lib.ones(3, dtype=lib.float64), create_graph=True),
    "jvp_v_none_scalar": lambda lib: lib.autograd.functional.jvp(
        lambda x: x * 3, lib.tensor([2.0])),
    "jvp_v_none_bad": lambda lib: lib.autograd.functional.jvp(_f1, _x(lib)),
    "jvp_strict_linear": lambda lib: lib.autograd.functional.jvp(
        lambda x: x * 2, _x(lib), lib.ones(3, dtype=lib.float64), strict=True),
    "jvp_strict_independent": lambda lib: lib.autograd.functional.jvp(
        lambda x, y: (x * x, y.detach()), (_x(lib), _x(lib)),
        (lib.ones(3, dtype=lib.float64),) * 2, strict=True),
    "jvp_unused": lambda lib: lib.autograd.functional.jvp(
        lambda x, y: (x * x, y.detach()), (_x(lib), _x(lib)), (lib.ones(3, dtype=lib.float64),) * 2),
    "jac_single": lambda lib: lib.autograd.functional.jacobian(_f1, _x(lib)),
    "jac_tuple_in_out": lambda lib: lib.autograd.functional.jacobian(_f2, (_x(lib), _m(lib))),
    "jac_tuple_in": lambda lib: lib.autograd.functional.jacobian(
        lambda x, y: x * y.sum(), (_x(lib), _m(lib))),
    "jac_tuple_out": lambda lib: lib.autograd.functional.jacobian(lambda x: (x * 2, x.sum()), _x(lib)),
    "jac_matrix": lambda lib: lib.autograd.functional.jacobian(lambda m: m @ m, _m(lib)),
    "jac_create_graph": lambda lib: lib.autograd.functional.jacobian(
        _f1, _x(lib).requires_grad_(), create_graph=True),
    "jac_vectorize": lambda lib: lib.autograd.functional.jacobian(_f1, _x(lib), vectorize=True),
    "jac_unused": lambda lib: lib.autograd.functional.jacobian(lambda x, y: x * 2, (_x(lib), _x(lib))),
    "jac_strict_unused": lambda lib: lib.autograd.functional.jacobian(
        lambda x, y: x * 2, (_x(lib), _x(lib)), strict=True),
    "jac_strict_create_graph": lambda lib: lib.autograd.functional.jacobian(
        lambda x: x * 2, _x(lib), strict=True, create_graph=True),
    "jac_strict_vectorize": lambda lib: lib.autograd.functional.jacobian(
        _f1, _x(lib), strict=True, vectorize=True),
    "jac_bad_strategy": lambda lib: lib.autograd.functional.jacobian(_f1, _x(lib), strategy="x"),
    "jac_forward_create_graph": lambda lib: lib.autograd.functional.jacobian(
        _f1, _x(lib), strategy="forward-mode", create_graph=True),
    "jac_forward_not_vectorized": lambda lib: lib.autograd.functional.jacobian(
        _f1, _x(lib), strategy="forward-mode"),
    "jac_forward_vectorized": lambda lib: lib.autograd.functional.jacobian(
        _f2, (_x(lib), _m(lib)), strategy="forward-mode", vectorize=True),
    "jac_forward_single": lambda lib: lib.autograd.functional.jacobian(
        lambda m: (m @ m).exp(), _m(lib), strategy="forward-mode", vectorize=True),
    "jac_forward_strict": lambda lib: lib.autograd.functional.jacobian(
        _f1, _x(lib), strategy="forward-mode", vectorize=True, strict=True),
    "hess_single": lambda lib: lib.autograd.functional.hessian(_scalar, _x(lib)),
    "hess_tuple": lambda lib: lib.autograd.functional.hessian(_scalar, (_x(lib), _m(lib))),
    "hess_create_graph": lambda lib: lib.autograd.functional.hessian(
        _scalar, _x(lib).requires_grad_(), create_graph=True),
    "hess_not_scalar": lambda lib: lib.autograd.functional.hessian(_f1, _x(lib)),
    "hess_tuple_out": lambda lib: lib.autograd.functional.hessian(
        lambda x: (x.sum(), x.sum()), _x(lib)),
    "hess_strict_linear": lambda lib: lib.autograd.functional.hessian(
        lambda x: x.sum() * 2, _x(lib), strict=True),
    "hess_linear": lambda lib: lib.autograd.functional.hessian(lambda x: x.sum() * 2, _x(lib)),
    "vhp_single": lambda lib: lib.autograd.functional.vhp(
        _scalar, _x(lib), lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)),
    "vhp_tuple": lambda lib: lib.autograd.functional.vhp(
        _scalar, (_x(lib), _m(lib)), (lib.ones(3, dtype=lib.float64), _m(lib))),
    "vhp_create_graph": lambda lib: lib.autograd.functional.vhp(
        _scalar, _x(lib).requires_grad_(), lib.ones(3, dtype=lib.float64), create_graph=True),
    "vhp_not_scalar": lambda lib: lib.autograd.functional.vhp(_f1, _x(lib), lib.ones(3)),
    "vhp_tuple_out": lambda lib: lib.autograd.functional.vhp(
        lambda x: (x.sum(),), _x(lib), lib.ones(3)),
    "vhp_strict_linear": lambda lib: lib.autograd.functional.vhp(
        lambda x: x.sum() * 2, _x(lib), lib.ones(3, dtype=lib.float64), strict=True),
    "vhp_linear": lambda lib: lib.autograd.functional.vhp(
        lambda x: x.sum() * 2, _x(lib), lib.ones(3, dtype=lib.float64)),
    "vhp_strict_quadratic_unused": lambda lib: lib.autograd.functional.vhp(
        lambda x, y: (x * x).sum() + y.sum(), (_x(lib), _x(lib)),
        (lib.ones(3, dtype=lib.float64),) * 2, strict=True),
    "hvp_single": lambda lib: lib.autograd.functional.hvp(
        _scalar, _x(lib), lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)),
    "hvp_tuple": lambda lib: lib.autograd.functional.hvp(
        _scalar, (_x(lib), _m(lib)), (lib.ones(3, dtype=lib.float64), _m(lib))),
    "hvp_create_graph": lambda lib: lib.autograd.functional.hvp(
        _scalar, _x(lib).requires_grad_(), lib.ones(3, dtype=lib.float64), create_graph=True),
    "hvp_v_none_scalar_input": lambda lib: lib.autograd.functional.hvp(
        lambda x: (x ** 3).sum(), lib.tensor([2.0])),
    "hvp_v_none_bad": lambda lib: lib.autograd.functional.hvp(_scalar, _x(lib)),
    "hvp_strict_linear": lambda lib: lib.autograd.functional.hvp(
        lambda x: x.sum() * 2, _x(lib), lib.ones(3, dtype=lib.float64), strict=True),
    "hvp_linear": lambda lib: lib.autograd.functional.hvp(
        lambda x: x.sum() * 2, _x(lib), lib.ones(3, dtype=lib.float64)),
}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_functional_matches_torch(name, torch):
    _same(SCENARIOS[name], torch)


def test_results_are_detached_without_create_graph():
    x = _x(gradtrack).requires_grad_()
    out, v = gradtrack.autograd.functional.vjp(_f1, x, gradtrack.ones(3, dtype=gradtrack.float64))
    assert out.grad_fn is None and v.grad_fn is None and not v.requires_grad


def test_create_graph_gives_differentiable_results(torch):
    def run(lib):
        x = _x(lib).requires_grad_()
        h = lib.autograd.functional.hessian(_scalar, x, create_graph=True)
        h.sum().backward()
        return x.grad

    _same(run, torch)


def test_jvp_matches_finite_differences():
    x = _x(gradtrack)
    v = gradtrack.tensor([0.3, -0.2, 1.0], dtype=gradtrack.float64)
    _, jv = gradtrack.autograd.functional.jvp(_f1, x, v)
    eps = 1e-6
    fd = (_f1(x + eps * v) - _f1(x - eps * v)) / (2 * eps)
    np.testing.assert_allclose(jv.numpy(), fd.numpy(), rtol=1e-6, atol=1e-8)
