"""Statements that compute a new tensor: arithmetic with tensors and numbers, unary ops
(the op list's too), softmax, maximum/minimum, where, masked_fill, reductions, matmul and
the vector products, and nn.functional ops with SGD steps.
"""

from hypothesis import strategies as st

from gradtrack import _C

from fuzz_gen_state import SCALARS, _broadcast, _dims, _is_float, _matmul_ok, _maybe_no_grad

BINARY = ("+", "-", "*", "/", "**")


def gen_binary(draw, s):
    names = s.names()
    a = draw(st.sampled_from(names))
    sa = s.ns[a].shape
    partners = [n for n in names if _broadcast(sa, s.ns[n].shape) is not None]
    op = draw(st.sampled_from(BINARY))
    form = draw(st.integers(0, 5))
    name = s.new_name()
    if form <= 2:
        b = draw(st.sampled_from(partners))
        code = f"{name} = {a} {op} {b}"
    elif form == 3:
        code = f"{name} = {a} {op} {draw(st.sampled_from(SCALARS))}"
    elif form == 4:
        code = f"{name} = {draw(st.sampled_from(SCALARS))} {op} {a}"
    else:
        b = draw(st.sampled_from(partners))
        fn = draw(st.sampled_from(("add", "sub", "mul", "div")))
        alpha = ", alpha=2" if fn in ("add", "sub") and draw(st.booleans()) else ""
        code = f"{name} = lib.{fn}({a}, {b}{alpha})"
    return _maybe_no_grad(draw, code, 6)


UNARY = ("exp()", "LOG", "sigmoid()", "tanh()", "relu()", "neg()", "abs()", "sin()",
         "clamp(-1, 1)", "SQRT", "square()")


def gen_unary(draw, s):
    a = draw(st.sampled_from(s.names()))
    op = draw(st.sampled_from(UNARY))
    name = s.new_name()
    if op == "LOG":
        code = f"{name} = ({a}.abs() + 1).log()"
    elif op == "SQRT":
        code = f"{name} = {a}.abs().sqrt()"
    elif draw(st.integers(0, 3)) == 0 and op.endswith("()") and op != "square()":
        code = f"{name} = lib.{op[:-2]}({a})"
    else:
        code = f"{name} = {a}.{op}"
    return _maybe_no_grad(draw, code, 6)


def gen_reduce(draw, s):
    a = draw(st.sampled_from(s.names()))
    t = s.ns[a]
    fn = draw(st.sampled_from(("sum", "mean", "sum", "max", "prod")))
    name = s.new_name()
    if t.dim() == 0 or fn in ("max", "prod") or draw(st.integers(0, 2)) == 0:
        return f"{name} = {a}.{fn}()"
    d = draw(st.integers(-t.dim(), t.dim() - 1))
    keep = ", keepdim=True" if draw(st.booleans()) else ""
    if t.dim() >= 2 and draw(st.integers(0, 3)) == 0:
        return f"{name} = {a}.{fn}(({d}, {(d + 1) % t.dim()}){keep})"
    return f"{name} = {a}.{fn}({d}{keep})"


def gen_matmul(draw, s):
    names = s.names()
    pairs = [(a, b) for a in names for b in names
             if _matmul_ok(s.ns[a].shape, s.ns[b].shape)]
    if not pairs:
        return None
    a, b = draw(st.sampled_from(pairs))
    name = s.new_name()
    form = draw(st.sampled_from((f"{a} @ {b}", f"lib.matmul({a}, {b})", f"{a}.matmul({b})")))
    return _maybe_no_grad(draw, f"{name} = {form}", 6)


# The op list's unary ops (the in-place ones just below come from the same list).
EXTRA_UNARY = tuple(f"{name}()" for name, (_, operands) in _C._inplace.ops.items()
                    if not operands)


def _ext_unary(draw, s, a, t):
    op = draw(st.sampled_from(EXTRA_UNARY + ("SOFTMAX", "LOG_SOFTMAX")))
    if op in ("SOFTMAX", "LOG_SOFTMAX"):
        fn = op.lower()
        d = draw(st.sampled_from(_dims(t)))
        return draw(st.sampled_from((f"{a}.{fn}({d})", f"lib.{fn}({a}, dim={d})")))
    return f"{a}.{op}"


