"""Hostile input: absurd sizes and indices. Allocations too big for the machine (a
RuntimeError or MemoryError, never a crash), negative and overflowing sizes, views and
strides out of range, indices past 2**62, negative dims, and item()/bool() of tensors
that are not one element. hostile_cases.py runs them (gradtrack in a child process).
"""

import pytest

from hostile_cases import case_table, check_case, run_gradtrack_cases

torch = pytest.importorskip("torch")

CASES, case = case_table()   # CASES: name -> (source, mode)


# -- sizes: allocation failure is a RuntimeError / MemoryError, never a crash ------------------
for name, src in {
    "empty_2_62": "out = lib.empty(2**62)",
    "zeros_1e12": "out = lib.zeros(10**12)",
    "ones_2_40_squared": "out = lib.ones(1 << 40, 1 << 40)",
    "arange_1e20": "out = lib.arange(0, 1e20)",
    "full_2_31_squared": "out = lib.full((2**31, 2**31), 1.0)",
    "zeros_2_40_float64": "out = lib.zeros(2**40, dtype=lib.float64)",
    "empty_tuple_2_40": "out = lib.empty((2**40,))",
    "randn_2_40": "out = lib.randn(2**40)",
    "rand_2_40": "out = lib.rand(2**40)",
    "randint_2_40": "out = lib.randint(0, 10, (2**40,))",
    "randperm_2_40": "out = lib.randperm(2**40)",
    "linspace_2_40": "out = lib.linspace(0, 1, 2**40)",
    "eye_2_40": "out = lib.eye(2**40)",
    "expand_then_add": "out = lib.ones(1).expand(2**40) + 1",
    "expand_then_contiguous": "out = lib.ones(1).expand(2**40, 2**40).contiguous()",
    "new_zeros_2_40": "out = lib.ones(1).new_zeros(2**40)",
    "zeros_like_expanded": "out = lib.zeros_like(lib.ones(2).expand(2**40, 2))",
}.items():
    case(f"alloc_{name}", src, "alloc")

for name, src in {
    "empty_negative": "out = lib.empty(-1)",
    "zeros_negative": "out = lib.zeros(2, -3)",
    "linspace_negative_steps": "out = lib.linspace(0, 1, -1)",
    "expand_huge_is_a_view": "out = lib.ones(1).expand(2**40).shape",
    "view_huge": "out = lib.ones(2, 3).view(2**62, 2**62)",
    "reshape_huge": "out = lib.ones(2, 3).reshape(-1, 2**62)",
    "view_two_minus_one": "out = lib.ones(6).view(-1, -1)",
    "view_minus_two": "out = lib.ones(6).view(-2, 3)",
    "view_bad_infer": "out = lib.ones(6).view(4, -1)",
    "as_strided_huge_stride": "out = lib.arange(6.0).as_strided((2, 2), (2**62, 1))",
    "as_strided_negative_size": "out = lib.arange(6.0).as_strided((-1,), (1,))",
    "as_strided_negative_offset": "out = lib.arange(6.0).as_strided((3,), (1,), -1)",
    "zeros_100_dims": "out = lib.zeros(*([1] * 100)).shape",
    "expand_minus_two": "out = lib.ones(1).expand(-2)",
    "expand_minus_two_then_cat": "out = lib.cat([lib.ones(1).expand(-2), lib.ones(3)])",
    "expand_minus_two_leading": "out = lib.ones(1).expand(-2, 1)",
    "expand_minus_two_trailing": "out = lib.ones(2, 1).expand(2, -2)",
    "expand_minus_one_leading": "out = lib.ones(1).expand(-1, 1)",
    "expand_0dim_minus_one": "out = lib.ones(()).expand(-1)",
    "expand_0dim_minus_one_leading": "out = lib.ones(()).expand(-1, 2)",
    "expand_minus_two_non_singleton": "out = lib.ones(2, 1).expand(-2, 3)",
    "expand_numel_overflows": "out = lib.ones(1).expand(2**62, 2)",
    "expand_numel_overflows_before_zero": "out = lib.ones(0).expand(2**62, 2**62, 0)",
    "expand_2_40_squared": "out = lib.ones(1).expand(2**40, 2**40).shape",
    "empty_zero_then_huge": "out = lib.empty(0, 2**62, 2**62)",
    "zeros_zero_then_huge": "out = lib.zeros(0, 2**62, 2**62)",
    "empty_zero_huge_strides": "out = lib.empty(0, 2**62, 4)",
    "empty_zero_2_32_squared": "out = lib.empty(0, 2**32, 2**32)",
    "empty_huge_zero_last": "out = lib.empty(2**62, 2**62, 0)",
    "empty_zero_middle_shape": "out = lib.empty(2**62, 0, 2**62).shape",
    "empty_zero_middle_stride": "out = lib.empty(2**62, 0, 2**62).stride()",
}.items():
    case(f"size_{name}", src)

# torch's message carries its C++ stack frames (build-specific): the type is compared.
for name, src in {
    "ones_2_63": "out = lib.ones(2**63)",
    "empty_2_64": "out = lib.empty(2**64)",
}.items():
    case(f"size_{name}", src, "own")

