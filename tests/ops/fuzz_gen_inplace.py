"""Statements that write: in-place ops (the op list's unary and binary variants, clamp,
masked_fill_, scatter_, add_ with alpha), augmented assignment, ``t[i] = v``, in-place
view ops (t_, squeeze_, unsqueeze_, as_strided_) and nn.init; on names, views,
``detach()`` and ``.data``.
"""

from hypothesis import strategies as st

from gradtrack import _C
from gradtrack._declarations import pointwise_ops

from fuzz_gen_state import (KNOWN_GAPS, SCALARS, _broadcast, _is_float, _leaf_guarded,
                            _maybe_no_grad)
from fuzz_gen_views import _index_exprs

INPLACE_UNARY = ("zero_()", "exp_()", "relu_()", "sigmoid_()", "clamp_(-1, 1)", "neg_()",
                 "abs_()", "tanh_()")
INPLACE_BINARY = ("add_", "sub_", "mul_", "div_", "copy_", "fill_", "pow_")
# The op list's binary in-place variants (bitwise ones refuse the float targets drawn
# here) and the clamp forms with one bound; the rows without a number form (atan2_,
# hypot_, gcd_, ...) take tensors only.
LIST_INPLACE_BINARY = tuple(
    f"{name}_" for name, (_, operands) in _C._inplace.ops.items()
    if operands and not name.startswith("bitwise")) + ("true_divide_", "clamp_min_", "clamp_max_")
TENSOR_ONLY = tuple(f"{op.name}_" for op in pointwise_ops()
                    if op.arity == 2 and op.inplace and op.number is None)
AUGMENTED = ("+=", "-=", "*=", "/=")
# Every unary in-place variant of the op list (NOTE [The op list]), and clamp_.
EXTRA_INPLACE = tuple(f"{name}_()" for name, (_, operands) in _C._inplace.ops.items()
                      if not operands) + ("clamp_(min=0)",)
INIT = ("zeros_", "ones_", "constant_")


def _strip_leading_ones(shape):
    shape = tuple(shape)
    while shape and shape[0] == 1:
        shape = shape[1:]
    return shape


def _partly_aliases(x, target):
    """``x`` shares ``target``'s memory without being the same view of it. An in-place op
    then reads elements it has already written, in whatever order torch's kernel goes
    (``t -= t[:, :1]``: row by row, so the later columns see the zeroed first one), which
    torch leaves undefined; such programs compare nothing."""
    if x.untyped_storage().data_ptr() != target.untyped_storage().data_ptr():
        return False
    return not (x.data_ptr() == target.data_ptr() and x.shape == target.shape
                and x.stride() == target.stride())


def _fitting(s, a, target_shape, setitem=False, written=None):
    """Names whose value may be written into ``a``'s target of ``target_shape``: it
    broadcasts *to* the target (for setitem after dropping leading size-1 dims, as torch
    does) and does not partly alias what is written (``written``, or ``a``), minus the
    combinations listed in KNOWN_GAPS."""
    if target_shape is None:
        return []
    target_shape = tuple(target_shape)
    target = s.ns[a]
    out = []
    for n in s.names():
        if _partly_aliases(s.ns[n], target if written is None else written):
            continue
        shape = tuple(s.ns[n].shape)
        if _broadcast(shape, target_shape) != target_shape:
            if not setitem or _broadcast(_strip_leading_ones(shape), target_shape) != target_shape:
                continue
        if "int_tensor_requires_grad" in KNOWN_GAPS and s.ns[n].requires_grad and \
                not target.dtype.is_floating_point:
            continue
        out.append(n)
    return out


def _operand(draw, s, a, target_shape, written=None):
    """A scalar or a tensor name broadcastable *to* target_shape."""
    fits = _fitting(s, a, target_shape, written=written)
    if fits and draw(st.integers(0, 2)) > 0:
        return draw(st.sampled_from(fits))
    return draw(st.sampled_from(SCALARS))


def _inplace_target(draw, s):
    """(expression, torch value) of an in-place target, preferring writable ones."""
    names = s.names()
    # Writes to a leaf that requires grad (or a view of one) end the program with the leaf
    # error; keep them rare so that programs go on past the first in-place step.
    safe = s.names(lambda t: not _leaf_guarded(t) and _is_float(t))
    pool = safe if safe and draw(st.integers(0, 7)) > 0 else names
    if not pool:
        return None, None
    a = draw(st.sampled_from(pool))
    how = draw(st.sampled_from(("name", "name", "name", "view", "detach", "data")))
    if how == "name":
        return a, a
    if how == "detach":
        return a, f"{a}.detach()"
    if how == "data":
        return a, f"{a}.data"
    t = s.ns[a]
    exprs = _index_exprs(a, tuple(t.shape)) + [f"{a}.view(-1)"]
    if t.dim() <= 2:
        exprs.append(f"{a}.t()")
    return a, draw(st.sampled_from(exprs))


