"""The two-argument special functions (xlogy, xlog1py, zeta, igamma), logit, mvlgamma,
ndtr, the sign and exponent tools (copysign, nextafter, ldexp, heaviside) and the integer
bit ops (gcd, lcm, the shifts) at their edges and in their errors, against torch 2.13.

The op table (tests/ops/op_db/pointwise.py) checks values and gradients on ordinary
inputs; here are the edges, the number operands, the gradients torch refuses and the
messages.
"""

import math

import pytest

import gradtrack
from helpers import outcome

NAN, INF = math.nan, math.inf


def _canonical(v):
    """An outcome with NaN spelled out, so that NaN == NaN."""
    if isinstance(v, float) and math.isnan(v):
        return "nan"
    if isinstance(v, (list, tuple)):
        return type(v)(_canonical(i) for i in v)
    return v


def same(scenario):
    """Runs ``scenario(lib)`` with torch and gradtrack; the outcomes, NaN included, must match."""
    torch = pytest.importorskip("torch")
    assert _canonical(outcome(gradtrack, scenario)) == _canonical(outcome(torch, scenario))


def _t(lib, values, dtype="float64", grad=False):
    return lib.tensor(values, dtype=getattr(lib, dtype), requires_grad=grad)


def _grads(fn, *inputs):
    """fn's result, then the gradient of its sum for each input that requires grad."""
    def run(lib):
        args = [_t(lib, *a) if isinstance(a, tuple) else a for a in inputs]
        out = fn(lib, *args)
        out.sum().backward()
        return [out] + [a.grad for a in args if getattr(a, "requires_grad", False)]
    return run


