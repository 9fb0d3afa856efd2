"""Random autograd programs, run on torch and gradtrack, compared after every step.

A program is a few statements over tensors ``t0``, ``t1``, ... and the library ``lib``,
run one at a time on each library and compared after each one (fuzz_trace.py: the
program, its trace, the comparison; its names are re-exported here).

``programs()`` is the hypothesis strategy. It *builds* a program statement by
statement while running it on torch (the oracle) so that every choice fits the
current state: shapes broadcast, matmul dims agree, view targets have the right
numel, in-place operands broadcast to the target, backward starts from a tensor
that requires grad. The torch trace made while building is kept on the program,
so a fuzz example runs torch once and gradtrack once. Each kind of statement has its
generator: fuzz_gen_ops.py (ops that compute a new tensor), fuzz_gen_views.py (views,
joins, gathers), fuzz_gen_inplace.py (in-place writes), fuzz_gen_autograd.py (leaves,
hooks, backward and autograd.grad), on what fuzz_gen_state.py shares.

Documented differences between gradtrack and torch are never generated: no
float16/bfloat16/complex dtypes (gradtrack has float32/float64 and a few integer
types; programs use float32, float64 and int64), no inference_mode (gradtrack's is
no_grad), no devices. Strides are not recorded; their observable effects are
(``.view`` errors, ``.reshape``/``.contiguous`` copying or not, ``_is_view()``).

``KNOWN_GAPS`` (fuzz_gen_state.py) lists the differences the fuzzer found that are
gradtrack bugs: each has failing regression programs in tests/ops/test_fuzz_differential.py,
and while its name is listed the generator steers around it (or the record leaves that
observable out), so that the fuzz slice keeps finding *new* differences. Remove a name
once it is fixed.

Run the loop alone: ``PYTHONPATH=python python tests/ops/fuzz_programs.py --examples 5000
[--seed N]`` (prints each distinct difference, minimized, and counts).
"""

import ast
import re

from hypothesis import strategies as st

from fuzz_gen_autograd import gen_autograd_grad, gen_backward, gen_graph, gen_leaf
from fuzz_gen_inplace import _ext_inplace, gen_inplace, gen_setitem
from fuzz_gen_ops import (_ext_binary, _ext_reduce, _ext_unary, gen_binary, gen_matmul, gen_nn,
                          gen_reduce, gen_unary)
from fuzz_gen_state import KNOWN_GAPS, State, _maybe_no_grad
from fuzz_gen_views import _ext_join, _ext_view, gen_view
from fuzz_trace import (TOL, Program, Runner, StepRecord, _not_implemented_step,  # noqa: F401
                        _view_history_step, assert_same, difference, first_difference, minimize,
                        oracle_steps, run, spell)

# ---------------------------------------------------------------------------------------------
# The generator: the kinds of statement, drawn with these weights
# ---------------------------------------------------------------------------------------------

# The wider op set: more unary and binary ops, joins, multi-output views, in-place view ops
# and nn.init (each of these has its own autograd node and its own rules).
def gen_extra(draw, s):
    kind = draw(st.sampled_from(("unary", "binary", "reduce", "join", "view", "inplace",
                                 "inplace")))
    if kind == "inplace":
        code = _ext_inplace(draw, s)
        return None if code is None else _maybe_no_grad(draw, code, 3)
    a = draw(st.sampled_from(s.names()))
    make = {"unary": _ext_unary, "binary": _ext_binary, "reduce": _ext_reduce,
            "join": _ext_join, "view": _ext_view}[kind]
    expr = make(draw, s, a, s.ns[a])
    if expr is None:
        return None
    return _maybe_no_grad(draw, f"{s.new_name()} = {expr}", 6)


GENERATORS = {
    "leaf": gen_leaf, "binary": gen_binary, "unary": gen_unary, "reduce": gen_reduce,
    "matmul": gen_matmul, "view": gen_view, "inplace": gen_inplace, "setitem": gen_setitem,
    "graph": gen_graph, "backward": gen_backward, "grad": gen_autograd_grad,
    "extra": gen_extra, "nn": gen_nn,
}
# Leaf first (what shrinking tends towards); repeats weight the draw.
KINDS = ("leaf", "binary", "view", "inplace", "backward", "unary", "inplace", "reduce",
         "setitem", "matmul", "graph", "view", "grad", "binary", "backward", "leaf",
         "backward", "unary", "extra", "extra", "nn")


@st.composite
def programs(draw, max_steps=14):
    """A Program built against torch; its torch trace rides along."""
    import torch
    runner = Runner(torch, gaps=KNOWN_GAPS)
    s = State(runner)
    steps = []
    n_steps = draw(st.integers(2, max_steps))
    while len(steps) < n_steps and not runner.failed:
        kind = "leaf" if not s.names() else draw(st.sampled_from(KINDS))
        stmt = GENERATORS[kind](draw, s)
        if stmt is None:
            continue
        runner.run(stmt)
        steps.append(stmt)
    return Program(tuple(steps), runner.records)


