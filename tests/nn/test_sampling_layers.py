"""Sliding blocks (unfold/fold), unpooling, sampling grids and the CTC loss against
torch: the cases the op table does not reach (errors, unbatched inputs, padding modes on
5-D inputs, lengths and blanks of the CTC loss)."""

import numpy as np
import pytest

import gradtrack

torch = pytest.importorskip("torch")


def _outcome(lib, call):
    try:
        out = call(lib)
    except Exception as exc:  # noqa: BLE001 - the type is compared too
        return type(exc).__name__, str(exc).replace("torch.", "").replace("gradtrack.", "")
    return tuple(out.shape)


ERRORS = {
    "unfold_big_kernel": lambda lib: lib.nn.functional.unfold(lib.ones(2, 3, 5, 6), 7),
    "unfold_zero_kernel": lambda lib: lib.nn.functional.unfold(lib.ones(2, 3, 5, 6), 0),
    "unfold_three_sizes": lambda lib: lib.nn.functional.unfold(lib.ones(2, 3, 5, 6), (2, 2, 2)),
    "unfold_stride": lambda lib: lib.nn.functional.unfold(lib.ones(2, 3, 5, 6), 2, stride=0),
    "unfold_padding": lambda lib: lib.nn.functional.unfold(lib.ones(2, 3, 5, 6), 2, padding=-1),
    "unfold_dilation": lambda lib: lib.nn.functional.unfold(lib.ones(2, 3, 5, 6), 2, dilation=0),
    "unfold_5d": lambda lib: lib.nn.functional.unfold(lib.ones(2, 3, 4, 5, 6), 2),
    "unfold_2d": lambda lib: lib.nn.functional.unfold(lib.ones(5, 6), 2),
    "unfold_empty_channel": lambda lib: lib.nn.functional.unfold(lib.ones(2, 0, 5, 6), 2),
    "unfold_long": lambda lib: lib.nn.functional.unfold(lib.ones(2, 3, 5, 6).long(), 2),
    "unfold_empty_batch": lambda lib: lib.nn.functional.unfold(lib.ones(0, 3, 5, 6), 2),
    "fold_blocks": lambda lib: lib.nn.functional.fold(lib.ones(2, 12, 20), (5, 7), 2),
    "fold_divisible": lambda lib: lib.nn.functional.fold(lib.ones(2, 13, 20), (5, 6), 2),
    "fold_4d": lambda lib: lib.nn.functional.fold(lib.ones(2, 12, 20, 1), (5, 6), 2),
    "fold_1d": lambda lib: lib.nn.functional.fold(lib.ones(12), (5, 6), 2),
    "fold_output_size": lambda lib: lib.nn.functional.fold(lib.ones(2, 12, 20), (5, 6, 1), 2),
    "fold_small": lambda lib: lib.nn.functional.fold(lib.ones(2, 12, 20), (1, 1), 2),
    "fold_unbatched": lambda lib: lib.nn.functional.fold(lib.ones(12, 20), (5, 6), 2),
    "unpool_int32": lambda lib: lib.nn.functional.max_unpool2d(
        lib.ones(1, 1, 2, 2), lib.zeros(1, 1, 2, 2, dtype=lib.int32), 2),
    "unpool_bad_index": lambda lib: lib.nn.functional.max_unpool2d(
        lib.ones(1, 1, 2, 2), lib.full((1, 1, 2, 2), 40, dtype=lib.int64), 2),
    "unpool_shapes": lambda lib: lib.nn.functional.max_unpool2d(
        lib.ones(1, 1, 2, 2), lib.zeros(1, 1, 2, 1, dtype=lib.int64), 2),
    "unpool_output_size": lambda lib: lib.nn.functional.max_unpool2d(
        lib.ones(1, 1, 2, 2), lib.zeros(1, 1, 2, 2, dtype=lib.int64), 2, output_size=(9, 9)),
    "unpool_output_size_length": lambda lib: lib.nn.functional.max_unpool2d(
        lib.ones(1, 1, 2, 2), lib.zeros(1, 1, 2, 2, dtype=lib.int64), 2, output_size=(4,)),
    "unpool3d_bad_index": lambda lib: lib.nn.functional.max_unpool3d(
        lib.ones(1, 1, 1, 1, 1), lib.full((1, 1, 1, 1, 1), 9, dtype=lib.int64), 2),
    "grid_mode": lambda lib: lib.nn.functional.grid_sample(
        lib.ones(1, 1, 2, 2), lib.zeros(1, 1, 1, 2), mode="foo"),
    "grid_padding_mode": lambda lib: lib.nn.functional.grid_sample(
        lib.ones(1, 1, 2, 2), lib.zeros(1, 1, 1, 2), padding_mode="foo"),
    "grid_batch": lambda lib: lib.nn.functional.grid_sample(
        lib.ones(2, 1, 2, 2), lib.zeros(1, 1, 1, 2), align_corners=False),
    "grid_last_dim": lambda lib: lib.nn.functional.grid_sample(
        lib.ones(1, 1, 2, 2), lib.zeros(1, 1, 1, 3), align_corners=False),
    "grid_bicubic_5d": lambda lib: lib.nn.functional.grid_sample(
        lib.ones(1, 1, 2, 2, 2), lib.zeros(1, 1, 1, 1, 3), mode="bicubic", align_corners=False),
    "grid_dtype": lambda lib: lib.nn.functional.grid_sample(
        lib.ones(1, 1, 2, 2), lib.zeros(1, 1, 1, 2).double(), align_corners=False),
    "affine_int": lambda lib: lib.nn.functional.affine_grid(
        lib.zeros(1, 2, 3, dtype=lib.int32), (1, 1, 2, 2), align_corners=False),
    "affine_shape": lambda lib: lib.nn.functional.affine_grid(
        lib.zeros(1, 2, 3), (1, 1, 2, 2, 2), align_corners=False),
    "affine_size": lambda lib: lib.nn.functional.affine_grid(
        lib.zeros(1, 2, 3), (1, 1, 2), align_corners=False),
    "affine_empty": lambda lib: lib.nn.functional.affine_grid(
        lib.zeros(1, 2, 3), (1, 1, 0, 2), align_corners=False),
    "affine_3d": lambda lib: lib.nn.functional.affine_grid(
        lib.zeros(2, 3, 4), (2, 1, 2, 3, 4), align_corners=True),
    "ctc_blank": lambda lib: lib.nn.functional.ctc_loss(
        lib.zeros(5, 2, 4), lib.ones(2, 2, dtype=lib.int64), [5, 4], [2, 2], blank=4),
    "ctc_input_lengths": lambda lib: lib.nn.functional.ctc_loss(
        lib.zeros(5, 2, 4), lib.ones(2, 2, dtype=lib.int64), [5, 4, 3], [2, 2]),
    "ctc_too_long": lambda lib: lib.nn.functional.ctc_loss(
        lib.zeros(5, 2, 4), lib.ones(2, 2, dtype=lib.int64), [6, 4], [2, 2]),
    "ctc_targets_short": lambda lib: lib.nn.functional.ctc_loss(
        lib.zeros(5, 2, 4), lib.ones(2, 2, dtype=lib.int64), [5, 4], [3, 2]),
    "pool3d_kernel": lambda lib: lib.nn.functional.max_pool3d(lib.ones(1, 2, 4, 4, 4), (2, 2)),
    "pool3d_stride": lambda lib: lib.nn.functional.max_pool3d(lib.ones(1, 2, 4, 4, 4), 0),
    "pool3d_dims": lambda lib: lib.nn.functional.max_pool3d(lib.ones(4, 4, 4), 2),
    "pool3d_pad": lambda lib: lib.nn.functional.avg_pool3d(lib.ones(1, 2, 4, 4, 4), 2, padding=2),
    "pool3d_small": lambda lib: lib.nn.functional.max_pool3d(lib.ones(1, 2, 4, 4, 4), 5),
    "avgpool3d_small": lambda lib: lib.nn.functional.avg_pool3d(lib.ones(1, 2, 4, 4, 4), 5),
    "adaptive3d_size": lambda lib: lib.nn.functional.adaptive_max_pool3d(
        lib.ones(1, 2, 4, 4, 4), (2, 2)),
    "adaptive3d_avg_size": lambda lib: lib.nn.functional.adaptive_avg_pool3d(
        lib.ones(1, 2, 4, 4, 4), (2, 2)),
    "adaptive3d_dims": lambda lib: lib.nn.functional.adaptive_avg_pool3d(lib.ones(4, 4, 4), 2),
}


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name", sorted(ERRORS))
def test_outcome_matches_torch(name):
    assert _outcome(gradtrack, ERRORS[name]) == _outcome(torch, ERRORS[name])


