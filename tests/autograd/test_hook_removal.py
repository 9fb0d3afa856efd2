"""Dropping a hook runs Python code (its closure ends): that code must find no half-edited
hook list.

Each case runs in a fresh interpreter with CPython's debug allocator (freed memory is
overwritten, so a use after free crashes or shows garbage instead of passing by luck),
faulthandler on, and a timeout.
"""

import os
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.timeout(120)


def _run(source):
    env = dict(os.environ, PYTHONMALLOC="debug", OMP_NUM_THREADS="1")
    done = subprocess.run([sys.executable, "-X", "faulthandler", "-c", textwrap.dedent(source)],
                          capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()


@pytest.mark.parametrize("leaf", [True, False])
def test_removing_a_hook_whose_end_removes_another_keeps_the_rest(leaf):
    # Removing hook A frees its closure, whose __del__ removes hook B of the same list:
    # the list must be whole when that happens. Hook C alone runs afterwards.
    lines = _run(f"""
        import gradtrack as gt
        calls, handles = [], []

        class Spy:
            def __del__(self):
                handles[1].remove()

        def hook(name, spy=None):
            def run(g, spy=spy):  # the closure keeps spy alive
                calls.append(name)
            return run

        x = gt.ones(2, requires_grad=True)
        t = x if {leaf!r} else x * 1
        spy = Spy()
        handles += [t.register_hook(hook("A", spy)), t.register_hook(hook("B")),
                    t.register_hook(hook("C"))]
        del spy
        handles[0].remove()
        (t * 2).sum().backward()
        print(calls, x.grad.tolist())
    """)
    assert lines == ["['C'] [2.0, 2.0]"]
