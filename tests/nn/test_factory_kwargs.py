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


LAYERS_ON_DEVICES = {
    "linear": lambda lib, d: lib.nn.Linear(2, 3, device=d),
    "linear_device_by_position": lambda lib, d: lib.nn.Linear(2, 3, True, d),
    "conv2d": lambda lib, d: lib.nn.Conv2d(1, 1, 3, device=d),
    "lstm": lambda lib, d: lib.nn.LSTM(2, 3, device=d),
    "layer_norm": lambda lib, d: lib.nn.LayerNorm(3, device=d),
    "transformer_layer": lambda lib, d: lib.nn.TransformerEncoderLayer(4, 2, 8, device=d),
}


@pytest.mark.parametrize("device", ["cuda", "cpu", "cpu:0", None])
@pytest.mark.parametrize("layer", LAYERS_ON_DEVICES)
def test_a_layer_checks_its_device(torch, layer, device):
    """NOTE [A layer's device= is checked]: a CUDA device raises torch's AssertionError
    (the layers took any device, silently), the CPU is taken."""
    def run(lib):
        try:
            module = LAYERS_ON_DEVICES[layer](lib, device)
        except Exception as e:  # noqa: BLE001 - the exception is the result
            return type(e).__name__, str(e)
        return [str(p.device) for p in module.parameters()][:1]
    assert run(gradtrack) == run(torch)


def test_meta_layers_are_refused_and_own_modules_left_alone():
    with pytest.raises(RuntimeError, match="gradtrack runs on the CPU only, got device 'meta'"):
        gradtrack.nn.Linear(2, 3, device="meta")

    class Holder(gradtrack.nn.Module):  # a program's module: its device is its own business
        def __init__(self, device):
            super().__init__()
            self.where = device

    assert Holder("cuda").where == "cuda"
