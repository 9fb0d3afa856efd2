"""Regression programs of the differential fuzzer (test_fuzz_differential.py), fixed since:
the autograd engine and graph. Starting backward at a no_grad view (it crashed), what
autograd.grad returns, when the engine runs hooks and frees nodes, retain_grad through
detach, stale saved tensors, no_grad views and views of multi-output views, layouts of
the gradients, the leaves' accumulation order, gradients fitted to recorded shapes.

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


# ---- CRASH (no_grad_view_saved) -------------------------------------------------------------
# A view made under no_grad of a leaf that requires grad has requires_grad=True and no
# grad_fn. Starting backward()/autograd.grad at it segfaulted gradtrack (fixed since; torch
# raises "element 0 of tensors does not require grad and does not have a grad_fn"); an op
# that saved it (v.sin(), v.abs(), v ** 2) still segfaults in backward.

CRASHERS = {
    "select_backward": "t1 = t0[0]\nt1.backward()",
    "slice_backward": "t1 = t0[0:1]\nt1.backward()",
    "view_backward_gradient": "t1 = t0.view(3)\nt1.backward(lib.ones(3))",
    "select_autograd_grad": "t1 = t0[0]\nt2, = lib.autograd.grad(t1, [t0])",
}


@pytest.mark.parametrize("body", list(CRASHERS.values()), ids=list(CRASHERS))
def test_crash_backward_from_no_grad_view(body):
    head, tail = body.split("\n", 1)
    source = ("t0 = lib.tensor([0.0, 0.0, 0.0], requires_grad=True)\n"
              f"with lib.no_grad():\n    {head}\n{tail}")
    code, out = fp.runs_clean(source, "gradtrack")
    assert code == 0, f"gradtrack died (exit code {code}):\n{source}\n{out[-2000:]}"
    assert fp.exec_capture(source, torch) == ("RuntimeError element 0 of tensors does not "
                                              "require grad and does not have a grad_fn\n")
    assert out == fp.exec_capture(source, torch)


SAVED = {
    "sin": "t1.sin().sum().backward()",
    "cos": "t1.cos().sum().backward()",
    "abs": "t1.abs().sum().backward()",
    "log": "t1.log().sum().backward()",
    "pow2": "(t1 ** 2).sum().backward()",
    "clamp": "t1.clamp(-1, 1).sum().backward()",
    "mul_self": "(t1 * t1).sum().backward()",
    "mul_leaf": "(t1 * t0).sum().backward()",
    "exp": "t1.exp().sum().backward()",
}


@pytest.mark.parametrize("use", list(SAVED.values()), ids=list(SAVED))
def test_crash_backward_through_saved_no_grad_view(use):
    # Found by the fuzzer (seed 11): the view is not the root; an op saved it.
    source = ("t0 = lib.tensor(-2.0, requires_grad=True)\n"
              f"with lib.no_grad():\n    t1 = t0.unsqueeze(-1)\n{use}\nprint(t0.grad)")
    code, out = fp.runs_clean(source, "gradtrack")
    assert code == 0, f"gradtrack died (exit code {code}):\n{source}\n{out[-2000:]}"
    assert out == fp.exec_capture(source, torch)


def test_no_grad_view_of_leaf_through_sum_is_fine():
    # The same view reached through .sum() works in both (so the steer keeps these).
    same("""
        t0 = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        with lib.no_grad():
            t1 = t0[0]
        t1.sum().backward()
    """)


# ---- autograd.grad results (grad_result_view, grad_duplicate_inputs) -----------------------

def test_grad_result_of_sum_is_a_view():
    same("""
        t0 = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        t1, = lib.autograd.grad(t0.sum(), [t0])
    """)


def test_grad_result_of_0dim_sum_is_a_no_grad_view():
    same("""
        t0 = lib.tensor(2.25, requires_grad=True)
        t1, = lib.autograd.grad(t0.sum(), [t0], retain_graph=True)
        t1[...] = t0
    """)


def test_grad_result_version_counts_engine_accumulation():
    same("""
        t0 = lib.tensor([[-2.0], [-1.5]], requires_grad=True)
        t1 = t0 - t0
        t1[:1] = lib.tensor(3.0)
        t2, = lib.autograd.grad(t1, [t0], grad_outputs=lib.ones_like(t1))
    """)


def test_grad_with_repeated_input_returns_one_object():
    same("""
        t0 = lib.tensor([1.0, 2.0], requires_grad=True)
        t1, t2 = lib.autograd.grad(t0, [t0, t0], grad_outputs=lib.ones_like(t0))
        t2 -= t0
    """)


# ---- autograd.grad / backward engine (grad_runs_input_node, grad_capture_before_hooks,
# ---- detach_retains_grad,
# ---- backward_inputs_retains_grad, copyslices_release) -------------------------------------

def test_grad_does_not_check_saved_tensors_of_the_input_node():
    same("""
        t0 = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        t1 = t0.mean(0)
        t2 = t1 ** 2
        with lib.no_grad():
            t1 -= 1
        t3, = lib.autograd.grad(t2.sum(), [t2])
    """)


def test_grad_version_after_backward():
    same("""
        t0 = lib.tensor([[-1.75, 0.0, 1.25], [1.75, -2.5, -1.75]], requires_grad=True)
        t0.sum().backward()
        t1 = t0.grad
        (t0 * 2).sum().backward()
    """)


def test_grad_does_not_free_the_input_node():
    same("""
        t0 = lib.tensor(1.0, dtype=lib.float64, requires_grad=True)
        t1 = t0.sin()
        t2, = lib.autograd.grad(t1.sum(), [t1])
        (t1 * t1).sum().backward()
    """)


def test_grad_captures_before_hooks_when_the_node_runs():
    same("""
        t0 = lib.tensor([1.0, 2.0], requires_grad=True)
        t1 = t0 * 2
        t1.register_hook(lambda g: g + 1)
        t2, t3 = lib.autograd.grad(t1.sum(), [t1, t0])
    """)


def test_grad_applies_hooks_when_the_input_is_alone():
    same("""
        t0 = lib.tensor([1.0, 2.0], requires_grad=True)
        t1 = t0 * 2
        t1.register_hook(lambda g: g + 1)
        t2, = lib.autograd.grad(t1.sum(), [t1])
    """)


def test_backward_inputs_non_leaf_retains_grad():
    same("""
        t0 = lib.tensor([1.25], requires_grad=True)
        t1 = t0 * 2
        t1.sum().backward(inputs=[t1])
    """)


def test_detach_keeps_retains_grad():
    same("""
        t0 = lib.tensor([1.25], requires_grad=True)
        t1 = t0.mean()
        t1.retain_grad()
        t1.detach_()
    """)


def test_copyslices_is_freed_after_backward():
    same("""
        t0 = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        t1 = t0 + 1
        t1[0] = lib.tensor(0.0)
        t1.sum().backward()
        t1.sum().backward()
    """)


# ---- several stale saved tensors (saved_unpack_order) ---------------------------------------

@pytest.mark.parametrize("op", ["t1 * t0", "t0 @ t1", "t1 ** t0"])
def test_stale_saved_tensor_reported_first(op):
    same(f"""
        t0 = lib.tensor([[0.5, 1.0], [2.0, 1.75]], requires_grad=True)
        t1 = t0 * 1
        t2 = {op}
        with lib.no_grad():
            t1.add_(1)
            t0.detach().add_(0.5)
        t2.sum().backward()
    """)


# ---- no_grad views (no_grad_view_grad_getter, no_grad_view_of_view_message) ----------------

def test_grad_of_no_grad_view_after_base_changed_reads_none():
    same("""
        t0 = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
        with lib.no_grad():
            t1 = t0[0]
        with lib.no_grad():
            t0.mul_(2)
        t2 = lib.tensor(float(t1.grad is None))
    """)


def test_view_of_no_grad_view_invalidated_message():
    same("""
        t0 = lib.tensor([[0.0, -2.5], [-0.5, -2.25]], dtype=lib.float64, requires_grad=True)
        with lib.no_grad():
            t1 = t0.view(2, 2, 1)
        t2 = t1.expand(-1, 2, 2)
        with lib.no_grad():
            t1[..., -1] = lib.tensor(0.0, dtype=lib.float64)
        t3 = lib.tensor(float(t2.is_leaf))
    """)


def test_inplace_on_view_of_no_grad_view_message():
    same("""
        t0 = lib.tensor([1.0], requires_grad=True)
        with lib.no_grad():
            t1 = t0.permute(0)
        t1[-1] = lib.tensor(-1.5)
    """)


# ---- found by the fuzzer after the engine and indexing fixes ----------------------------------

@pytest.mark.parametrize("source", [
    # max()/min() backward: zeros, then masked_fill_ (version 1)
    "t0 = lib.tensor([-0.25, -0.5, -0.5, -3.0], requires_grad=True)\n"
    "t1 = t0.max()\n"
    "t2, t3, = lib.autograd.grad(t1, [t1, t0], grad_outputs=lib.ones_like(t1), retain_graph=True)",
    # the gradient of a 0-dim operand that was broadcast is a sum, not a view
    "t0 = lib.tensor([[[1.25, -2.5, 0.0]], [[0.5, 0.5, -2.5]]], requires_grad=True)\n"
    "t1 = t0.prod()\n"
    "t3 = lib.mul(t1, t0)\n"
    "t6, t7, = lib.autograd.grad((t3 * t3).sum(), [t1, t3], retain_graph=True)",
    # CopySlices keeps the graph under create_graph
    "t0 = lib.tensor([-0.5, -2.75, -2.75, 0.5], dtype=lib.float64, requires_grad=True)\n"
    "t1 = t0 ** t0\n"
    "t2 = t0[3]\n"
    "t1[0] = t2\n"
    "t3 = lib.matmul(t1, t1)\n"
    "t4, = lib.autograd.grad(t3.sum(), [t2], retain_graph=True, create_graph=True)",
    # AsStridedBackward0 (a view whose base changed): a view of a written buffer, and
    # differentiable under create_graph
    "t0 = lib.tensor([[[1.25, 0.25, -0.5]], [[2.25, 1.0, 0.25]]], requires_grad=True)\n"
    "t1 = t0.permute(1, 2, 0)\n"
    "with lib.no_grad():\n"
    "    t0[:, 0] = -1.5\n"
    "t2, t3, = lib.autograd.grad(t1.sum(), [t0, t0], retain_graph=True)",
    "t0 = lib.tensor([1.75, 1.75, -0.25, 1.25], dtype=lib.float64, requires_grad=True)\n"
    "t1 = t0.expand(-1)\n"
    "t3 = t1.t()\n"
    "t0.detach().clamp_(-1, 1)\n"
    "t5, t6, = lib.autograd.grad((t3 * t3).sum(), [t0, t3], create_graph=True)\n"
    "t7, = lib.autograd.grad(t5.sum(), [t0])",
    # a leaf listed twice runs its hooks once: one object
    "t0 = lib.tensor([[-1.25, -2.0, -1.75]], requires_grad=True)\n"
    "t0.register_hook(lambda g: g.clone())\n"
    "t1, t2, = lib.autograd.grad(t0.sum(), [t0, t0])\n"
    "with lib.no_grad():\n"
    "    t2.data.add_(3.0)",
    # .grad follows the layout contract (stolen only with the leaf's strides, never a view)
    "t0 = lib.tensor(-2.0, requires_grad=True)\nt0.sum().backward()\nt1 = t0.grad",
    "t0 = lib.zeros(0, requires_grad=True)\nt0.sum().backward()\nt1 = t0.grad",
    "t0 = lib.ones(1, requires_grad=True)\nt0.sum().backward()\nt1 = t0.grad",
    "t0 = lib.ones(2, 3).t().requires_grad_()\n(t0 * 2).sum().backward()\nt1 = t0.grad",
    # expanding a 0-dim tensor gives zero strides
    "t0 = lib.tensor(1.5)\nt1 = t0.expand(1, 1)",
    # masked_fill_ with a 0-dim tensor value that requires grad
    "t0 = lib.tensor(2.0, requires_grad=True)\n"
    "t1 = lib.zeros(3)\n"
    "t1.masked_fill_(lib.tensor([True, False, True]), t0 * 1)\n"
    "t1.sum().backward()",
    # the engine adds in place only into a buffer nobody else sees (not a view's memory)
    "t0 = lib.tensor([-0.5, -0.5, -0.5], requires_grad=True)\n"
    "t1 = lib.add(t0, t0, alpha=2)\n"
    "t6 = t1.unsqueeze(-1)\n"
    "t8, t9, = lib.autograd.grad((t6 * t6).sum(), [t0, t0])",
    # backward(inputs=) leaves the gradient to AccumulateGrad to steal
    "t0 = lib.tensor([0.75], requires_grad=True)\n"
    "t2 = lib.ones(1)\n"
    "t2[-1] = t0\n"
    "t2.backward(lib.ones_like(t2), inputs=[t0])\n"
    "t4 = t0.grad",
    # as_strided backward of an empty input: a fresh tensor, not a view
    "t0 = lib.zeros(2, 0, dtype=lib.float64, requires_grad=True)\n"
    "t1 = t0 / -1\n"
    "t2 = t1.squeeze(-1)\n"
    "t2[t2 > 0] = -1.5\n"
    "t4 = t2 + 0.5\n"
    "t5, t6, = lib.autograd.grad(t4.sum(), [t0, t1], retain_graph=True)",
], ids=["max_grad_version", "sum_to_0dim", "copyslices_create_graph", "as_strided_bw_view",
        "as_strided_bw_create_graph", "leaf_hook_listed_twice", "grad_0dim_not_view",
        "grad_empty", "grad_size_one", "grad_transposed_leaf", "expand_0dim", "masked_fill_value",
        "accumulate_into_view", "backward_inputs_steal", "as_strided_bw_empty"])
def test_engine_and_layout_cases(source):
    same(source)


# A view of a multi-output view inherits its rule; the error names the view's own op.
@pytest.mark.parametrize("source", [
    "t0 = lib.zeros(2, 0, requires_grad=True)\nt1 = 1 + t0\nt3 = t1.chunk(2, 0)[-1]\n"
    "t3[0].div_(1)",
    "t0 = lib.tensor([-1.75, -1.75, -0.25], requires_grad=True)\nt1 = t0.chunk(2, 0)[-1]\n"
    "t1[1:] = 1",
    "t0 = lib.tensor([[-1.75, -1.75], [-0.25, 1.0]], requires_grad=True)\nt1 = t0 * 1\n"
    "t2 = t1.split(1, 1)[1].t()\nt2.mul_(2)",
    "t0 = lib.tensor([[-1.75, -1.75], [-0.25, 1.0]], requires_grad=True)\nt1 = t0 * 1\n"
    "t2 = t1.unbind(0)[1]\nt3 = t2.view(2, 1)\nt1.add_(1)\nt4 = t3 * 2",
], ids=["select_of_chunk", "slice_of_chunk", "t_of_split", "view_of_unbind_base_written"])
def test_views_of_multi_output_views(source):
    same(source)


@pytest.mark.parametrize("source", [
    # the result saved by an in-place op on a view is the view: errors name its node
    # (AsStrided), and create_graph re-attaches that node
    "t0 = lib.tensor([[-3.0, -3.0, -3.0]], requires_grad=True)\nt1 = t0.abs()\n"
    "t2 = t1.select(0, 0)\nt2.reciprocal_()\nt2.mul_(-1.5)\n"
    "t2.backward(lib.ones_like(t2), retain_graph=True)",
    "t0 = lib.tensor([[-3.0, 1.0, -3.0], [2.0, 0.5, 1.0]], requires_grad=True)\nt1 = t0 * 1\n"
    "t1[1].sigmoid_()\nt3, = lib.autograd.grad(t1.sum(), [t0], create_graph=True)\nt4 = t3 * 2",
    # a no_grad view of a split output is a no_grad view (the newer rule wins)
    "t0 = lib.tensor([[-2.25, 2.25, 0.0], [1.75, 1.75, -0.5]], requires_grad=True)\n"
    "t2 = t0.split(2, 0)[0]\nwith lib.no_grad():\n    t5 = t2.split(1, 1)[0]\n"
    "with lib.no_grad():\n    t0[...] = t0",
    "t0 = lib.tensor([[-2.25, 2.25, 0.0], [1.75, 1.75, -0.5]], requires_grad=True)\n"
    "t1 = t0 * 1\nt2 = t1.split(2, 0)[0]\nwith lib.no_grad():\n    t5 = t2[0]\nt5.mul_(2)",
    "t0 = lib.tensor([[-2.25, 2.25, 0.0], [1.75, 1.75, -0.5]], requires_grad=True)\n"
    "t1 = t0 * 1\nwith lib.no_grad():\n    t2 = t1[0]\nt5 = t2.unbind(0)[1]\nt5.mul_(2)",
    # a node whose only input is a no_grad view still saves it (every formula uses it), so
    # backward reports the view's stale history
    "t0 = lib.ones(2, requires_grad=True)\nt1 = t0 * t0\nwith lib.no_grad():\n"
    "    t2 = t1.view(-1)\nt3 = t2.abs()\nwith lib.no_grad():\n    t1.add_(1)\n"
    "t3.sum().backward()",
    "t0 = lib.zeros(0, requires_grad=True)\nt1 = t0 * t0\nwith lib.no_grad():\n"
    "    t2 = t1.view(-1)\nt3 = (t2.abs() + 1).log()\nwith lib.no_grad():\n"
    "    t1[t1 > 0] = t2\nt3.sum().backward(retain_graph=True)",
    "t0 = lib.ones(2, requires_grad=True)\nt1 = t0 * t0\nwith lib.no_grad():\n"
    "    t2 = t1.view(-1)\nt3 = t2 * 2\nwith lib.no_grad():\n    t1.add_(1)\n"
    "t3.sum().backward()",
    # split/unbind outputs made in grad mode carry the multi-output rule even when the input
    # does not require grad; without a node the message opens as a no_grad view's
    "t0 = lib.tensor([[3.0, -2.25, -1.5], [-1.75, -2.25, 0.75]], dtype=lib.float64)\n"
    "t1 = t0.chunk(2, 1)[-1]\nt2 = lib.tensor([-1.5], dtype=lib.float64, requires_grad=True)\n"
    "t1 *= t2",
    "t0 = lib.tensor([[3.0, -2.25, -1.5], [-1.75, -2.25, 0.75]])\nt1 = t0.unbind(0)[1]\n"
    "t2 = t1[1:]\nt2.add_(lib.ones(2, requires_grad=True))",
    "t0 = lib.tensor([[3.0, -2.25, -1.5], [-1.75, -2.25, 0.75]])\nt1 = t0.split(1)[0]\n"
    "t1.add_(1)",
], ids=["inplace_on_view_names_as_strided", "inplace_on_view_create_graph",
        "no_grad_view_of_split_output", "no_grad_select_of_split_output",
        "split_of_no_grad_view", "no_grad_view_saved_by_abs", "no_grad_view_saved_empty",
        "no_grad_view_not_saved_by_scalar_mul", "chunk_of_tensor_without_grad",
        "slice_of_unbind_without_grad", "split_written_without_grad"])
def test_saved_views_and_view_rules(source):
    same(source)


# Leaves share the largest sequence number: which accumulates first is the ready queue's
# choice, as in torch (here it decides whether t1.grad is set before t0's fails).
@pytest.mark.parametrize("source", [
    "t0 = lib.tensor([-1.0, -1.25, 0.5], requires_grad=True)\n"
    "t0.backward(lib.ones_like(t0), retain_graph=True)\n"
    "t1 = lib.tensor([3.0, -2.5, -1.5, -1.0], requires_grad=True)\nt0.data = t1\n"
    "(t0 * t1).relu().sum().backward(retain_graph=True)",
    "t0 = lib.tensor([-1.0, -1.25, 0.5], requires_grad=True)\n"
    "t0.backward(lib.ones_like(t0), retain_graph=True)\n"
    "t1 = lib.tensor([3.0, -2.5, -1.5, -1.0], requires_grad=True)\n"
    "t2 = lib.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)\nt0.data = t1\n"
    "(t2 * t1 * t0 + t2).sum().backward(retain_graph=True)",
    # a leaf whose .data became another shape (same dims) steals the gradient as it comes
    "t0 = lib.tensor([[1.5], [-2.75], [-2.0]], requires_grad=True)\nt1 = lib.minimum(t0, t0)\n"
    "t4 = t0.amax(0, keepdim=True)\nwith lib.no_grad():\n    t5 = t4.data\nt0.data = t5\n"
    "(t1 * t1).sum().backward()",
], ids=["two_leaves", "three_leaves", "data_replaced_by_another_shape"])
def test_leaf_accumulation_order(source):
    same(source)


# A tensor reshaped in place without being recorded (under no_grad) gets gradients that no
# longer fit its node: PyTorch's engine sums a broadcastable one down to the recorded shape
# and refuses any other, naming the node that produced it.
@pytest.mark.parametrize("source", [
    "t0 = lib.tensor([[-0.5, -0.5, 1.5], [-1.0, -0.5, 1.5]], requires_grad=True)\n"
    "t1 = lib.add(t0, t0)\n"
    "with lib.no_grad():\n"
    "    t1.unsqueeze_(-3)\n"
    "t1.sum().backward(inputs=[t1])",
    "t0 = lib.tensor([[-0.5, -0.5, 1.5], [-1.0, -0.5, 1.5]], requires_grad=True)\n"
    "t1 = t0 * 2\n"
    "with lib.no_grad():\n"
    "    t1.t_()\n"
    "t1.sum().backward()",
    "t0 = lib.tensor([[1.0, 2.0, 3.0]], requires_grad=True)\n"
    "t1 = t0 * 2\n"
    "with lib.no_grad():\n"
    "    t1.squeeze_()\n"
    "t1.retain_grad()\n"
    "(t1 * 3).sum().backward()",
    "t1 = lib.tensor([0.75], requires_grad=True)\n"
    "t2 = t1 ** t1\n"
    "with lib.no_grad():\n"
    "    t2.squeeze_()\n"
    "t2.backward()",
    "t0 = lib.tensor([[1.0, 2.0, 3.0]], requires_grad=True)\n"
    "t1 = t0 * 2\n"
    "with lib.no_grad():\n"
    "    t1.unsqueeze_(0)\n"
    "t2, t3, = lib.autograd.grad(t1.sum(), [t1, t0])",
    "t0 = lib.tensor([[1.0, 2.0, 3.0]], requires_grad=True)\n"
    "t1 = t0 * 2\n"
    "with lib.no_grad():\n"
    "    t1.unsqueeze_(0)\n"
    "t2 = t1.relu()\n"
    "(t2 * t2).sum().backward()",
    # a leaf reshaped after use: its gradient is copied (broadcast) into its new shape
    "t0 = lib.tensor([-0.5, -0.5, 1.5], requires_grad=True)\n"
    "t1 = t0 * 2\n"
    "with lib.no_grad():\n"
    "    t0.unsqueeze_(0)\n"
    "t1.sum().backward()",
], ids=["unsqueeze_summed", "transposed_refused", "squeezed_refused_with_node_name",
        "root_gradient_refused", "captured_gradient_summed", "relu_not_fused_across",
        "leaf_unsqueezed"])
def test_gradients_are_fitted_to_recorded_shapes(source):
    same(source)
