"""``differentiable=True`` against torch 2.13's single-tensor path: a parameter that is
not a leaf is updated by recorded ops (NOTE [Recorded optimizer steps]), so the updated
parameter's grad_fn, the state tensors' nodes and versions, the graph behind them and the
meta-gradient through several steps are torch's; where torch's own in-place writes break
that backward (amsgrad, centered RMSprop, Adamax and Rprop after a step or two), the error
is torch's too."""

import pytest

import gradtrack

from helpers import same

CONFIGS = {
    "Adam": ("Adam", dict(lr=0.1)),
    "Adam_weight_decay": ("Adam", dict(lr=0.1, weight_decay=0.1)),
    "Adam_maximize": ("Adam", dict(lr=0.1, maximize=True)),
    "Adam_decoupled": ("Adam", dict(lr=0.1, weight_decay=0.1, decoupled_weight_decay=True)),
    "Adam_amsgrad": ("Adam", dict(lr=0.1, amsgrad=True)),
    "AdamW": ("AdamW", dict(lr=0.1)),
    "AdamW_amsgrad": ("AdamW", dict(lr=0.1, amsgrad=True)),
    "Adagrad": ("Adagrad", dict(lr=0.1)),
    "Adagrad_decay": ("Adagrad", dict(lr=0.1, weight_decay=0.1, lr_decay=0.01)),
    "Adagrad_maximize": ("Adagrad", dict(lr=0.1, maximize=True)),
    "RMSprop": ("RMSprop", dict(lr=0.01)),
    "RMSprop_momentum": ("RMSprop", dict(lr=0.01, momentum=0.9)),
    "RMSprop_centered": ("RMSprop", dict(lr=0.01, centered=True, momentum=0.9,
                                         weight_decay=0.1)),
    "NAdam": ("NAdam", dict(lr=0.1)),
    "NAdam_weight_decay": ("NAdam", dict(lr=0.1, weight_decay=0.1)),
    "NAdam_decoupled": ("NAdam", dict(lr=0.1, weight_decay=0.1, decoupled_weight_decay=True)),
    "NAdam_maximize": ("NAdam", dict(lr=0.1, maximize=True, momentum_decay=0.01)),
    "RAdam": ("RAdam", dict(lr=0.1)),
    "RAdam_weight_decay": ("RAdam", dict(lr=0.1, weight_decay=0.1, maximize=True)),
    "RAdam_decoupled": ("RAdam", dict(lr=0.1, weight_decay=0.1, decoupled_weight_decay=True)),
    "RAdam_rectified": ("RAdam", dict(lr=0.1, betas=(0.9, 0.9))),
    "Adamax": ("Adamax", dict(lr=0.1)),
    "Adamax_weight_decay": ("Adamax", dict(lr=0.1, weight_decay=0.1, maximize=True)),
    "Rprop": ("Rprop", dict(lr=0.1)),
    "Rprop_maximize": ("Rprop", dict(lr=0.1, maximize=True)),
    "Rprop_etas": ("Rprop", dict(lr=0.1, etas=(0.3, 1.5), step_sizes=(0.05, 0.2))),
}
# torch's own in-place writes break the backward through more than one step of these
ONE_STEP_META = ("amsgrad", "centered", "Adamax", "Rprop")


def _names(t, limit=40):
    """The node names behind ``t``, breadth first (AccumulateGrad without its namespace)."""
    seen, out, queue = set(), [], [t.grad_fn]
    while queue and len(out) < limit:
        node = queue.pop(0)
        if node is None or node in seen:
            continue
        seen.add(node)
        out.append(node.name().split("::")[-1])
        queue.extend(f for f, _ in node.next_functions)
    return out


def _run(lib, name, steps):
    cls, kwargs = CONFIGS[name]
    lib.manual_seed(0)
    w0 = lib.randn(3, requires_grad=True)
    x, y = lib.randn(8, 3), lib.randn(8)
    p = w0.clone()
    opt = getattr(lib.optim, cls)([p], differentiable=True, **kwargs)
    names = []
    for _ in range(steps):
        g, = lib.autograd.grad(((x @ p - y) ** 2).mean(), p, create_graph=True)
        p.grad = g
        opt.step()
        names.append(p.grad_fn.name())
    state = {k: (None if v.grad_fn is None else v.grad_fn.name().split("::")[-1], v._version,
                 v.requires_grad) for k, v in opt.state[p].items()}
    graph = _names(p)
    meta, = lib.autograd.grad(((x @ p - y) ** 2).mean(), w0)
    return names, state, graph, p._version, meta


@pytest.mark.parametrize("steps", [1, 3])
@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_differentiable_step_records_torch_s_graph(name, steps):
    # (the meta-gradient's values are compared with a tolerance below)
    same(lambda lib: _run(lib, name, steps)[:-1])


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_meta_gradient_values_match_torch(torch, name):
    import numpy as np
    steps = 1 if any(key in name for key in ONE_STEP_META) else 3
    ours = _run(gradtrack, name, steps)[-1].numpy()
    theirs = _run(torch, name, steps)[-1].numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)


def test_adam_meta_gradient_is_torch_s():
    # the values torch 2.13 prints for one Adam step (lr=0.1) of this problem
    names, _, _, version, meta = _run(gradtrack, "Adam", 1)
    assert names == ["AddcdivBackward0"] and version == 1
    assert meta.tolist() == pytest.approx([4.097784042358398, -2.880779981613159,
                                           -3.061640501022339], rel=1e-5)


def test_radam_rectified_step_records_torch_s_graph(torch):
    # beta2=0.9 switches the rectified update on at the sixth step
    import numpy as np
    same(lambda lib: _run(lib, "RAdam_rectified", 7)[:-1])
    ours, theirs = _run(gradtrack, "RAdam_rectified", 7), _run(torch, "RAdam_rectified", 7)
    np.testing.assert_allclose(ours[-1].numpy(), theirs[-1].numpy(), rtol=1e-5, atol=1e-6)
    assert "ReciprocalBackward0" in ours[2]


OPTIMIZERS = ["Adam", "AdamW", "Adagrad", "RMSprop", "NAdam", "RAdam", "Adamax", "Rprop"]


@pytest.mark.parametrize("cls", OPTIMIZERS)
def test_differentiable_step_of_a_detached_parameter_matches_the_fused_one(cls):
    # no graph to record: the fused update runs, with the same numbers
    def run(differentiable):
        p = gradtrack.tensor([1.0, -2.0, 0.5])
        opt = getattr(gradtrack.optim, cls)([p], lr=0.1, differentiable=differentiable)
        for _ in range(2):
            p.grad = gradtrack.tensor([0.3, -0.1, 0.2])
            opt.step()
        return p.tolist(), p._version, p.grad_fn
    assert run(True) == run(False)


@pytest.mark.parametrize("cls", OPTIMIZERS)
def test_differentiable_step_on_a_leaf_still_raises_like_torch(cls):
    def scenario(lib):
        w = lib.nn.Parameter(lib.ones(2))
        w.grad = lib.ones(2)
        getattr(lib.optim, cls)([w], differentiable=True).step()
    same(scenario)
