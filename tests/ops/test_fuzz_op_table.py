"""The op table, fuzzed: random chains of op_db rows (and their in-place variants) vs torch.

``tests/ops/fuzz_op_table.py`` builds each program from ``op_db.OPS``: 2-4 rows chained
(an output reshaped and mapped into the next row's value domain), inputs from the row's
sample generator with random shapes where the sample set allows, non-contiguous and view
inputs, in-place variants on clones, views and leaves, and backward / autograd.grad /
double backward at the end; ``fuzz_programs.difference`` compares every step with torch.

* ``test_fuzz_op_table`` runs programs ``0 .. DEFAULT_EXAMPLES-1`` of seed 0 in a child
  process (a crash is reported with the program that killed it). A longer hunt::

      GRADTRACK_OPFUZZ_EXAMPLES=5000 GRADTRACK_OPFUZZ_SEED=3 python -m pytest -q \\
          tests/ops/test_fuzz_op_table.py -k fuzz_op_table

  or the loop alone: ``PYTHONPATH=python python tests/ops/fuzz_op_table.py --examples 5000
  --seed 3``. Every report names (seed, index), which rebuilds the program exactly.
* Below: what it found, as regression programs (all fixed).
"""

import json
import os
import subprocess
import sys
import tempfile

import pytest

import gradtrack

sys.path.insert(0, os.path.dirname(__file__))
import fuzz_op_table as fot  # noqa: E402
import fuzz_programs as fp  # noqa: E402
import op_db  # noqa: E402

torch = pytest.importorskip("torch")

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_EXAMPLES = 300


def same(source):
    fp.assert_same(source, torch, gradtrack)


