"""``os.fork()`` after the OpenMP pool ran a region: the child's first parallel kernel
completes (GNU OpenMP's parked workers are not copied by fork, and torch's child
hangs there) and computes the parent's values; a child forked before any parallel
kernel keeps its thread count. Each case runs in a fresh interpreter with a timeout,
so a hang fails the test."""

import ast
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.timeout(120)

SCRIPT = textwrap.dedent("""
    import os, signal, sys
    import gradtrack
    gradtrack.set_num_threads(2)

    def kernels():
        a = gradtrack.arange(3_000_000, dtype=gradtrack.float64).remainder(7.0)
        m = gradtrack.arange(250_000.0).remainder(5.0).view(500, 500)
        return [a.sum().item(), (m @ m).sum().item(), (a * 2.0).sum().item()]

    warm = sys.argv[1] == "warm"
    if warm:  # parallel regions in the parent before the fork
        expected = kernels()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        signal.alarm(30)  # a child that hangs dies, failing the test, and leaves no orphan
        os.close(r)
        got = kernels() + [gradtrack.get_num_threads()]
        gradtrack.set_num_threads(2)
        got += [gradtrack.get_num_threads(), kernels()[0]]
        os.write(w, repr(got).encode())
        os._exit(0)
    os.close(w)
    with os.fdopen(r) as f:
        got = f.read()
    _, status = os.waitpid(pid, 0)
    assert status == 0, status
    if not warm:
        expected = kernels()
    print(repr(expected))
    print(got)
""")


def _run(tmp_path, case):
    script = tmp_path / "fork_child.py"
    script.write_text(SCRIPT)
    done = subprocess.run([sys.executable, str(script), case], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    parent, child = (ast.literal_eval(line) for line in done.stdout.strip().splitlines())
    return parent, child


def test_child_forked_after_parallel_kernels_runs_its_own(tmp_path):
    parent, child = _run(tmp_path, "warm")
    assert child[:3] == parent
    # The child has one thread and keeps it: OpenMP's pool cannot be rebuilt there.
    assert child[3] == 1 and child[4] == 1 and child[5] == parent[0]


def test_child_forked_before_any_parallel_kernel_keeps_its_threads(tmp_path):
    parent, child = _run(tmp_path, "cold")
    assert child[:3] == parent
    assert child[3] == 2 and child[4] == 2 and child[5] == parent[0]
