"""A layer's forward reads its parameters as attributes, as torch's does: a parameter
deleted and replaced by a plain tensor (the forward-AD tutorial's idiom), or a tensor
written straight into ``_parameters``, is what the layer computes with."""

import numpy as np
import pytest

import gradtrack

torch = pytest.importorskip("torch")


def _np(t):
    return t.detach().numpy() if hasattr(t, "detach") else np.asarray(t)


def _same_weights(gmodel, tmodel):
    with torch.no_grad():
        for (name, gp), (tname, tp) in zip(gmodel.named_parameters(),
                                           tmodel.named_parameters()):
            assert name == tname
            tp.copy_(torch.from_numpy(_np(gp).copy()))


@pytest.mark.parametrize("make", [
    lambda nn: nn.Linear(5, 4),
    lambda nn: nn.Conv2d(2, 3, 3),
    lambda nn: nn.Conv1d(2, 3, 3),
    lambda nn: nn.LayerNorm(5),
], ids=["Linear", "Conv2d", "Conv1d", "LayerNorm"])
def test_forward_ad_tutorial_idiom_gives_torchs_jvp(make):
    # The official forward-mode AD tutorial: every parameter is deleted from the module and
    # a dual tensor set in its place; the output's tangent is the jvp in those directions.
    gradtrack.manual_seed(0)
    gmodel = make(gradtrack.nn)
    tmodel = make(torch.nn)
    _same_weights(gmodel, tmodel)
    shape = {"Linear": (16, 5), "LayerNorm": (3, 5)}.get(type(gmodel).__name__)
    shape = shape or ((2, 2, 6, 6) if type(gmodel).__name__ == "Conv2d" else (2, 2, 7))
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    results = []
    for lib, model in ((gradtrack, gmodel), (torch, tmodel)):
        fwad = lib.autograd.forward_ad
        params = dict(model.named_parameters())
        tangents = {name: lib.ones_like(p) * 0.5 for name, p in params.items()}
        with fwad.dual_level():
            for name, p in params.items():
                delattr(model, name)
                setattr(model, name, fwad.make_dual(p, tangents[name]))
            out = model(lib.from_numpy(x.copy()))
            primal, tangent = fwad.unpack_dual(out)
            results.append((_np(primal), _np(tangent)))
        assert not dict(model.named_parameters())  # the parameters are plain attributes now
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-5, atol=1e-6)


def test_plain_tensor_in_place_of_a_parameter_is_what_forward_uses():
    lin = gradtrack.nn.Linear(2, 1)
    del lin.weight
    lin.weight = gradtrack.tensor([[2.0, 3.0]])
    lin.bias = None
    assert lin(gradtrack.tensor([[1.0, 1.0]])).item() == 5.0
    assert [n for n, _ in lin.named_parameters()] == []


def test_tensor_written_into_parameters_dict_is_what_forward_uses():
    # torch's stateless reparametrization writes module._parameters[name] directly.
    lin = gradtrack.nn.Linear(2, 1)
    lin._parameters["weight"] = gradtrack.tensor([[1.0, -1.0]])
    lin._parameters["bias"] = gradtrack.tensor([0.5])
    assert lin(gradtrack.tensor([[3.0, 1.0]])).item() == 2.5


def test_subclass_property_is_what_forward_uses():
    # a parametrization installs a property on a subclass in place of the parameter
    class Doubled(gradtrack.nn.Linear):
        @property
        def weight(self):
            return self.raw * 2

    lin = Doubled(2, 1)
    raw = lin._parameters.pop("weight")
    lin.raw = raw
    lin.bias = None
    x = gradtrack.tensor([[1.0, 2.0]])
    assert lin(x).item() == pytest.approx((x @ (raw * 2).t()).item())


@pytest.mark.parametrize("name", ["RNN", "LSTM", "GRU"])
def test_recurrent_layers_read_their_weights_as_attributes(name):
    gradtrack.manual_seed(0)
    glayer = getattr(gradtrack.nn, name)(3, 4)
    tlayer = getattr(torch.nn, name)(3, 4)
    _same_weights(glayer, tlayer)
    x = np.random.default_rng(1).standard_normal((5, 1, 3)).astype(np.float32)
    outs = []
    for lib, layer in ((gradtrack, glayer), (torch, tlayer)):
        replaced = layer.weight_hh_l0.detach() * 0.5
        del layer.weight_hh_l0
        layer.weight_hh_l0 = replaced
        outs.append(_np(layer(lib.from_numpy(x.copy()))[0]))
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-5, atol=1e-6)
    before = _np(getattr(gradtrack.nn, name)(3, 4)(gradtrack.from_numpy(x.copy()))[0])
    assert not np.allclose(before, outs[0])


def test_cell_and_loss_read_attributes():
    cell = gradtrack.nn.RNNCell(2, 2, bias=False)
    del cell.weight_ih
    cell.weight_ih = gradtrack.eye(2)
    del cell.weight_hh
    cell.weight_hh = gradtrack.zeros(2, 2)
    out = cell(gradtrack.tensor([[0.5, -0.5]]))
    np.testing.assert_allclose(_np(out), np.tanh([[0.5, -0.5]]), rtol=1e-6)
    loss = gradtrack.nn.CrossEntropyLoss()
    del loss.weight
    loss.weight = gradtrack.tensor([0.0, 1.0])
    logits = gradtrack.tensor([[0.0, 0.0], [0.0, 0.0]])
    # class 0 has weight 0: the mean is over the weighted class-1 sample only
    assert loss(logits, gradtrack.tensor([0, 1])).item() == pytest.approx(np.log(2))
