"""Statements that make views (and a few copies): indexing, view/reshape, transposes,
(un)squeeze, expand, permute, detach and .data, split/chunk/unbind/narrow/select, and the
joins and gathers (cat/stack, gather/scatter).
"""

import math

from hypothesis import strategies as st

from fuzz_gen_state import SCALARS, _maybe_no_grad, _sized_dims


def _view_shapes(shape):
    n = math.prod(shape)
    out = [(-1,), (n,), (1, n), (n, 1), (1, -1)]
    if n % 2 == 0 and n:
        out += [(2, -1), (-1, 2), (2, n // 2, 1)]
    if n == 1:
        out += ["()", ""]
    return out


def _index_exprs(a, shape):
    """Basic (view) indexing expressions of a tensor of ``shape``."""
    out = []
    if shape:
        s0 = shape[0]
        out += [f"{a}[{i}]" for i in range(-s0, s0)]
        out += [f"{a}[1:]", f"{a}[:1]", f"{a}[::2]", f"{a}[..., 0]" if shape[-1] else f"{a}[...]"]
    if len(shape) >= 2:
        out += [f"{a}[:, {i}]" for i in range(-shape[1], shape[1])] + [f"{a}[:, 1:]"]
    out += [f"{a}[None]", f"{a}[...]"]
    return out


def _view_exprs(draw, s, a):
    """Expressions that are views of name ``a`` (plus a few copies and detaches)."""
    t = s.ns[a]
    shape, nd = tuple(t.shape), t.dim()
    kind = draw(st.sampled_from(("index", "view", "reshape", "t", "transpose", "unsqueeze",
                                 "squeeze", "expand", "permute", "detach", "data", "adv",
                                 "copy")))
    if kind == "index":
        return draw(st.sampled_from(_index_exprs(a, shape)))
    if kind in ("view", "reshape"):
        target = draw(st.sampled_from(_view_shapes(shape)))
        if isinstance(target, str):
            return f"{a}.{kind}({target})"
        return f"{a}.{kind}({', '.join(map(str, target))})"
    if kind == "t":
        return f"{a}.t()" if nd <= 2 else f"{a}.transpose(0, -1)"
    if kind == "transpose":
        if nd == 0:
            return f"{a}.transpose(0, -1)"
        d0 = draw(st.integers(-nd, nd - 1))
        d1 = draw(st.integers(-nd, nd - 1))
        return f"{a}.transpose({d0}, {d1})"
    if kind == "unsqueeze":
        return f"{a}.unsqueeze({draw(st.integers(-nd - 1, nd))})"
    if kind == "squeeze":
        if nd == 0 or draw(st.booleans()):
            return f"{a}.squeeze()"
        return f"{a}.squeeze({draw(st.integers(-nd, nd - 1))})"
    if kind == "expand":
        sizes = [draw(st.sampled_from((1, 2, -1))) if d == 1 else
                 draw(st.sampled_from((d, -1))) for d in shape]
        if draw(st.booleans()) or not sizes:
            sizes = [2] + sizes
        return f"{a}.expand({', '.join(map(str, sizes))})"
    if kind == "permute":
        perm = draw(st.permutations(range(nd)))
        return f"{a}.permute({', '.join(map(str, perm))})"
    if kind == "detach":
        return f"{a}.detach()"
    if kind == "data":
        return f"{a}.data"
    if kind == "adv":
        if not shape or shape[0] == 0:
            return f"{a}[{a} > 0]"
        return draw(st.sampled_from((f"{a}[[0, -1]]", f"{a}[{a} > 0]",
                                     f"{a}[lib.tensor([0, 0])]")))
    return draw(st.sampled_from((f"{a}.clone()", f"{a}.contiguous()", f"{a}.double()",
                                 f"{a}.float()", f"{a}.to(lib.float64)")))


def gen_view(draw, s):
    a = draw(st.sampled_from(s.names()))
    expr = _view_exprs(draw, s, a)
    return _maybe_no_grad(draw, f"{s.new_name()} = {expr}", 6)


def _ext_join(draw, s, a, t):
    if t.dim() == 0:
        return None
    d = draw(st.integers(-t.dim(), t.dim() - 1))
    dd = d % t.dim()
    if draw(st.booleans()):
        fit = [n for n in s.names() if s.ns[n].dim() == t.dim() and all(
            s.ns[n].shape[i] == t.shape[i] for i in range(t.dim()) if i != dd)]
        others = draw(st.lists(st.sampled_from(fit), min_size=1, max_size=2))
        fn = draw(st.sampled_from(("cat", "cat", "concat")))
        return f"lib.{fn}([{', '.join([a] + others)}], {d})"
    same = s.names(lambda x: x.shape == t.shape)
    d = draw(st.integers(-t.dim() - 1, t.dim()))
    return f"lib.stack([{a}, {draw(st.sampled_from(same))}], {d})"


def _ext_view(draw, s, a, t):
    dims = _sized_dims(t)
    if not dims:
        return None
    d = draw(st.sampled_from(dims))
    k = draw(st.sampled_from((0, -1)))
    form = draw(st.sampled_from(("split", "chunk", "unbind", "narrow", "select", "gather")))
    if form == "split":
        return f"{a}.split({draw(st.sampled_from((1, 2)))}, {d})[{k}]"
    if form == "chunk":
        return f"{a}.chunk(2, {d})[{k}]"
    if form == "unbind":
        return draw(st.sampled_from((f"{a}.unbind({d})[{k}]", f"lib.unbind({a}, {d})[{k}]")))
    if form == "narrow":
        return f"{a}.narrow({d}, {t.shape[d] - 1}, 1)"
    if form == "select":
        return f"{a}.select({d}, {k})"
    index = f"lib.zeros_like({a}, dtype=lib.int64)"
    if draw(st.booleans()):
        return f"{a}.gather({d}, {index})"
    same = s.names(lambda x: x.shape == t.shape)
    fn = draw(st.sampled_from(("scatter_add", "scatter", "scatter_value")))
    if fn == "scatter_value":
        return f"{a}.scatter({d}, {index}, {draw(st.sampled_from(SCALARS))})"
    return f"{a}.{fn}({d}, {index}, {draw(st.sampled_from(same))})"
