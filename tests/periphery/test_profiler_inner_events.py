"""The events a profile records inside an op and inside a backward node, against torch
2.13's: ``aten::linear`` holds ``aten::t`` and ``aten::addmm``, ``AddmmBackward0`` holds
the ``aten::t``/``aten::mm`` its formula runs, the engine's event holds the ``aten::sum``
that fits a bias gradient. torch's own implementation steps that gradtrack does not take
(``aten::resolve_conj``, the ``aten::transpose`` inside ``aten::t``...) are the table
below, which the profiler's docs list. NOTE [Inner profiler events]."""

import pytest

import gradtrack
import gradtrack.nn.functional
import gradtrack.profiler

torch = pytest.importorskip("torch")

# torch's steps inside an event that gradtrack does not take as separate ops: the event
# (by name) and the names of the children torch shows there and gradtrack has not.
TORCH_ONLY_STEPS = {
    "aten::t": {"aten::transpose"},
    "aten::transpose": {"aten::as_strided"},
    "aten::expand": {"aten::as_strided"},
    "aten::addmm": {"aten::expand", "aten::copy_", "aten::resolve_conj"},
    "aten::mm": {"aten::resolve_conj"},
    "aten::bmm": {"aten::resolve_conj"},
    "aten::relu": {"aten::clamp_min"},
    "aten::log_softmax": {"aten::to"},
    "aten::sum": {"aten::fill_"},
    "aten::nll_loss_backward": {"aten::zero_"},
    "aten::ones_like": {"aten::empty_like", "aten::fill_"},
    "aten::empty_like": {"aten::empty_strided"},
    "torch::autograd::AccumulateGrad": {"aten::detach"},
    "aten::detach": {"detach"},
}


def _tree(events, drop):
    """Each top-level event as (name, shapes, children), children the same way."""
    def node(e):
        kept = [c for c in e.cpu_children if c.name not in drop.get(e.name, ())]
        name = e.name.replace("torch::autograd::", "gradtrack::autograd::")
        return name, e.input_shapes, [node(c) for c in kept]
    return [node(e) for e in events if e.cpu_parent is None]


def _profile(lib, program, **kwargs):
    lib.manual_seed(0)
    state = program(lib, None)
    with lib.profiler.profile(**kwargs) as prof:
        program(lib, state)
    return prof


def _mlp_step(lib, state):
    if state is None:
        return (lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.ReLU(), lib.nn.Linear(4, 2)),
                lib.randn(5, 3), lib.tensor([0, 1, 0, 1, 1]))
    net, x, y = state
    lib.nn.functional.cross_entropy(net(x), y).backward()
    return None


def test_mlp_step_inner_events_as_torch():
    drop = {k.replace("torch::", "gradtrack::"): v for k, v in TORCH_ONLY_STEPS.items()}
    drop.update(TORCH_ONLY_STEPS)
    mine = _tree(_profile(gradtrack, _mlp_step, record_shapes=True).events(), drop)
    theirs = _tree(_profile(torch, _mlp_step, record_shapes=True).events(), TORCH_ONLY_STEPS)
    # backward()'s seed gradient is made in C++ here, not by a timed aten::ones_like;
    # the rest, names, shapes, nesting and order, is torch's
    assert [e[0] for e in theirs].count("aten::ones_like") == 1
    assert mine == [e for e in theirs if e[0] != "aten::ones_like"]
    linear = mine[0]
    assert [c[0] for c in linear[2]] == ["aten::t", "aten::addmm"]
    backward = [e for e in mine if e[0] == "autograd::engine::evaluate_function: AddmmBackward0"]
    assert [c[0] for c in backward[0][2]] == ["AddmmBackward0", "aten::sum", "aten::view"]
    assert [c[0] for c in backward[0][2][0][2]] == ["aten::t", "aten::mm", "aten::t", "aten::mm",
                                                   "aten::t"]


def test_mlp_step_key_averages_count_as_torch():
    def counts(lib):
        prof = _profile(lib, _mlp_step)
        return {e.key.replace("torch::", "gradtrack::"): e.count for e in prof.key_averages()}
    mine, theirs = counts(gradtrack), counts(torch)
    torch_only = set().union(*TORCH_ONLY_STEPS.values(), {"aten::ones_like"}) - set(mine)
    assert {k: v for k, v in theirs.items() if k not in torch_only} == mine
    assert mine["aten::t"] == theirs["aten::t"] == 9
    assert mine["aten::mm"] == theirs["aten::mm"] == 3


