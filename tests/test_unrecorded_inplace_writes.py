"""The in-place logical ops and bitwise_not_, which torch does not record in the graph
(NOTE [Writes torch does not record] in _inplace.py), and the bitwise ops' dtype
refusals, against torch 2.13: values, dtypes, _version, grad_fn, errors."""

import pytest

import gradtrack

from helpers import same


def _leaf(lib):
    return lib.tensor([0.0, 1.0, 2.0], requires_grad=True)


def _state(t):
    return t, t._version, t.requires_grad, t.is_leaf


CASES = {
    **{f"{name}_{kind}": (lambda name, make: lambda lib: _state(
        getattr(make(lib), name)(lib.tensor([1.0, 0.0, 1.0]))))(name, make)
       for name in ("logical_and_", "logical_or_", "logical_xor_")
       for kind, make in (("nonleaf", lambda lib: _leaf(lib) * 1),
                          ("leaf_requiring_grad", _leaf),
                          ("int", lambda lib: lib.tensor([0, 1, 2])),
                          ("bool", lambda lib: lib.tensor([True, False, True])))},
    "logical_not_nonleaf": lambda lib: _state((_leaf(lib) * 1).logical_not_()),
    "logical_not_int": lambda lib: _state(lib.tensor([0, 1, 2]).logical_not_()),
    "bitwise_not_int": lambda lib: _state(lib.tensor([5, 2, -1]).bitwise_not_()),
    "bitwise_not_bool": lambda lib: _state(lib.tensor([True, False]).bitwise_not_()),
    "gradient_ignores_the_write": lambda lib: (lambda x: (lambda y: (
        y.logical_and_(lib.tensor([1.0, 0.0, 1.0])), y.sum().backward(), x.grad)[-1])(x * 2))(
        _leaf(lib)),
    "saved_tensor_then_write": lambda lib: (lambda x: (lambda y: (lambda z: (
        y.logical_not_(), z.sum().backward()))(y * y))(x * 1))(_leaf(lib)),
    "into_a_view": lambda lib: (lambda base: (base[1:].logical_not_(), base, base._version))(
        lib.ones(3)),
    "broadcast_other": lambda lib: _state(lib.ones(2, 3).logical_and_(lib.tensor([1.0, 0.0, 1.0]))),
    # refusals, nothing written
    "other_not_a_tensor": lambda lib: lib.ones(3).logical_and_(2),
    "smaller_self": lambda lib: lib.ones(1).logical_and_(lib.ones(3)),
    "mismatched": lambda lib: lib.ones(3).logical_and_(lib.ones(2)),
    "overlapping_self": lambda lib: lib.ones(3).expand(2, 3).logical_not_(),
    "bitwise_not_float": lambda lib: lib.tensor([1.0]).bitwise_not_(),
    # the bitwise ops name themselves when refusing a floating result
    "bitwise_or_float": lambda lib: lib.bitwise_or(lib.tensor([1.0]), lib.tensor([1.0])),
    "bitwise_xor_float_number": lambda lib: lib.bitwise_xor(lib.tensor([1.0]), 1),
    "bitwise_or__float": lambda lib: lib.tensor([1.0]).bitwise_or_(lib.tensor([1.0])),
    "bitwise_xor__float_number": lambda lib: lib.tensor([1.0]).bitwise_xor_(1),
    "bitwise_not_float_function": lambda lib: lib.bitwise_not(lib.tensor([1.0])),
    "or_operator_mixed": lambda lib: lib.tensor([1]) | lib.tensor([1.0]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_torch(case):
    same(CASES[case])


def test_a_refused_write_leaves_the_tensor_as_it_was():
    x = gradtrack.tensor([1.0, 2.0, 3.0])
    for bad in (lambda: x.logical_and_(gradtrack.ones(2)), lambda: x.bitwise_not_(),
                lambda: x.bitwise_xor_(1)):
        with pytest.raises((RuntimeError, NotImplementedError)):
            bad()
    assert x.tolist() == [1.0, 2.0, 3.0] and x._version == 0
