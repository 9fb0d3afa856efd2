"""gradtrack.nn.init: one no_grad write per call that returns the tensor, the
distributions against their closed forms, the constant fills, calculate_gain, the errors
and warnings as torch's, and a direct in-place write on a Parameter (refused).

Tests taking the ``torch`` fixture compare with PyTorch 2.13 (skipped when it
is not installed); the others pin PyTorch's measured text and numbers, or check
against NumPy and closed forms.
"""

import math

import numpy as np
import pytest

import gradtrack as gt
from gradtrack import nn

from helpers import error_of, to_np


# ---- nn.init ---------------------------------------------------------------------------------

INITS = [
    (nn.init.uniform_, {}), (nn.init.uniform_, {"a": -2, "b": 2}),
    (nn.init.normal_, {"mean": 1.0, "std": 0.5}), (nn.init.constant_, {"val": 0.3}),
    (nn.init.zeros_, {}), (nn.init.ones_, {}),
    (nn.init.xavier_uniform_, {"gain": 2.0}), (nn.init.xavier_normal_, {}),
    (nn.init.kaiming_uniform_, {"a": math.sqrt(5)}),
    (nn.init.kaiming_normal_, {"mode": "fan_out", "nonlinearity": "relu"}),
]


@pytest.mark.parametrize("init,kwargs", INITS, ids=lambda v: getattr(v, "__name__", str(v)))
def test_init_is_one_no_grad_write_returning_tensor(init, kwargs):
    p = nn.Parameter(gt.empty(30, 20))
    assert init(p, **kwargs) is p
    assert p._version == 1 and p.is_leaf and p.grad_fn is None and p.requires_grad


def test_init_distributions_match_closed_forms():
    gt.manual_seed(1)
    t = gt.empty(300, 200)  # fan_in 200, fan_out 300
    fan_in, fan_out = 200, 300
    cases = [
        (lambda: nn.init.xavier_uniform_(t), math.sqrt(6 / (fan_in + fan_out)), "uniform"),
        (lambda: nn.init.xavier_normal_(t, gain=2.0), 2 * math.sqrt(2 / (fan_in + fan_out)),
         "normal"),
        (lambda: nn.init.kaiming_uniform_(t, nonlinearity="relu"), math.sqrt(6 / fan_in),
         "uniform"),
        (lambda: nn.init.kaiming_normal_(t, mode="fan_out"),
         math.sqrt(2 / (1 + 0.01 ** 2)) / math.sqrt(fan_out), "normal"),
        (lambda: nn.init.uniform_(t, -3, 3), 3.0, "uniform"),
        (lambda: nn.init.normal_(t, 0, 0.25), 0.25, "normal"),
    ]
    for fill, scale, kind in cases:
        values = to_np(fill())
        if kind == "uniform":
            assert np.abs(values).max() <= scale
            assert values.std() == pytest.approx(scale / math.sqrt(3), rel=0.02)
        else:
            assert values.std() == pytest.approx(scale, rel=0.02)
        assert abs(values.mean()) < 0.02 * scale


def test_constant_fills():
    assert to_np(nn.init.constant_(gt.empty(3), 0.5)).tolist() == [0.5] * 3
    assert to_np(nn.init.ones_(gt.empty(2))).tolist() == [1.0, 1.0]
    assert to_np(nn.init.zeros_(gt.empty(2))).tolist() == [0.0, 0.0]


def test_calculate_gain_closed_forms():
    g = nn.init.calculate_gain
    assert g("linear") == 1 and g("conv2d") == 1 and g("sigmoid") == 1
    assert g("tanh") == pytest.approx(5 / 3)
    assert g("relu") == pytest.approx(math.sqrt(2))
    assert g("leaky_relu") == pytest.approx(math.sqrt(2 / (1 + 0.01 ** 2)))
    assert g("leaky_relu", 0.2) == pytest.approx(math.sqrt(2 / 1.04))
    assert g("selu") == 0.75