def test_fuzz_op_table():
    examples = int(os.environ.get("GRADTRACK_OPFUZZ_EXAMPLES", DEFAULT_EXAMPLES))
    seed = os.environ.get("GRADTRACK_OPFUZZ_SEED", "0")
    with tempfile.TemporaryDirectory() as tmp:
        last = os.path.join(tmp, "last_program.py")
        cmd = [sys.executable, os.path.join(HERE, "fuzz_op_table.py"), "--examples",
               str(examples), "--seed", seed, "--last-program", last]
        proc = subprocess.run(cmd, capture_output=True, text=True,
                              timeout=max(600, examples // 2))
        if proc.returncode < 0 or proc.returncode > 1:
            with open(last) as f:
                program = fp.Program.parse(f.read())
            small = fp.minimize_crash(program)
            pytest.fail(f"gradtrack crashed (exit code {proc.returncode}) on this program:\n"
                        f"{small.source()}\n--- stderr ---\n{proc.stderr[-3000:]}")
    assert proc.returncode == 0, proc.stdout[-20000:] + proc.stderr[-3000:]
    stats = json.loads(proc.stdout.strip().splitlines()[-1])
    # Not vacuous: most rows are drawn, in-place variants run, programs reach backward.
    assert stats["programs"] == examples
    assert stats["rows"] >= min(len(fot.ROWS), examples) * 0.7
    assert stats["inplace"] >= examples // 15
    assert stats["backward_ok"] >= examples // 2
    assert stats["ended_in_error"] <= examples // 5


def test_the_fuzzer_draws_from_every_row_it_does_not_exclude():
    assert set(fot.EXCLUDED) == {("as_strided_scatter", 0)}
    assert fot.ROWS == [i for i in range(len(op_db.OPS)) if op_db.OPS[i].name not in
                        {"as_strided_scatter"}]
    # each row is reachable by its printed name
    for i in fot.ROWS:
        name, k = fot._key(i)
        assert fot.row(name, k) is op_db.OPS[i]


def test_every_view_of_the_table_has_a_text_form():
    import numpy as np
    for spec in op_db.OPS:
        for sample in spec.samples:
            for arg in sample.args:
                if arg.view is not None:
                    assert "{}" in fot._view_text(arg.view, np.zeros(arg.base))


def test_programs_are_replayed_by_seed_and_index():
    a, rows_a, _ = fot.build(3, 17)
    b, rows_b, _ = fot.build(3, 17)
    assert a.steps == b.steps and rows_a == rows_b
    assert fot.build(3, 18)[0].steps != a.steps


def test_masks_only_hide_what_they_name():
    # grad_fn_edges: the node name is still compared
    program = fp.Program.parse("t0 = lib.tensor([1.0], requires_grad=True)\nt1 = t0 * 2")
    other = fp.Program.parse("t0 = lib.tensor([1.0], requires_grad=True)\nt1 = t0 + t0")
    diff = fp.first_difference(fp.run(program, torch, gaps=fot.MASKS),
                               fp.run(other, torch, gaps=fot.MASKS), program)
    assert diff is not None and "grad_fn" in diff
    # torch_derivative_not_implemented: only when torch raised that and gradtrack did not
    refused = fp.StepRecord(("NotImplementedError",
                             "the derivative for '_cdist_backward' is not implemented."), (), {})
    ok = fp.StepRecord(None, (), {})
    assert fp._not_implemented_step([ok, refused], [ok, ok]) == 1
    assert fp._not_implemented_step([ok, refused], [ok, refused]) == 2


# ============================================================================================
# What the op-table fuzzer found
# ============================================================================================

# ---- KNOWN_GAPS (strict xfails: they pass once the gap is fixed; then drop the name) ----

CONSTANT_FIRST_DERIVATIVE = {
    "nll_loss": "t0 = lib.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]], requires_grad=True)\n"
                "t1 = lib.nn.functional.nll_loss(t0, lib.tensor([1, 2]), reduction='none')\n"
                "g0, = lib.autograd.grad((t1 * lib.tensor([1.0, 2.0])).sum(), [t0], "
                "create_graph=True)\n"
                "(g0 * g0).sum().backward()",
    "batch_norm_bias": "t0 = lib.tensor([[0.5, -1.0], [1.5, 0.25], [2.0, -0.5]], "
                       "requires_grad=True)\nt1 = lib.tensor([0.25, -0.5], requires_grad=True)\n"
                       "t2 = lib.nn.functional.batch_norm(t0, None, None, None, t1, "
                       "training=True)\n"
                       "g0, = lib.autograd.grad((t2 * t0.detach()).sum(), [t1], "
                       "create_graph=True)\n"
                       "(g0 * g0).sum().backward()",
}


@pytest.mark.xfail(strict=True, reason="KNOWN_GAPS constant_first_derivative")
@pytest.mark.parametrize("source", list(CONSTANT_FIRST_DERIVATIVE.values()),
                         ids=list(CONSTANT_FIRST_DERIVATIVE))
def test_constant_first_derivative(source):
    same(source)


SINC_AT_ZERO = ("t0 = lib.tensor([0.0, 0.5], dtype=lib.float64, requires_grad=True)\n"
                "t1 = lib.tensor([2.0, 3.0], dtype=lib.float64, requires_grad=True)\n"
                "g0, = lib.autograd.grad((lib.sinc(t0) * t1).sum(), [t0], create_graph=True)\n"
                "g0.sum().backward()")


# sinc's backward is torch's expression, masked where pi x^2 is 0, so its double
# backward at exactly 0 is torch's too: NaN from the 0/0 under the mask.
def test_sinc_double_backward_at_zero():
    same(SINC_AT_ZERO)


HISTOGRAM_OF_GRAD = ("t0 = lib.tensor([0.5, -1.0, 2.0, 1.5], requires_grad=True)\n"
                     "t1 = lib.histogram(t0, 3).hist")


def test_histogram_of_grad_records_not_implemented():
    same(HISTOGRAM_OF_GRAD)


PRELU_WEIGHT = ("t0 = lib.tensor([[-0.5, 1.0, -2.0]], dtype=lib.float64, requires_grad=True)\n"
                "t1 = lib.tensor([0.25], dtype=lib.float64, requires_grad=True)\n"
                "t2 = lib.nn.functional.prelu(t0, t1)\n"
                "g0, = lib.autograd.grad((t2 * t0.detach()).sum(), [t1], create_graph=True)\n"
                "(g0 * g0).sum().backward()")


# prelu's gradient for its weight, taken with create_graph=True, goes through
# PreluKernelBackwardBackward0, which takes the weight: double backward gives the weight a
# zero .grad, as torch's (its graph left the weight out: .grad None).
def test_prelu_weight_double_backward():
    same(PRELU_WEIGHT)


DIST_P0_OTHER = ("t0 = lib.tensor([[0.5, -1.0, 2.0]], requires_grad=True)\n"
                 "t1 = lib.tensor([[1.5, 0.25, -0.5]], requires_grad=True)\n"
                 "t2 = lib.dist(t0, t1 * 2.0, 0)\n"
                 "g0, = lib.autograd.grad(t2 * 3.0, [t0], create_graph=True, allow_unused=True)")


# dist with p=0 has no derivative for `other` in torch, which raises only when the
# backward call needs it: a grad() call for t0 alone gives t0's gradient (NOTE
# [Gradients a graph task wants] in csrc/autograd/node.h).
def test_dist_p0_unrequested_other():
    same(DIST_P0_OTHER)


def test_known_gaps_have_regression_programs_and_match_them():
    assert sorted(fot.KNOWN_GAPS) == ["constant_first_derivative"]
    cases = [(s, "constant_first_derivative") for s in CONSTANT_FIRST_DERIVATIVE.values()]
    for source, gap in cases:
        program = fp.Program.parse(source)
        assert fot.known_gap(fp.difference(program, torch, gradtrack), source) == gap
    # a NaN difference in a gradient is none of the known gaps
    assert fot.known_gap("step 3: x\n  t0.grad values: torch [nan] vs gradtrack [0.]",
                         "t1 = lib.exp(t0)") is None


# roll without dims rolled the flattened tensor and returned a view of that temporary:
# _is_view() was True (torch: a new tensor), and in-place writes saw a view's history.
@pytest.mark.parametrize("source", [
    "t0 = lib.tensor([[-1.0, -0.5, 2.0]], dtype=lib.float64, requires_grad=True)\n"
    "t1 = lib.roll(t0, -4)\nt1.mul_(2)\nt1.sum().backward()",
    "t0 = lib.tensor([[1.0, 2.0], [3.0, 4.0]])\nt1 = t0.roll(1)\nt1.add_(1)",
])
def test_roll_of_the_flattened_tensor_is_not_a_view(source):
    same(source)


def test_one_hot_version_counts_the_zero_fill():
    same("t0 = lib.tensor([[0, 4], [2, 2]])\nt1 = lib.nn.functional.one_hot(t0, 5)\n"
         "t2 = lib.nn.functional.one_hot(lib.zeros(0, dtype=lib.int64), 3)")


@pytest.mark.parametrize("call", ["lib.var_mean(t0, 1)", "lib.std_mean(t0, 1)", "t0.var(1)",
                                  "lib.std(t0, 1)"])
def test_degrees_of_freedom_warning_names_the_function(call):
    same(f"t0 = lib.ones(3, 1)\nt1 = {call}[0] if isinstance({call}, tuple) else {call}")


@pytest.mark.parametrize("kw", ["", ", equal_nan=True", ", rtol=0, atol=0",
                                ", rtol=0, atol=0, equal_nan=True", ", rtol=0, atol=1e-8"])
def test_isclose_version_counts_its_in_place_steps(kw):
    same(f"t0 = lib.tensor([1.0, 2.0, float('nan')])\nt1 = lib.tensor([1.0, 3.0, float('nan')])\n"
         f"t2 = lib.isclose(t0, t1{kw})\nt3 = lib.isclose(t0.long(), t1.long(){kw})\n"
         f"t4 = lib.isclose(t0 > 1, t1 > 1{kw})\nt5 = lib.isclose(t0[:0], t1[:0]{kw})\n"
         f"t6 = lib.ones(3, 2)\nt7 = lib.isclose(t6.t(), lib.ones(2, 3){kw})")


# remainder's gradient for `other` used floor_divide, whose node is NotImplemented: double
# backward raised "derivative for aten::floor_divide is not implemented"; torch's formula
# divides with rounding_mode="floor" (derivative 0), so double backward runs.
@pytest.mark.parametrize("wrt", ["t1", "t0, t1"])
def test_remainder_double_backward(wrt):
    same("t0 = lib.tensor([1.5, 2.5, -0.75], dtype=lib.float64, requires_grad=True)\n"
         "t1 = lib.tensor([0.7, -0.9, 0.4], dtype=lib.float64, requires_grad=True)\n"
         "t2 = lib.remainder(t0, t1)\n"
         f"t3 = lib.autograd.grad((t2 * t2).sum(), [{wrt}], create_graph=True)[-1]\n"
         "(t3 * t3).sum().backward()")


# Double backward of a convolution's weight gradient: the gradient that never came for the
# input's output of ConvolutionBackwardBackward0 was zero-filled, so the weight's .grad
# became zeros where torch leaves None (an optimizer then decays or steps it).
@pytest.mark.parametrize("wrt, bias", [("t1", False), ("t0", False), ("t1", True),
                                       ("t2", True), ("t0, t1", True)])
@pytest.mark.parametrize("groups", [1, 2])
def test_conv_double_backward_leaves_unreached_grads_none(wrt, bias, groups):
    same("import numpy as np\n"
         "t0 = lib.tensor(np.random.default_rng(0).standard_normal((2, 4, 5, 5)), "
         "requires_grad=True)\n"
         f"t1 = lib.tensor(np.random.default_rng(1).standard_normal((6, {4 // groups}, 2, 2)), "
         "requires_grad=True)\n"
         "t2 = lib.tensor([0.5, -1.0, 0.25, 2.0, 1.5, -0.5], dtype=lib.float64, "
         "requires_grad=True)\n"
         f"t3 = lib.nn.functional.conv2d(t0, t1, {'t2' if bias else 'None'}, groups={groups})\n"
         f"t4 = lib.autograd.grad((t3 * t3.detach()).sum(), [{wrt}], create_graph=True)[-1]\n"
         "(t4 * t4).sum().backward()")


# torch's NotImplemented node (floor_divide) has no sequence number and runs as early as an
# AccumulateGrad: backward failed there before a later view of a leaf passed its gradient
# on, so that leaf's .grad stayed None; gradtrack ran the view first and wrote it.
@pytest.mark.parametrize("inplace", [False, True])
def test_floor_divide_node_fails_before_later_leaves_accumulate(inplace):
    div = "t5 = t3 * 1\nt5.floor_divide_(t4)" if inplace else "t5 = lib.floor_divide(t3, t4)"
    same("t3 = lib.tensor([[-1.75, 1.5, 2.0]], dtype=lib.float64, requires_grad=True)\n"
         "t4 = lib.tensor([[1.0, 2.0, 1.5]], dtype=lib.float64, requires_grad=True)\n"
         f"{div}\n"
         "t6 = lib.ones(3, 2, dtype=lib.float64, requires_grad=True)\n"
         "t7 = t6.transpose(-1, -2)\n"
         "t8 = (t5 * 1).reshape(1, 3)\n"
         "t9 = t7.scatter_add(1, lib.tensor([[0, 2, 1]]), t8)\n"
         "t9.sum().backward()")


# WRONG GRADIENT, NO ERROR: var_mean/std_mean over a dim of size 1 (dof <= 0: the var is
# NaN) gave the *mean* output a NaN gradient: the var output's unused gradient was
# zero-filled and its term 0 * inf = NaN was added in. torch leaves that term out.
@pytest.mark.parametrize("fn", ["var_mean", "std_mean"])
@pytest.mark.parametrize("k", [0, 1])
def test_var_mean_gradient_of_one_output_with_no_dof(fn, k):
    same("t0 = lib.tensor([[-0.722], [-1.247], [0.801]], dtype=lib.float64, requires_grad=True)\n"
         f"t1 = lib.{fn}(t0, 1)[{k}]\n"
         "t1.backward(lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64))\n"
         f"t2 = lib.tensor([[1.0, 2.0], [3.0, 5.0]], dtype=lib.float64, requires_grad=True)\n"
         f"t3 = lib.{fn}(t2, 0)[{k}]\n"
         "t3.sum().backward()")


# WRONG VALUE: clamp with a NaN bound (number or tensor) returned the input; torch's
# min(max(x, lo), hi) propagates the NaN.
@pytest.mark.parametrize("expr", [
    "lib.clamp_min(t0, t1)", "lib.clamp_max(t0, t1)", "lib.clamp(t0, t1, None)",
    "lib.clamp(t0, None, t1)", "lib.clamp(t0, t1, t1)", "lib.clamp(t0, min=float('nan'))",
    "lib.clamp(t0, max=float('nan'))", "t0.clamp_min(float('nan'))",
    "lib.clamp(t0, t1, lib.tensor([1.0, float('nan'), 2.0]))", "(t0 * 1).clamp_min_(t1)",
    "(t0 * 1).clamp_(min=float('nan'))",
])
def test_clamp_with_nan_bound_is_nan(expr):
    same("t0 = lib.tensor([1.0, -2.0, float('nan')], requires_grad=True)\n"
         "t1 = lib.tensor([float('nan'), 0.0, 0.0])\n"
         f"t2 = {expr}\nt2.sum().backward()")


# clamp with tensor bounds: gradients of the input and both bounds as torch splits them
# (NaN passes nothing; lo == hi gives lo nothing; lo > hi gives hi everything).
@pytest.mark.parametrize("lo, hi", [("[0.0, 0.0, 0.0, 0.5]", "[0.0, 0.0, 0.0, 0.5]"),
                                    ("[1.0, -3.0, 0.0, 2.0]", "[0.0, -4.0, 0.0, 1.0]"),
                                    ("[float('nan'), 0.0, -1.0, 0.0]",
                                     "[1.0, float('nan'), 1.0, 0.0]")])
def test_clamp_tensor_bound_gradients(lo, hi):
    same("t0 = lib.tensor([1.0, -2.0, float('nan'), 0.5], dtype=lib.float64, "
         "requires_grad=True)\n"
         f"t1 = lib.tensor({lo}, dtype=lib.float64, requires_grad=True)\n"
         f"t2 = lib.tensor({hi}, dtype=lib.float64, requires_grad=True)\n"
         "t3 = lib.clamp(t0, t1, t2)\n"
         "t3.backward(lib.tensor([1.0, 2.0, 3.0, 4.0], dtype=lib.float64))")


# median() of all elements: a NaN upstream gradient reached every element (0 * NaN);
# torch's CPU backward fills the share into the median's element(s) only.
@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("upstream", ["float('nan')", "2.0"])
def test_median_all_gradient_stays_on_the_median(create_graph, upstream):
    same("t0 = lib.tensor([[3.0, 1.0], [2.0, 5.0], [2.0, 0.5]], dtype=lib.float64, "
         "requires_grad=True)\n"
         "t1 = t0.t().median()\n"
         f"g0, = lib.autograd.grad(t1, [t0], grad_outputs=lib.tensor({upstream}, "
         f"dtype=lib.float64), create_graph={create_graph})\n"
         "t3 = g0.detach() * 1")


# as_strided_scatter's result is a new tensor at _version 0, as torch's (the write into
# the copy bumped its counter).
@pytest.mark.parametrize("grad", [False, True])
def test_as_strided_scatter_result_is_at_version_zero(grad):
    same("t0 = lib.tensor([[0.5, -0.3, 1.1], [0.4, 0.3, -0.3]])\n"
         f"t1 = lib.tensor([[1.4, -1.8], [1.1, -0.6]], requires_grad={grad})\n"
         "t2 = lib.as_strided_scatter(t0, t1, (2, 2), (1, 2), 1)")


# WRONG VALUE: slogdet/logdet of a matrix with a NaN gave -inf; torch sums the pivots' logs.
@pytest.mark.parametrize("fn", ["lib.linalg.slogdet(t0)[1]", "lib.logdet(t0)",
                                "lib.linalg.slogdet(t0)[0]"])
def test_slogdet_of_a_nan_matrix_is_nan(fn):
    same("t0 = lib.tensor([[float('nan'), 1.0, 0.5], [0.2, 1.5, -1.0], [0.3, 0.1, 0.7]], "
         f"dtype=lib.float64)\nt1 = {fn}")


# WRONG GRADIENT, NO ERROR: lstsq with a batch of vectors B saved the column it made of B
# (no history), so a double backward gave B no gradient.
def test_lstsq_vector_rhs_double_backward_reaches_b():
    same("t0 = lib.tensor([[[1.0, 0.5, -0.3], [0.2, 1.5, 0.7], [0.1, -0.4, 1.2]]] * 2, "
         "dtype=lib.float64, requires_grad=True)\n"
         "t1 = lib.tensor([[1.8, -1.8, 1.2], [0.9, 1.4, -0.7]], dtype=lib.float64, "
         "requires_grad=True)\n"
         "t2 = lib.linalg.lstsq(t0, t1).solution\n"
         "g0, = lib.autograd.grad((t2 * lib.tensor([[0.5, -1.0, 2.0], [1.0, 0.3, -0.2]], "
         "dtype=lib.float64)).sum(), [t0], create_graph=True)\n"
         "(g0 * g0).sum().backward()")


# WRONG GRADIENT, NO ERROR: logit's gradient at -0.0 was -inf where torch's is g * inf
# (x (1 - x) is -0 there), and with eps a NaN input gave 0 where torch's gives NaN.
@pytest.mark.parametrize("eps", ["", ", eps=0.0", ", eps=1e-6"])
def test_logit_gradient_at_its_poles(eps):
    same("t0 = lib.tensor([float('nan'), -0.0, 0.0, 1.0, 0.5, -2.5, 1e-7], dtype=lib.float64, "
         "requires_grad=True)\n"
         f"t1 = lib.logit(t0{eps})\n"
         "t1.backward(lib.tensor([1.0, 0.3, -2.0, -1.0, 1.0, 1.0, 1.0], dtype=lib.float64))")


# WRONG GRADIENT, NO ERROR: nextafter passed the gradient on where input == other (the
# result is then other, and torch's gradient is 0 there); in place the values before the
# write decide.
@pytest.mark.parametrize("call", ["t2 = lib.nextafter(t0, t1)", "t2 = t0 * 1\nt2.nextafter_(t1)"])
def test_nextafter_gradient_is_zero_where_operands_are_equal(call):
    same("t0 = lib.tensor([float('nan'), 1.0, 0.0, 2.0, 1.0], dtype=lib.float64, "
         "requires_grad=True)\n"
         "t1 = lib.tensor([2.0, float('nan'), -0.0, 2.0, 3.0], dtype=lib.float64, "
         "requires_grad=True)\n"
         f"{call}\n"
         "t2.backward(lib.tensor([float('nan'), 1.0, 2.0, float('inf'), 3.0], dtype=lib.float64))")


# The NotImplemented node of an op written in Python (_sample_dirichlet) runs as early as
# an AccumulateGrad, as torch's: a double backward failed there after writing a leaf's .grad.
def test_python_not_implemented_node_fails_before_later_leaves_accumulate():
    same("lib.manual_seed(0)\n"
         "t0 = lib.tensor([[1.5, 2.0, 0.7], [3.0, 0.4, 1.1]], dtype=lib.float64, "
         "requires_grad=True)\n"
         "t1 = lib._sample_dirichlet(t0).to(lib.float32)\n"
         "t2 = lib.tensor([[1.15, -0.87, -0.29], [0.21, 1.35, 0.32], [-0.06, -1.5, 1.74]], "
         "requires_grad=True)\n"
         "t3 = lib.linalg.solve(t2, t1, left=False)\n"
         "g0, = lib.autograd.grad(t3.sum(), [t2], create_graph=True)\n"
         "(g0 * g0).sum().backward()")


# The chunked linear cross entropy's stored gradients were scaled by the incoming gradient
# under no_grad, so a first derivative taken with a graph did not require grad; torch's
# records the product, and a double backward reaches its node again and is refused.
def test_chunked_linear_cross_entropy_double_backward_is_refused_as_torch():
    same("t0 = lib.tensor([[-1.6, -1.4, -1.9], [1.7, -0.3, 1.8], [0.4, -1.0, -0.3], "
         "[-0.2, 0.6, 0.4]], dtype=lib.float64, requires_grad=True)\n"
         "t1 = lib.tensor([[1.7, -0.3, -0.1, 1.9], [0.3, -1.4, 0.7, -1.7], [-0.3, 1.9, 1.7, -0.4], "
         "[-1.2, -0.8, -1.4, -0.7], [1.4, 1.8, 1.7, -1.9]], dtype=lib.float64, "
         "requires_grad=True)\n"
         "t2 = lib.nn.functional.linear_cross_entropy(t0.t(), t1, lib.tensor([1, 0, 4]), "
         "options=lib.nn.LinearCrossEntropyOptions(batch_chunk_size=2, chunking_method=None))\n"
         "t3 = t2.sigmoid() * 1.9\n"
         "g0, = lib.autograd.grad((t3 * 3).sum(), [t1], create_graph=True)\n"
         "(g0 * g0).sum().backward()")
