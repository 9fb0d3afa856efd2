"""Hostile input: arguments of the wrong type or out of range. Strings, None, floats and
lists where tensors, dims or dtypes go; refused in-place ops with bad arguments (values
and ``_version`` unchanged); index_select past the ends; set_num_threads with what it
does not take. Most compare the exception type only (mode ``type``):
test_argument_error_messages_match lists the messages that differ from torch's.
hostile_cases.py runs them (gradtrack in a child process).
"""

import pytest

from hostile_cases import REFUSED, case_table, check_case, outcome

torch = pytest.importorskip("torch")

CASES, case = case_table()   # CASES: name -> (source, mode)


# -- argument types and dtypes -----------------------------------------------------------------
ARG_TYPES = {
    "add_str": 'out = lib.add(lib.ones(2), "a")',
    "plus_none": "out = lib.ones(2) + None",
    "plus_str": 'out = lib.ones(2) + "a"',
    "times_list": "out = lib.ones(2) * [1, 2]",
    "sum_dim_str": 'out = lib.ones(2).sum(dim="a")',
    "sum_dim_float": "out = lib.ones(2).sum(1.5)",
    "view_str": 'out = lib.ones(6).view("a")',
    "view_float": "out = lib.ones(6).view(2.5)",
    "reshape_floats": "out = lib.ones(6).reshape(2.0, 3)",
    "zeros_str": 'out = lib.zeros("a")',
    "zeros_float": "out = lib.zeros(2.5)",
    "zeros_none": "out = lib.zeros(None)",
    "zeros_dtype_str": 'out = lib.zeros(2, dtype="float32")',
    "zeros_dtype_python_float": "out = lib.zeros(2, dtype=float)",
    "exp_str": 'out = lib.exp("a")',
    "exp_float": "out = lib.exp(2.0)",
    "exp_list": "out = lib.exp([1.0])",
    "matmul_int": "out = lib.matmul(lib.ones(2), 3)",
    "transpose_float_dim": "out = lib.ones(2, 2).transpose(0, 1.5)",
    "unsqueeze_none": "out = lib.ones(2).unsqueeze(None)",
    "cat_tensor_not_list": "out = lib.cat(lib.ones(2))",
    "cat_with_str": 'out = lib.cat([lib.ones(2), "a"])',
    "stack_with_none": "out = lib.stack([lib.ones(2), None])",
    "cat_with_none": "out = lib.cat([lib.ones(2), None])",
    "expand_str": 'out = lib.ones(2).expand("a")',
    "requires_grad_str": 'out = lib.ones(2).requires_grad_("yes")',
    "index_none_str": 'out = lib.ones(2)[None, "a"]',
    "index_str": 'out = lib.ones(2)["a"]',
    "index_float": "out = lib.ones(2)[1.5]",
    "index_float_tensor": "out = lib.ones(2)[lib.tensor([0.0])]",
    "clamp_str": 'out = lib.ones(2).clamp("a")',
    "clamp_nothing": "out = lib.ones(2).clamp()",
    "clamp_tensor_min_number_max": "out = lib.tensor([1.5, 2.5]).clamp(lib.tensor([1.0, 2.0]), 2)",
    "clamp__tensor_min_number_max": "x = lib.tensor([1.5, 2.5]); x.clamp_(lib.tensor([1.0, 2.0]), 2); out = x",
    "pow_str": 'out = lib.ones(2).pow("a")',
    "where_float_condition": "out = lib.where(lib.ones(2), lib.ones(2), lib.ones(2))",
    "masked_fill_float_mask": "out = lib.ones(2).masked_fill(lib.ones(2), 0.0)",
    "index_select_float_index": "out = lib.ones(2).index_select(0, lib.tensor([0.0]))",
    "gather_float_index": "out = lib.ones(2, 2).gather(1, lib.tensor([[0.0]]))",
    "softmax_str_dim": 'out = lib.ones(2).softmax("a")',
    "softmax_no_dim": "out = lib.ones(2).softmax()",
    "backward_str_gradient": 'out = lib.ones(2, requires_grad=True).sum().backward("a")',
    "grad_str_grad_outputs": ('x = lib.ones(2, requires_grad=True)\n'
                              'out = lib.autograd.grad(x.sum(), x, grad_outputs="a")'),
    "grad_str_inputs": 'x = lib.ones(2, requires_grad=True)\nout = lib.autograd.grad(x.sum(), "a")',
    "register_hook_not_callable": ('x = lib.ones(2, requires_grad=True)\nx.register_hook("a")\n'
                                   'out = (x * 2).sum().backward()'),
    "int_requires_grad_": "out = lib.ones(2, dtype=lib.int64).requires_grad_()",
}
for name, src in ARG_TYPES.items():
    case(f"arg_{name}", src, "type")
# gradtrack's own words by design (CPU only): the type must still be torch's.
case("arg_to_bad_string", 'out = lib.ones(2).to("float")', "own")

# Refused in-place ops with bad arguments: type as torch, values and _version unchanged.
for name, call in {
    "add__str": 'x.add_("a")',
    "fill__str": 'x.fill_("a")',
    "fill__tensor_with_dims": "x.fill_(lib.ones(2))",
    "copy__list": "x.copy_([1, 2])",
    "copy__wrong_shape": "x.copy_(lib.ones(3))",
    "mul__wrong_shape": "x.mul_(lib.ones(3))",
    "add__broadcast_grows": "x.add_(lib.ones(2, 2))",
    "clamp__str": 'x.clamp_("a")',
    "clamp__max_str": 'x.clamp_(None, "b")',
    "clamp__list": "x.clamp_([1])",
    "clamp__object": "x.clamp_(object())",
    "div__int_by_float": "y = lib.ones(2, dtype=lib.int64); x.copy_(y.div_(2))",
    "setitem_str_value": 'x[0] = "a"',
    "setitem_out_of_range": "x[5] = 1.0",
    "setitem_wrong_shape": "x[:] = lib.ones(3)",
    "floordiv_int_by_zero": "y = lib.tensor([1, 2]); y //= 0",
}.items():
    case(f"refused_{name}", REFUSED + f"x = lib.tensor([1.5, 2.5])\nout = refused(x, lambda: exec({call!r}, globals(), {{'x': x}}))", "type")

