"""``Tensor.apply_``, ``map_`` and ``map2_`` against torch 2.13: values, the version
counter (torch's write leaves it alone), broadcasting of the other tensors, the result
conversion to the tensor's dtype, and the errors word for word."""

import pytest

import gradtrack

from helpers import raised, torch_to_gradtrack


def _twice(v):
    return v * 2


CALLS = {
    "apply_float": lambda lib: lib.tensor([1.0, 2.0, 3.0]).apply_(_twice),
    "apply_int_truncates": lambda lib: lib.tensor([1, 2, 3]).apply_(lambda v: v + 0.7),
    "apply_bool": lambda lib: lib.tensor([True, False]).apply_(lambda v: 3),
    "apply_view": lambda lib: lib.ones(4)[::2].apply_(lambda v: v + 1),
    "apply_2d": lambda lib: lib.arange(6.0).reshape(2, 3).t().apply_(lambda v: v * v),
    "map_same_shape": lambda lib: lib.tensor([1.0, 2.0]).map_(lib.tensor([10.0, 20.0]),
                                                               lambda a, b: a + b),
    "map_broadcast": lambda lib: lib.ones(2, 3).map_(lib.arange(3.0), lambda a, b: a - b),
    "map2": lambda lib: lib.zeros(3).map2_(lib.ones(3), lib.full((1,), 2.0),
                                           lambda v, a, b: v + a * b),
    # refused
    "apply_requires_grad": lambda lib: lib.ones(2, requires_grad=True).apply_(_twice),
    "apply_returns_str": lambda lib: lib.ones(2).apply_(lambda v: "a"),
    "apply_not_callable": lambda lib: lib.ones(2).apply_(5),
    "map_other_dtype": lambda lib: lib.ones(3).map_(lib.ones(3, dtype=lib.long), min),
    "map_other_requires_grad": lambda lib: lib.ones(2).map_(lib.ones(2, requires_grad=True),
                                                            min),
    "map_not_a_tensor": lambda lib: lib.ones(2).map_(5, min),
    "map_bad_shape": lambda lib: lib.ones(2).map_(lib.ones(3), min),
    "map_more_dims": lambda lib: lib.ones(3).map_(lib.ones(2, 3), min),
    "map2_y_dtype": lambda lib: lib.ones(2).map2_(lib.ones(2), lib.ones(2, dtype=lib.long),
                                                  lambda *a: 0.0),
    "map2_requires_grad": lambda lib: lib.ones(2, requires_grad=True).map2_(
        lib.ones(2), lib.ones(2), lambda *a: 0.0),
}


def _outcome(lib, call):
    error = raised(lambda: call(lib), lib)
    if error is not None:
        return error[0], torch_to_gradtrack(error[1]).replace("LIB", "gradtrack")
    out = call(lib)
    return str(out.dtype).split(".")[-1], out.tolist(), out._version, tuple(out.shape)


@pytest.mark.parametrize("name", CALLS)
def test_apply_and_map_match_torch(torch, name):
    assert _outcome(gradtrack, CALLS[name]) == _outcome(torch, CALLS[name])