def _shapes_program(lib, state):
    if state is None:
        return lib.randn(2, 3, 4), lib.randn(5, 4), lib.randn(5)
    x, w, b = state
    lib.nn.functional.linear(x, w, b)
    x.transpose(0, 1).reshape(6, 4)
    lib.nn.functional.softmax(x, dim=-1)
    return None


def test_three_dim_linear_reshape_and_softmax_inner_events_as_torch():
    drop = dict(TORCH_ONLY_STEPS, **{"aten::clone": {"aten::empty_like", "aten::copy_"}})
    mine = _tree(_profile(gradtrack, _shapes_program, record_shapes=True).events(), drop)
    theirs = _tree(_profile(torch, _shapes_program, record_shapes=True).events(), drop)
    assert mine == theirs
    assert [c[0] for c in mine[0][2]] == ["aten::view", "aten::t", "aten::addmm", "aten::view"]


def test_inner_events_cost_nothing_after_the_profile():
    x, w = gradtrack.ones(2, 3), gradtrack.ones(4, 3)
    with gradtrack.profiler.profile() as prof:
        gradtrack.nn.functional.linear(x, w)
    assert [e.name for e in prof.events()] == ["aten::linear", "aten::t", "aten::matmul",
                                              "aten::mm"]
    # nothing is recorded once it closed
    gradtrack.nn.functional.linear(x, w)
    with gradtrack.profiler.profile() as prof:
        pass
    assert list(prof.events()) == []


def _gpt_step(lib, state):
    nn, F = lib.nn, lib.nn.functional
    if state is None:
        d, vocab, n = 8, 11, 4
        model = nn.ModuleDict({"wte": nn.Embedding(vocab, d), "ln1": nn.LayerNorm(d),
                               "qkv": nn.Linear(d, 3 * d), "proj": nn.Linear(d, d),
                               "ln2": nn.LayerNorm(d), "fc": nn.Linear(d, 4 * d),
                               "out": nn.Linear(4 * d, d), "lnf": nn.LayerNorm(d),
                               "head": nn.Linear(d, vocab, bias=False)})
        mask = lib.tril(lib.ones(n, n)).view(1, 1, n, n)
        return model, mask, lib.randint(0, vocab, (2, n)), lib.randint(0, vocab, (2, n))
    m, mask, idx, tgt = state
    x = m["wte"](idx)
    b, t, c = x.shape
    q, k, v = m["qkv"](m["ln1"](x)).split(c, dim=2)
    q, k, v = (z.view(b, t, 2, c // 2).transpose(1, 2) for z in (q, k, v))
    att = (q @ k.transpose(-2, -1)) * 0.5
    att = F.softmax(att.masked_fill(mask == 0, float("-inf")), dim=-1)
    x = x + m["proj"]((att @ v).transpose(1, 2).contiguous().view(b, t, c))
    x = x + m["out"](F.gelu(m["fc"](m["ln2"](x))))
    logits = m["head"](m["lnf"](x))
    F.cross_entropy(logits.view(-1, logits.size(-1)), tgt.view(-1)).backward()
    return None


def test_gpt_step_counts_as_torch():
    """A GPT block's step: the matrix products, their transposes, the softmax, layer norm
    and loss steps counted as torch's. Not compared: the views, reshapes, clones and
    expands that torch's embedding, layer norm, masked_fill and contiguous take inside
    (gradtrack's kernels take none), and the aten::transpose inside each aten::t."""
    def counts(lib):
        return {e.key: e.count for e in _profile(lib, _gpt_step).key_averages()}
    mine, theirs = counts(gradtrack), counts(torch)
    same = ["aten::linear", "aten::t", "aten::addmm", "aten::mm", "aten::bmm", "aten::matmul",
            "aten::softmax", "aten::_softmax", "aten::layer_norm", "aten::native_layer_norm",
            "aten::_unsafe_view", "aten::sum", "aten::cross_entropy_loss", "aten::log_softmax",
            "aten::_log_softmax", "aten::nll_loss", "aten::nll_loss_forward",
            "aten::nll_loss_backward", "aten::_softmax_backward_data",
            "aten::_log_softmax_backward_data"]
    assert {k: mine.get(k) for k in same} == {k: theirs.get(k) for k in same}
    assert mine["aten::mm"] > 0 and mine["aten::bmm"] > 0
    assert theirs["aten::transpose"] == mine["aten::transpose"] + theirs["aten::t"]
