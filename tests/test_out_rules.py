"""out= on torch's elementwise functions and factories: written in place
(the _version bumps, views see it), resized with torch's warning, torch's
dtype-cast refusal and its error when an argument requires grad.
"""

import warnings

import numpy as np
import pytest

import gradtrack
from gradtrack import _out


# the binary ops torch defines for integers only
INTEGER_BINARY = ("bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift",
                  "bitwise_right_shift", "gcd", "lcm")


def _args(lib, name):
    x = lib.tensor([0.25, 0.5, 0.75])
    if name in ("logical_not",):
        return (x > 0.4,)
    if name in ("bitwise_not",):
        return (lib.tensor([1, 2, 3]),)
    if name in INTEGER_BINARY:
        return (lib.tensor([1, 2, 3]), lib.tensor([3, 1, 2]))
    if name == "polygamma":  # polygamma(n, input): the order first
        return (1, x)
    if name in _out.BINARY:
        return (x, lib.tensor([0.5, 0.25, 2.0]))
    return (x + 1,) if name == "acosh" else (x,)


def _outcome(lib, name, out_dtype, shape, requires_grad=False):
    args = _args(lib, name)
    if requires_grad:
        i = next(i for i, a in enumerate(args) if isinstance(a, lib.Tensor))
        args = args[:i] + (args[i].clone().requires_grad_(),) + args[i + 1:]
    out = lib.zeros(shape, dtype=getattr(lib, out_dtype))
    view = out.view(-1) if out.numel() else out
    before = out._version
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            r = getattr(lib, name)(*args, out=out)
    except Exception as e:  # the error is the observable result
        return (type(e).__name__, str(e).replace("gradtrack", "torch"))
    return ("ok", r is out, np.round(r.detach().numpy().astype(float), 5).tolist(),
            str(r.dtype).split(".")[-1], out._version > before,
            view.numpy().tolist() == out.reshape(-1).numpy().tolist() if shape == (3,) else None,
            # torch's bitwise ops warn twice for one resize: compare which warnings
            sorted({str(w.message).split(".")[0] for w in caught}))


@pytest.mark.parametrize("name", _out.UNARY + _out.BINARY)
def test_elementwise_out_matches_torch(torch, name):
    for out_dtype, shape in (("float32", (3,)), ("float64", (0,)), ("int64", (3,)),
                             ("bool", (3,)), ("float32", (2, 2))):
        assert _outcome(gradtrack, name, out_dtype, shape) == _outcome(torch, name, out_dtype,
                                                                       shape)
    # float inputs only; heaviside's result takes no gradient (NotImplemented), so out
    # would require grad and could not be read back here
    if name not in INTEGER_BINARY + ("bitwise_not", "logical_not", "heaviside"):
        assert _outcome(gradtrack, name, "float32", (3,), requires_grad=True) == _outcome(
            torch, name, "float32", (3,), requires_grad=True)


FACTORY_CALLS = {
    "arange": lambda L, **kw: L.arange(3, **kw),
    "linspace": lambda L, **kw: L.linspace(0, 1, 3, **kw),
    "eye": lambda L, **kw: L.eye(2, **kw),
    "full": lambda L, **kw: L.full((2,), 1.5, **kw),
    "randperm": lambda L, **kw: L.randperm(3, **kw).sort()[0],
    "randint": lambda L, **kw: L.randint(0, 1, (2,), **kw),
    "logspace": lambda L, **kw: L.logspace(0, 2, 3, base=2, **kw),
    "range": lambda L, **kw: L.range(1, 3, **kw),
}


@pytest.mark.filterwarnings("ignore:torch.range is deprecated")
@pytest.mark.parametrize("name", _out.FACTORIES)
def test_factory_out_takes_outs_dtype_as_torch(torch, name):
    for dtype in ("float64", "int64", "float32"):
        res = []
        for lib in (torch, gradtrack):
            out = lib.empty(0, dtype=getattr(lib, dtype))
            r = FACTORY_CALLS[name](lib, out=out)
            res.append((r.tolist(), str(r.dtype).split(".")[-1], str(out.dtype).split(".")[-1]))
        assert res[1] == res[0]


def test_out_signatures_list_out():
    import inspect
    for name in _out.UNARY + _out.BINARY + _out.FACTORIES:
        assert "out" in inspect.signature(getattr(gradtrack, name)).parameters