@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_5d_matches_torch(mode, padding_mode, align_corners):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 3, 3, 4, 5))
    grid = rng.uniform(-1.3, 1.3, size=(2, 2, 3, 4, 3))
    results = []
    for lib in (gradtrack, torch):
        xs, gs = lib.tensor(x, requires_grad=True), lib.tensor(grid, requires_grad=True)
        y = lib.nn.functional.grid_sample(xs, gs, mode=mode, padding_mode=padding_mode,
                                          align_corners=align_corners)
        y.backward(lib.tensor(rng.standard_normal(tuple(y.shape))) * 0 + 1)
        results.append((y.detach().numpy(), xs.grad.numpy(), gs.grad.numpy(), y.grad_fn.name()))
    for a, b in zip(results[0][:3], results[1][:3]):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    assert results[0][3] == results[1][3] == "GridSampler3DBackward0"


@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_bicubic_matches_torch(padding_mode, align_corners):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 3, 4, 5))
    # beyond [-1, 1] so the taps leave the image on every side, plus exact pixel centres
    grid = rng.uniform(-1.6, 1.6, size=(2, 3, 4, 2))
    grid[0, 0, 0] = (-1.0, 1.0)
    grid[1, 2, 3] = (0.0, -0.5)
    upstream = rng.standard_normal((2, 3, 3, 4))
    results = []
    for lib in (gradtrack, torch):
        xs, gs = lib.tensor(x, requires_grad=True), lib.tensor(grid, requires_grad=True)
        y = lib.nn.functional.grid_sample(xs, gs, mode="bicubic", padding_mode=padding_mode,
                                          align_corners=align_corners)
        y.backward(lib.tensor(upstream))
        results.append((y.detach().numpy(), xs.grad.numpy(), gs.grad.numpy(), y.grad_fn.name()))
    for a, b in zip(results[0][:3], results[1][:3]):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    assert results[0][3] == results[1][3] == "GridSampler2DBackward0"