EDGE_SCENARIOS = {
    "xlogy_zero_self": lambda lib: lib.xlogy(_t(lib, [0.0, 0.0, 0.0, 0.0, 2.0]),
                                             _t(lib, [NAN, 0.0, INF, -1.0, 0.0])),
    "xlog1py_zero_self": lambda lib: lib.special.xlog1py(_t(lib, [0.0, 0.0, 0.0, 3.0]),
                                                         _t(lib, [NAN, -1.0, INF, -1.0])),
    "xlogy_ints": lambda lib: lib.xlogy(lib.tensor([0, 1, 2]), lib.tensor([0, 3, 4])),
    "xlogy_bools": lambda lib: lib.xlogy(lib.tensor([True, False]), lib.tensor([True, True])),
    "xlogy_int_number": lambda lib: lib.xlogy(lib.tensor([0, 1, 2]), 3),
    "xlogy_number_self": lambda lib: lib.xlogy(2.0, _t(lib, [0.0, 1.0, NAN], "float32")),
    "xlogy_half": lambda lib: lib.xlogy(_t(lib, [1.0, 0.0], "float16"),
                                        _t(lib, [3.0, 0.0], "float16")),
    "special_xlogy": lambda lib: lib.special.xlogy(_t(lib, [2.0]), 3),
    "logit_edges": lambda lib: lib.logit(_t(lib, [0.0, 1.0, 1.5, -0.5, NAN, 0.25])),
    "logit_eps": lambda lib: lib.logit(_t(lib, [0.0, 1.0, 1.5, -0.5, NAN, 0.25]), 1e-6),
    "logit_eps_negative": lambda lib: lib.logit(_t(lib, [0.0, 1.5, 0.25]), eps=-1.0),
    "logit_eps_large": lambda lib: lib.logit(_t(lib, [0.0, 0.25, 1.0]), eps=0.6),
    "logit_ints": lambda lib: lib.logit(lib.tensor([0, 1]), 0.1),
    "mvlgamma_poles": lambda lib: lib.mvlgamma(_t(lib, [NAN, INF, -INF, 0.0, -1.5, 0.5]), 3),
    "mvlgamma_ints": lambda lib: lib.mvlgamma(lib.tensor([3, 4]), 2),
    "ndtr_edges": lambda lib: lib.special.ndtr(_t(lib, [-INF, -40.0, 0.0, 9.0, INF, NAN])),
    "ndtr_ints": lambda lib: lib.special.ndtr(lib.tensor([0, 1])),
    "copysign_zeros": lambda lib: lib.copysign(_t(lib, [1.0, -2.0, 0.0, NAN, INF]),
                                               _t(lib, [-0.0, 0.0, -1.0, -1.0, NAN])),
    "copysign_ints": lambda lib: lib.copysign(lib.tensor([1, 2]), -1),
    "nextafter_edges": lambda lib: lib.nextafter(_t(lib, [0.0, 1.0, NAN, INF, 2.0, -0.0]),
                                                 _t(lib, [1.0, 1.0, 0.0, 0.0, NAN, 0.0])),
    "nextafter_half": lambda lib: lib.nextafter(_t(lib, [1.0, 0.0, -1.0, 65504.0], "float16"),
                                                _t(lib, [2.0, -1.0, 0.0, INF], "float16")),
    "nextafter_bfloat16": lambda lib: lib.nextafter(_t(lib, [1.0, 0.0], "bfloat16"),
                                                    _t(lib, [2.0, 1.0], "bfloat16")),
    "ldexp_float_exponent": lambda lib: lib.ldexp(_t(lib, [1.0, 3.0], "float32"),
                                                  _t(lib, [1.5, -2.0])),
    "ldexp_ints": lambda lib: lib.ldexp(lib.tensor([1, 2]), lib.tensor([1, -2])),
    "heaviside_nan": lambda lib: lib.heaviside(_t(lib, [NAN, -0.0, INF]), _t(lib, [0.5])),
    "heaviside_bool": lambda lib: lib.heaviside(lib.tensor([True, False]),
                                                lib.tensor([False, True])),
    "gcd_signs": lambda lib: lib.gcd(lib.tensor([12, -8, 0, 0, -7]), lib.tensor([18, 12, 5, 0, 0])),
    "lcm_signs": lambda lib: lib.lcm(lib.tensor([12, -8, 0, 0, -3]), lib.tensor([18, 12, 5, 0, 4])),
    "lcm_promotes": lambda lib: lib.lcm(lib.tensor([12], dtype=lib.uint8),
                                        lib.tensor([18], dtype=lib.int8)),
    "lshift_wide": lambda lib: lib.bitwise_left_shift(lib.tensor([1, -3, 5, 16]),
                                                      lib.tensor([1, 2, 70, -1])),
    "rshift_wide": lambda lib: lib.bitwise_right_shift(
        lib.tensor([16, -16, 5, -1], dtype=lib.int8), lib.tensor([1, 2, 70, 9], dtype=lib.int8)),
    "rshift_uint8": lambda lib: lib.bitwise_right_shift(lib.tensor([200], dtype=lib.uint8), 9),
    "lshift_number_self": lambda lib: lib.bitwise_left_shift(3, lib.tensor([1, 2])),
    "shift_operators": lambda lib: [lib.tensor([1, 2]) << 2, 2 << lib.tensor([1]),
                                    8 >> lib.tensor([1]), lib.tensor([8]) >> lib.tensor([2])],
    "zeta_edges": lambda lib: lib.special.zeta(_t(lib, [2.0, 1.0, 0.5, 3.0, 2.0, NAN]),
                                               _t(lib, [1.0, 1.0, 1.0, -1.0, -1.5, 1.0])),
    "zeta_numbers": lambda lib: [lib.special.zeta(2.0, _t(lib, [1.0])),
                                 lib.special.zeta(_t(lib, [2.0]), 1)],
    "zeta_ints": lambda lib: lib.special.zeta(lib.tensor([2]), lib.tensor([1])),
    "gammainc_edges": lambda lib: [
        f(_t(lib, [0.0, 0.0, 1.0, -1.0, 1.0, INF, 1.0, INF, NAN]),
          _t(lib, [0.0, 1.0, 0.0, 1.0, -1.0, 1.0, INF, INF, 1.0]))
        for f in (lib.special.gammainc, lib.special.gammaincc)],
    "igamma_large_a": lambda lib: [f(_t(lib, [50.0, 200.0, 1e4]), _t(lib, [45.0, 210.0, 1e4]))
                                   for f in (lib.igamma, lib.igammac)],
    "float_power_": lambda lib: _t(lib, [2.0, 3.0]).float_power_(_t(lib, [2.0], "float32")),
    "ilshift": lambda lib: _shifted_in_place(lib),
}


