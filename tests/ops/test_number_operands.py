"""The number forms of the binary ops, against torch 2.13: ``op(t, 2.0)`` and, where torch
has a ``Scalar_Self`` overload, ``op(2.0, t)`` (the row's ``number`` and ``number_self``
columns, NOTE [One declaration per op]). Values, dtypes (a number promotes as a wrapped
number), the ``grad_fn`` each form records, gradients, ``out=``, the in-place form, and
torch's refusals where it takes no number.

The op table (tests/ops/op_db/pointwise.py) runs the ordinary inputs of each form; here
are the dtype corners, the gradients of both sides and the messages.
"""

import pytest

from helpers import same


def _t(lib, values, dtype="float64", grad=False):
    return lib.tensor(values, dtype=getattr(lib, dtype), requires_grad=grad)


def _with_grad(fn, values, dtype="float64"):
    """fn(lib, t)'s result and t's gradient of its sum."""
    def run(lib):
        t = _t(lib, values, dtype, grad=True)
        out = fn(lib, t)
        out.sum().backward()
        return [out, t.grad]
    return run


def _in_place(fn, values, dtype="float64"):
    """What an in-place number form leaves: the value, self returned, the version."""
    def run(lib):
        t = lib.tensor(values, dtype=getattr(lib, dtype))
        r = fn(t)
        return [t, r is t, t._version]
    return run


def _out(fn, dtype="float32"):
    def run(lib):
        out = lib.empty(2, dtype=getattr(lib, dtype))
        r = fn(lib, out)
        return [out, r is out]
    return run


VALUES = {
    # dtypes: an integer tensor with an integer or float number computes in the default
    # float type; a float number keeps float64; a bool tensor is promoted like an integer
    "xlogy_int_self_number": lambda lib: lib.xlogy(2, lib.tensor([1, 2])),
    "xlogy_int_other_number": lambda lib: lib.xlogy(lib.tensor([1, 2]), 3.5),
    "xlogy_float64_number": lambda lib: lib.xlogy(_t(lib, [1.0, 2.0]), 2),
    "xlogy_bool_number_self": lambda lib: lib.xlogy(0.5, lib.tensor([True, False])),
    "xlogy_method_number": lambda lib: _t(lib, [1.0, 3.0], "float32").xlogy(2),
    "special_xlogy_number_self": lambda lib: lib.special.xlogy(3, _t(lib, [1.0, 0.5])),
    "xlog1py_int_number_self": lambda lib: lib.special.xlog1py(2, lib.tensor([0, 3])),
    "xlog1py_int_number_other": lambda lib: lib.special.xlog1py(lib.tensor([0, 3]), 0.5),
    "zeta_int_number_self": lambda lib: lib.special.zeta(2, lib.tensor([1, 2])),
    "zeta_float32_number_other": lambda lib: lib.special.zeta(_t(lib, [2.0, 3.0], "float32"), 2),
    "copysign_int_number": lambda lib: lib.copysign(lib.tensor([1, -2]), -0.0),
    "copysign_bool_number": lambda lib: lib.copysign(lib.tensor([True, False]), -1),
    "copysign_float16_number": lambda lib: lib.copysign(_t(lib, [1.5, -2.0], "float16"), 3),
    # the shifts take a number on either side, and never record
    "lshift_number_self": lambda lib: lib.bitwise_left_shift(1, lib.tensor([1, 3], dtype=lib.int8)),
    "rshift_number_other": lambda lib: lib.bitwise_right_shift(lib.tensor([-16, 16]), 2),
    # the grad_fn of each form, and its gradient
    "xlogy_number_self_grad": _with_grad(lambda lib, t: lib.xlogy(2.5, t), [0.5, 3.0]),
    "xlogy_number_other_grad": _with_grad(lambda lib, t: lib.xlogy(t, 0.5), [0.0, 3.0]),
    "xlog1py_number_self_grad": _with_grad(lambda lib, t: lib.special.xlog1py(2, t), [0.5, 3.0]),
    "xlog1py_number_other_grad": _with_grad(lambda lib, t: lib.special.xlog1py(t, -0.5),
                                            [0.0, 3.0]),
    "zeta_number_self_grad": _with_grad(lambda lib, t: lib.special.zeta(3.0, t), [1.0, 2.5]),
    "copysign_number_grad": _with_grad(lambda lib, t: lib.copysign(t, -2), [0.0, 3.0, -1.0]),
    "copysign_method_number_grad": _with_grad(lambda lib, t: t.copysign(1.0), [-2.0, 3.0],
                                              "float32"),
    # out= with a number on either side
    "xlogy_number_self_out": _out(lambda lib, out: lib.xlogy(2.0, _t(lib, [1.0, 4.0]), out=out)),
    "xlogy_number_other_out": _out(lambda lib, out: lib.xlogy(_t(lib, [1.0, 4.0]), 2, out=out),
                                   "float64"),
    "copysign_number_out": _out(lambda lib, out: lib.copysign(lib.tensor([1, 2]), -1, out=out)),
    "xlog1py_number_self_out": _out(
        lambda lib, out: lib.special.xlog1py(2, _t(lib, [1.0, 4.0]), out=out)),
    "zeta_number_other_out": _out(
        lambda lib, out: lib.special.zeta(_t(lib, [2.0, 4.0]), 1, out=out)),
    # in place with a number
    "xlogy_inplace_number": _in_place(lambda t: t.xlogy_(2), [1.0, 3.0]),
    "copysign_inplace_number": _in_place(lambda t: t.copysign_(-1), [1.0, -3.0], "float32"),
    "lshift_inplace_number": _in_place(lambda t: t.bitwise_left_shift_(2), [1, 3], "int64"),
    "rshift_inplace_number": _in_place(lambda t: t.bitwise_right_shift_(1), [8, -3], "int32"),
}