def test_init_errors_match_torch(torch):
    def run(init):
        cases = [
            lambda: init.calculate_gain("swish"),
            lambda: init.calculate_gain("leaky_relu", "x"),
            lambda: init.calculate_gain("leaky_relu", True),
            lambda: init._calculate_fan_in_and_fan_out(gt.empty(3) if init is nn.init
                                                       else torch.empty(3)),
            lambda: init.kaiming_uniform_(gt.empty(2, 2) if init is nn.init
                                          else torch.empty(2, 2), mode="fan_avg"),
        ]
        return [error_of(case) for case in cases]

    assert run(nn.init) == run(torch.nn.init)
    for name in ("linear", "tanh", "relu", "leaky_relu", "selu", "sigmoid"):
        assert nn.init.calculate_gain(name) == torch.nn.init.calculate_gain(name)
    t = gt.empty(5, 4, 3, 2)
    assert nn.init._calculate_fan_in_and_fan_out(t) == \
        torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(5, 4, 3, 2)) == (24, 30)


def test_kaiming_on_zero_element_tensor_warns():
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        t = nn.init.kaiming_uniform_(gt.empty(0, 3))
    assert t._version == 0


def test_direct_inplace_on_parameter_is_refused():
    lin = nn.Linear(4, 1)
    assert error_of(lambda: lin.weight.normal_()) == (
        "RuntimeError", "a leaf Variable that requires grad is being used in an in-place "
        "operation.")
    assert lin.weight._version == 1


@pytest.mark.parametrize("name,shape,kwargs", [
    ("eye_", (3, 5), {}),
    ("dirac_", (4, 2, 3, 3), {}),
    ("orthogonal_", (4, 6), {"gain": 2.0}),
    ("sparse_", (6, 3), {"sparsity": 0.5, "std": 0.1}),
])
def test_structured_initializers_match_torch(torch, name, shape, kwargs):
    results = []
    for lib in (torch, gt):
        lib.manual_seed(3)
        t = lib.nn.Parameter(lib.empty(*shape))
        assert getattr(lib.nn.init, name)(t, **kwargs) is t
        assert t.is_leaf and t.grad_fn is None and t.requires_grad
        results.append(t.detach().numpy().copy())
    np.testing.assert_allclose(results[1], results[0], rtol=1e-5, atol=1e-6)


def test_orthogonal_of_tall_and_conv_shapes_matches_torch(torch):
    for shape in [(6, 4), (3, 2, 2, 2), (5, 5)]:
        results = []
        for lib in (torch, gt):
            lib.manual_seed(1)
            results.append(lib.nn.init.orthogonal_(lib.empty(*shape)).numpy())
        np.testing.assert_allclose(results[1], results[0], rtol=1e-5, atol=1e-6)


def test_dirac_groups_and_structured_errors_match_torch(torch):
    results = [lib.nn.init.dirac_(lib.empty(4, 3, 3), groups=2).numpy() for lib in (torch, gt)]
    np.testing.assert_array_equal(results[1], results[0])
    cases = [lambda lib: lib.nn.init.eye_(lib.empty(2, 2, 2)),
             lambda lib: lib.nn.init.dirac_(lib.empty(2, 2)),
             lambda lib: lib.nn.init.dirac_(lib.empty(3, 2, 2), groups=2),
             lambda lib: lib.nn.init.orthogonal_(lib.empty(3)),
             lambda lib: lib.nn.init.sparse_(lib.empty(3), 0.1)]
    for case in cases:
        assert error_of(lambda: case(gt)) == error_of(lambda: case(torch))


@pytest.mark.parametrize("old", ["uniform", "normal", "constant", "eye", "dirac",
                                 "xavier_uniform", "xavier_normal", "kaiming_uniform",
                                 "kaiming_normal", "orthogonal", "sparse"])
def test_deprecated_names_warn_and_draw_as_torch(torch, old):
    args = {"constant": (0.5,), "sparse": (0.5,)}.get(old, ())
    shape = (3, 2, 3) if old == "dirac" else (4, 3)
    results = []
    for lib in (torch, gt):
        lib.manual_seed(5)
        with pytest.warns(FutureWarning) as caught:
            out = getattr(lib.nn.init, old)(lib.empty(*shape), *args)
        assert str(caught[0].message) == (f"`nn.init.{old}` is now deprecated in favor of "
                                          f"`nn.init.{old}_`.")
        assert getattr(lib.nn.init, old).__name__ == old
        results.append(out.numpy())
    np.testing.assert_allclose(results[1], results[0], rtol=1e-5, atol=1e-6)