def _shifted_in_place(lib):
    t = lib.tensor([1, 2])
    u = t
    t <<= 2
    t >>= lib.tensor([1, 0])
    return [t, t is u, t._version]


@pytest.mark.parametrize("name", list(EDGE_SCENARIOS))
def test_values_match_torch(torch, name):
    same(EDGE_SCENARIOS[name])


GRAD_SCENARIOS = {
    "xlogy": _grads(lambda lib, a, b: lib.xlogy(a, b), ([0.0, 2.0, 0.0], "float64", True),
                    ([0.0, 3.0, 2.0], "float64", True)),
    "xlogy_number_other": _grads(lambda lib, a: lib.xlogy(a, 2.0), ([0.0, 2.0], "float64", True)),
    "xlogy_number_self": _grads(lambda lib, b: lib.xlogy(2.0, b), ([0.5, 3.0], "float64", True)),
    "xlog1py": _grads(lambda lib, a, b: lib.special.xlog1py(a, b),
                      ([0.0, 2.0, 0.0], "float64", True), ([-1.0, 3.0, 2.0], "float64", True)),
    "xlog1py_number_self": _grads(lambda lib, b: lib.special.xlog1py(3, b),
                                  ([0.5, 3.0], "float64", True)),
    "copysign": _grads(lambda lib, a, b: lib.copysign(a, b),
                       ([1.0, -2.0, 0.0, -0.0], "float64", True),
                       ([-3.0, -1.0, -1.0, 2.0], "float64", True)),
    "copysign_number": _grads(lambda lib, a: lib.copysign(a, -1.0), ([1.0, 0.0], "float64", True)),
    "nextafter": _grads(lambda lib, a, b: lib.nextafter(a, b), ([1.0, 2.0], "float64", True),
                        ([3.0, 0.0], "float64", True)),
    "ldexp_int_exponent": _grads(lambda lib, a: lib.ldexp(a, lib.tensor([-1, 2])),
                                 ([1.0, 2.0], "float64", True)),
    "logit_eps_bounds": _grads(lambda lib, a: lib.logit(a, eps=0.1),
                               ([0.0, 0.1, 0.25, 0.9, 1.0, 1.5], "float64", True)),
    "logit_outside": _grads(lambda lib, a: lib.logit(a), ([0.0, 0.25, 1.0, 1.5], "float64", True)),
    "mvlgamma": _grads(lambda lib, a: lib.mvlgamma(a, 3), ([2.5, 3.0], "float64", True)),
    "ndtr": _grads(lambda lib, a: lib.special.ndtr(a), ([0.0, 1.0, -INF], "float64", True)),
    "zeta_other": _grads(lambda lib, b: lib.special.zeta(lib.tensor([2.0, 3.0], dtype=b.dtype), b),
                         ([1.0, 2.0], "float64", True)),
    "zeta_number_self": _grads(lambda lib, b: lib.special.zeta(2.0, b),
                               ([1.0, 2.0], "float64", True)),
    "igamma_other": _grads(lambda lib, b: lib.igamma(lib.tensor([2.0, 3.0], dtype=b.dtype), b),
                           ([1.0, 2.0], "float64", True)),
    "igammac_other": _grads(lambda lib, b: lib.igammac(lib.tensor([2.0, 3.0], dtype=b.dtype), b),
                            ([1.0, 2.0], "float64", True)),
    # the gradients torch refuses, and their messages
    "zeta_self": _grads(lambda lib, a: lib.special.zeta(a, 2.0), ([3.0], "float64", True)),
    "zeta_self_tensors": _grads(lambda lib, a: lib.special.zeta(a, lib.ones(1, dtype=a.dtype)),
                                ([3.0], "float64", True)),
    "igamma_input": _grads(lambda lib, a: lib.igamma(a, lib.ones(1, dtype=a.dtype)),
                           ([3.0], "float64", True)),
    "igammac_input": _grads(lambda lib, a: lib.igammac(a, lib.ones(1, dtype=a.dtype)),
                            ([3.0], "float64", True)),
    "heaviside": _grads(lambda lib, a: lib.heaviside(a, lib.tensor([0.5], dtype=a.dtype)),
                        ([1.0, 0.0], "float64", True)),
    "heaviside_": _grads(lambda lib, a: a.clone().heaviside_(lib.tensor([0.5], dtype=a.dtype)),
                         ([1.0, 0.0], "float64", True)),
}


