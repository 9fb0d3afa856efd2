"""The shrinks, gates, norms, shuffles, distances and margin losses against torch: bad
input gets torch's exception and words, modules print and initialise as torch's (seeded
parameters equal), and the functional options the module rows do not reach."""

import warnings

import numpy as np
import pytest

import gradtrack

torch = pytest.importorskip("torch")


def _outcome(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - the exception is what is compared
            return type(e).__name__, str(e).replace("torch.Size", "Size").replace(
                "gradtrack.Size", "Size"), []
    return None, None, [str(w.message) for w in caught]


def _long(lib, values):
    return lib.tensor(values, dtype=lib.int64)


BAD = {
    "glu odd": lambda F, lib: F.glu(lib.ones(3, 3)),
    "glu 0d": lambda F, lib: F.glu(lib.tensor(1.0)),
    "glu dim": lambda F, lib: F.glu(lib.ones(3, 4), 5),
    "softshrink negative": lambda F, lib: F.softshrink(lib.ones(3), -1.0),
    "prelu channels": lambda F, lib: F.prelu(lib.ones(3, 4), lib.ones(3)),
    "prelu 2d weight": lambda F, lib: F.prelu(lib.ones(3, 4), lib.ones(2, 2)),
    "softmax2d": lambda F, lib: lib.nn.Softmax2d()(lib.ones(3, 4)),
    "pixel_shuffle channels": lambda F, lib: F.pixel_shuffle(lib.ones(1, 3, 2, 2), 2),
    "pixel_shuffle rank": lambda F, lib: F.pixel_shuffle(lib.ones(3, 4), 2),
    "pixel_shuffle factor": lambda F, lib: F.pixel_shuffle(lib.ones(1, 4, 2, 2), 0),
    "pixel_unshuffle height": lambda F, lib: F.pixel_unshuffle(lib.ones(1, 3, 3, 2), 2),
    "pixel_unshuffle width": lambda F, lib: F.pixel_unshuffle(lib.ones(1, 3, 2, 3), 2),
    "channel_shuffle groups": lambda F, lib: F.channel_shuffle(lib.ones(2, 4, 3), 3),
    "channel_shuffle zero": lambda F, lib: F.channel_shuffle(lib.ones(2, 4, 3), 0),
    "channel_shuffle rank": lambda F, lib: F.channel_shuffle(lib.ones(4), 2),
    "instance_norm spatial": lambda F, lib: F.instance_norm(lib.ones(2, 3, 1)),
    "InstanceNorm1d rank": lambda F, lib: lib.nn.InstanceNorm1d(3)(lib.ones(2, 3, 4, 5)),
    "InstanceNorm2d rank": lambda F, lib: lib.nn.InstanceNorm2d(3)(lib.ones(3, 4)),
    "InstanceNorm affine features": lambda F, lib: lib.nn.InstanceNorm1d(5, affine=True)(
        lib.ones(2, 3, 4)),
    "InstanceNorm features warning": lambda F, lib: lib.nn.InstanceNorm1d(5)(
        lib.rand(2, 3, 4)),
    "rms_norm shape": lambda F, lib: F.rms_norm(lib.ones(3, 4), (5,)),
    "rms_norm weight": lambda F, lib: F.rms_norm(lib.ones(3, 4), (4,), lib.ones(5)),
    "local_response_norm rank": lambda F, lib: F.local_response_norm(lib.ones(3, 4), 2),
    "local_response_norm size": lambda F, lib: F.local_response_norm(lib.ones(2, 4, 3, 3), 0),
    "bilinear input2": lambda F, lib: F.bilinear(lib.ones(3, 4), lib.ones(3, 5),
                                                 lib.ones(2, 4, 4)),
    "bilinear batch": lambda F, lib: F.bilinear(lib.ones(3, 4), lib.ones(2, 4),
                                                lib.ones(2, 4, 4)),
    "bilinear bias": lambda F, lib: F.bilinear(lib.ones(3, 4), lib.ones(3, 4),
                                               lib.ones(2, 4, 4), lib.ones(3)),
    "bilinear weight rank": lambda F, lib: F.bilinear(lib.ones(3, 4), lib.ones(3, 4),
                                                      lib.ones(4, 4)),
    "cosine_embedding target": lambda F, lib: F.cosine_embedding_loss(
        lib.ones(3, 4), lib.ones(3, 4), lib.ones(3, 1)),
    "cosine_embedding inputs": lambda F, lib: F.cosine_embedding_loss(
        lib.ones(3), lib.ones(3), lib.ones(3)),
    "margin_ranking dims": lambda F, lib: F.margin_ranking_loss(
        lib.ones(3, 4), lib.ones(3, 4), lib.ones(3)),
    "poisson reduction": lambda F, lib: F.poisson_nll_loss(lib.ones(2), lib.ones(2),
                                                           reduction="bad"),
    "gaussian var size": lambda F, lib: F.gaussian_nll_loss(lib.ones(3, 4), lib.ones(3, 4),
                                                            lib.ones(3, 5)),
    "gaussian var negative": lambda F, lib: F.gaussian_nll_loss(lib.ones(3, 4),
                                                                lib.ones(3, 4),
                                                                -lib.ones(3, 4)),
    "multi_margin p": lambda F, lib: F.multi_margin_loss(lib.ones(3, 4),
                                                         _long(lib, [0, 1, 2]), p=3),
    "multi_margin target size": lambda F, lib: F.multi_margin_loss(lib.ones(3, 4),
                                                                   _long(lib, [0, 1])),
    "multi_margin target range": lambda F, lib: F.multi_margin_loss(lib.ones(3, 4),
                                                                    _long(lib, [0, 1, 7])),
    "multi_margin weight": lambda F, lib: F.multi_margin_loss(
        lib.ones(3, 4), _long(lib, [0, 1, 2]), weight=lib.ones(3)),
    "multilabel_margin target size": lambda F, lib: F.multilabel_margin_loss(
        lib.ones(3, 4), _long(lib, [[0, 1, 2]] * 3)),
    "multilabel_margin target range": lambda F, lib: F.multilabel_margin_loss(
        lib.ones(3, 4), _long(lib, [[9, 1, 2, 3]] * 3)),
    "multilabel_soft_margin reduction": lambda F, lib: F.multilabel_soft_margin_loss(
        lib.ones(3, 4), lib.ones(3, 4), reduction="bad"),
    "triplet dims": lambda F, lib: F.triplet_margin_loss(lib.ones(3, 4), lib.ones(3, 4),
                                                         lib.ones(4)),
    "triplet distance margin": lambda F, lib: F.triplet_margin_with_distance_loss(
        lib.ones(3, 4), lib.ones(3, 4), lib.ones(3, 4), margin=0),
    "TripletMarginLoss margin": lambda F, lib: lib.nn.TripletMarginLoss(margin=0),
    "MultiMarginLoss weight": lambda F, lib: lib.nn.MultiMarginLoss(weight=lib.ones(2, 2)),
    "pdist rank": lambda F, lib: F.pdist(lib.ones(3)),
    "pdist p": lambda F, lib: F.pdist(lib.ones(3, 2), -1),
    "hinge reduction": lambda F, lib: F.hinge_embedding_loss(lib.ones(2), lib.ones(2),
                                                             reduction="bad"),
    "normalize dim": lambda F, lib: F.normalize(lib.ones(3, 4), dim=3),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_gets_torchs_exception_and_words(case):
    def on(lib):
        return _outcome(lambda: BAD[case](lib.nn.functional, lib))
    assert on(gradtrack) == on(torch)


def _modules(nn):
    return [nn.PReLU(3, 0.1), nn.GLU(), nn.Softsign(), nn.Hardshrink(), nn.Softshrink(0.3),
            nn.Tanhshrink(), nn.Threshold(0.1, 20), nn.Threshold(0.1, 20, True),
            nn.Softmax2d(), nn.PixelShuffle(2), nn.PixelUnshuffle(3), nn.ChannelShuffle(2),
            nn.InstanceNorm1d(3), nn.InstanceNorm2d(3, affine=True, track_running_stats=True),
            nn.InstanceNorm3d(4, bias=False, affine=True), nn.RMSNorm(4),
            nn.RMSNorm((2, 3), eps=1e-3, elementwise_affine=False), nn.LocalResponseNorm(2),
            nn.Bilinear(2, 3, 4), nn.Bilinear(2, 3, 4, bias=False), nn.PairwiseDistance(),
            nn.CosineSimilarity(), nn.CosineEmbeddingLoss(), nn.MarginRankingLoss(),
            nn.HingeEmbeddingLoss(), nn.PoissonNLLLoss(), nn.GaussianNLLLoss(),
            nn.MultiMarginLoss(), nn.SoftMarginLoss(), nn.MultiLabelSoftMarginLoss(),
            nn.TripletMarginLoss(), nn.TripletMarginWithDistanceLoss(),
            nn.MultiLabelMarginLoss(), nn.Dropout1d(), nn.AlphaDropout(0.2),
            nn.FeatureAlphaDropout()]


def test_reprs_state_dicts_and_seeded_parameters_match_torch():
    gradtrack.manual_seed(11)
    torch.manual_seed(11)
    mine, theirs = _modules(gradtrack.nn), _modules(torch.nn)
    for g, t in zip(mine, theirs):
        assert repr(g) == repr(t)
        g_state, t_state = g.state_dict(), t.state_dict()
        assert list(g_state) == list(t_state), repr(t)
        for key in t_state:
            np.testing.assert_array_equal(g_state[key].numpy(), t_state[key].numpy(),
                                          err_msg=f"{t!r}: {key}")
        for (name, gp), (_, tp) in zip(g.named_parameters(), t.named_parameters()):
            assert gp._version == tp._version, (repr(t), name)


@pytest.mark.parametrize("ishape,wshape", [((3, 4), (1,)), ((3, 4), (4,)), ((5,), (1,)),
                                           ((), (1,)), ((), ()), ((5,), ()),
                                           ((2, 4, 3), (4,)), ((2, 4, 3), ())])
def test_prelu_shapes_nodes_and_gradients(ishape, wshape):
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal(ishape), rng.uniform(0.1, 0.5, wshape)
    up = rng.standard_normal(ishape)
    got = []
    for lib in (gradtrack, torch):
        tx, tw = lib.tensor(x, requires_grad=True), lib.tensor(w, requires_grad=True)
        out = lib.nn.functional.prelu(tx, tw)
        grads = lib.autograd.grad(out, (tx, tw), lib.tensor(up))
        names = [type(out.grad_fn).__name__] + [
            type(f).__name__ for f, _ in out.grad_fn.next_functions]
        got.append((out.detach().numpy(), [g.numpy() for g in grads], names))
    np.testing.assert_allclose(got[0][0], got[1][0], rtol=1e-12)
    for a, b in zip(got[0][1], got[1][1]):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15)
    assert got[0][2] == got[1][2]


def test_instance_norm_running_stats_follow_torch():
    x = np.random.default_rng(3).standard_normal((2, 3, 5))
    results = []
    for lib in (gradtrack, torch):
        m = lib.nn.InstanceNorm1d(3, track_running_stats=True, momentum=0.3).double()
        m(lib.tensor(x))
        m(lib.tensor(x * 2 + 1))
        out = m.eval()(lib.tensor(x))
        results.append((out.numpy(), m.running_mean.numpy(), m.running_var.numpy(),
                         int(m.num_batches_tracked)))
    for a, b in zip(results[0][:3], results[1][:3]):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
    assert results[0][3] == results[1][3]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rms_norm_default_eps_and_weight_chain(dtype):
    x = np.random.default_rng(5).standard_normal((3, 4)) * 1e-4
    outs = []
    for lib in (gradtrack, torch):
        t = lib.tensor(x, dtype=getattr(lib, dtype), requires_grad=True)
        w = lib.tensor([1.0, 2.0, 3.0, 4.0], dtype=getattr(lib, dtype), requires_grad=True)
        out = lib.nn.functional.rms_norm(t, [4], w)
        node, chain = out.grad_fn, []
        while node is not None and node.next_functions:
            chain.append(type(node).__name__)
            node = node.next_functions[0][0]
        outs.append((out.detach().numpy(), chain))
    np.testing.assert_allclose(outs[0][0], outs[1][0], rtol=1e-6)
    assert outs[0][1] == outs[1][1]


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("name", ["cosine_embedding_loss", "margin_ranking_loss",
                                  "hinge_embedding_loss", "soft_margin_loss",
                                  "multilabel_soft_margin_loss", "multi_margin_loss",
                                  "multilabel_margin_loss", "triplet_margin_loss",
                                  "poisson_nll_loss", "gaussian_nll_loss"])
def test_loss_reductions_values_and_gradients_match_torch(name, reduction):
    rng = np.random.default_rng(9)
    a, b, c = (rng.standard_normal((3, 4)) for _ in range(3))
    sign = rng.choice([-1.0, 1.0], (3, 4))
    got = []
    for lib in (gradtrack, torch):
        F = lib.nn.functional
        x, y, z = (lib.tensor(v, requires_grad=True) for v in (a, b, c))
        args = {
            "cosine_embedding_loss": (x, y, lib.tensor(sign[:, 0])),
            "margin_ranking_loss": (x, y, lib.tensor(sign)),
            "hinge_embedding_loss": (x, lib.tensor(sign)),
            "soft_margin_loss": (x, lib.tensor(sign)),
            "multilabel_soft_margin_loss": (x, lib.tensor((sign + 1) / 2)),
            "multi_margin_loss": (x, _long(lib, [0, 3, 1])),
            "multilabel_margin_loss": (x, _long(lib, [[1, 2, -1, 0], [3, -1, 0, 0],
                                                      [0, 1, 2, 3]])),
            "triplet_margin_loss": (x, y, z),
            "poisson_nll_loss": (x, lib.tensor(np.abs(b) * 3)),
            "gaussian_nll_loss": (x, y, lib.tensor(np.abs(c) + 0.1)),
        }[name]
        out = getattr(F, name)(*args, reduction=reduction)
        wrt = [t for t in args if t.requires_grad]
        grads = lib.autograd.grad(out, wrt, lib.ones_like(out))
        got.append((out.detach().numpy(), [g.numpy() for g in grads],
                    type(out.grad_fn).__name__))
    np.testing.assert_allclose(got[0][0], got[1][0], rtol=1e-10, atol=1e-12)
    for g, t in zip(got[0][1], got[1][1]):
        np.testing.assert_allclose(g, t, rtol=1e-10, atol=1e-12)
    assert got[0][2] == got[1][2]


def test_normalize_out_and_pdist_norms_match_torch():
    x = np.random.default_rng(2).standard_normal((4, 3))
    for p in (1, 2, 3.5, float("inf")):
        mine = gradtrack.nn.functional.pdist(gradtrack.tensor(x), p)
        theirs = torch.nn.functional.pdist(torch.tensor(x), p)
        np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-12)
    out_g, out_t = gradtrack.empty(4, 3, dtype=gradtrack.float64), torch.empty(4, 3,
                                                                                dtype=torch.float64)
    gradtrack.nn.functional.normalize(gradtrack.tensor(x), out=out_g)
    torch.nn.functional.normalize(torch.tensor(x), out=out_t)
    np.testing.assert_allclose(out_g.numpy(), out_t.numpy(), rtol=1e-12)


