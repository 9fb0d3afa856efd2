"""Regression programs of the differential fuzzer (test_fuzz_differential.py), fixed since:
the ops. The layout of elementwise results, matmul (messages, graphs, folding), formulas
and special values (double backward graphs, pow and prod at zeros and infinities), the
wider op set (maximum/minimum, amax, gather/scatter_add, softmax, joins, in-place view
ops), products with nothing to multiply and mse_loss's broadcasting.

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


# ---- layout of elementwise results (elementwise_layout) -------------------------------------

@pytest.mark.parametrize("op, then", [
    ("t0.t().exp()", "t1.view(-1)"),
    ("t0.t() + 1", "t1.reshape(-1)"),
    ("t0.t().double()", "t1.contiguous().add_(1)"),
], ids=["exp_view", "add_reshape", "double_contiguous"])
def test_elementwise_result_keeps_input_layout(op, then):
    same(f"""
        t0 = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        t1 = {op}
        t2 = {then}
    """)


# ---- matmul (matmul_dtype_messages, matmul_3d_right, matmul_fold_rule, matmul_empty_fold) ---

@pytest.mark.parametrize("ranks", [(1, 3), (2, 1), (2, 3), (3, 1), (3, 3)],
                         ids=lambda r: f"{r[0]}d_{r[1]}d")
def test_matmul_dtype_mismatch_message(ranks):
    shapes = {1: "2", 2: "2, 2", 3: "2, 2, 2"}
    same(f"t0 = lib.ones({shapes[ranks[0]]}) @ lib.ones({shapes[ranks[1]]}, dtype=lib.float64)")


def test_matmul_2d_by_3d_result_is_not_a_view():
    same("""
        t0 = lib.ones(3, 2)
        t1 = lib.ones(2, 2, 1)
        t2 = lib.matmul(t0, t1)
    """)


def test_matmul_1d_by_3d_graph():
    same("""
        t0 = lib.ones(2, requires_grad=True)
        t1 = lib.ones(2, 2, 3)
        t2 = lib.matmul(t0, t1)
    """)


@pytest.mark.parametrize("left", ["t0.expand(2, -1, -1)", "t1.transpose(0, 1)"],
                         ids=["expanded", "transposed"])
@pytest.mark.parametrize("right", ["lib.ones(2, 2)", "lib.ones(2)"], ids=["matrix", "vector"])
def test_matmul_does_not_fold_unfoldable_left_operand_with_grad(left, right):
    same(f"""
        t0 = lib.ones(2, 2, requires_grad=True)
        t1 = lib.ones(2, 2, 2, requires_grad=True)
        t2 = {left} @ {right}
    """)


@pytest.mark.parametrize("shapes", [((2, 1, 2), (1, 2, 3)), ((1, 2, 2), (2, 2, 3))],
                         ids=["fold_to_mm", "clone_transpose"])
def test_matmul_broadcast_batch_graph(shapes):
    a, b = shapes
    same(f"""
        t0 = lib.ones{a}.requires_grad_()
        t1 = lib.ones{b}.requires_grad_()
        t2 = t0 @ t1
    """)


# ---- formulas and special values (create_graph_structure, prod_0dim_formula,
# ---- pow_half_special_values, pow_zero_to_zero_grad, prod_double_backward_zeros) ----------

@pytest.mark.parametrize("expr", ["t0 ** 3", "t0 ** t0"])
def test_double_backward_graph_names(expr):
    same(f"""
        t0 = lib.tensor(1.5, dtype=lib.float64, requires_grad=True)
        t1 = {expr}
        t2, = lib.autograd.grad(t1, [t0], create_graph=True)
    """)


def test_pow_tensor_exponent_zero_at_zero_base_grad():
    same("""
        t0 = lib.tensor([0.0, 0.0, 1.0], requires_grad=True)
        t1 = lib.tensor([0.0, 2.0, 0.0], requires_grad=True)
        (t0 ** t1).sum().backward()
    """)


@pytest.mark.parametrize("right", ["lib.zeros(0)", "lib.zeros(0, 3)"], ids=["vector", "matrix"])
def test_matmul_3d_with_empty_inner_dim(right):
    same(f"t0 = lib.zeros(1, 2, 0) @ {right}")


def test_prod_double_backward_with_two_zeros():
    same("""
        t0 = lib.tensor([0.0, 0.0, 3.0], requires_grad=True)
        t1, = lib.autograd.grad(t0.prod(), [t0], create_graph=True)
        t1.sum().backward()
    """)


def test_prod_of_0dim_backward_ignores_result():
    same("""
        t0 = lib.tensor(-2.75, dtype=lib.float64, requires_grad=True)
        t1 = t0.prod()
        t1.data.div_(0)
        t1.backward()
    """)


@pytest.mark.parametrize("form", ["t1 = t0.pow_(0.5)", "t1 = t0 ** -0.5", "t1 = t0.pow_(-0.5)"])
def test_pow_half_of_negative_infinity_and_negative_zero(form):
    same(f"""
        t0 = lib.tensor([-float('inf'), -0.0, float('inf'), 0.0, -1.0])
        {form}
    """)


# ---- found by the fuzzer after the engine and indexing fixes ----------------------------------

# Found once the generator reached the wider op set (gen_extra): maximum/minimum, amax,
# gather/scatter_add, softmax, joins, multi-output views, in-place view ops.
@pytest.mark.parametrize("source", [
    # maximum/minimum backward: where(), then masked_fill_ in place on each side (version 1),
    # so a leaf used twice gets its second gradient added in place (version 2)
    "t0 = lib.tensor([[3.0, -1.5, 0.5], [-0.25, 0.5, -1.5]], requires_grad=True)\n"
    "t1 = lib.maximum(t0, t0)\n"
    "t2, t3, = lib.autograd.grad(t1.sum(), [t1, t0], allow_unused=True)",
    "t0 = lib.tensor([0.75, 2.0, -1.0, -2.0], requires_grad=True)\n"
    "t1 = lib.minimum(t0, t0.detach() + 0.5)\n"
    "t2, = lib.autograd.grad(t1.sum(), [t0])",
    # max(dim)/min(dim) backward: zeros at version 1, scattered in place (version 2)
    "t0 = lib.tensor([[0.0], [0.75], [2.75]], requires_grad=True)\n"
    "t1 = lib.min(t0, -1).values\n"
    "t2, = lib.autograd.grad(t1.sum(), [t0])",
    "t0 = lib.tensor([[0.0, 1.0], [0.75, -1.0]], requires_grad=True)\n"
    "t1 = t0.max(0, keepdim=True)[0]\n"
    "t2, = lib.autograd.grad(t1.sum(), [t0])",
    # gather backward: zeros, scatter_add_ in place (version 1)
    "t0 = lib.tensor([[0.0, 1.75, 1.75]], requires_grad=True)\n"
    "t1 = t0.gather(0, lib.zeros_like(t0, dtype=lib.int64))\n"
    "t2, = lib.autograd.grad(t1.sum(), [t0])",
    # softmax of a slice holding +inf is NaN throughout (inf - inf), as torch's
    "t0 = lib.tensor([[-3, 0], [3, 2], [-2, -1]])\nt1 = t0.reciprocal()\n"
    "t2 = lib.softmax(t1, dim=0)\nt3 = t1.log_softmax(0)\nt4 = t1.double().softmax(1)",
    # a number to the power of a tensor is contiguous whatever the exponent's layout
    "t0 = lib.tensor([[[3.0, 2.75, 0.0]], [[1.25, 1.0, -1.25]]], requires_grad=True)\n"
    "t1 = t0.transpose(0, -1)\nwith lib.no_grad():\n    t3 = 0.5 ** t1\nt4 = t3.reshape(2, -1)\n"
    "t5 = 2 ** t1\nt6 = t5.view(-1)\nt6.sum().backward()",
    # cat's gradient for a 1-dim empty input is at::zeros (version 1), summed in place
    "t0 = lib.zeros(0, dtype=lib.float64, requires_grad=True)\n"
    "t1 = lib.ones(2, requires_grad=True)\n"
    "t2 = lib.concat([t0, t1, t0], -1)\n"
    "t3, t4, = lib.autograd.grad(t2.sum(), [t0, t1])",
    # amax over an empty dim is an IndexError naming the dim as given
    "t0 = lib.zeros(2, 0)\nt1 = t0.amax(-1, keepdim=True)",
    "t0 = lib.zeros(2, 0)\nt1 = t0.amax((1, 0))",
    "t0 = lib.zeros(2, 0)\nt1 = t0.amax(0)",
    # softmax of an integer tensor names the kernel PyTorch would pick; an empty one passes
    "t0 = lib.tensor([[0, 3, 2], [0, 1, 0]])\nt1 = t0.log_softmax(0)",
    "t0 = lib.zeros(3, 1, dtype=lib.int64)\nt1 = t0.softmax(0)",
    "t0 = lib.tensor([0, 3])\nt1 = t0.softmax(-1)",
    "t0 = lib.zeros(0, 3, dtype=lib.int64)\nt1 = t0.log_softmax(0)",
    # scatter_add: dtypes are checked before shapes, the result is contiguous, and src must
    # cover the index (it is read at the index's positions)
    "t0 = lib.zeros(2, 3)\nt1 = t0.scatter_add(0, lib.zeros(3, 4, dtype=lib.int64), t0.long())",
    "t0 = lib.tensor([[-1.5, 2.25], [1.25, 2.25]], dtype=lib.float64)\n"
    "t1 = t0.t()\n"
    "t2 = t1.scatter_add(0, lib.zeros_like(t1, dtype=lib.int64), t1)\n"
    "t3 = t2.view(4, 1)",
    "t0 = lib.zeros(2, 3)\nt1 = t0.scatter_add(0, lib.zeros(2, 3, dtype=lib.int64), lib.ones(1, 3))",
    "t0 = lib.zeros(2, 3)\nt1 = t0.scatter_add(0, lib.zeros(2, 3, dtype=lib.int64), lib.ones(3))",
    "t0 = lib.zeros(2, 3)\nt1 = t0.scatter_add(0, lib.zeros(2, 0, dtype=lib.int64), lib.ones(1))",
    "t0 = lib.tensor(1.0)\nt1 = t0.scatter_add(0, lib.zeros(2, dtype=lib.int64), lib.ones(3))",
    "t0 = lib.ones(3)\nt1 = t0.scatter_add(0, lib.tensor([-1]), lib.ones(1))",
    "t0 = lib.ones(3)\nt1 = t0.scatter_add(0, lib.tensor([1]), lib.tensor(5.0))",
    "t0 = lib.ones(3)\nt1 = t0.scatter_add(0, lib.tensor([1, 2, 0]), lib.ones(3, 1))",
    "t0 = lib.ones(3)\nt1 = t0.scatter_add(0, lib.tensor([1, 2, 0]), lib.ones(2, 1))",
    "t0 = lib.ones(2, 2)\nt1 = t0.scatter_add(1, lib.tensor([[1], [0]]), lib.ones(2, 1, 1))",
    "t0 = lib.ones(2, 3)\nt1 = t0.scatter_add(0, lib.zeros(0, 3, dtype=lib.int64), lib.ones(5))",
    "t0 = lib.tensor(2.0)\nt1 = t0.scatter_add(0, lib.tensor(0), lib.tensor(5.0))",
    "t0 = lib.ones(3)\nt1 = t0.gather(0, lib.tensor([-1]))",
    # scatter_add_ in place: ScatterAddBackward0, version, gradient of src
    "t0 = lib.zeros(2, 3, requires_grad=True)\n"
    "t1 = t0 * 2\n"
    "t1.scatter_add_(1, lib.tensor([[2, 2, 0], [0, 1, 1]]), t0 * 3)\n"
    "(t1 * t1).sum().backward()",
    "t0 = lib.zeros(2, 3, requires_grad=True)\n"
    "t0.scatter_add_(0, lib.tensor([[0, 1, 0]]), lib.ones(1, 3))",
    "t0 = lib.zeros(2, 3)\nt0.scatter_add_(0, lib.tensor([[0, 1, 0]]), t0)",
    # double backward graphs as PyTorch's: the softmax backward ops are nodes of their own
    # (their gradients reach the incoming gradient too), `x + 1` is the wrapped-number add,
    # rsqrt scales the gradient first, masked_fill and amax restore dims with a view
    "t0 = lib.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -2.0]], dtype=lib.float64, requires_grad=True)\n"
    "t1 = t0.softmax(1)\n"
    "t2 = lib.tensor([[1.0, -2.0, 0.5], [0.25, 1.0, 3.0]], dtype=lib.float64, requires_grad=True)\n"
    "t3, = lib.autograd.grad(t1, [t0], grad_outputs=t2, create_graph=True)\n"
    "(t3 * t3).sum().backward()",
    "t0 = lib.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -2.0]], dtype=lib.float64, requires_grad=True)\n"
    "t1 = t0.log_softmax(0)\n"
    "t2 = lib.tensor([[1.0, -2.0, 0.5], [0.25, 1.0, 3.0]], dtype=lib.float64, requires_grad=True)\n"
    "t3, = lib.autograd.grad(t1, [t0], grad_outputs=t2, create_graph=True)\n"
    "(t3 * t3).sum().backward()",
    "t0 = lib.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -2.0]], requires_grad=True)\n"
    "t1 = lib.ones(2, 3, requires_grad=True)\n"
    "t2, = lib.autograd.grad(t0.expm1(), [t0], grad_outputs=t1, create_graph=True)\n"
    "t3, = lib.autograd.grad(t0.abs().log1p(), [t0], grad_outputs=t1, create_graph=True)\n"
    "t4, = lib.autograd.grad(t0.abs().rsqrt(), [t0], grad_outputs=t1, create_graph=True)\n"
    "t5, = lib.autograd.grad(t0.masked_fill(t0 > 0, 2.0), [t0], grad_outputs=t1, "
    "create_graph=True)\n"
    "t6, = lib.autograd.grad(t0.amax((0, 1)), [t0], grad_outputs=t1[0, 0], create_graph=True)",
    # src larger than index: PyTorch's own backward refuses the gradient it computes
    "t0 = lib.zeros(2, 3, requires_grad=True)\n"
    "t1 = t0 * 2\n"
    "t1.scatter_add_(1, lib.tensor([[2, 2], [0, 0]]), t0 * 3)\n"
    "t1.sum().backward()",
], ids=["maximum_same_input", "minimum", "min_dim", "max_dim_keepdim", "gather", "softmax_of_inf",
         "rpow_contiguous",
         "cat_empty",
         "amax_empty",
        "amax_empty_dims", "amax_nonempty_dim", "log_softmax_int", "softmax_int_column",
        "softmax_int_last", "log_softmax_int_empty", "scatter_add_dtype_first",
        "scatter_add_contiguous", "scatter_add_src_rows", "scatter_add_src_1d",
        "scatter_add_empty_index", "scatter_add_0dim", "scatter_add_negative_index",
        "scatter_add_0dim_src", "scatter_add_src_more_dims", "scatter_add_src_more_dims_short",
        "scatter_add_src_3d",
        "scatter_add_empty_index_any_src", "scatter_add_all_0dim",
        "gather_negative_index", "scatter_add_inplace",
        "scatter_add_inplace_leaf", "scatter_add_inplace_self_src", "softmax_triple",
        "log_softmax_triple", "double_backward_graphs", "scatter_add_src_larger"])
def test_wider_op_set_cases(source):
    same(source)


# bmm with nothing to multiply (an empty result, or k == 0) returns zeros of batch2's dtype
# before comparing dtypes, so matmul's batched path does too; mm always compares.
@pytest.mark.parametrize("expr", [
    "lib.bmm(lib.ones(2, 2, 2), lib.zeros(2, 2, 0, dtype=lib.int64))",
    "lib.bmm(lib.zeros(2, 2, 2, dtype=lib.int64), lib.ones(2, 2, 0))",
    "lib.bmm(lib.ones(2, 2, 0), lib.zeros(2, 0, 3, dtype=lib.int64))",
    "lib.bmm(lib.ones(2, 2, 2), lib.zeros(2, 2, 3, dtype=lib.int64))",
    "lib.bmm(lib.ones(0, 2, 2), lib.zeros(0, 2, 3, dtype=lib.int64))",
    "lib.mm(lib.ones(2, 0), lib.zeros(0, 3, dtype=lib.int64))",
    "lib.ones(2) @ lib.zeros(2, 0, dtype=lib.int64)",
    "lib.ones(3, 1, 2) @ lib.zeros(2, 0, dtype=lib.int64)",
    "lib.ones(2, 1, 3).permute(2, 1, 0) @ lib.zeros(2, 0, dtype=lib.int64)",
    "lib.ones(2, 2) @ lib.zeros(3, 2, 0, dtype=lib.int64)",
    "lib.ones(2, 2, 2, 2) @ lib.zeros(2, 2, 0, dtype=lib.int64)",
    "lib.ones(2, 0, 2) @ lib.zeros(2, dtype=lib.int64)",
    "lib.bmm(lib.ones(2, 2, 2, requires_grad=True), lib.zeros(2, 2, 0, dtype=lib.int64))",
    "lib.bmm(lib.ones(2, 2, 0, requires_grad=True), lib.zeros(2, 0, 3))",
], ids=["empty_result", "empty_result_int_first", "k0", "full_mismatch", "empty_batch",
        "mm_k0", "vector_matrix", "folded", "not_folded", "matrix_batch", "4d_batch",
        "batch_vector", "requires_grad_int_result", "requires_grad_k0"])
def test_products_with_nothing_to_multiply(expr):
    same(f"t0 = {expr}\nt1 = t0.sum()")


# F.mse_loss broadcasts both operands first (torch.broadcast_tensors): an expanded operand is
# an ExpandBackward0 view and dtypes promote between tensors of the result's shape.
@pytest.mark.parametrize("source", [
    "t0 = lib.tensor([0.5, 0.75, -1.0, 0.75], dtype=lib.float64)\n"
    "t1 = lib.nn.functional.mse_loss(t0, t0, reduction='mean')\n"
    "t5 = lib.tensor([-2.75], requires_grad=True)\n"
    "t6 = lib.nn.functional.mse_loss(t1, t5, reduction='mean')",
    "t0 = lib.tensor([[-1.75, -1.75, 2.5], [2.0, -2.75, 2.5]])\nt5 = t0.sum()\nt6 = t0.grad\n"
    "t7 = lib.nn.functional.mse_loss(t6, t5, reduction='mean')",
    "t0 = lib.tensor([[3.0, 1.5], [1.5, 1.5]], requires_grad=True)\nt1 = t0.tanh()\n"
    "t2 = lib.nn.functional.cross_entropy(t1, lib.zeros(2, dtype=lib.int64))\n"
    "t3 = lib.nn.functional.mse_loss(t2, t0, reduction='none')\nt3.sum().backward()",
    "t0 = lib.ones(3)\nt1 = lib.nn.functional.mse_loss(t0, lib.ones(2))",
    "t0 = lib.ones(3, 4)\nt1 = lib.nn.functional.mse_loss(t0, lib.ones(2, 5))",
    "t0 = lib.ones(2, 1, 3, requires_grad=True)\n"
    "t1 = lib.nn.functional.mse_loss(t0, lib.ones(4, 1), reduction='sum')\nt1.backward()",
], ids=["promotes_after_broadcast", "none_target", "expanded_operand", "not_broadcastable",
         "not_broadcastable_trailing_dim_first",
        "both_expanded"])
def test_mse_loss_broadcasts_first(source):
    same(source)


# The hard activations' gradient outside their linear piece is +0 even for a negative
# incoming gradient: torch selects 0 there rather than multiplying by 0 (seed 0, index 290).
@pytest.mark.parametrize("name", ["hardsigmoid", "hardswish", "hardtanh"])
def test_hard_activation_gradients_are_positive_zero(name):
    signs = []
    for lib in (gradtrack, pytest.importorskip("torch")):
        x = lib.tensor([-5.0, -0.5, 5.0], dtype=lib.float64, requires_grad=True)
        getattr(lib.nn.functional, name)(x).backward(lib.full((3,), -1.0, dtype=lib.float64))
        signs.append([(v, str(v).startswith("-")) for v in x.grad.tolist()])
    assert signs[0] == signs[1]


# torch's conv_tbc views each kernel tap's slice of the input as (time * batch, channels):
# an input whose time and batch dims cannot merge gets view's error (seed 0, index 38).
@pytest.mark.parametrize("source", [
    "t0 = lib.ones(1, 2, 3, dtype=lib.float64).expand(5, 2, 3)\n"
    "t1 = lib.nn.functional.conv_tbc(t0, lib.ones(3, 3, 4, dtype=lib.float64), "
    "lib.ones(4, dtype=lib.float64))",
    "t0 = lib.ones(2, 5, 3).transpose(0, 1)\n"
    "t1 = lib.nn.functional.conv_tbc(t0, lib.ones(3, 3, 4), lib.ones(4), 5)",
    "t0 = lib.ones(5, 1, 3).transpose(0, 1).transpose(0, 1)\n"
    "t1 = lib.nn.functional.conv_tbc(t0, lib.ones(3, 3, 4), lib.ones(4), 1)",
], ids=["expanded_time", "transposed_padded", "one_batch"])
def test_conv_tbc_views_its_input_as_torch(source):
    same(source)


# ---- as_strided_ among the in-place view ops (fuzz_gen_inplace.py's view_op) ---------------

@pytest.mark.parametrize("target, call", [
    ("t0 * 1", "as_strided_((2, 3), (3, 1))"),
    ("t0 * 1", "as_strided_((3, 2), (1, 3))"),
    ("(t0 * 1)[1:]", "as_strided_((1, 3), (3, 1), 3)"),
    ("(t0 * 1).t()", "as_strided_((3,), (1,))"),
    ("t0.detach()", "as_strided_((3, 2), (1, 3))"),
    ("t0", "as_strided_((2, 3), (3, 1))"),
], ids=["same", "reversed", "offset", "first_line_of_view", "detached", "leaf"])
def test_as_strided_in_place_as_torch(target, call):
    same(f"""
        t0 = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        t1 = {target}
        t1.{call}
        t2 = (t1 * t1).sum()
        t2.backward()
    """)
