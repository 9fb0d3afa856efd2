"""autograd.gradcheck and gradgradcheck: gradgradcheck with inputs the function or its
first derivative does not use passes as torch's does, and it still catches a wrong
second derivative. (The op tests run gradcheck on every op: tests/ops/test_ops.py.)
"""

import pytest

import gradtrack


@pytest.mark.parametrize("case", ["unused_input", "unused_by_second", "all_used"])
def test_gradgradcheck_with_unused_inputs(torch, case):
    fns = {
        "unused_input": lambda a, b: a * a,
        "unused_by_second": lambda a, b: a * a + b,
        "all_used": lambda a, b: (a * b).sin(),
    }

    def run(lib):
        x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        y = lib.tensor([3.0, 4.0], dtype=lib.float64, requires_grad=True)
        return lib.autograd.gradgradcheck(fns[case], (x, y)), lib.autograd.gradcheck(fns[case],
                                                                                      (x, y))

    assert run(gradtrack) == run(torch) == (True, True)


def test_gradgradcheck_still_catches_a_wrong_second_derivative():
    x = gradtrack.tensor([1.0, 2.0], dtype=gradtrack.float64, requires_grad=True)
    y = gradtrack.tensor([3.0, 4.0], dtype=gradtrack.float64, requires_grad=True)
    assert not gradtrack.autograd.gradgradcheck(lambda a, b: a.detach() * a * a, (x, y),
                                                raise_exception=False)


def _rng_after(lib, check):
    lib.manual_seed(0)
    x = lib.randn(3, dtype=lib.float64, requires_grad=True)
    lib.manual_seed(0)
    check(lib)(lambda t: t ** 3, (x,))
    return lib.randn(4).tolist()


@pytest.mark.parametrize("check", ["gradcheck", "gradgradcheck"])
def test_checks_draw_from_the_generator_as_torch(torch, check):
    def pick(lib):
        return getattr(lib.autograd, check)
    assert _rng_after(gradtrack, pick) == _rng_after(torch, pick)


def test_gradgradcheck_random_grad_outputs_only_for_differentiable_outputs(torch):
    def run(lib):
        lib.manual_seed(0)
        x = lib.tensor([0.5, 1.5], dtype=lib.float64, requires_grad=True)
        ok = lib.autograd.gradgradcheck(lambda t: (t ** 3, lib.ones(2, dtype=lib.float64)), (x,))
        return ok, lib.randn(2).tolist()
    assert run(gradtrack) == run(torch)


def _mismatch_message(lib, dtype):
    x = lib.tensor([1.0, 2.0], dtype=dtype, requires_grad=True)
    with pytest.raises(RuntimeError) as info:
        lib.autograd.gradcheck(lambda t: t.detach() * 2 + (t - t.detach()) * 3, (x,), eps=1e-3)
    return type(info.value).__name__, str(info.value).replace(lib.__name__, "torch")


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_gradcheck_error_prints_the_jacobians_as_tensors(torch, dtype):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _mismatch_message(gradtrack, getattr(gradtrack, dtype)) == \
            _mismatch_message(torch, getattr(torch, dtype))


def _low_precision_warnings(lib):
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ok = lib.autograd.gradcheck(lambda t, u: t * 2 + u, (
            lib.ones(2, dtype=lib.float64), lib.ones(2, requires_grad=True)),
            eps=1e-2, atol=1e-2, rtol=1e-2)
    return ok, [(w.category.__name__, str(w.message)) for w in caught]


def test_gradcheck_warns_of_inputs_that_are_not_double(torch):
    assert _low_precision_warnings(gradtrack) == _low_precision_warnings(torch)
