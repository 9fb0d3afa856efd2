"""nn.factory_kwargs against torch: the collected dict, the key rules and the messages."""

import pytest
import torch

import gradtrack
from gradtrack import nn


def _both(make):
    """Run ``nn.factory_kwargs`` on the same arguments in torch and in gradtrack."""
    results = []
    for lib, fn in ((torch, torch.nn.factory_kwargs), (gradtrack, nn.factory_kwargs)):
        try:
            results.append(("ok", fn(make(lib))))
        except Exception as exc:  # noqa: BLE001 - the comparison is the point
            results.append((type(exc), str(exc)))
    return results


@pytest.mark.parametrize("make", [
    lambda lib: None,
    lambda lib: {},
    lambda lib: {"device": "cpu"},
    lambda lib: {"dtype": lib.float64, "memory_format": lib.channels_last},
    lambda lib: {"dtype": lib.float32, "factory_kwargs": {"device": "cpu"}},
    lambda lib: {"factory_kwargs": {"anything": 1}, "device": "cpu"},
    lambda lib: {"memory_format": None},
    lambda lib: {"device": "cpu", "bias": True},
    lambda lib: {"dtype": lib.float32, "factory_kwargs": {"dtype": lib.float64}},
    lambda lib: {"device": "cpu", "factory_kwargs": {"device": "cpu"}},
    lambda lib: {"factory_kwargs": None},
])
def test_factory_kwargs_matches_torch(make):
    (t_kind, t_value), (g_kind, g_value) = _both(make)
    if t_kind == "ok":
        assert g_kind == "ok"
        # torch walks a set of key names, so its key order varies between processes
        assert sorted(g_value) == sorted(t_value)
        assert {k: str(v) for k, v in g_value.items()} == {
            k: str(v).replace("torch", "gradtrack") for k, v in t_value.items()}
    else:
        assert (g_kind, g_value) == (t_kind, t_value)


def test_factory_kwargs_leaves_its_argument_alone():
    inner = {"device": "cpu"}
    kwargs = {"dtype": gradtrack.float64, "factory_kwargs": inner}
    out = nn.factory_kwargs(kwargs)
    assert out == {"device": "cpu", "dtype": gradtrack.float64}
    assert inner == {"device": "cpu"} and out is not inner
    assert kwargs == {"dtype": gradtrack.float64, "factory_kwargs": {"device": "cpu"}}


def test_factory_kwargs_feeds_a_factory():
    t = gradtrack.empty(2, 3, **nn.factory_kwargs({"dtype": gradtrack.float64}))
    assert t.dtype == gradtrack.float64 and t.shape == (2, 3)