@pytest.mark.parametrize("name", list(GRAD_SCENARIOS))
def test_gradients_and_refusals_match_torch(torch, name):
    same(GRAD_SCENARIOS[name])


def _forward_ad(fn, *values):
    def run(lib):
        fw = lib.autograd.forward_ad
        with fw.dual_level():
            args = [fw.make_dual(_t(lib, v), lib.ones(len(v), dtype=lib.float64))
                    if isinstance(v, list) else v(lib) for v in values]
            return fw.unpack_dual(fn(lib, *args)).tangent
    return run


FORWARD_SCENARIOS = {
    "xlogy": _forward_ad(lambda lib, a, b: lib.xlogy(a, b), [1.0, 2.0], [3.0, 4.0]),
    "copysign": _forward_ad(lambda lib, a, b: lib.copysign(a, b), [1.0, 2.0], [-3.0, 4.0]),
    "nextafter": _forward_ad(lambda lib, a, b: lib.nextafter(a, b), [1.0, 2.0], [3.0, 4.0]),
    "ldexp": _forward_ad(lambda lib, a: lib.ldexp(a, lib.tensor([3, 4])), [1.0, 2.0]),
    "logit": _forward_ad(lambda lib, a: lib.logit(a, 0.1), [0.2, 0.05]),
    "mvlgamma": _forward_ad(lambda lib, a: lib.mvlgamma(a, 2), [2.0, 3.0]),
    "ndtr": _forward_ad(lambda lib, a: lib.special.ndtr(a), [2.0, 3.0]),
    "heaviside": _forward_ad(lambda lib, a, b: lib.heaviside(a, b), [1.0, 2.0], [3.0, 4.0]),
    "zeta": _forward_ad(lambda lib, a, b: lib.special.zeta(a, b), [2.0, 3.0], [3.0, 4.0]),
    "igamma": _forward_ad(lambda lib, a, b: lib.igamma(a, b), [2.0, 3.0], [3.0, 4.0]),
}


@pytest.mark.parametrize("name", list(FORWARD_SCENARIOS))
def test_forward_ad_matches_torch(torch, name):
    same(FORWARD_SCENARIOS[name])


