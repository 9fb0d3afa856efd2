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
