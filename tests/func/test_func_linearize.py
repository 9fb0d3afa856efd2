"""torch.func.linearize against torch 2.13: the output and the jvp function's values,
pytrees of primals and tangents, non-tensor outputs, and the errors word for word."""

import pytest

from helpers import same


def _x(lib):
    return lib.tensor([1.0, 2.0])


def _lin(lib, func, *primals):
    return lib.func.linearize(func, *primals)


SCENARIOS = {
    "sin": lambda lib: (lambda o, f: (o, f(lib.ones(2)), f(lib.tensor([2.0, 0.5]))))(
        *_lin(lib, lib.sin, _x(lib))),
    "two_inputs_two_outputs": lambda lib: (lambda o, f: (o, f(lib.ones(2), lib.ones(2) * 3)))(
        *_lin(lib, lambda a, b: (a * b, a + b), _x(lib), lib.ones(2))),
    "dict_primal": lambda lib: _lin(lib, lambda d: d["a"].exp(), {"a": _x(lib)})[1](
        {"a": lib.ones(2)}),
    "tuple_primal": lambda lib: _lin(lib, lambda a: a[0] * a[1], (_x(lib), _x(lib)))[1](
        (lib.ones(2), lib.ones(2))),
    "list_output": lambda lib: _lin(lib, lambda a: [a, a * 2], _x(lib))[1](lib.ones(2)),
    "non_tensor_output": lambda lib: _lin(lib, lambda a: 3, _x(lib))[1](lib.ones(2)),
    "mixed_output": lambda lib: _lin(lib, lambda a: (a, 3), _x(lib))[1](lib.ones(2)),
    "requires_grad_primal": lambda lib: (lambda o, f: (o, f(lib.ones(2))))(
        *_lin(lib, lib.sin, _x(lib).requires_grad_())),
    "non_tensor_primal": lambda lib: _lin(lib, lambda a: a, 3.0),
    "integer_primal": lambda lib: _lin(lib, lambda a: a * 2, lib.tensor([1, 2])),
    "too_many_tangents": lambda lib: _lin(lib, lib.sin, _x(lib))[1](lib.ones(2), lib.ones(2)),
    "tangent_in_a_list": lambda lib: _lin(lib, lib.sin, _x(lib))[1]([lib.ones(2)]),
    "tangent_shape": lambda lib: _lin(lib, lib.sin, _x(lib))[1](lib.ones(3)),
    "tangent_dtype": lambda lib: _lin(lib, lib.sin, _x(lib))[1](lib.ones(2, dtype=lib.float64)),
    "unknown_keyword": lambda lib: lib.func.linearize(lib.sin, _x(lib), foo=1),
}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_linearize(name):
    same(SCENARIOS[name])


def test_linearize_output_is_the_function_output(torch):
    import gradtrack
    out, _ = gradtrack.func.linearize(lambda a: a * 2, gradtrack.tensor([1.0]))
    assert out.tolist() == [2.0]