# -- indexing with huge ints, negative dims --------------------------------------------------------
for name, src in {
    "int_2_63": "out = lib.arange(5.0)[2**63]",
    "int_1e30": "out = lib.arange(5.0)[10**30]",
    "int_2_62": "out = lib.arange(5.0)[2**62]",
    "int_minus_2_63": "out = lib.arange(5.0)[-2**63]",
    "slice_start_2_62": "out = lib.arange(5.0)[2**62:]",
    "slice_stop_1e30": "out = lib.arange(5.0)[:10**30]",
    "slice_negative_1e30": "out = lib.arange(5.0)[-10**30:2]",
    "slice_step_2_62": "out = lib.arange(5.0)[::2**62]",
    "tensor_2_62": "out = lib.arange(5.0)[lib.tensor([2**62])]",
    "list_2_62": "out = lib.arange(5.0)[[2**62]]",
    "setitem_2_62": "x = lib.arange(5.0); x[2**62] = 1.0",
    "select_2_62": "out = lib.arange(5.0).select(0, 2**62)",
    "narrow_start_2_62": "out = lib.arange(5.0).narrow(0, 2**62, 1)",
    "narrow_length_2_62": "out = lib.arange(5.0).narrow(0, 1, 2**62)",
    "sum_dim_huge": "out = lib.ones(2, 3).sum(-2**62)",
    "transpose_dim_huge": "out = lib.ones(2, 3).transpose(0, 2**62)",
    "unsqueeze_dim_huge": "out = lib.ones(2, 3).unsqueeze(2**62)",
}.items():
    case(f"index_{name}", src)

NEG = "x = lib.arange(24.0).reshape(2, 3, 4)\n"
for name, expr in {
    "sum_m1": "x.sum(-1)", "sum_m3": "x.sum(-3)", "sum_m4": "x.sum(-4)",
    "sum_m1_m2": "x.sum((-1, -2))", "sum_dup": "x.sum((-1, 2))",
    "mean_m2_keepdim": "x.mean(-2, keepdim=True)",
    "transpose_m1_m3": "x.transpose(-1, -3)", "transpose_m4": "x.transpose(-4, 0)",
    "unsqueeze_m1": "x.unsqueeze(-1)", "unsqueeze_m4": "x.unsqueeze(-4)",
    "unsqueeze_m5": "x.unsqueeze(-5)",
    "squeeze_m1": "x[:, :1].squeeze(-2)", "softmax_m1": "x.softmax(-1)",
    "log_softmax_m2": "x.log_softmax(-2)", "select_m1": "x.select(-1, -1)",
    "select_m1_out": "x.select(-1, -5)", "narrow_m1": "x.narrow(-1, -2, 2)",
    "flatten_m2_m1": "x.flatten(-2, -1)", "flatten_reversed": "x.flatten(-1, -2)",
    "permute_negative": "x.permute(-1, -3, -2)", "permute_dup_negative": "x.permute(-1, 2, 0)",
    "cat_m1": "lib.cat([x, x], dim=-1)", "stack_m1": "lib.stack([x, x], dim=-1)",
    "stack_m5": "lib.stack([x, x], dim=-5)", "max_m1": "x.max(-1)",
    "argmax_m2": "x.argmax(-2)", "amax_m1_m3": "x.amax((-1, -3))",
    "chunk_m1": "x.chunk(2, -1)", "split_m2": "x.split(1, -2)", "unbind_m3": "x.unbind(-3)",
    "gather_m1": "x.gather(-1, lib.zeros(2, 3, 1, dtype=lib.int64))",
    "index_select_m2": "x.index_select(-2, lib.tensor([-1 + 3]))",
    "ellipsis_m1": "x[..., -1]", "expand_m1": "x[:, :1].expand(-1, 3, -1)",
    "expand_m1_new_dim": "x.expand(-1, 2, 3, 4)",
}.items():
    case(f"negdim_{name}", NEG + f"out = {expr}")

case("negdim_backward", NEG + "x.requires_grad_()\n(x.sum(-1).softmax(-1) * lib.arange(3.0)).sum()"
     ".backward()\nout = x.grad")

# -- item / bool of a tensor that is not one element ------------------------------------------
for name, src in {
    "item_empty": "out = lib.tensor([]).item()",
    "item_empty_2d": "out = lib.zeros(0, 3).item()",
    "item_two": "out = lib.ones(2).item()",
    "float_empty": "out = float(lib.tensor([]))",
    "int_two": "out = int(lib.zeros(2))",
    "bool_empty": "out = bool(lib.tensor([]))",
    "bool_two": "out = bool(lib.ones(2))",
}.items():
    case(f"scalar_{name}", src)


# ---- the tests -------------------------------------------------------------------------------

@pytest.mark.parametrize("name", list(CASES))
def test_hostile_case(name, gradtrack_outcomes):
    check_case(torch, CASES[name], gradtrack_outcomes[name])


def test_the_crash_isolation_reports_a_crash():
    # The machinery itself: a case that kills its process is reported, the next one runs.
    results = run_gradtrack_cases([
        ("dies", "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)"),
        ("after", "out = lib.ones(2).sum()"),
    ])
    assert results["dies"][0] == "DIED" and results["dies"][1] < 0
    assert results["after"] == ["ok", ["tensor", "float32", [], "2.0"]]


def test_expand_refuses_a_negative_size_after_a_zero():
    # torch 2.13 accepts expand(0, -2) (its numel check multiplies to 0) and returns a
    # tensor of size (0, -2); gradtrack refuses every negative size with torch's message.
    results = run_gradtrack_cases([("zero_then_negative", "out = lib.ones(1).expand(0, -2)")])
    assert results["zero_then_negative"] == [
        "RuntimeError", "numel: integer multiplication overflow"]
