"""ModuleDict, ParameterList, ParameterDict and the Module API (apply, non-persistent
buffers, named_parameters arguments, requires_grad_, to/double/float) against torch 2.13."""

import numpy as np
import pytest

import gradtrack as gt
from gradtrack import nn

from helpers import error_of


def _names(pairs):
    return [name for name, _ in pairs]


def test_module_dict(torch):
    def build(lib):
        md = lib.nn.ModuleDict({"lin": lib.nn.Linear(2, 3), "act": lib.nn.ReLU()})
        md["x"] = lib.nn.Tanh()
        del md["act"]
        popped = md.pop("x")
        md.update([("out", lib.nn.Linear(3, 1))])
        return md, popped
    (ours, po), (ref, pr) = build(gt), build(torch)
    assert repr(ours) == repr(ref) and repr(po) == repr(pr)
    assert list(ours) == list(ref) == ["lin", "out"]
    assert list(ours.keys()) == list(ref.keys())
    assert "lin" in ours and "act" not in ours and len(ours) == 2
    assert list(ours.state_dict()) == list(ref.state_dict())
    assert _names(ours.named_parameters()) == _names(ref.named_parameters())
    assert error_of(lambda: ours["zz"]) == error_of(lambda: ref["zz"])
    assert repr(nn.ModuleDict()) == repr(torch.nn.ModuleDict())
    ours.clear()
    assert len(ours) == 0


def test_parameter_list(torch):
    def build(lib):
        pl = lib.nn.ParameterList([lib.nn.Parameter(lib.zeros(2, 3)), lib.ones(3)])
        pl.append(lib.ones(1, dtype=lib.float64))
        pl += [lib.zeros(4)]
        return pl
    ours, ref = build(gt), build(torch)
    assert repr(ours) == repr(ref).replace("torch.", "gradtrack.")
    assert len(ours) == 4 and type(ours[1]) is nn.Parameter and ours[1].requires_grad
    assert list(ours.state_dict()) == list(ref.state_dict())
    assert len(list(ours.parameters())) == 4
    assert [p.shape for p in ours] == [tuple(p.shape) for p in ref]
    assert ours[-1].shape == (4,)
    assert len(ours[1:3]) == 2
    assert error_of(lambda: ours[10]) == error_of(lambda: ref[10])
    ours[0] = gt.ones(5)
    assert ours[0].shape == (5,) and type(ours[0]) is nn.Parameter
    assert repr(nn.ParameterList()) == repr(torch.nn.ParameterList())
    single = nn.ParameterList([gt.ones(2)])
    assert repr(single) == repr(torch.nn.ParameterList([torch.ones(2)])).replace("torch.",
                                                                                 "gradtrack.")


def test_parameter_dict(torch):
    def build(lib):
        pd = lib.nn.ParameterDict({"a": lib.nn.Parameter(lib.zeros(2)), "b": lib.ones(3)})
        pd.update({"c": lib.ones(1, dtype=lib.float64)})
        return pd
    ours, ref = build(gt), build(torch)
    assert repr(ours) == repr(ref).replace("torch.", "gradtrack.")
    assert list(ours.keys()) == list(ref.keys()) == ["a", "b", "c"]
    assert list(ours.state_dict()) == list(ref.state_dict())
    assert type(ours["b"]) is nn.Parameter and "a" in ours and len(ours) == 3
    assert ours.pop("a").shape == (2,) and list(ours) == ["b", "c"]
    assert _names(ours.named_parameters()) == ["b", "c"]


def test_apply_visits_children_then_self(torch):
    def run(lib):
        seen = []
        model = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.Sequential(lib.nn.ReLU()))
        assert model.apply(lambda m: seen.append(type(m).__name__)) is model
        return seen
    assert run(gt) == run(torch)


def test_apply_initializes_weights():
    model = nn.Sequential(nn.Linear(3, 3), nn.ReLU(), nn.Linear(3, 1))

    def init(m):
        if isinstance(m, nn.Linear):
            nn.init.constant_(m.weight, 0.5)
    model.apply(init)
    assert model[2].weight.tolist() == [[0.5, 0.5, 0.5]]


def test_non_persistent_buffer(torch):
    for lib in (gt, torch):
        m = lib.nn.Module()
        m.register_buffer("a", lib.ones(1), persistent=False)
        m.register_buffer("b", lib.ones(1))
        assert list(m.state_dict()) == ["b"]
        assert _names(m.named_buffers()) == ["a", "b"]
        m.load_state_dict({"b": lib.zeros(1)})


def test_named_parameters_arguments(torch):
    def run(lib):
        class M(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.l = lib.nn.Linear(2, 2)
                self.l2 = self.l
                self.p = lib.nn.Parameter(lib.ones(1))
        m = M()
        return (_names(m.named_parameters(prefix="pre", remove_duplicate=False)),
                _names(m.named_parameters(recurse=False)),
                _names(m.named_parameters()))
    assert run(gt) == run(torch)


def test_requires_grad_and_dtype_moves(torch):
    def run(lib):
        m = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.BatchNorm1d(2))
        m.requires_grad_(False)
        flags = [p.requires_grad for p in m.parameters()]
        m.double()
        dtypes = [str(t.dtype).split(".")[-1] for t in m.state_dict().values()]
        m.float()
        back = [str(t.dtype).split(".")[-1] for t in m.state_dict().values()]
        m.to(lib.float64)
        return flags, dtypes, back, [str(p.dtype).split(".")[-1] for p in m.parameters()]
    assert run(gt) == run(torch)


def test_double_model_runs_in_float64():
    m = nn.Sequential(nn.Linear(2, 3), nn.LayerNorm(3), nn.GELU(), nn.Dropout(0.1))
    m.double()
    out = m(gt.ones(4, 2, dtype=gt.float64))
    assert out.dtype == gt.float64
    out.sum().backward()
    assert m[1].weight.grad.dtype == gt.float64


def test_small_network_trains_like_torch(torch):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((16, 4)).astype(np.float32)
    y = (x.sum(1) > 0).astype(np.float32).reshape(-1, 1)

    def run(lib):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.LayerNorm(8), lib.nn.SiLU(),
                                  lib.nn.Linear(8, 1))
        with lib.no_grad():
            for i, p in enumerate(model.parameters()):
                p.copy_(lib.tensor(np.random.default_rng(i).standard_normal(tuple(p.shape))
                                   .astype(np.float32) * 0.3))
        opt = lib.optim.SGD(model.parameters(), lr=0.1)
        for _ in range(5):
            opt.zero_grad()
            loss = lib.nn.BCEWithLogitsLoss()(model(lib.tensor(x)), lib.tensor(y))
            loss.backward()
            opt.step()
        return loss.item()
    assert run(gt) == pytest.approx(run(torch), rel=1e-5)