def test_grid_sample_bicubic_float32_matches_torch():
    rng = np.random.default_rng(6)
    x = rng.standard_normal((1, 2, 6, 7)).astype(np.float32)
    grid = rng.uniform(-1.2, 1.2, size=(1, 5, 5, 2)).astype(np.float32)
    outs = [lib.nn.functional.grid_sample(lib.tensor(x), lib.tensor(grid), mode="bicubic",
                                          align_corners=False).numpy()
            for lib in (gradtrack, torch)]
    assert outs[0].dtype == np.float32
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-5, atol=1e-6)


def test_affine_grid_then_grid_sample_warn_and_match_torch():
    theta = np.array([[[0.8, -0.3, 0.1], [0.2, 1.1, -0.2]]])
    x = np.random.default_rng(3).standard_normal((1, 2, 5, 6))
    results = []
    for lib in (gradtrack, torch):
        t = lib.tensor(theta, requires_grad=True)
        with pytest.warns(UserWarning, match="Default grid_sample and affine_grid behavior"):
            grid = lib.nn.functional.affine_grid(t, (1, 2, 4, 3))
        out = lib.nn.functional.grid_sample(lib.tensor(x), grid, align_corners=False)
        out.sum().backward()
        results.append((out.detach().numpy(), t.grad.numpy(), grid.grad_fn.name()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-10, atol=1e-12)
    assert results[0][2] == results[1][2]


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("zero_infinity", [False, True])
def test_ctc_loss_matches_torch(reduction, zero_infinity):
    rng = np.random.default_rng(6)
    logits = rng.standard_normal((7, 3, 5))
    # the third sample cannot be aligned (3 labels with a repeat need 4 steps, it has 3)
    targets = np.array([[1, 2, 2], [3, 1, 0], [4, 4, 1]])
    input_lengths, target_lengths = [7, 6, 3], [3, 2, 3]
    results = []
    for lib in (gradtrack, torch):
        x = lib.tensor(logits, requires_grad=True)
        lp = x.log_softmax(2)
        loss = lib.nn.functional.ctc_loss(lp, lib.tensor(targets), input_lengths, target_lengths,
                                          blank=0, reduction=reduction,
                                          zero_infinity=zero_infinity)
        finite = loss if reduction != "none" else loss[:2]
        if zero_infinity or reduction == "none":
            finite.sum().backward()
        results.append((loss.detach().numpy(), None if x.grad is None else x.grad.numpy(),
                        loss.grad_fn.name()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-10)
    if results[1][1] is not None:
        np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-8, atol=1e-10)
    assert results[0][2] == results[1][2]


def test_ctc_loss_concatenated_targets_and_unbatched_match_torch():
    rng = np.random.default_rng(7)
    logits = rng.standard_normal((6, 2, 4))
    results = []
    for lib in (gradtrack, torch):
        x = lib.tensor(logits, requires_grad=True)
        flat = lib.nn.functional.ctc_loss(x.log_softmax(2), lib.tensor([1, 2, 3]),
                                          lib.tensor([6, 5]), lib.tensor([2, 1]), blank=0)
        one = lib.nn.functional.ctc_loss(x[:, 0].log_softmax(1), lib.tensor([1, 2]),
                                         lib.tensor(6), lib.tensor(2), reduction="none")
        (flat + one).backward()
        results.append((flat.item(), one.item(), x.grad.numpy(), tuple(one.shape)))
    assert results[0][3] == results[1][3]
    np.testing.assert_allclose(results[0][:2], results[1][:2], rtol=1e-10)
    np.testing.assert_allclose(results[0][2], results[1][2], rtol=1e-8, atol=1e-10)


def test_grid_sample_nearest_gives_the_grid_a_zero_gradient_as_torch():
    grads = []
    for lib in (gradtrack, torch):
        grid = lib.tensor([[[[0.3, -0.6], [0.9, 0.1]]]], requires_grad=True)
        out = lib.nn.functional.grid_sample(lib.ones(1, 1, 3, 3), grid, mode="nearest",
                                            align_corners=False)
        out.sum().backward()
        grads.append(grid.grad.numpy())
    np.testing.assert_array_equal(grads[0], grads[1])


def test_composite_outputs_are_not_views_as_torch():
    x = gradtrack.ones(1, 2, 4, 4, 4, requires_grad=True)
    F = gradtrack.nn.functional
    for out in (F.avg_pool3d(x, 2), F.unfold(x[0], 2), F.fold(F.unfold(x[0], 2), (4, 4), 2),
                F.grid_sample(x[:, :, 0], gradtrack.zeros(1, 2, 2, 2), align_corners=False)):
        assert out._base is None
