"""Regression programs of the differential fuzzer (test_fuzz_differential.py), fixed since:
writes and indexing. setitem (the node it records, full slices, values with leading
size-one dims, integer targets, expanded targets), index_put_, the overlap checks of
in-place writes, mask indices and size arguments, scatter/scatter_, and the position an
index error names.

Each program runs on torch and gradtrack and is compared after every statement
(fuzz_trace.py); a section names the gaps it closed.
"""

import functools
import os
import sys

import pytest

import gradtrack

sys.path.insert(0, os.path.dirname(__file__))
import fuzz_programs as fp  # noqa: E402

torch = pytest.importorskip("torch")

# same(source): the program gives the same trace on torch and gradtrack (nothing masked)
same = functools.partial(fp.assert_same, torch=torch, gradtrack=gradtrack)


# ---- setitem (setitem_scalar_node, setitem_full_slice, setitem_value_leading_ones,
# ---- setitem_0dim_value_expand, copy_int_requires_grad, copy_self_overlap) ----------------

def test_setitem_scalar_is_a_tensor_input_of_copyslices():
    same("""
        t0 = lib.tensor([[2.25], [2.5], [3.0]], requires_grad=True)
        t1 = t0 * t0
        t1[-1] = 0
    """)


def test_setitem_ellipsis_scalar_is_fill_backward3():
    same("""
        t0 = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        t1 = t0 * 1
        t1[...] = 0.0
    """)


def test_setitem_ellipsis_0dim_tensor_is_fill_backward3():
    same("""
        t0 = lib.tensor([[-0.5, -2.75], [0.5, 0.0]], requires_grad=True)
        t1 = t0 @ t0
        t1[...] = lib.tensor(0.5)
    """)


def test_setitem_full_slice_writes_the_tensor_itself():
    same("""
        t0 = lib.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
        t1 = t0 * 1
        t1[:] = t0
    """)


def test_augmented_setitem_full_slice():
    same("""
        t0 = lib.tensor([2.75], dtype=lib.float64, requires_grad=True)
        t1 = (2 - t0).sigmoid()
        t1[:1] += t0
    """)


def test_setitem_full_slice_of_size_one_dim_scalar():
    same("""
        t0 = lib.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
        t1 = t0 * 1
        t1[:1] = 0.5
    """)


@pytest.mark.parametrize("source", [
    "t0 = lib.zeros(2)\nt0[0] = lib.tensor([5.0])",
    "t0 = lib.zeros(2, 3)\nt0[0] = lib.ones(1, 1, 3)",
    "t0 = lib.zeros(2, 3, requires_grad=True)\nt1 = t0 * 1\nt1[0] = t0[:1]",
], ids=["into_0dim", "into_row", "tracked"])
def test_setitem_drops_leading_size_one_dims_of_the_value(source):
    same(source)


def test_setitem_0dim_value_feeds_copyslices_directly():
    same("""
        t0 = lib.tensor(2.0, requires_grad=True)
        t1 = lib.zeros(2, 3)
        t1[0] = t0
    """)


@pytest.mark.parametrize("source", [
    "t0 = lib.tensor(-1.25, requires_grad=True)\nt1 = lib.tensor(0)\nt1.copy_(t0)",
    "t0 = lib.tensor(-1.25, requires_grad=True)\nt1 = lib.tensor(0)\nt1[...] = t0",
], ids=["copy_", "setitem"])
def test_copy_into_integer_tensor_does_not_require_grad(source):
    same(source)


def test_setitem_into_expanded_tensor_from_the_same_element():
    same("""
        t0 = lib.tensor([[1.5, -2.75], [1.0, 1.25]])
        t1 = t0.sum()
        t2 = t1.expand(2)
        with lib.no_grad():
            t2[:1] = t1
    """)


def test_setitem_of_expanded_tensor_into_itself_is_a_no_op():
    same("""
        t0 = lib.tensor(2.5, dtype=lib.float64)
        t1 = t0.expand(2)
        t1[...] = t1
    """)


# ---- index_put_ (index_put_checks) ---------------------------------------------------------

@pytest.mark.parametrize("source", [
    "t0 = lib.tensor([[0.0, -0.5], [-2.0, -2.0]])\nt0[[0, -1]] = lib.tensor(0)",
    "t0 = lib.tensor([[0.0, -0.5], [-2.0, -2.0]])\nt0[lib.tensor([0, 1])] = lib.tensor([1, 2])",
], ids=["list_index", "tensor_index"])
def test_index_put_refuses_another_dtype(source):
    same(source)


def test_index_put_refuses_overlapping_value():
    same("""
        t0 = lib.tensor([0.75, 2.5, 1.5])
        t0[t0 > 0] = t0
    """)


def test_index_put_views_value_with_leading_one():
    same("""
        t0 = lib.tensor([[0.25, -3.0, 0.75]], requires_grad=True)
        t1 = t0 * 2
        t1[[0]] = t0
    """)


def test_index_put_on_expanded_tensor():
    same("""
        t0 = lib.tensor([1.75, -0.5, 0.75, -3.0])
        t1 = t0.expand(2, -1)
        with lib.no_grad():
            t1[lib.tensor([0])] = t0 * 2
    """)


