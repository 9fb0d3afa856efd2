"""nn.utils.clip_grad_norm_ / clip_grad_value_ / parameters_to_vector /
vector_to_parameters against torch 2.13 (values, returned norms, messages, warnings)."""

import math
import warnings

import numpy as np
import pytest

import gradtrack


def _params(lib, arrays, grads):
    out = []
    for a, g in zip(arrays, grads):
        p = lib.nn.Parameter(lib.tensor(a))
        if g is not None:
            p.grad = lib.tensor(g)
        out.append(p)
    return out


def _arrays(seed=0, dtype=np.float32):
    rng = np.random.default_rng(seed)
    shapes = [(4, 3), (3,), (2, 2, 2)]
    return ([rng.standard_normal(s).astype(dtype) for s in shapes],
            [rng.standard_normal(s).astype(dtype) * 3 for s in shapes])


@pytest.mark.parametrize("norm_type", [2.0, 1, 3.5, 0.5, 0, math.inf, -math.inf, "inf"])
@pytest.mark.parametrize("max_norm", [0.5, 1e3])
def test_clip_grad_norm_equals_torch(torch, norm_type, max_norm):
    arrays, grads = _arrays()
    ours = _params(gradtrack, arrays, grads)
    theirs = _params(torch, arrays, grads)
    n1 = gradtrack.nn.utils.clip_grad_norm_(ours, max_norm, norm_type=norm_type)
    n2 = torch.nn.utils.clip_grad_norm_(theirs, max_norm, norm_type=norm_type)
    assert n1.shape == () and n1.dtype == gradtrack.float32 and not n1.requires_grad
    np.testing.assert_allclose(n1.item(), n2.item(), rtol=2e-6)
    for p, q in zip(ours, theirs):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=2e-6, atol=1e-7)


def test_clip_grad_norm_float64_single_tensor_and_missing_grads(torch):
    arrays, grads = _arrays(1, np.float64)
    grads[1] = None
    ours = _params(gradtrack, arrays, grads)
    theirs = _params(torch, arrays, grads)
    n1 = gradtrack.nn.utils.clip_grad_norm_(iter(ours), 1.0)
    n2 = torch.nn.utils.clip_grad_norm_(iter(theirs), 1.0)
    assert n1.dtype == gradtrack.float64
    np.testing.assert_allclose(n1.item(), n2.item(), rtol=1e-12)
    assert ours[1].grad is None
    for p, q in zip(ours[::2], theirs[::2]):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-12)
    single = _params(gradtrack, arrays[:1], grads[:1])[0]
    t_single = _params(torch, arrays[:1], grads[:1])[0]
    np.testing.assert_allclose(gradtrack.nn.utils.clip_grad_norm_(single, 0.1, foreach=True).item(),
                               torch.nn.utils.clip_grad_norm_(t_single, 0.1).item(), rtol=1e-12)
    np.testing.assert_allclose(single.grad.numpy(), t_single.grad.numpy(), rtol=1e-12)


def test_clip_grad_norm_mixed_dtypes_promote_like_torch(torch):
    a = [np.ones(3, np.float32), np.ones(2, np.float64)]
    g = [np.full(3, 2.0, np.float32), np.full(2, 3.0, np.float64)]
    n1 = gradtrack.nn.utils.clip_grad_norm_(_params(gradtrack, a, g), 1.0)
    n2 = torch.nn.utils.clip_grad_norm_(_params(torch, a, g), 1.0)
    assert str(n1.dtype).split(".")[-1] == str(n2.dtype).split(".")[-1] == "float64"
    np.testing.assert_allclose(n1.item(), n2.item(), rtol=1e-7)


def test_clip_grad_norm_no_grads_and_empty_generator(torch):
    for lib in (gradtrack, torch):
        p = lib.nn.Parameter(lib.ones(2))
        norm = lib.nn.utils.clip_grad_norm_([p], 1.0)
        assert norm.item() == 0.0 and norm.shape == ()
    caught = []
    for lib in (gradtrack, torch):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            lib.nn.utils.clip_grad_norm_((p for p in []), 1.0)
        caught.append([str(x.message) for x in w])
    assert caught[0] == caught[1] == [
        "`parameters` is an empty generator, no gradient clipping will occur."]


@pytest.mark.parametrize("norm_type", [2.0, math.inf, 1])
@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_error_if_nonfinite_message_equals_torch(torch, norm_type, bad):
    arrays, grads = _arrays()
    grads[0][1, 1] = bad
    messages = []
    for lib in (gradtrack, torch):
        params = _params(lib, arrays, grads)
        before = [p.grad.numpy().copy() for p in params]
        with pytest.raises(RuntimeError) as info:
            lib.nn.utils.clip_grad_norm_(params, 1.0, norm_type=norm_type,
                                         error_if_nonfinite=True)
        messages.append(str(info.value))
        for p, b in zip(params, before):  # nothing was scaled
            np.testing.assert_array_equal(p.grad.numpy(), b)
    assert messages[0] == messages[1]


