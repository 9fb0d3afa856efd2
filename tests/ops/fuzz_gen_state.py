"""What every statement generator of the differential fuzzer shares: ``State`` (the torch
namespace while a program is built), the numbers statements use, the predicates on
tensors and shapes, and ``KNOWN_GAPS``.

A generator is ``gen_<kind>(draw, s)``: it draws (hypothesis' ``draw``) what fits the
current state ``s`` and returns one statement, or None when nothing fits.
"""

import warnings

import numpy as np
from hypothesis import strategies as st

from fuzz_trace import live_names

SCALARS = ("2", "0.5", "-1.5", "0", "3.0", "-1", "1")

# KNOWN_GAPS: behaviours where gradtrack is known to differ from torch. Each has a failing
# regression test in tests/ops/test_fuzz_differential.py; the generator steers around it (so the
# fuzz test keeps finding *other* differences) only while the name is listed here. Remove a
# name once the lead has fixed the gap.
KNOWN_GAPS = {
    # An integer tensor made to require grad by an indexed write of a tensor that requires
    # grad (t[mask] = t0, IndexPutBackward0 in both): torch then refuses every
    # differentiable op on it ("Autograd not support dtype: Long"), gradtrack records them.
    # Steer: no values that require grad written into integer tensors.
    "int_tensor_requires_grad",
    # An out-of-place op on a view whose history is stale (a multi-output or no-grad view
    # whose base was written) that also fails its own check (`.max()` of an empty tensor):
    # torch reads the view's history first and raises the view error; gradtrack checks the
    # op's arguments first and raises the op's error. In-place ops read histories first.
    # Mask: such a step (both raise, torch's error is the view error) ends the comparison.
    "op_checks_before_view_history",
}


class State:
    """The torch namespace while a program is being built: what each name holds."""

    def __init__(self, runner):
        self.ns = runner.ns
        self.counter = 0

    def new_name(self):
        while f"t{self.counter}" in self.ns:
            self.counter += 1
        name = f"t{self.counter}"
        self.counter += 1
        return name

    def names(self, pred=lambda t: True):
        """Live names whose torch value satisfies pred (a pred that raises means no)."""
        out = []
        for n in live_names(self.ns):
            t = self.ns[n]
            try:
                ok = t is not None and pred(t)
            except Exception:  # noqa: BLE001 - e.g. is_leaf of an invalidated no-grad view
                ok = False
            if ok:
                out.append(n)
        return out

    def eval(self, expr):
        """The torch value of ``expr`` (a view expression), or None if it raises."""
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return eval(expr, dict(self.ns))  # noqa: S307 - our own generated expression
        except Exception:  # noqa: BLE001
            return None


def _is_float(t):
    return t.dtype.is_floating_point


def _rg(t):
    return t.requires_grad


def _leaf_guarded(t):
    """True if an in-place write to t in grad mode raises the (view of a) leaf error."""
    if t.is_leaf and t.requires_grad:
        return True
    base = t._base
    return base is not None and base.is_leaf and base.requires_grad


def _broadcast(a, b):
    try:
        return tuple(np.broadcast_shapes(tuple(a), tuple(b)))
    except ValueError:
        return None


def _matmul_ok(a, b):
    a, b = tuple(a), tuple(b)
    if not a or not b:
        return False
    if len(a) == 1 and len(b) == 1:
        return a == b
    if len(b) == 1:
        return a[-1] == b[0]
    if len(a) == 1:
        return len(b) <= 2 and a[0] == b[-2]
    if a[-1] != b[-2]:
        return False
    return _broadcast(a[:-2], b[:-2]) is not None


def _maybe_no_grad(draw, code, weight=4):
    """Wraps a statement in ``with lib.no_grad():`` one time in ``weight``."""
    if draw(st.integers(0, weight - 1)) == 0:
        return "with lib.no_grad():\n    " + code
    return code


def _dims(t):
    """Dims valid for an op that takes one (a 0-d tensor takes 0 and -1)."""
    nd = max(t.dim(), 1)
    return list(range(-nd, nd))


def _sized_dims(t):
    """Dims of t with at least one element along them."""
    return [d for d in range(t.dim()) if t.shape[d] > 0]
