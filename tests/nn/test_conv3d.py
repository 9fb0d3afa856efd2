"""3-D convolutions against torch: values and gradients on the im2col kernels with a
depth dim (float32 sizes that take the tiled and the batched paths), torch's messages,
and the raw entry given a 5-D weight (it once read it as a 2-D kernel and returned
garbage)."""

import numpy as np
import pytest

import gradtrack

torch = pytest.importorskip("torch")


def _both(*shapes, seed=0, dtype="float32"):
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(s).astype(dtype) for s in shapes]
    return ([gradtrack.tensor(a, requires_grad=True) for a in arrays],
            [torch.tensor(a, requires_grad=True) for a in arrays])


@pytest.mark.parametrize("shape,weight,kw", [
    ((2, 4, 9, 10, 11), (8, 4, 3, 3, 3), dict(padding=1)),
    ((1, 6, 7, 12, 9), (6, 3, 2, 3, 1), dict(stride=(2, 1, 3), dilation=(2, 1, 1), groups=2)),
    ((3, 2, 4, 4, 4), (5, 2, 1, 1, 1), {}),
    ((1, 3, 20, 20, 20), (4, 3, 3, 3, 3), dict(padding="same")),
])
def test_conv3d_float32_matches_torch(shape, weight, kw):
    (xg, wg, bg), (xt, wt, bt) = _both(shape, weight, weight[:1])
    yg = gradtrack.nn.functional.conv3d(xg, wg, bg, **kw)
    yt = torch.nn.functional.conv3d(xt, wt, bt, **kw)
    np.testing.assert_allclose(yg.detach().numpy(), yt.detach().numpy(), rtol=2e-5, atol=2e-5)
    up = np.random.default_rng(1).standard_normal(tuple(yt.shape)).astype("float32")
    yg.backward(gradtrack.tensor(up))
    yt.backward(torch.tensor(up))
    for a, b in ((xg, xt), (wg, wt), (bg, bt)):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=2e-4, atol=2e-4)


def test_conv_transpose3d_output_size_matches_torch():
    results = []
    for lib in (gradtrack, torch):
        lib.manual_seed(0)
        m = lib.nn.ConvTranspose3d(2, 3, (3, 2, 3), stride=(2, 3, 2), padding=1)
        x = lib.ones(1, 2, 3, 4, 3)
        results.append((m(x, output_size=(6, 11, 6)).shape, repr(m), m.weight.detach().numpy()))
        with pytest.raises(ValueError) as err:
            m(x, output_size=(9, 9, 9))
        results.append(str(err.value).replace("torch.Size", "Size").replace("gradtrack.Size",
                                                                               "Size"))
        with pytest.raises(ValueError) as err:
            m(x[0], output_size=(1,))
        results.append(str(err.value))
    assert tuple(results[0][0]) == tuple(results[3][0])
    assert results[0][1] == results[3][1]
    np.testing.assert_array_equal(results[0][2], results[3][2])
    assert results[1:3] == results[4:6]


def test_conv3d_module_init_and_repr_match_torch():
    for kw in (dict(), dict(stride=2, padding=(1, 0, 2), bias=False), dict(padding_mode="reflect",
                                                                          padding=1)):
        gradtrack.manual_seed(5)
        torch.manual_seed(5)
        g, t = gradtrack.nn.Conv3d(3, 4, (2, 3, 2), **kw), torch.nn.Conv3d(3, 4, (2, 3, 2), **kw)
        assert repr(g) == repr(t)
        for (name, p), (tname, tp) in zip(g.named_parameters(), t.named_parameters()):
            assert name == tname
            np.testing.assert_array_equal(p.detach().numpy(), tp.detach().numpy())


def _message(fn):
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - the type is compared too
        return type(exc).__name__, str(exc)
    return None


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.nn.functional.conv3d(x, lib.ones(3, 2, 0, 2, 2)),
    lambda lib, x: lib.nn.functional.conv3d(x, lib.ones(3, 3, 2, 2, 2)),
    lambda lib, x: lib.nn.functional.conv3d(x, lib.ones(3, 2, 5, 2, 2)),
    lambda lib, x: lib.nn.functional.conv3d(x[0, 0], lib.ones(3, 2, 2, 2, 2)),
    lambda lib, x: lib.nn.functional.conv3d(x, lib.ones(3, 2, 2, 2, 2), stride=(1, 2)),
    lambda lib, x: lib.nn.functional.conv3d(x.double(), lib.ones(3, 2, 2, 2, 2)),
    lambda lib, x: lib.nn.functional.conv_transpose3d(x, lib.ones(2, 3, 2, 2, 2), stride=2,
                                                      output_padding=2),
])
def test_conv3d_errors_match_torch(call):
    xs = (gradtrack.ones(1, 2, 4, 4, 4), torch.ones(1, 2, 4, 4, 4))
    got, want = (_message(lambda lib=lib, x=x: call(lib, x))
                 for lib, x in zip((gradtrack, torch), xs))
    assert got == want


def test_raw_convolution_entry_with_a_5d_weight_is_a_3d_convolution():
    (xg, wg), (xt, wt) = _both((1, 2, 3, 4, 5), (3, 2, 2, 2, 2), dtype="float64")
    out = gradtrack._C._conv.convolution(xg, wg, None, [1, 1, 1], [0, 0, 0], [1, 1, 1], False,
                                         [0, 0, 0], 1, [0, 0, 0])
    np.testing.assert_allclose(out.detach().numpy(),
                               torch.nn.functional.conv3d(xt, wt).detach().numpy(), rtol=1e-12)
    with pytest.raises(RuntimeError, match="expected stride to be a single integer value or a "
                                           "list of 3 values"):
        gradtrack._C._conv.convolution(xg, wg, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1,
                                       [0, 0])