def test_nonfinite_norm_without_error_scales_like_torch(torch):
    arrays, grads = _arrays()
    grads[0][0, 0] = float("inf")
    ours = _params(gradtrack, arrays, grads)
    theirs = _params(torch, arrays, grads)
    n1 = gradtrack.nn.utils.clip_grad_norm_(ours, 1.0)
    n2 = torch.nn.utils.clip_grad_norm_(theirs, 1.0)
    assert math.isinf(n1.item()) and math.isinf(n2.item())
    for p, q in zip(ours, theirs):
        np.testing.assert_array_equal(p.grad.numpy(), q.grad.numpy())


def test_clip_grad_norm_deprecated_alias_warns(torch):
    out = []
    for lib in (gradtrack, torch):
        p = _params(lib, [np.ones(2, np.float32)], [np.full(2, 4.0, np.float32)])
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            norm = lib.nn.utils.clip_grad_norm(p, 1.0)
        out.append((norm.item(), [(x.category, str(x.message)) for x in w]))
    assert out[0][1] == out[1][1]
    np.testing.assert_allclose(out[0][0], out[1][0], rtol=1e-7)


def test_clip_grad_norm_runs_without_recording_a_graph():
    w = gradtrack.ones(3, requires_grad=True)
    w.grad = gradtrack.full((3,), 5.0, requires_grad=True)
    norm = gradtrack.nn.utils.clip_grad_norm_([w], 1.0)
    assert norm.grad_fn is None and w.grad.grad_fn is None


@pytest.mark.parametrize("foreach", [None, False, True])
@pytest.mark.parametrize("clip", [0.5, 2, 10.0])
def test_clip_grad_value_equals_torch(torch, clip, foreach):
    # torch's foreach path (the default) clamps min then max: each grad's _version +2;
    # foreach=False clamps once: +1
    arrays, grads = _arrays(3)
    grads[1] = None
    ours = _params(gradtrack, arrays, grads)
    theirs = _params(torch, arrays, grads)
    versions = [p.grad._version for p in ours if p.grad is not None]
    assert gradtrack.nn.utils.clip_grad_value_(ours, clip, foreach=foreach) is None
    torch.nn.utils.clip_grad_value_(theirs, clip, foreach=foreach)
    for p, q in zip(ours, theirs):
        if q.grad is None:
            assert p.grad is None
        else:
            np.testing.assert_array_equal(p.grad.numpy(), q.grad.numpy())
    bump = 1 if foreach is False else 2
    assert [p.grad._version for p in ours if p.grad is not None] == \
        [v + bump for v in versions] == [q.grad._version for q in theirs if q.grad is not None]


def test_clip_grad_value_single_tensor_version_matches_torch(torch):
    seen = []
    for lib in (gradtrack, torch):
        p = lib.nn.Parameter(lib.ones(3))
        p.grad = lib.tensor([-1.0, 0.005, 2.0])
        lib.nn.utils.clip_grad_value_(p, 0.01)
        seen.append((p.grad._version, p.grad.tolist()))
    assert seen[0] == seen[1] and seen[0][0] == 2


def test_parameters_to_vector_and_back_equal_torch(torch):
    arrays, _ = _arrays(4)
    ours = _params(gradtrack, arrays, [None] * 3)
    theirs = _params(torch, arrays, [None] * 3)
    v1 = gradtrack.nn.utils.parameters_to_vector(ours)
    v2 = torch.nn.utils.parameters_to_vector(theirs)
    np.testing.assert_array_equal(v1.detach().numpy(), v2.detach().numpy())
    assert v1.requires_grad and v1.grad_fn is not None
    new = np.arange(v2.numel() + 3, dtype=np.float32)
    gradtrack.nn.utils.vector_to_parameters(gradtrack.tensor(new), ours)
    torch.nn.utils.vector_to_parameters(torch.tensor(new), theirs)
    for p, q in zip(ours, theirs):
        assert isinstance(p, gradtrack.nn.Parameter) and p.requires_grad
        np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())


def test_vector_to_parameters_errors_equal_torch(torch):
    results = []
    for lib in (gradtrack, torch):
        p = lib.nn.Parameter(lib.zeros(3))
        row = []
        for vec in ([1.0, 2.0], lib.zeros(2)):
            try:
                lib.nn.utils.vector_to_parameters(vec, [p])
            except Exception as e:  # noqa: BLE001 - compared with torch's
                row.append((type(e).__name__, str(e)))
        results.append(row)
    assert results[0] == results[1] and len(results[0]) == 2


def test_get_total_norm_and_clip_grads_with_norm_equal_torch(torch):
    arrays, grads = _arrays(5)
    ours = _params(gradtrack, arrays, grads)
    theirs = _params(torch, arrays, grads)
    n1 = gradtrack.nn.utils.get_total_norm([p.grad for p in ours], norm_type=3.0)
    n2 = torch.nn.utils.get_total_norm([p.grad for p in theirs], norm_type=3.0)
    np.testing.assert_allclose(n1.item(), n2.item(), rtol=2e-6)
    gradtrack.nn.utils.clip_grads_with_norm_(ours, 0.7, n1)
    torch.nn.utils.clip_grads_with_norm_(theirs, 0.7, n2)
    for p, q in zip(ours, theirs):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=2e-6, atol=1e-7)
    assert gradtrack.nn.utils.get_total_norm([]).item() == 0.0