# ---------------------------------------------------------------------------------------------
# The fuzz loop (run in a child process by tests/ops/test_fuzz_differential.py, so that a crash
# of gradtrack is reported instead of taking the test session down)
# ---------------------------------------------------------------------------------------------

def _signature(diff):
    """The kind of a first difference, without names and numbers (to group failures)."""
    line = diff.splitlines()[1] if "\n" in diff else diff
    return re.sub(r"[-+\d.e\[\], ]+", "#", re.sub(r"\bt\d+\b", "tN", line))[:120]


def fuzz(examples, seed=None, last_program=None, max_reports=5):
    """Runs ``examples`` generated programs on torch and gradtrack.

    Returns (failures, stats): a list of (program, difference) for distinct failures,
    each minimized (empty: no difference), and counts of what the programs reached.
    Before gradtrack runs a program its source goes to ``last_program`` (a path), so a
    parent process can tell which program crashed.
    """
    import torch
    from hypothesis import HealthCheck, given, settings
    from hypothesis import seed as with_seed

    import gradtrack

    failures = {}
    stats = {"programs": 0, "steps": 0, "ended_in_error": 0, "backward_ok": 0,
             "inplace_ok": 0}

    @settings(max_examples=examples, derandomize=seed is None, deadline=None, database=None,
              suppress_health_check=list(HealthCheck), print_blob=False,
              report_multiple_bugs=False)
    @given(programs())
    def check(program):
        if last_program:
            with open(last_program, "w") as f:
                f.write(program.source())
        _count(stats, program)
        diff = difference(program, torch, gradtrack, KNOWN_GAPS)
        if diff:
            key = _signature(diff)
            old = failures.get(key)
            if old is None or len(program.steps) <= len(old.steps):
                failures[key] = program
            # Keep going (no raise): one run reports every kind of difference it met.

    if seed is not None:
        check = with_seed(seed)(check)
    check()
    out = []
    for program in sorted(failures.values(), key=lambda p: len(p.steps))[:max_reports]:
        small = minimize(Program(program.steps), torch, gradtrack, KNOWN_GAPS)
        out.append((small, difference(small, torch, gradtrack, KNOWN_GAPS)))
    return out, stats


_INPLACE = re.compile(r"\w_\(|[-+*/]= |\] = ")


def _count(stats, program):
    """Counts what the torch run of a generated program reached (not vacuous?)."""
    trace = program.torch_trace
    ok = [stmt for stmt, rec in zip(program.steps, trace) if rec.error is None]
    stats["programs"] += 1
    stats["steps"] += len(program.steps)
    stats["ended_in_error"] += trace[-1].error is not None
    stats["backward_ok"] += any("backward(" in x or "autograd.grad(" in x for x in ok)
    stats["inplace_ok"] += any(_INPLACE.search(x) for x in ok)


def runs_clean(program_source, lib_name="gradtrack", timeout=120):
    """Runs a program in a fresh interpreter; returns (returncode, output). Exceptions
    raised by statements are caught, so a non-zero code means the process died."""
    import subprocess
    import sys
    runner = (
        "import sys, ast\n"
        f"import {lib_name} as lib\n"
        "src = sys.stdin.read()\n"
        "ns = {'lib': lib}\n"
        "for node in ast.parse(src).body:\n"
        "    try:\n"
        "        exec(compile(ast.Module([node], []), '<program>', 'exec'), ns)\n"
        "    except Exception as e:\n"
        "        print(type(e).__name__, e)\n"
        "        break\n"
    )
    proc = subprocess.run([sys.executable, "-c", runner], input=program_source, text=True,
                          capture_output=True, timeout=timeout)
    return proc.returncode, proc.stdout + proc.stderr


def exec_capture(program_source, lib):
    """What runs_clean prints, but run in this process (for torch, which does not crash
    here), with torch spelled gradtrack."""
    import contextlib
    import io
    out = io.StringIO()
    ns = {"lib": lib}
    with contextlib.redirect_stdout(out):
        for node in ast.parse(program_source).body:
            try:
                exec(compile(ast.Module([node], []), "<program>", "exec"), ns)  # noqa: S102
            except Exception as e:  # noqa: BLE001 - printed as runs_clean prints it
                print(type(e).__name__, e)
                break
    return spell(out.getvalue())


def minimize_crash(program):
    """Deletes statements while the gradtrack process still dies."""
    changed = True
    while changed:
        changed = False
        for i in reversed(range(len(program.steps))):
            candidate = program.without(i)
            if candidate.steps and runs_clean(candidate.source())[0] < 0:
                program = candidate
                changed = True
    return program


def main(argv=None):
    import argparse
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=500)
    parser.add_argument("--seed", type=int, default=None,
                        help="explore with this seed (default: the fixed, derandomized slice)")
    parser.add_argument("--last-program", default=None)
    args = parser.parse_args(argv)
    found, stats = fuzz(args.examples, args.seed, args.last_program)
    for program, diff in found:
        print("=== program ===")
        print(program.source())
        print("=== first difference ===")
        print(diff)
    print(f"{len(found)} distinct difference(s) in {args.examples} programs")
    import json
    print(json.dumps(stats))
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
