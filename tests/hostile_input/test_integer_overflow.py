"""Hostile input: integer arithmetic at its limits. Division and remainder by zero,
INT64_MIN // -1, numbers past the dtype's range in arithmetic, fill_ and setitem, and
arange/linspace at the ends of int64. hostile_cases.py runs them (gradtrack in a child
process).
"""

import pytest

from hostile_cases import REFUSED, case_table, check_case

torch = pytest.importorskip("torch")

CASES, case = case_table()   # CASES: name -> (source, mode)


# -- integer division by zero, INT64_MIN // -1 -------------------------------------------------
for name, src in {
    "floordiv_zero": "out = lib.tensor([1, 2]) // 0",
    "mod_zero": "out = lib.tensor([1, 2]) % 0",
    "div_floor_zero": "out = lib.tensor([1, 2]).div(0, rounding_mode='floor')",
    "div_trunc_zero": "out = lib.tensor([1, 2]).div(0, rounding_mode='trunc')",
    "true_div_zero": "out = lib.tensor([1, 2]) / 0",
    "floor_divide_tensor_zero": "out = lib.floor_divide(lib.tensor([1, 2]), lib.tensor([0, 1]))",
    "remainder_tensor_zero": "out = lib.remainder(lib.tensor([1, 2]), lib.tensor([1, 0]))",
    "uint8_floordiv_zero": "out = lib.tensor([1, 2], dtype=lib.uint8) // 0",
    "float_floordiv_zero": "out = lib.tensor([1.0, -1.0, 0.0]) // 0",
    "float_mod_zero": "out = lib.tensor([1.0, -1.0, 0.0]) % 0",
    "int_floordiv_float_zero": "out = lib.tensor([5]) // lib.tensor(0.0)",
    "inplace_floordiv_zero": REFUSED + "x = lib.tensor([1, 2])\nout = refused(x, lambda: x.floor_divide_(0))",
    "inplace_mod_zero": REFUSED + "x = lib.tensor([1, 2])\nout = refused(x, lambda: x.remainder_(0))",
    # INT64_MIN // -1 overflows; torch wraps (its div(rounding_mode='trunc') raises SIGFPE
    # itself, so that form is not a case).
    "int64_min_floordiv_minus_one": "out = lib.tensor([-2**63]) // -1",
    "int64_min_mod_minus_one": "out = lib.tensor([-2**63]) % -1",
    "int64_min_div_floor_minus_one": "out = lib.tensor([-2**63]).div(-1, rounding_mode='floor')",
    "int32_min_floordiv_minus_one": "out = lib.tensor([-2**31], dtype=lib.int32) // -1",
    "int64_min_floordiv_tensor": "out = lib.tensor([-2**63, 5]) // lib.tensor([-1, 2])",
    "int64_min_inplace_floordiv": "x = lib.tensor([-2**63]); x //= -1; out = x",
    "int64_min_true_div": "out = lib.tensor([-2**63]) / -1",
    "int64_min_neg": "out = -lib.tensor([-2**63])",
}.items():
    case(f"intdiv_{name}", src)

# -- int64 overflow, arange and linspace at the ends of int64 ----------------------------------
for name, src in {
    "arange_to_2_63": "out = lib.arange(0, 2**63)",
    "arange_full_range_step": "out = lib.arange(-2**63, 2**63 - 1, 2**62)",
    "arange_near_max": "out = lib.arange(2**62, 2**63 - 1, 2**61)",
    "arange_top_down": "out = lib.arange(2**63 - 1, 2**63 - 4, -1)",
    "arange_top_two": "out = lib.arange(2**63 - 3, 2**63 - 1)",
    "arange_step_zero": "out = lib.arange(0, 10, 0)",
    "arange_wrong_sign": "out = lib.arange(0, 10, -1)",
    "arange_inf": "out = lib.arange(0, float('inf'))",
    "arange_nan": "out = lib.arange(0, float('nan'))",
    "arange_tiny_step": "out = lib.arange(0.0, 1.0, 1e-30)",
    "linspace_to_2_63": "out = lib.linspace(0, 2**63, 5)",
    "linspace_int64": "out = lib.linspace(0, 2**62, 5, dtype=lib.int64)",
    "linspace_int64_full": "out = lib.linspace(-2**63, 2**63 - 1, 3, dtype=lib.int64)",
    "linspace_inf": "out = lib.linspace(0, float('inf'), 3)",
    "linspace_nan": "out = lib.linspace(0, float('nan'), 3)",
    "full_2_63": "out = lib.full((2,), 2**63)",
    "full_int32_overflow": "out = lib.full((2,), 2**62, dtype=lib.int32)",
    "int32_plus_2_40": "out = lib.tensor([1], dtype=lib.int32) + 2**40",
    "uint8_plus_300": "out = lib.tensor([1], dtype=lib.uint8) + 300",
    "int64_plus_2_63": "out = lib.tensor([1], dtype=lib.int64) + 2**63",
    "int64_mul_wraps": "out = lib.tensor([1], dtype=lib.int64) * 2**62 * 4",
    "float_plus_2_70": "out = lib.tensor([1.0]) + 2**70",
    "uint8_add_negative": "x = lib.tensor([1], dtype=lib.uint8); x.add_(-1); out = x",
    "uint8_fill_300": REFUSED + "x = lib.tensor([1], dtype=lib.uint8)\nout = refused(x, lambda: x.fill_(300))",
    "int32_fill_2_40": REFUSED + "x = lib.tensor([1], dtype=lib.int32)\nout = refused(x, lambda: x.fill_(2**40))",
    "int64_fill_2_63": REFUSED + "x = lib.tensor([1])\nout = refused(x, lambda: x.fill_(2**63))",
    "int64_fill_nan": REFUSED + "x = lib.tensor([1])\nout = refused(x, lambda: x.fill_(float('nan')))",
    "int64_setitem_inf": (REFUSED + "x = lib.tensor([1])\n"
                          "out = refused(x, lambda: x.__setitem__(0, float('inf')))"),
    "float_fill_1e400": "x = lib.tensor([1.0]); x.fill_(1e400); out = x",
    "nan_to_long": "out = lib.tensor([float('nan')]).long()",
    "huge_to_int": "out = lib.tensor([1e20]).int()",
}.items():
    case(f"overflow_{name}", src)


# ---- the tests -------------------------------------------------------------------------------

@pytest.mark.parametrize("name", list(CASES))
def test_hostile_case(name, gradtrack_outcomes):
    check_case(torch, CASES[name], gradtrack_outcomes[name])