def _rule_call(L, name, out, requires_grad):
    x = L.tensor([[0.25, 0.5], [0.75, 1.0]], requires_grad=requires_grad)
    v, i = L.tensor([0.5, 2.0]), L.tensor([[0, 1], [1, 0]])
    calls = {
        "mm": lambda: L.mm(x, x, out=out), "bmm": lambda: L.bmm(x[None], x[None], out=out),
        "mv": lambda: L.mv(x, v, out=out), "matmul": lambda: L.matmul(x, x, out=out),
        "dot": lambda: L.dot(v, v, out=out), "outer": lambda: L.outer(v, v, out=out),
        "cat": lambda: L.cat([x, x], out=out), "concat": lambda: L.concat([x, x], out=out),
        "stack": lambda: L.stack([x, x], out=out), "gather": lambda: L.gather(x, 1, i, out=out),
        "index_select": lambda: L.index_select(x, 0, i[0], out=out),
        "diag": lambda: L.diag(x, out=out), "softmax": lambda: L.softmax(x, 1, out=out),
        "log_softmax": lambda: L.log_softmax(x, 1, out=out),
        "mean": lambda: L.mean(x, 1, out=out), "argmax": lambda: L.argmax(x, 1, out=out),
        "argmin": lambda: L.argmin(x, 1, out=out), "clamp": lambda: L.clamp(x, 0, 0.5, out=out),
        "clip": lambda: L.clip(x, 0, 0.5, out=out),
        "where": lambda: L.where(x > 0.5, x, v, out=out),
        "all": lambda: L.all(x > 0, 1, out=out), "any": lambda: L.any(x > 0, 1, out=out),
        "addmm": lambda: L.addmm(x, x, x, out=out),
        "scatter_add": lambda: L.scatter_add(x, 1, i, x, out=out),
        "scatter": lambda: L.scatter(x, 1, i, x, out=out),
        "clamp_min": lambda: L.clamp_min(x, 0.5, out=out),
        "clamp_max": lambda: L.clamp_max(x, 0.5, out=out),
        "amax": lambda: L.amax(x, 1, out=out), "amin": lambda: L.amin(x, 0, out=out),
        "masked_select": lambda: L.masked_select(x, x > 0.4, out=out),
        "nonzero": lambda: L.nonzero(x > 0.4, out=out), "signbit": lambda: L.signbit(x, out=out),
    }
    return calls[name]()


@pytest.mark.parametrize("name", sorted(_out.RULES))
def test_out_dtype_rules_of_other_functions_match_torch(torch, name):
    for dtype in ("float32", "float64", "int64", "bool"):
        for requires_grad in (False, True):
            res = []
            for lib in (torch, gradtrack):
                out = lib.zeros(0, dtype=getattr(lib, dtype))
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        r = _rule_call(lib, name, out, requires_grad)
                    res.append(("ok", r is out, np.round(r.detach().numpy().astype(float), 6)
                                .tolist(), out._version))
                except Exception as e:  # the error is the observable result
                    res.append((type(e).__name__, str(e).replace("gradtrack", "torch")))
            assert res[1] == res[0], (dtype, requires_grad)


MAX_MIN_CALLS = {
    "all": lambda L, f, x, out: f(x, out=out),
    "dim": lambda L, f, x, out: f(x, 1, out=out),
    "dim_keepdim": lambda L, f, x, out: f(x, dim=0, keepdim=True, out=out),
    "other": lambda L, f, x, out: f(x, x.flip(0), out=out),
}


@pytest.mark.parametrize("form", sorted(MAX_MIN_CALLS))
@pytest.mark.parametrize("name", ["max", "min"])
def test_max_min_out_in_each_form_match_torch(torch, name, form):
    outs = {"all": ["float32", "float64", "int64", "bool"],
            "other": ["float32", "float64", "int64", "bool"],
            "dim": [("float32", "int64"), ("float64", "int64"), ("float32", "int32"),
                    ("float32", "float32")]}
    for spec in outs.get(form, outs["dim"]):
        res = []
        for lib in (torch, gradtrack):
            x = lib.tensor([[0.25, -0.5, 2.0], [0.75, 1.0, -3.0]])
            mk = lambda d: lib.zeros(0, dtype=getattr(lib, d))  # noqa: E731
            out = tuple(mk(d) for d in spec) if isinstance(spec, tuple) else mk(spec)
            try:
                r = MAX_MIN_CALLS[form](lib, getattr(lib, name), x, out)
            except Exception as e:  # the error is the observable result
                res.append((type(e).__name__, str(e)))
                continue
            got = r if isinstance(r, tuple) else (r,)
            outs_ = out if isinstance(out, tuple) else (out,)
            res.append(("ok", all(g is o for g, o in zip(got, outs_)),
                        [np.asarray(g.numpy(), dtype=float).tolist() for g in got],
                        [o._version for o in outs_]))
        assert res[1] == res[0], spec


@pytest.mark.parametrize("case", ["out_requires_grad", "grad_tensor_in_list", "tuple_out_values"])
def test_out_refuses_a_grad_tensor_wherever_it_sits(torch, case):
    # the refusal looks into out itself, into tensor lists and into tuple outs
    def call(L):
        x, g = L.ones(2, 2), L.ones(2, 2, requires_grad=True)
        if case == "out_requires_grad":
            return L.add(x, x, out=L.zeros(2, 2, requires_grad=True))
        if case == "grad_tensor_in_list":
            return L.cat([x, g], out=L.zeros(0))
        return L.max(x, 1, out=(L.zeros(2, requires_grad=True), L.zeros(2, dtype=L.int64)))

    msgs = []
    for lib in (torch, gradtrack):
        with pytest.raises(RuntimeError) as err:
            call(lib)
        msgs.append(str(err.value))
    assert msgs[1] == msgs[0]
    assert "functions with out=... arguments don't support automatic differentiation" in msgs[1]