def _ext_binary(draw, s, a, t):
    names = s.names()
    partners = [n for n in names if _broadcast(t.shape, s.ns[n].shape) is not None]
    form = draw(st.sampled_from(("maximum", "minimum", "where", "masked_fill", "outer", "dot",
                                 "mv")))
    if form in ("maximum", "minimum"):
        return f"lib.{form}({a}, {draw(st.sampled_from(partners))})"
    if form == "where":
        b = draw(st.sampled_from(partners))
        c = draw(st.sampled_from(names))
        return f"lib.where({c} > 0, {a}, {b})"
    if form == "masked_fill":
        masks = [n for n in names
                 if _broadcast(s.ns[n].shape, t.shape) == tuple(t.shape)]
        return f"{a}.masked_fill({draw(st.sampled_from(masks))} > 0, " \
               f"{draw(st.sampled_from(SCALARS))})"
    vectors = [n for n in names if s.ns[n].dim() == 1]
    if form == "outer" and t.dim() == 1 and vectors:
        return f"lib.outer({a}, {draw(st.sampled_from(vectors))})"
    if form == "dot" and t.dim() == 1:
        same = [n for n in vectors if tuple(s.ns[n].shape) == tuple(t.shape)]
        return f"lib.dot({a}, {draw(st.sampled_from(same))})"
    if form == "mv" and t.dim() == 2:
        fit = [n for n in vectors if s.ns[n].shape[0] == t.shape[1]]
        if fit:
            return f"lib.mv({a}, {draw(st.sampled_from(fit))})"
    return None


def _ext_reduce(draw, s, a, t):
    form = draw(st.sampled_from(("amax", "min", "max_dim", "argmax", "min_dim")))
    if form == "min" or t.dim() == 0:
        return f"{a}.{'argmax' if form == 'argmax' else 'min'}()"
    d = draw(st.sampled_from(_dims(t)))
    keep = ", keepdim=True" if draw(st.booleans()) else ""
    if form == "amax":
        return f"{a}.amax({d}{keep})"
    if form == "argmax":
        return f"{a}.argmax({d}{keep})"
    fn = form[:3]
    return draw(st.sampled_from((f"{a}.{fn}({d}{keep})[0]", f"{a}.{fn}({d}{keep}).values",
                                 f"lib.{fn}({a}, {d}{keep}).values")))


def gen_nn(draw, s):
    """nn.functional ops, an SGD step or zero_grad on leaves, and `.data =` assignment."""
    floats = s.names(_is_float)
    if not floats:
        return None
    a = draw(st.sampled_from(floats))
    t = s.ns[a]
    form = draw(st.sampled_from(("mse", "linear", "cross_entropy", "relu_", "sgd", "sgd",
                                 "zero_grad", "data")))
    F = "lib.nn.functional"
    if form == "mse":
        fits = [n for n in floats if _broadcast(t.shape, s.ns[n].shape) is not None]
        reduction = draw(st.sampled_from(("mean", "sum", "none")))
        code = f"{s.new_name()} = {F}.mse_loss({a}, {draw(st.sampled_from(fits))}, " \
               f"reduction='{reduction}')"
    elif form == "linear":
        if t.dim() == 0:
            return None
        weights = [n for n in floats if s.ns[n].dim() == 2 and s.ns[n].shape[1] == t.shape[-1]]
        if not weights:
            return None
        w = draw(st.sampled_from(weights))
        biases = [n for n in floats if s.ns[n].dim() == 1 and s.ns[n].shape[0] == s.ns[w].shape[0]]
        bias = f", {draw(st.sampled_from(biases))}" if biases and draw(st.booleans()) else ""
        code = f"{s.new_name()} = {F}.linear({a}, {w}{bias})"
    elif form == "cross_entropy":
        if t.dim() != 2:
            return None
        code = f"{s.new_name()} = {F}.cross_entropy({a}, lib.zeros({t.shape[0]}, dtype=lib.int64))"
    elif form == "relu_":
        code = f"{F}.relu_({a})"
    elif form in ("sgd", "zero_grad"):
        leaves = s.names(lambda x: x.is_leaf and x.requires_grad)
        if not leaves:
            return None
        params = ", ".join(draw(st.lists(st.sampled_from(leaves), min_size=1, max_size=2,
                                         unique=True)))
        if form == "zero_grad":
            return f"lib.optim.SGD([{params}], lr=0.1).zero_grad()"
        opts = draw(st.sampled_from(("", ", momentum=0.9", ", weight_decay=0.5",
                                     ", momentum=0.5, nesterov=True")))
        return f"lib.optim.SGD([{params}], lr=0.1{opts}).step()"
    else:
        others = [n for n in floats if s.ns[n].dtype == t.dtype]
        return f"{a}.data = {draw(st.sampled_from(others))}"
    return _maybe_no_grad(draw, code, 6)