def gen_inplace(draw, s):
    a, target = _inplace_target(draw, s)
    if a is None:
        return None
    value = s.eval(target)
    tshape = None if value is None else tuple(value.shape)
    form = draw(st.integers(0, 4))
    if form == 0:
        code = f"{target}.{draw(st.sampled_from(INPLACE_UNARY))}"
    elif form <= 2:
        op = draw(st.sampled_from(INPLACE_BINARY))
        if op == "fill_":
            code = f"{target}.fill_({draw(st.sampled_from(SCALARS))})"
        elif op == "copy_":
            fits = _fitting(s, a, tshape, written=value)
            if not fits:
                return None
            code = f"{target}.copy_({draw(st.sampled_from(fits))})"
        elif op == "pow_":
            code = f"{target}.pow_({draw(st.sampled_from(('2', '0.5', '3')))})"
        else:
            code = f"{target}.{op}({_operand(draw, s, a, tshape, value)})"
    else:
        op = draw(st.sampled_from(AUGMENTED))
        if target != a and not target.startswith(f"{a}["):
            # `x.detach() += 1` is not Python.
            target, tshape, value = a, tuple(s.ns[a].shape), s.ns[a]
        code = f"{target} {op} {_operand(draw, s, a, tshape, value)}"
    return _maybe_no_grad(draw, code, 3)


def gen_setitem(draw, s):
    names = s.names()
    safe = s.names(lambda t: not _leaf_guarded(t))
    pool = safe if safe and draw(st.integers(0, 7)) > 0 else names
    if not pool:
        return None
    a = draw(st.sampled_from(pool))
    shape = tuple(s.ns[a].shape)
    basic = ["..."]
    advanced = []
    if shape and shape[0]:
        basic += ["0", "-1", ":1", "1:"]
        advanced += ["[0, -1]", "lib.tensor([0])"]
    advanced.append(f"{a} > 0")
    if len(shape) >= 2 and shape[1]:
        basic += [":, 0", "..., -1", "0, 0"]
    idx = draw(st.sampled_from(basic + advanced))
    target = s.eval(f"{a}[{idx}]")
    tshape = None if target is None else tuple(target.shape)
    fits = _fitting(s, a, tshape, setitem=True)
    if fits and draw(st.integers(0, 2)) > 0:
        value = draw(st.sampled_from(fits))
    else:
        value = draw(st.sampled_from(SCALARS))
    return _maybe_no_grad(draw, f"{a}[{idx}] = {value}", 3)


def _ext_inplace(draw, s):
    form = draw(st.sampled_from(("op", "op", "list_binary", "view_op", "masked_fill_", "alpha",
                                 "init", "scatter_")))
    if form == "init":
        # nn.init writes under no_grad, so leaves that require grad are its usual target.
        leaves = s.names(lambda t: t.is_leaf and t.requires_grad)
        pool = leaves if leaves and draw(st.integers(0, 3)) > 0 else s.names()
        init = draw(st.sampled_from(INIT))
        args = ", 0.5" if init == "constant_" else ""
        return f"lib.nn.init.{init}({draw(st.sampled_from(pool))}{args})"
    a, target = _inplace_target(draw, s)
    if a is None:
        return None
    t = s.ns[a]
    if form == "op":
        return f"{target}.{draw(st.sampled_from(EXTRA_INPLACE))}"
    if form == "list_binary":
        op = draw(st.sampled_from(LIST_INPLACE_BINARY))
        value = s.eval(target)
        tshape = None if value is None else tuple(value.shape)
        fits = _fitting(s, a, tshape)
        if op in TENSOR_ONLY:
            if not fits:
                return None
            return f"{target}.{op}({draw(st.sampled_from(fits))})"
        return f"{target}.{op}({_operand(draw, s, a, tshape)})"
    if form == "view_op":
        # Metadata-changing in-place ops act on the name itself.
        ops = ["squeeze_()", f"unsqueeze_({draw(st.integers(-t.dim() - 1, t.dim()))})"]
        if t.dim() <= 2:
            ops.append("t_()")
        if t.dim():
            ops.append(f"squeeze_({draw(st.integers(-t.dim(), t.dim() - 1))})")
        # as_strided_ over elements the name already covers: the same geometry, the
        # dims reversed, or the first line along dim 0 (one choice among the view ops)
        size, stride, offset = tuple(t.shape), tuple(t.stride()), t.storage_offset()
        strided = [f"as_strided_({size}, {stride})", f"as_strided_({size[::-1]}, {stride[::-1]})",
                   f"as_strided_({size}, {stride}, {offset})"]
        if t.dim() and t.shape[0]:
            strided.append(f"as_strided_(({size[0]},), ({stride[0]},))")
        ops.append(draw(st.sampled_from(strided)))
        return f"{a}.{draw(st.sampled_from(ops))}"
    if form == "masked_fill_":
        return f"{target}.masked_fill_({target} > 0, {draw(st.sampled_from(SCALARS))})"
    if form == "scatter_":
        value = s.eval(target)
        if value is None or not any(value.shape):
            return None
        d = draw(st.sampled_from([k for k in range(value.dim()) if value.shape[k] > 0]))
        index = f"lib.zeros_like({target}, dtype=lib.int64)"
        # A src sharing the target's memory is refused (overlap); keep that rare.
        mem = value.untyped_storage().data_ptr()
        fits = s.names(lambda x: x.shape == value.shape and x.untyped_storage().data_ptr() != mem)
        src = draw(st.sampled_from(fits + list(SCALARS[:2])))
        op = "scatter_" if src in SCALARS or draw(st.booleans()) else "scatter_add_"
        return f"{target}.{op}({d}, {index}, {src})"
    value = s.eval(target)
    fits = _fitting(s, a, None if value is None else tuple(value.shape))
    if not fits:
        return None
    op = draw(st.sampled_from(("add_", "sub_")))
    alpha = draw(st.sampled_from(("2", "0.5", "-1")))
    return f"{target}.{op}({draw(st.sampled_from(fits))}, alpha={alpha})"