SECOND_ORDER = {
    "multilabel_margin_loss": lambda F, lib, x: F.multilabel_margin_loss(
        x, _long(lib, [[3, 0, -1, 1]] * 3)),
    "multi_margin_loss": lambda F, lib, x: F.multi_margin_loss(x, _long(lib, [0, 1, 2])),
    "soft_margin_loss": lambda F, lib, x: F.soft_margin_loss(x, lib.ones(3, 4)),
    "pdist": lambda F, lib, x: F.pdist(x),
    "pixel_shuffle": lambda F, lib, x: F.pixel_shuffle(x.reshape(1, 4, 3, 1), 2),
    "glu": lambda F, lib, x: F.glu(x),
    "hardshrink": lambda F, lib, x: F.hardshrink(x),
}


@pytest.mark.parametrize("name", sorted(SECOND_ORDER))
def test_second_derivative_or_torchs_refusal(name):
    def run(lib):
        x = lib.tensor(np.random.default_rng(8).standard_normal((3, 4)), requires_grad=True)
        out = SECOND_ORDER[name](lib.nn.functional, lib, x)
        (g,) = lib.autograd.grad(out.sum(), x, create_graph=True)
        try:
            (gg,) = lib.autograd.grad((g * g).sum(), x)
        except (RuntimeError, NotImplementedError) as e:
            return type(e).__name__, str(e)
        return gg.numpy()
    mine, theirs = run(gradtrack), run(torch)
    if isinstance(theirs, tuple):
        assert mine == theirs
    else:
        np.testing.assert_allclose(mine, theirs, rtol=1e-10, atol=1e-12)
