"""Differential fuzzing against torch 2.13: random autograd programs, compared step by step.

``tests/ops/fuzz_programs.py`` generates programs (leaves, arithmetic with tensors and
numbers, pow/exp/log/sigmoid/tanh/relu and more unary ops, softmax, maximum/minimum, where,
masked_fill, reductions (sum/mean/max/min/amax/argmax/prod), matmul/mv/dot/outer, cat/stack,
views and indexing (split/chunk/unbind/narrow/select, gather/scatter_add), in-place writes
on tensors, on views, through ``detach()`` and ``.data``, in-place view ops
(``t_``/``squeeze_``/``unsqueeze_``), ``nn.init``, ``no_grad`` blocks, ``retain_grad``,
hooks, ``backward()`` / ``autograd.grad``), runs each on torch and on
gradtrack, and compares after every statement: values, dtypes, shapes, ``_version``,
``requires_grad``, ``is_leaf``, ``grad_fn`` (name and next_functions), ``.grad`` and any
error (type and message, ``torch`` spelled ``gradtrack``).

* ``test_fuzz_differential`` runs a fixed, derandomized slice of programs in a child
  process (a gradtrack crash is reported with its minimized program instead of killing
  the session). Default: ``DEFAULT_EXAMPLES`` programs, ~35 s on 2 cores. A long run::

      GRADTRACK_FUZZ_EXAMPLES=20000 python -m pytest tests/ops/test_fuzz_differential.py -q

  and, to explore beyond the fixed slice, pick a seed (each seed is another slice)::

      GRADTRACK_FUZZ_SEED=7 GRADTRACK_FUZZ_EXAMPLES=10000 python -m pytest \\
          tests/ops/test_fuzz_differential.py -q -k fuzz_differential

  The fuzz loop alone, with its report on stdout::

      PYTHONPATH=python python tests/ops/fuzz_programs.py --examples 5000 --seed 3

* Every difference the fuzzer found is a hand-written regression program. Those that
  fail are gradtrack bugs, below as strict xfails; the generator steers around each of
  them while its name is in ``fuzz_programs.KNOWN_GAPS`` (so the fuzz slice keeps looking
  for *other* differences). When one is fixed, remove its name from KNOWN_GAPS and move
  its programs next to the fixed ones: test_fuzz_regressions_autograd.py (the engine,
  autograd.grad, no_grad and multi-output views, saved tensors),
  test_fuzz_regressions_indexing.py (setitem, index_put_, overlap checks, scatter, index
  errors) and test_fuzz_regressions_ops.py (layouts, matmul, formulas, the wider op set).
"""

import functools
import json
import os
import subprocess
import sys
import tempfile

import pytest

import gradtrack

sys.path.insert(0, os.path.dirname(__file__))
import fuzz_programs as fp  # noqa: E402

torch = pytest.importorskip("torch")

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_EXAMPLES = 1500

# same(source): the program gives the same trace on torch and gradtrack (nothing masked)
same = functools.partial(fp.assert_same, torch=torch, gradtrack=gradtrack)


# ============================================================================================
# The fuzz slice
# ============================================================================================

