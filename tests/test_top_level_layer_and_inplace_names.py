"""torch's top-level forms of layer functions and in-place methods (rrelu, rrelu_,
conv_tbc, constant_pad_nd, gcd_, lcm_) and the names torch re-exports at the top
(GradScaler, to_dlpack), against torch 2.13: values, seeded draws, grad_fn and _version."""

import pytest

import gradtrack

from helpers import same


def _x(lib):
    return lib.tensor([-1.0, 0.5, -2.0], requires_grad=True)


CASES = {
    "rrelu_eval": lambda lib: lib.rrelu(_x(lib)),
    "rrelu_bounds": lambda lib: lib.rrelu(_x(lib), 0.1, 0.3),
    "rrelu_training_seeded": lambda lib: (lib.manual_seed(3), lib.rrelu(_x(lib), training=True),
                                          lib.rand(2))[1:],
    "rrelu_inplace": lambda lib: (lambda t: (lib.rrelu_(t, 0.1, 0.3, True), t._version))(
        (lib.manual_seed(5), lib.tensor([-1.0, 0.5, -2.0]))[1]),
    "rrelu_bad_bounds": lambda lib: lib.rrelu(_x(lib), 0.5, 0.1),
    "conv_tbc": lambda lib: lib.conv_tbc(lib.arange(6.0).reshape(3, 1, 2),
                                         lib.ones(2, 2, 1), lib.tensor([0.5]), 1),
    "constant_pad_nd": lambda lib: (lib.constant_pad_nd(_x(lib), [1, 2], 3.0),
                                    lib.constant_pad_nd(lib.ones(2, 2), [1, 0, 0, 1])),
    "gcd_": lambda lib: (lambda a: (lib.gcd_(a, lib.tensor([6, 4, 9])), a, a._version))(
        lib.tensor([4, 6, 3])),
    "lcm_": lambda lib: (lambda a: (lib.lcm_(a, lib.tensor([6, 4, 9])), a._version))(
        lib.tensor([4, 6, 3])),
    "grad_scaler": lambda lib: (lib.GradScaler is lib.amp.GradScaler,
                                lib.GradScaler("cpu", init_scale=8.0).get_scale()),
    "to_dlpack": lambda lib: lib.from_dlpack(lib.to_dlpack(lib.tensor([1.0, 2.0]))),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_torch(case):
    same(CASES[case])


def test_rrelu_gradient_is_the_drawn_slope():
    gradtrack.manual_seed(0)
    x = gradtrack.tensor([-1.0, -2.0, 3.0], requires_grad=True)
    y = gradtrack.rrelu(x, 0.2, 0.4, training=True)
    y.sum().backward()
    slopes = (y / x).detach()
    assert x.grad.tolist() == slopes.tolist()
    assert all(0.2 <= s <= 0.4 for s in slopes[:2].tolist()) and slopes[2].item() == 1.0


def test_rrelu_refuses_a_generator():
    with pytest.raises(NotImplementedError, match="rrelu\\(generator=...\\)"):
        gradtrack.rrelu(gradtrack.ones(2), generator=gradtrack.Generator())
