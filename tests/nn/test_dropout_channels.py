"""Channel-wise and alpha dropout in training: seeded masks, values, gradients, node names
and messages equal torch's."""

import warnings

import numpy as np
import pytest

import gradtrack

torch = pytest.importorskip("torch")

CASES = [
    ("dropout1d", (2, 3, 4), {}),
    ("dropout1d", (3, 4), {}),
    ("dropout2d", (2, 3, 4, 4), {}),
    ("dropout3d", (2, 3, 2, 2, 2), {}),
    ("dropout3d", (3, 2, 2, 2), {}),
    ("alpha_dropout", (3, 5), {"training": True}),
    ("feature_alpha_dropout", (2, 3, 4), {"training": True}),
]


@pytest.mark.parametrize("name,shape,kw", CASES, ids=[f"{c[0]}-{len(c[1])}d" for c in CASES])
@pytest.mark.parametrize("p", [0.3, 0.5])
def test_seeded_training_dropout_matches_torch(name, shape, kw, p):
    x = np.random.default_rng(0).standard_normal(shape)
    up = np.random.default_rng(1).standard_normal(shape)
    results = []
    for lib in (gradtrack, torch):
        lib.manual_seed(3)
        t = lib.tensor(x, requires_grad=True)
        out = getattr(lib.nn.functional, name)(t, p, **kw)
        (grad,) = lib.autograd.grad(out, t, lib.tensor(up))
        results.append((out.detach().numpy(), grad.numpy(), type(out.grad_fn).__name__,
                        out._version))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-12, atol=0)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-12, atol=0)
    assert results[0][2:] == results[1][2:]


@pytest.mark.parametrize("name", ["Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout",
                                  "FeatureAlphaDropout"])
def test_modules_in_training_match_torch_and_are_identity_in_eval(name):
    shape = (2, 3, 4) if name in ("Dropout1d", "AlphaDropout", "FeatureAlphaDropout") else \
        (2, 3, 2, 2) if name == "Dropout2d" else (2, 3, 2, 2, 2)
    x = np.random.default_rng(2).standard_normal(shape).astype(np.float32)
    outs = []
    for lib in (gradtrack, torch):
        lib.manual_seed(5)
        module = getattr(lib.nn, name)(0.4)
        outs.append(module(lib.tensor(x)).numpy())
        assert repr(module) == f"{name}(p=0.4, inplace=False)"
        gx = lib.tensor(x)
        assert module.eval()(gx) is gx
    np.testing.assert_array_equal(outs[0], outs[1])


def test_inplace_feature_dropout_writes_the_input_like_torch():
    x = np.random.default_rng(4).standard_normal((2, 3, 5))
    got = []
    for lib in (gradtrack, torch):
        lib.manual_seed(1)
        t = lib.tensor(x)
        out = lib.nn.functional.dropout1d(t, 0.5, inplace=True)
        got.append((out.numpy().copy(), t.numpy().copy(), t._version))
    for a, b in zip(got[0], got[1]):
        np.testing.assert_array_equal(a, b)


def _outcome(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - the exception is what is compared
            return type(e).__name__, str(e), []
    return None, None, [str(w.message) for w in caught]


@pytest.mark.parametrize("call", [
    lambda F, t: F.dropout1d(t((2, 3, 4, 5))),
    lambda F, t: F.dropout1d(t((3, 4)), 1.5),
    lambda F, t: F.dropout2d(t((3, 4))),
    lambda F, t: F.dropout2d(t((2, 3, 4))),
    lambda F, t: F.dropout3d(t((2, 3, 4))),
    lambda F, t: F.alpha_dropout(t((2, 3)), -0.1),
    lambda F, t: F.feature_alpha_dropout(t((2, 3)), 2.0),
], ids=["1d-4d", "1d-p", "2d-2d", "2d-3d", "3d-3d", "alpha-p", "feature-alpha-p"])
def test_messages_and_warnings_match_torch(call):
    def on(lib):
        return _outcome(lambda: call(lib.nn.functional, lambda s: lib.ones(s)))
    assert on(gradtrack) == on(torch)


def test_module_refuses_bad_p_like_torch():
    for lib in (gradtrack, torch):
        with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, "
                                             "but got -1"):
            lib.nn.Dropout2d(-1)