# index_select takes no negative index (torch: out of range; along dim 1 its own words).
# set_num_threads takes positive ints only, and a refusal leaves the count as it was.
for name, src in {
    "index_select_minus_one": "out = lib.arange(3.0).index_select(0, lib.tensor([-1]))",
    "index_select_minus_one_int32": "out = lib.arange(3.0).index_select(0, lib.tensor([-1], dtype=lib.int32))",
    "index_select_too_big": "out = lib.arange(3.0).index_select(0, lib.tensor([0, 3]))",
    "index_select_0dim_minus_one": "out = lib.tensor(5.0).index_select(0, lib.tensor([-1]))",
    "index_select_0dim_zero": "out = lib.tensor(5.0).index_select(0, lib.tensor([0]))",
    "index_select_0dim_backward": ("x = lib.tensor(5.0, requires_grad=True)\n"
                                   "y = x.index_select(0, lib.tensor([0]))\ny.backward()\nout = (y, x.grad)"),
    "index_select_dim1_minus_one": "out = lib.ones(2, 3).index_select(1, lib.tensor([-1]))",
    "index_select_dim1_0dim_index": "out = lib.ones(2, 3).index_select(-1, lib.tensor(-1))",
    "index_select_dim1_too_big": "out = lib.ones(2, 3, 4).index_select(1, lib.tensor([0, 3]))",
    "index_select_dim2_minus_one": "out = lib.ones(2, 3, 4).index_select(2, lib.tensor([-1]))",
    "index_select_dim0_of_2d_minus_one": "out = lib.ones(2, 3).index_select(0, lib.tensor([-1]))",
    "index_select_empty_dim": "out = lib.ones(0, 3).index_select(0, lib.tensor([0]))",
    "index_select_empty_1d": "out = lib.ones(0).index_select(0, lib.tensor([0]))",
    "index_select_empty_index": "out = lib.ones(0, 3).index_select(0, lib.tensor([], dtype=lib.int64))",
    "index_select_saved_index_negative": (
        "a = np.array([0, 1])\nx = lib.ones(3, requires_grad=True)\n"
        "y = x.index_select(0, lib.from_numpy(a))\na[0] = -1\ny.sum().backward()\nout = x.grad"),
    "index_select_saved_index_too_big": (
        "a = np.array([0, 1])\nx = lib.ones(3, requires_grad=True)\n"
        "y = x.index_select(0, lib.from_numpy(a))\na[0] = 10**6\ny.sum().backward()\nout = x.grad"),
    "index_select_saved_index_negative_2d": (
        "a = np.array([0, 1])\nx = lib.ones(3, 3, requires_grad=True)\n"
        "y = x.index_select(1, lib.from_numpy(a))\na[0] = -1\ny.sum().backward()\nout = x.grad"),
    "index_select_saved_index_too_big_2d_dim0": (
        "a = np.array([0, 1])\nx = lib.ones(3, 3, requires_grad=True)\n"
        "y = x.index_select(0, lib.from_numpy(a))\na[1] = 5\ny.sum().backward()\nout = x.grad"),
    "index_select_minus_one_backward": ("x = lib.ones(3, requires_grad=True)\n"
                                        "out = x.index_select(0, lib.tensor([1, -1]))"),
    "set_num_threads_zero": "out = lib.set_num_threads(0)",
    "set_num_threads_negative": "out = lib.set_num_threads(-1)",
    "set_num_threads_float": "out = lib.set_num_threads(1.5)",
    "set_num_threads_bool": "out = lib.set_num_threads(True)",
    "set_num_threads_str": "out = lib.set_num_threads('2')",
    "set_num_threads_2_31": "out = lib.set_num_threads(2**31)",
    "set_num_threads_refused_keeps_count": (
        "n = lib.get_num_threads()\ntry:\n    lib.set_num_threads(0)\nexcept RuntimeError:\n    pass\n"
        "out = lib.get_num_threads() == n"),
}.items():
    case(f"arg_{name}", src)

# from_numpy of a numpy scalar (not an array): torch's TypeError.
case("numpy_from_numpy_numpy_scalar", "out = lib.from_numpy(np.float64(2.5))", "type")


# ---- the tests -------------------------------------------------------------------------------

@pytest.mark.parametrize("name", list(CASES))
def test_hostile_case(name, gradtrack_outcomes):
    check_case(torch, CASES[name], gradtrack_outcomes[name])


def test_argument_error_messages_match(gradtrack_outcomes):
    """The "type" cases compare only exception types; this one lists every case whose
    message differs from torch's (one root cause: gradtrack's argument parsing is
    pybind11's, torch's is its own parser; e.g. exp("a"): torch "exp(): argument 'input'
    (position 1) must be Tensor, not str", gradtrack "exp(): incompatible function
    arguments. ...")."""
    differ = []
    for name, (source, mode) in CASES.items():
        if mode != "type":
            continue
        expected, actual = outcome(source, torch), gradtrack_outcomes[name]
        if expected[0] != "ok" and actual[0] == expected[0] and actual[1] != expected[1]:
            differ.append(f"{name}:\n    torch     {expected[1][:160]!r}\n"
                          f"    gradtrack {actual[1][:160]!r}")
    assert not differ, f"{len(differ)} message(s) differ:\n" + "\n".join(differ)