def test_fuzz_differential():
    examples = int(os.environ.get("GRADTRACK_FUZZ_EXAMPLES", DEFAULT_EXAMPLES))
    seed = os.environ.get("GRADTRACK_FUZZ_SEED")
    with tempfile.TemporaryDirectory() as tmp:
        last = os.path.join(tmp, "last_program.py")
        cmd = [sys.executable, os.path.join(HERE, "fuzz_programs.py"),
               "--examples", str(examples), "--last-program", last]
        if seed is not None:
            cmd += ["--seed", seed]
        proc = subprocess.run(cmd, capture_output=True, text=True,
                              timeout=max(600, examples // 5))
        if proc.returncode < 0 or proc.returncode > 1:
            # The child died: gradtrack crashed on the program it was running.
            with open(last) as f:
                program = fp.Program.parse(f.read())
            small = fp.minimize_crash(program)
            pytest.fail(f"gradtrack crashed (exit code {proc.returncode}) on this program:\n"
                        f"{small.source()}\n--- stderr ---\n{proc.stderr[-3000:]}")
    assert proc.returncode == 0, proc.stdout[-20000:] + proc.stderr[-3000:]
    stats = json.loads(proc.stdout.strip().splitlines()[-1])
    # The slice is not vacuous: programs are long and reach backward and in-place writes.
    assert stats["programs"] == examples
    assert stats["steps"] >= 5 * examples
    assert stats["backward_ok"] >= examples // 4
    assert stats["inplace_ok"] >= examples // 3
    assert stats["ended_in_error"] <= examples // 3


# ============================================================================================
# The comparison itself can fail (a check of the checker)
# ============================================================================================

@pytest.mark.parametrize("a, b, what", [
    ("t0 = lib.tensor([1.0, 2.0])\nt1 = t0 * 2", "t0 = lib.tensor([1.0, 2.0])\nt1 = t0 * 3",
     "values"),
    ("t0 = lib.tensor([1.0])\nt0.add_(0)", "t0 = lib.tensor([1.0])\nt0.add(0)", "_version"),
    ("t0 = lib.tensor([1.0])\nt1 = t0[0]", "t0 = lib.tensor([1.0])\nt1 = t0[0].clone()",
     "is_view"),
    ("t0 = lib.tensor([1.0], requires_grad=True)\nt1 = t0 * 2",
     "t0 = lib.tensor([1.0], requires_grad=True)\nt1 = t0 + t0", "grad_fn"),
    ("t0 = lib.tensor([1.0], requires_grad=True)\nt0.add_(1)",
     "t0 = lib.tensor([1.0], requires_grad=True)\nt0.data.add_(1)", "error"),
    ("t0 = lib.tensor([1.0], requires_grad=True)\n(t0 * 2).sum().backward()",
     "t0 = lib.tensor([1.0], requires_grad=True)\n(t0 * 3).sum().backward()", "t0.grad values"),
    ("t0 = lib.tensor([float('nan'), 1.0])", "t0 = lib.tensor([1.0, float('nan')])", "values"),
])
def test_first_difference_sees_each_observable(a, b, what):
    pa, pb = fp.Program.parse(a), fp.Program.parse(b)
    diff = fp.first_difference(fp.run(pa, torch), fp.run(pb, torch), pa)
    assert diff is not None and what in diff


def test_programs_print_as_runnable_python():
    program = fp.Program.parse("""
        t0 = lib.tensor([1.0, 2.0], requires_grad=True)
        with lib.no_grad():
            t1 = t0[0]
        t0.register_hook(lambda g: g * 2)
        (t0 * t0).sum().backward()
    """)
    assert len(program.steps) == 4
    again = eval(repr(program), {"Program": fp.Program})  # noqa: S307 - our own repr
    assert again.steps == program.steps
    trace = fp.run(program, gradtrack)
    assert [r.error for r in trace] == [None] * 4
    assert trace[-1].state["t0"]["grad"]["values"].tolist() == [4.0, 8.0]


def test_shrinking_minimizes_a_difference():
    # A "library" that differs from torch only in mul: the minimizer keeps just the lines
    # that show it.
    class Lying:
        def __getattr__(self, name):
            return getattr(torch, name)

    program = fp.Program.parse("""
        t0 = lib.tensor([1.0, 2.0])
        t1 = t0 + 1
        t2 = t1.exp()
        t3 = lib.mul(t0, 2)
        t4 = t3 - t2
    """)
    lying = Lying()
    lying.mul = lambda a, b: torch.mul(a, b) + 1
    small = fp.minimize(program, torch, lying)
    assert small.steps == ("t0 = lib.tensor([1.0, 2.0])", "t3 = lib.mul(t0, 2)")


def test_crash_minimizer_keeps_the_killing_statement():
    # What test_fuzz_differential does when the child dies: shrink by re-running in
    # subprocesses. Here the "crash" is a signal the program sends itself.
    program = fp.Program.parse("""
        t0 = lib.ones(2)
        import os, signal
        t1 = t0 * 2
        os.kill(os.getpid(), signal.SIGSEGV)
    """)
    assert fp.runs_clean(program.source())[0] < 0
    small = fp.minimize_crash(program)
    assert small.steps == ("import os, signal", "os.kill(os.getpid(), signal.SIGSEGV)")


def test_torch_internal_asserts_end_the_comparison():
    # torch 2.13 fails its own INTERNAL ASSERT on some programs (seed 81 found one); the
    # steps from there on have no oracle, so they are not compared, and earlier ones still are.
    assert_step = fp.StepRecord(("RuntimeError", "old_fn INTERNAL ASSERT FAILED at ..."), (), {})
    ok = fp.StepRecord(None, (), {})
    other = fp.StepRecord(("RuntimeError", "some other error"), (), {})
    assert fp.oracle_steps([ok, ok]) == 2
    assert fp.oracle_steps([ok, assert_step, ok]) == 1
    assert fp.oracle_steps([ok, other]) == 2


def test_seed_81_program_with_torch_internal_assert():
    program = fp.Program.parse("""
        t0 = lib.tensor([[-0.75, -0.75, -0.25], [-0.25, 0.0, -0.25]], dtype=lib.float64, requires_grad=True)
        t1, t2, = lib.autograd.grad((t0 * t0).relu().sum(), [t0, t0], allow_unused=True)
        t3 = t1.abs().sqrt()
        t4, t5, = lib.autograd.grad((t0 * t1).relu().sum(), [t0, t0], create_graph=True, allow_unused=True)
        t3.requires_grad_()
        t4.backward(lib.ones_like(t4), retain_graph=True, inputs=[t4])
        t6 = t3.mean(-2)
        t5.detach_()
        t5 -= t6
    """)
    trace = fp.run(program, torch)
    assert fp.oracle_steps(trace) == 8  # torch's last step is its internal assert
    assert fp.difference(program, torch, gradtrack) is None


# ============================================================================================
# The gaps still open (KNOWN_GAPS): strict xfails, they pass once the gap is fixed
# ============================================================================================

def test_every_known_gap_has_regression_programs_here():
    with open(__file__) as f:
        source = f.read()
    assert [gap for gap in sorted(fp.KNOWN_GAPS) if f"{gap}" not in source] == []


@pytest.mark.xfail(strict=True, reason="KNOWN_GAPS int_tensor_requires_grad: gradtrack records "
                   "differentiable ops on an integer tensor that requires grad")
def test_ops_on_integer_tensor_that_requires_grad():
    same("""
        t0 = lib.tensor(0.25, requires_grad=True)
        t1 = lib.zeros(3, dtype=lib.int64)
        t1[t1 == 0] = t0
        t2 = t1.clamp(-1, 1)
    """)


@pytest.mark.xfail(strict=True, reason="KNOWN_GAPS op_checks_before_view_history: an out-of-place "
                   "op checks its arguments before reading a stale view's history")
def test_op_on_stale_multi_output_view_that_fails_its_own_check():
    same("""
        t0 = lib.zeros(2, 0, requires_grad=True)
        t1 = t0.chunk(2, 0)[0]
        with lib.no_grad():
            t0.add_(t1, alpha=-1)
        t4 = t1.max()
    """)


def test_stale_view_history_gap_is_masked_only_when_both_raise():
    program = fp.Program.parse("""
        t0 = lib.zeros(2, 0, requires_grad=True)
        t1 = t0.chunk(2, 0)[0]
        with lib.no_grad():
            t0.add_(t1, alpha=-1)
        t4 = t1.max()
    """)
    assert fp.difference(program, torch, gradtrack) is not None
    assert fp.difference(program, torch, gradtrack, fp.KNOWN_GAPS) is None
    # A step where gradtrack raises nothing is still a difference.
    ok = fp.StepRecord(None, (), {})
    view_error = fp.StepRecord(("RuntimeError", "Output 0 of Split is a view and its base or "
                                "another view of its base has been modified inplace. ..."), (), {})
    op_error = fp.StepRecord(("RuntimeError", "max(): Expected reduction dim ..."), (), {})
    assert fp._view_history_step([ok, view_error], [ok, ok]) == 2
    assert fp._view_history_step([ok, view_error], [ok, op_error]) == 1
