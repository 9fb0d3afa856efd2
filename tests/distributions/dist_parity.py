"""The comparison the distribution tests make: a scenario written against ``lib`` runs
with torch and with gradtrack, and everything it returns or raises must agree.

Stricter than ``helpers.same`` (which rounds to 4 decimals): tensors agree in dtype,
shape, ``requires_grad``, ``grad_fn`` name and values, bit for bit unless a relative
tolerance is given; strings and error messages agree with ``torch`` spelled
``gradtrack``; warnings raised inside the scenario agree in category and text.
"""

import warnings

import numpy as np
import pytest

import gradtrack


def _is_tensor(v):
    return hasattr(v, "grad_fn") and hasattr(v, "dtype") and hasattr(v, "_version")


def picture(v):
    """A plain-Python picture of a result; tensors keep their values as arrays."""
    if isinstance(v, (list, tuple)):
        return [picture(i) for i in v]
    if isinstance(v, dict):
        return {k: picture(i) for k, i in v.items()}
    if _is_tensor(v):
        fn = v.grad_fn
        return ("tensor", str(v.dtype).split(".")[-1], tuple(v.shape), v.requires_grad,
                None if fn is None else type(fn).__name__, np.array(v.detach().tolist()))
    if isinstance(v, str):
        return v.replace("torch", "gradtrack")
    if type(v).__name__ == "Size":
        return ("Size", tuple(v))
    return v


def outcome(lib, scenario):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = ("ok", picture(scenario(lib)))
        except Exception as e:  # noqa: BLE001 - the error is the observable result
            result = (type(e).__name__, str(e).replace("torch", "gradtrack"))
    said = [(w.category.__name__, str(w.message).replace("torch", "gradtrack")) for w in caught]
    return result, said


def _assert_same(got, want, rtol, where="result"):
    if isinstance(want, tuple) and want and want[0] == "tensor":
        assert isinstance(got, tuple) and got[:5] == want[:5], f"{where}: {got[:5]} != {want[:5]}"
        a, b = got[5], want[5]
        if rtol == 0 or a.dtype.kind not in "fc":
            same_nan = np.array_equal(np.isnan(a), np.isnan(b)) if a.dtype.kind == "f" else True
            assert same_nan and np.array_equal(np.nan_to_num(a), np.nan_to_num(b)), \
                f"{where}: values differ\ngradtrack: {a}\ntorch:     {b}"
        else:
            np.testing.assert_allclose(a, b, rtol=rtol, atol=0, equal_nan=True, err_msg=where)
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), f"{where}: {got!r} != {want!r}"
        for i, (g, w) in enumerate(zip(got, want)):
            _assert_same(g, w, rtol, f"{where}[{i}]")
    elif isinstance(want, dict):
        assert isinstance(got, dict) and got.keys() == want.keys(), f"{where}: {got!r} != {want!r}"
        for k in want:
            _assert_same(got[k], want[k], rtol, f"{where}[{k!r}]")
    else:
        assert got == want, f"{where}: gradtrack {got!r} != torch {want!r}"


def agree(scenario, rtol=0.0, raises=False):
    """Runs ``scenario(lib)`` with torch and gradtrack; what each returns (bit for bit,
    or within ``rtol``), raises and warns must be the same. Torch must return, or
    raise when ``raises`` (so that a scenario broken in both cannot pass)."""
    torch = pytest.importorskip("torch")
    (want, want_warnings) = outcome(torch, scenario)
    assert (want[0] != "ok") == raises, f"torch: {want!r}"
    (got, got_warnings) = outcome(gradtrack, scenario)
    assert got[0] == want[0], f"gradtrack: {got!r}\ntorch:     {want!r}"
    _assert_same(got[1], want[1], rtol)
    assert got_warnings == want_warnings
    return got[1]


def seeded(scenario, seed=0):
    """``scenario`` run right after ``manual_seed(seed)``."""
    def run(lib):
        lib.manual_seed(seed)
        return scenario(lib)
    return run


def grads(lib, output, inputs):
    """The gradients of ``output.sum()`` with respect to ``inputs``."""
    return list(lib.autograd.grad(output.sum(), inputs, allow_unused=True, retain_graph=True))