ERROR_SCENARIOS = {
    "xlogy_int_inplace": lambda lib: lib.tensor([1, 2]).xlogy_(lib.tensor([2, 3])),
    "xlogy_out_int": lambda lib: lib.xlogy(_t(lib, [1.0]), _t(lib, [3.0]),
                                           out=lib.empty(1, dtype=lib.int64)),
    "copysign_int_inplace": lambda lib: lib.tensor([1, 2]).copysign_(lib.tensor([-1, 1])),
    "logit_eps_type": lambda lib: lib.logit(_t(lib, [0.5]), "a"),
    "logit_int_inplace": lambda lib: lib.tensor([0, 1]).logit_(0.1),
    "mvlgamma_p": lambda lib: lib.mvlgamma(_t(lib, [3.0]), 0),
    "mvlgamma_p_float": lambda lib: lib.mvlgamma(_t(lib, [3.0]), 2.0),
    "mvlgamma_int_inplace": lambda lib: lib.tensor([3, 4]).mvlgamma_(2),
    "mvlgamma_inplace_p": lambda lib: _t(lib, [3.0]).mvlgamma_(0),
    "heaviside_dtypes": lambda lib: lib.heaviside(_t(lib, [1.0]), lib.tensor([1])),
    "heaviside_inplace_dtypes": lambda lib: _t(lib, [1.0], "float32").heaviside_(lib.tensor([2])),
    "heaviside_number": lambda lib: lib.heaviside(_t(lib, [1.0]), 0.5),
    "heaviside_inplace_number": lambda lib: _t(lib, [1.0]).heaviside_(0.5),
    "logit_inplace_eps_type": lambda lib: _t(lib, [0.5]).logit_("a"),
    "mvlgamma_inplace_p_float": lambda lib: _t(lib, [3.0]).mvlgamma_(2.0),
    "igamma_inplace_number": lambda lib: _t(lib, [1.0]).igamma_(2),
    "nextafter_ints": lambda lib: lib.nextafter(lib.tensor([1, 2]), lib.tensor([3, 4])),
    "nextafter_number": lambda lib: lib.nextafter(_t(lib, [1.0]), 2.0),
    "ldexp_int_inplace": lambda lib: lib.tensor([1]).ldexp_(lib.tensor([2])),
    "ldexp_number": lambda lib: lib.ldexp(_t(lib, [1.0]), 2),
    "gcd_floats": lambda lib: lib.gcd(_t(lib, [12.0]), _t(lib, [18.0])),
    "gcd_inplace_floats": lambda lib: _t(lib, [1.0]).gcd_(lib.tensor([2])),
    "gcd_inplace_cast": lambda lib: lib.tensor([1]).gcd_(_t(lib, [2.0])),
    "lcm_bools": lambda lib: lib.lcm(lib.tensor([True]), lib.tensor([True])),
    "lshift_floats": lambda lib: lib.bitwise_left_shift(_t(lib, [1.0]), lib.tensor([1])),
    "lshift_float_number": lambda lib: lib.bitwise_left_shift(lib.tensor([1]), 1.5),
    "rshift_bools": lambda lib: lib.bitwise_right_shift(lib.tensor([True]), lib.tensor([True])),
    "lshift_operator_floats": lambda lib: _t(lib, [1.0]) << 2,
    "igamma_ints": lambda lib: lib.igamma(lib.tensor([1, 2]), lib.tensor([1, 3])),
    "igamma_number": lambda lib: lib.igamma(_t(lib, [1.0]), 2.0),
    "float_power_float32": lambda lib: _t(lib, [2.0], "float32").float_power_(2),
    "float_power_int": lambda lib: lib.tensor([2]).float_power_(2),
}


@pytest.mark.parametrize("name", list(ERROR_SCENARIOS))
def test_errors_match_torch(torch, name):
    same(ERROR_SCENARIOS[name])


@pytest.mark.parametrize("write", [
    lambda t: t.heaviside_(gradtrack.tensor([2])),
    lambda t: t.gcd_(gradtrack.tensor([2])),
    lambda t: t.float_power_(2),
    lambda t: t.mvlgamma_(0),
])
def test_a_refused_in_place_write_leaves_self_as_it_was(write):
    t = gradtrack.tensor([1.0, 2.0])
    version = t._version
    with pytest.raises((RuntimeError, NotImplementedError)):
        write(t)
    assert t.tolist() == [1.0, 2.0] and t._version == version
