"""out= on torch's elementwise functions and factories: written in place
(the _version bumps, views see it), resized with torch's warning, torch's
dtype-cast refusal and its error when an argument requires grad.
"""

import warnings

import numpy as np
import pytest

import gradtrack
from gradtrack import _out_more


def _args(lib, name):
    x = lib.tensor([0.25, 0.5, 0.75])
    if name in ("logical_not",):
        return (x > 0.4,)
    if name in ("bitwise_not",):
        return (lib.tensor([1, 2, 3]),)
    if name in ("bitwise_and", "bitwise_or", "bitwise_xor"):
        return (lib.tensor([1, 2, 3]), lib.tensor([3, 1, 2]))
    if name in _out_more.BINARY:
        return (x, lib.tensor([0.5, 0.25, 2.0]))
    return (x,)


def _outcome(lib, name, out_dtype, shape, requires_grad=False):
    args = _args(lib, name)
    if requires_grad:
        args = (args[0].clone().requires_grad_(),) + args[1:]
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


@pytest.mark.parametrize("name", _out_more.UNARY + _out_more.BINARY)
def test_elementwise_out_matches_torch(torch, name):
    for out_dtype, shape in (("float32", (3,)), ("float64", (0,)), ("int64", (3,)),
                             ("bool", (3,)), ("float32", (2, 2))):
        assert _outcome(gradtrack, name, out_dtype, shape) == _outcome(torch, name, out_dtype,
                                                                       shape)
    if not name.startswith("bitwise") and name != "logical_not":  # float inputs only
        assert _outcome(gradtrack, name, "float32", (3,), requires_grad=True) == _outcome(
            torch, name, "float32", (3,), requires_grad=True)


FACTORY_CALLS = {
    "arange": lambda L, **kw: L.arange(3, **kw),
    "linspace": lambda L, **kw: L.linspace(0, 1, 3, **kw),
    "eye": lambda L, **kw: L.eye(2, **kw),
    "full": lambda L, **kw: L.full((2,), 1.5, **kw),
    "randperm": lambda L, **kw: L.randperm(3, **kw).sort()[0],
    "randint": lambda L, **kw: L.randint(0, 1, (2,), **kw),
}


@pytest.mark.parametrize("name", _out_more.FACTORIES)
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
    for name in _out_more.UNARY + _out_more.BINARY + _out_more.FACTORIES:
        assert "out" in inspect.signature(getattr(gradtrack, name)).parameters
