"""layout= and pin_memory= on every factory, as torch 2.13's CPU build takes
them (measured: pin_memory=True raises there, no pinned-memory allocator),
and Tensor.layout / is_pinned / pin_memory.
"""

import inspect
import pickle

import pytest

import gradtrack
from gradtrack._ops import creation as _factories

CALLS = {
    "zeros": lambda L, **kw: L.zeros(2, 3, **kw),
    "ones": lambda L, **kw: L.ones(2, **kw),
    "empty": lambda L, **kw: L.empty(2, **kw).fill_(0),
    "full": lambda L, **kw: L.full((2,), 1.5, **kw),
    "arange": lambda L, **kw: L.arange(3, **kw),
    "eye": lambda L, **kw: L.eye(2, **kw),
    "linspace": lambda L, **kw: L.linspace(0, 1, 3, **kw),
    "rand": lambda L, **kw: L.rand(2, **kw).mul(0),
    "randn": lambda L, **kw: L.randn(2, **kw).mul(0),
    "randint": lambda L, **kw: L.randint(0, 1, (2,), **kw),
    "randperm": lambda L, **kw: L.randperm(1, **kw),
    "zeros_like": lambda L, **kw: L.zeros_like(L.ones(2), **kw),
    "ones_like": lambda L, **kw: L.ones_like(L.ones(2), **kw),
    "empty_like": lambda L, **kw: L.empty_like(L.ones(2), **kw).fill_(0),
    "full_like": lambda L, **kw: L.full_like(L.ones(2), 2.0, **kw),
    "rand_like": lambda L, **kw: L.rand_like(L.ones(2), **kw).mul(0),
    "randn_like": lambda L, **kw: L.randn_like(L.ones(2), **kw).mul(0),
    "randint_like": lambda L, **kw: L.randint_like(L.ones(2), 1, **kw),
    "new_zeros": lambda L, **kw: L.ones(2).new_zeros(3, **kw),
    "new_ones": lambda L, **kw: L.ones(2).new_ones((2, 1), **kw),
    "new_empty": lambda L, **kw: L.ones(2).new_empty(2, **kw).fill_(0),
    "new_full": lambda L, **kw: L.ones(2).new_full((2,), 3.0, **kw),
}


def _outcome(lib, fn, kw):
    try:
        r = fn(lib, **kw(lib))
        return ("ok", r.tolist(), str(r.dtype).split(".")[-1], repr(r.layout).split(".")[-1],
                r.is_pinned())
    except Exception as e:  # the error is the observable result
        return (type(e).__name__, str(e).replace("gradtrack", "torch"))


KWARGS = {
    "strided": lambda L: {"layout": L.strided},
    "layout_none": lambda L: {"layout": None},
    "pin_false": lambda L: {"pin_memory": False, "layout": L.strided},
    "pinned": lambda L: {"pin_memory": True},
    "layout_str": lambda L: {"layout": "strided"},
    "cpu": lambda L: {"device": "cpu", "layout": L.strided},
    "cuda": lambda L: {"device": "cuda"},
}


@pytest.mark.parametrize("kw", sorted(KWARGS))
@pytest.mark.parametrize("name", sorted(CALLS))
def test_factories_take_layout_and_pin_memory_as_torch(torch, name, kw):
    got = _outcome(gradtrack, CALLS[name], KWARGS[kw])
    expected = _outcome(torch, CALLS[name], KWARGS[kw])
    if kw == "layout_str" and "invalid combination" in expected[1]:
        # torch's parser lists every overload when several exist; gradtrack
        # names the bad argument, as torch does for single-overload factories.
        assert got[0] == expected[0] == "TypeError"
        assert "'layout' must be torch.layout, not str" in got[1]
    else:
        assert got == expected


def test_every_factory_torch_gives_layout_or_pin_memory_takes_them(torch):
    """Walks the module functions and Tensor methods both libraries have: where
    torch's signature lists layout / pin_memory, gradtrack's must too."""
    missing = []
    for name in sorted(set(dir(gradtrack)) & set(dir(torch))):
        g = getattr(gradtrack, name)
        doc = (getattr(getattr(torch, name), "__doc__", None) or "").split("\n\n")[0]
        if not callable(g) or isinstance(g, type):
            continue
        for arg in ("layout", "pin_memory"):
            if f"{arg}=" in doc.split("->")[0]:
                try:
                    params = inspect.signature(g).parameters
                except (TypeError, ValueError):
                    params = {}
                if arg not in params:
                    missing.append(f"{name}:{arg}")
    for name in _factories.NEW_METHODS:
        params = inspect.signature(getattr(gradtrack.Tensor, name)).parameters
        missing += [f"Tensor.{name}:{a}" for a in ("layout", "pin_memory", "device")
                    if a not in params]
    assert missing == []


def test_tensor_takes_pin_memory_but_not_layout(torch):
    for kw in ({"pin_memory": False}, {"pin_memory": True}, {"layout": torch.strided}):
        gkw = {k: gradtrack.strided if k == "layout" else v for k, v in kw.items()}
        t = _outcome(torch, lambda L, **k: L.tensor([1.0, 2.0], **k), lambda L: kw)
        g = _outcome(gradtrack, lambda L, **k: L.tensor([1.0, 2.0], **k), lambda L: gkw)
        assert g[0] == t[0]
        if t[0] != "TypeError":
            assert g == t


def test_tensor_layout_pinning_and_the_strided_object(torch):
    x = gradtrack.ones(2)
    assert x.layout is gradtrack.strided
    assert repr(gradtrack.strided) == repr(torch.strided).replace("torch", "gradtrack")
    assert pickle.loads(pickle.dumps(gradtrack.strided)) is gradtrack.strided
    assert x.is_pinned() is torch.ones(2).is_pinned()
    with pytest.raises(RuntimeError) as t_err:
        torch.ones(2).pin_memory()
    with pytest.raises(RuntimeError) as g_err:
        x.pin_memory()
    assert str(g_err.value) == str(t_err.value)