@pytest.mark.parametrize("name", list(VALUES))
def test_number_forms_match_torch(torch, name):
    same(VALUES[name])


ERRORS = {
    # neither a tensor nor a number: the method lists torch's two overloads
    "xlogy_method_str": lambda lib: _t(lib, [1.0]).xlogy("a"),
    "copysign_method_str": lambda lib: _t(lib, [1.0]).copysign("a"),
    # an integer self cannot hold a float result
    "xlogy_inplace_number_int": lambda lib: lib.tensor([1, 2]).xlogy_(2),
    "copysign_inplace_number_int": lambda lib: lib.tensor([1, 2]).copysign_(-1.0),
    # gcd and lcm take tensors only, in place too
    "gcd_number": lambda lib: lib.gcd(lib.tensor([4, 6]), 2),
    "lcm_method_number": lambda lib: lib.tensor([4, 6]).lcm(2),
    "gcd_inplace_number": lambda lib: lib.tensor([4, 6]).gcd_(2),
    "lcm_inplace_number": lambda lib: lib.tensor([4, 6]).lcm_(3),
    "gcd_inplace_float_number": lambda lib: lib.tensor([4, 6]).gcd_(2.5),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_number_form_errors_match_torch(torch, name):
    same(ERRORS[name])


@pytest.mark.parametrize("call", [
    lambda lib: lib.copysign(-1.0, _t(lib, [1.0])),  # no Scalar_Self overload
    lambda lib: lib.xlogy(_t(lib, [1.0]), "a"),
    lambda lib: lib.special.xlog1py(_t(lib, [1.0]), "a"),
    lambda lib: lib.special.zeta(_t(lib, [1.0]), None),
])
def test_a_function_refuses_what_is_neither_tensor_nor_number(torch, call):
    # (torch lists its overloads; gradtrack names the argument at fault)
    import gradtrack

    for lib in (torch, gradtrack):
        with pytest.raises(TypeError):
            call(lib)


@pytest.mark.parametrize("op", ["gcd_", "lcm_"])
def test_a_refused_number_leaves_self_as_it_was(op):
    import gradtrack

    t = gradtrack.tensor([4, 6])
    with pytest.raises(TypeError):
        getattr(t, op)(2)
    assert t.tolist() == [4, 6] and t._version == 0


# A Number parameter (alpha=, beta=, value=) takes a 0-dim tensor that does not require
# grad, as torch's parser does (torch's LBFGS writes q.add_(d, alpha=-al[i])), and
# refuses a 1-element tensor of more dims and one that requires grad.
def _ab(lib):
    return lib.tensor([1.0, 2.0]), lib.tensor([0.5, -1.0])


NUMBER_PARAMETERS = {
    "add_alpha": lambda lib: _ab(lib)[0].add(_ab(lib)[1], alpha=lib.tensor(-0.25)),
    "sub_alpha": lambda lib: _ab(lib)[0].sub(_ab(lib)[1], alpha=lib.tensor(-0.25)),
    "add_function_alpha": lambda lib: lib.add(*_ab(lib), alpha=lib.tensor(2)),
    "add_inplace_alpha": lambda lib: _ab(lib)[0].add_(_ab(lib)[1], alpha=lib.tensor(-0.25)),
    "sub_inplace_alpha": lambda lib: _ab(lib)[0].sub_(_ab(lib)[1], alpha=lib.tensor(-0.25)),
    "rsub_alpha": lambda lib: lib.rsub(*_ab(lib), alpha=lib.tensor(-0.25)),
    "add_out_alpha": lambda lib: lib.add(*_ab(lib), alpha=lib.tensor(-0.25), out=lib.empty(2)),
    "addmm_beta": lambda lib: lib.addmm(lib.ones(2, 2), lib.ones(2, 2), lib.ones(2, 2),
                                        beta=lib.tensor(-0.25)),
    "addcmul_value": lambda lib: _ab(lib)[0].addcmul(*_ab(lib), value=lib.tensor(-0.25)),
    "refused_one_dim": lambda lib: _ab(lib)[0].add(_ab(lib)[1], alpha=lib.tensor([2.0])),
    "refused_requires_grad": lambda lib: _ab(lib)[0].add(
        _ab(lib)[1], alpha=lib.tensor(2.0, requires_grad=True)),
    "refused_one_dim_value": lambda lib: _ab(lib)[0].addcdiv(*_ab(lib), value=lib.tensor([2.0])),
    "float_alpha_for_ints": lambda lib: lib.ones(2, dtype=lib.int64).add(
        lib.ones(2, dtype=lib.int64), alpha=lib.tensor(2.5)),
    "bool_alpha": lambda lib: _ab(lib)[0].add(_ab(lib)[1], alpha=lib.tensor(True)),
}


@pytest.mark.parametrize("name", NUMBER_PARAMETERS)
def test_number_parameter_takes_a_0dim_tensor(name):
    same(NUMBER_PARAMETERS[name])
