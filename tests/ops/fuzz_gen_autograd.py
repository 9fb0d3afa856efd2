"""The graph's ends and its bookkeeping: leaves (``lib.tensor`` with or without
requires_grad), hooks, retain_grad, requires_grad_, detach_, ``.grad`` references, and
the roots: ``backward()`` and ``autograd.grad`` (retain_graph, inputs=, create_graph).
"""

import math

from hypothesis import strategies as st

from fuzz_gen_state import _is_float, _rg
from fuzz_trace import nested_list_source

SHAPES = ((3,), (2, 3), (), (1, 3), (3, 1), (2, 1, 3), (1,), (4,), (2, 2), (3, 2), (0,), (2, 0))
VALUE = st.integers(-12, 12).map(lambda k: k / 4)      # exact in binary, prints short
INT_VALUE = st.integers(-3, 3)
HOOKS = ("lambda g: g * 2", "lambda g: g + 1", "lambda g: None", "lambda g: -g",
         "lambda g: g.clone()")


def _fmt_value(v):
    return repr(float(v)) if isinstance(v, float) else repr(v)


def gen_leaf(draw, s):
    shape = draw(st.sampled_from(SHAPES))
    n = math.prod(shape)
    kind = draw(st.sampled_from(("float32", "float64", "float32", "int64")))
    name = s.new_name()
    if kind == "int64":
        values = draw(st.lists(INT_VALUE, min_size=n, max_size=n))
        rg = ""
    else:
        values = draw(st.lists(VALUE, min_size=n, max_size=n))
        rg = ", requires_grad=True" if draw(st.integers(0, 2)) > 0 else ""
    dtype = "" if kind == "float32" else f", dtype=lib.{kind}"
    if n == 0:
        args = ", ".join(map(str, shape))
        return f"{name} = lib.zeros({args}{dtype}{rg})"
    return f"{name} = lib.tensor({nested_list_source(values, shape, _fmt_value)}{dtype}{rg})"


def gen_graph(draw, s):
    rg = s.names(_rg)
    kind = draw(st.sampled_from(("hook", "retain_grad", "requires_grad_", "grad_none",
                                 "detach_", "grad_ref")))
    if kind == "grad_ref":
        # A reference to .grad: later backward calls accumulate into this very object.
        have = s.names(lambda t: t.is_leaf and t.grad is not None)
        if not have:
            return None
        return f"{s.new_name()} = {draw(st.sampled_from(have))}.grad"
    if kind == "requires_grad_":
        leaves = s.names(lambda t: t.is_leaf and _is_float(t) and not t.requires_grad)
        if not leaves:
            return None
        return f"{draw(st.sampled_from(leaves))}.requires_grad_()"
    if kind == "detach_":
        cands = s.names(lambda t: not t.is_leaf)
        if not cands:
            return None
        return f"{draw(st.sampled_from(cands))}.detach_()"
    if not rg and draw(st.integers(0, 7)) > 0:
        return None  # hooks / retain_grad on tensors without grad: an error, now and then
    pool = rg if rg and draw(st.integers(0, 7)) > 0 else s.names()
    a = draw(st.sampled_from(pool))
    if kind == "hook":
        return f"{a}.register_hook({draw(st.sampled_from(HOOKS))})"
    if kind == "retain_grad":
        return f"{a}.retain_grad()"
    return f"{a}.grad = None"


def _root(draw, s, a):
    t = s.ns[a]
    form = draw(st.integers(0, 4))
    if form == 0 and t.numel() == 1:
        return a, None
    if form == 1:
        return a, f"lib.ones_like({a})"
    if form == 2:
        return f"({a} * {a}).sum()", None
    if form == 3:
        # The pair the engine may fuse (NOTE [Fused relu backward]).
        b = draw(st.sampled_from([n for n in s.names() if s.ns[n].shape == t.shape]))
        return f"({a} * {b}).relu().sum()", None
    return f"{a}.sum()", None


def _rg_root(draw, s):
    """(tensors requiring grad, a root made from one of them, its grad or None), or
    None when nothing requires grad."""
    rg = s.names(_rg)
    if not rg:
        return None
    return (rg, *_root(draw, s, draw(st.sampled_from(rg))))


def gen_backward(draw, s):
    picked = _rg_root(draw, s)
    if picked is None:
        return None
    rg, root, grad = picked
    args = [] if grad is None else [grad]
    if draw(st.booleans()):
        args.append("retain_graph=True")
    if draw(st.integers(0, 4)) == 0:
        args.append(f"inputs=[{draw(st.sampled_from(rg))}]")
    return f"{root}.backward({', '.join(args)})"


def gen_autograd_grad(draw, s):
    picked = _rg_root(draw, s)
    if picked is None:
        return None
    rg, root, grad = picked
    inputs = draw(st.lists(st.sampled_from(rg), min_size=1, max_size=2))
    args = [root, "[" + ", ".join(inputs) + "]"]
    if grad is not None:
        args.append(f"grad_outputs={grad}")
    if draw(st.booleans()):
        args.append("retain_graph=True")
    if draw(st.integers(0, 5)) == 0:
        args.append("create_graph=True")
    if draw(st.integers(0, 5)) > 0:
        args.append("allow_unused=True")
    outs = [s.new_name() for _ in inputs]
    return f"{', '.join(outs)}, = lib.autograd.grad({', '.join(args)})"