# ---- overlap checks (overlap_check_empty, overlap_check_order) -----------------------------

def test_inplace_on_empty_expanded_tensor():
    same("""
        t0 = lib.zeros(1, 0).expand(3, 0)
        t0.add_(1)
    """)


def test_index_put_into_empty_expanded_tensor():
    same("""
        t0 = lib.zeros(2, 0)
        t1 = t0.expand(2, 2, -1)
        t1[t1 > 0] = lib.tensor(-1.5)
    """)


def test_second_backward_into_empty_leaf_made_by_requires_grad_():
    same("""
        t0 = lib.zeros(2, 0)
        t0.requires_grad_()
        t0.sum().backward(retain_graph=True)
        t0.sum().backward()
    """)


def test_second_backward_into_empty_leaf():
    same("""
        t0 = lib.zeros(2, 0, dtype=lib.float64, requires_grad=True)
        t0.sum().backward()
        t0.sum().backward()
    """)


@pytest.mark.parametrize("source", [
    "t0 = lib.tensor([[2, 3, -3], [-1, 0, 0]])\nt0[None] /= t0",
    "t0 = lib.tensor([[2.0, 3.0], [-1.0, 0.0]])\nt0.copy_(t0[None])",
    "t0 = lib.tensor(2.5)\nt1 = t0[None]\nt0 /= t1",
], ids=["int_true_divide", "copy_broadcast", "float_true_divide"])
def test_partial_overlap_is_checked_first(source):
    same(source)


# ---- indexing and argument parsing (mask_index_0dim, no_size_args) -------------------------

@pytest.mark.parametrize("mask", ["t0 > 0", "t0 < 0", "lib.tensor(True)"])
def test_mask_index_of_0dim_tensor_is_1d(mask):
    same(f"t0 = lib.tensor(1.5)\nt1 = t0[{mask}]")


@pytest.mark.parametrize("call", ["view()", "reshape()", "permute()"])
def test_size_arguments_are_required(call):
    same(f"t0 = lib.tensor(2.0)\nt1 = t0.{call}")


@pytest.mark.parametrize("index", ["..., -1", "None, 1, None, 5", "..., None, 5", "True, 0, 7",
                                   "lib.tensor([0]), 5"])
def test_index_error_names_the_position_in_the_index(index):
    # PyTorch's message counts items of the index, not dims of the tensor
    same(f"t0 = lib.zeros(3, 2)\nt1 = t0[{index}]")


# ---- scatter -------------------------------------------------------------------------------

# scatter / scatter_ with a tensor src (ScatterBackward0) or a number (ScatterBackward1):
# values, argument errors in torch's words, versions, gradients and double backward.
_SCATTER_SETUP = ("t0 = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)\n"
                  "t1 = lib.tensor([[7.0, 8.0, 9.0]], requires_grad=True)\n"
                  "t2 = lib.tensor([[0, 1, 0]])\n")


@pytest.mark.parametrize("body", [
    "t3 = t0.scatter(0, t2, t1)\n(t3 * t3).sum().backward()",
    "t3 = t0.scatter(1, lib.tensor([[2], [0]]), -1.0)\n(t3 * t3 * t3).sum().backward()",
    "t3 = lib.scatter(t0, 0, t2, value=3.0)",
    "t3 = t0.scatter(0, t2, src=t1)",
    "t3 = t0.scatter(0, t2)",
    "t3 = t0.scatter(0, t2, 'a')",
    "t3 = lib.zeros(2, 3, dtype=lib.int64).scatter(0, t2, 2.5)",
    "t3 = lib.zeros(2, 3, dtype=lib.uint8).scatter(0, t2, 300)",
    "t3 = t0.scatter(0, lib.tensor([[0, 1, 0, 0]]), 2)",
    "t3 = t0.scatter(0, lib.tensor([[0, 1, 0, 0]]), lib.ones(1, 4))",
    "t3 = t0.scatter(0, t2, t1.double())",
    "t3 = t0 * 1\nt3.scatter_(0, t2, t1)\n(t3 * t3).sum().backward()",
    "t3 = t0 * 2\nt3.scatter_(1, lib.tensor([[2], [0]]), value=0.5)\n(t3 * t3).sum().backward()",
    "t0.scatter_(0, t2, 1.0)",
    "t3 = t0.scatter(0, t2, t1 * t1)\n"
    "t4, t5, = lib.autograd.grad((t3 * t3).sum(), [t0, t1], create_graph=True)\n"
    "(t4.sum() + t5.sum()).backward()",
    "t3 = lib.ones(2, 3, requires_grad=True)\n"
    "t4, = lib.autograd.grad(t0.scatter(0, t2, 0.5), [t0], grad_outputs=t3, create_graph=True)\n"
    "(t4 * t4).sum().backward()",
], ids=["src", "value", "value_kw", "src_kw", "missing", "str", "int_value", "uint8_overflow",
        "value_shape", "src_shape", "src_dtype", "inplace_src", "inplace_value", "inplace_leaf",
        "double_backward", "value_double_backward"])
def test_scatter_cases(body):
    same(_SCATTER_SETUP + body)
