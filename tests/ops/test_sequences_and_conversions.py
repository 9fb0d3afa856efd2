"""torch's top-level factories of sequences (``logspace``, ``range``, the window
functions) and conversions (``asarray``, ``frombuffer``, ``scalar_tensor``), compared with
torch 2.13: values, dtypes, warnings and error messages."""

import array
import warnings

import numpy as np
import pytest

import gradtrack


def _facts(lib, fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = fn(lib)
        except Exception as e:  # noqa: BLE001 - the exception is what is compared
            return ("raises", type(e).__name__, str(e).replace("torch.", "gradtrack."))
    messages = [str(w.message) for w in caught]
    return (np.asarray(out.tolist()), str(out.dtype).split(".")[-1], out.requires_grad,
            messages)


def _same(mine, theirs, exact):
    if isinstance(theirs[0], str):
        assert mine == theirs
        return
    assert mine[1:] == theirs[1:]
    assert mine[0].shape == theirs[0].shape
    if exact:
        np.testing.assert_array_equal(mine[0], theirs[0])
    else:
        np.testing.assert_allclose(mine[0], theirs[0], rtol=2e-6, atol=1e-7)


WINDOWS = ("hann_window", "hamming_window", "bartlett_window", "blackman_window",
           "kaiser_window")


@pytest.mark.parametrize("name", WINDOWS)
@pytest.mark.parametrize("length", [0, 1, 2, 5, 8])
@pytest.mark.parametrize("periodic", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_windows_match_torch(torch, name, length, periodic, dtype):
    def fn(lib):
        return getattr(lib, name)(length, periodic, dtype=getattr(lib, dtype))
    # the kaiser window goes through i0, whose last bits differ between the libraries
    _same(_facts(gradtrack, fn), _facts(torch, fn), exact=False)
    if name in ("hann_window", "hamming_window", "bartlett_window"):
        mine, theirs = _facts(gradtrack, fn), _facts(torch, fn)
        np.testing.assert_allclose(mine[0], theirs[0], rtol=0, atol=6e-8)


@pytest.mark.parametrize("call", [
    lambda lib: lib.hamming_window(6, False, 0.5, 0.4),
    lambda lib: lib.kaiser_window(6, True, 3.0, dtype=lib.float64),
    lambda lib: lib.hann_window(4, requires_grad=True),
    lambda lib: lib.hann_window(-1),
    lambda lib: lib.hann_window(3, dtype=lib.int64),
    lambda lib: lib.kaiser_window(3, dtype=lib.int32),
    lambda lib: lib.blackman_window(3, layout=lib.strided),
])
def test_window_arguments_match_torch(torch, call):
    _same(_facts(gradtrack, call), _facts(torch, call), exact=False)


@pytest.mark.parametrize("call", [
    lambda lib: lib.logspace(0, 2, 3),
    lambda lib: lib.logspace(-1, 2, 4, base=2.0),
    lambda lib: lib.logspace(0, 2, 3, base=2, dtype=lib.int64),
    lambda lib: lib.logspace(0, 1, 5, dtype=lib.float64),
    lambda lib: lib.logspace(1, 0, 4, requires_grad=True),
    lambda lib: lib.logspace(0, 1, 0),
    lambda lib: lib.logspace(0, 1, -1),
    lambda lib: lib.logspace(0, 3, 4, out=lib.empty(0, dtype=lib.float64)),
])
def test_logspace_matches_torch(torch, call):
    _same(_facts(gradtrack, call), _facts(torch, call), exact=False)


@pytest.mark.parametrize("call", [
    lambda lib: lib.range(1, 4),
    lambda lib: lib.range(0, 1, 0.25),
    lambda lib: lib.range(1, 4, dtype=lib.int64),
    lambda lib: lib.range(3, 0, -1, dtype=lib.float64),
    lambda lib: lib.range(0, 1, 0),
    lambda lib: lib.range(1, 0),
])
def test_range_includes_its_end_and_warns_as_torch(torch, call):
    _same(_facts(gradtrack, call), _facts(torch, call), exact=True)


def test_range_warning_is_torchs():
    with pytest.warns(UserWarning, match="torch.range is deprecated"):
        gradtrack.range(0, 2)


@pytest.mark.parametrize("call", [
    lambda lib: lib.scalar_tensor(3),
    lambda lib: lib.scalar_tensor(True),
    lambda lib: lib.scalar_tensor(2.5, dtype=lib.float64),
    lambda lib: lib.scalar_tensor(3, dtype=lib.int64, requires_grad=False),
    lambda lib: lib.scalar_tensor("a"),
])
def test_scalar_tensor_matches_torch(torch, call):
    _same(_facts(gradtrack, call), _facts(torch, call), exact=True)


@pytest.mark.parametrize("call", [
    lambda lib: lib.asarray([1, 2]),
    lambda lib: lib.asarray([1.0, 2]),
    lambda lib: lib.asarray(3.0),
    lambda lib: lib.asarray([True]),
    lambda lib: lib.asarray(np.arange(3.0), dtype=lib.float32),
    lambda lib: lib.asarray([1, 2], dtype=lib.float64, requires_grad=True),
    lambda lib: lib.asarray(lib.ones(2), dtype=lib.float64, copy=False),
    lambda lib: lib.asarray([1, 2], copy=False),
    lambda lib: lib.asarray(np.arange(3.0), dtype=lib.float32, copy=False),
    lambda lib: lib.asarray("ab"),
])
def test_asarray_matches_torch(torch, call):
    _same(_facts(gradtrack, call), _facts(torch, call), exact=True)


def test_asarray_shares_memory_as_torch(torch):
    for lib in (gradtrack, torch):
        a = np.arange(3.0)
        t = lib.asarray(a)
        a[0] = 7
        assert t.tolist() == [7.0, 1.0, 2.0]
        c = lib.asarray(a, copy=True)
        a[1] = 9
        assert c.tolist() == [7.0, 1.0, 2.0]
        x = lib.ones(2)
        assert lib.asarray(x) is x
        assert lib.asarray(x, copy=True) is not x
        r = lib.asarray(x, requires_grad=True)
        assert r is x and x.requires_grad  # torch sets it on the tensor itself
        y = lib.ones(2, requires_grad=True)
        with pytest.warns(UserWarning, match="unspecified requires_grad"):
            assert lib.asarray(y) is y
        z = lib.asarray(y, copy=True)
        assert z.requires_grad and type(z.grad_fn).__name__ == "CloneBackward0"


@pytest.mark.parametrize("call", [
    lambda lib: lib.frombuffer(bytearray(b"abcd"), dtype=lib.int16),
    lambda lib: lib.frombuffer(bytearray(b"abcd"), dtype=lib.int16, count=1, offset=2),
    lambda lib: lib.frombuffer(bytearray(b"abcdefgh"), dtype=lib.float32, offset=4),
    lambda lib: lib.frombuffer(bytearray(b"ab"), dtype=lib.bfloat16),
    lambda lib: lib.frombuffer(array.array("f", [1, 2]), dtype=lib.float32, requires_grad=True),
    lambda lib: lib.frombuffer(bytearray(b"abc"), dtype=lib.int16),
    lambda lib: lib.frombuffer(bytearray(b"abcd"), dtype=lib.int16, count=3),
    lambda lib: lib.frombuffer(bytearray(b"abcd"), dtype=lib.int16, offset=5),
    lambda lib: lib.frombuffer(bytearray(b""), dtype=lib.int16),
    lambda lib: lib.frombuffer([1, 2], dtype=lib.int16),
])
def test_frombuffer_matches_torch(torch, call):
    _same(_facts(gradtrack, call), _facts(torch, call), exact=True)


def test_frombuffer_shares_the_buffers_memory():
    data = bytearray(b"\x01\x00\x02\x00")
    t = gradtrack.frombuffer(data, dtype=gradtrack.int16)
    data[0] = 5
    assert t.tolist() == [5, 2]
    t[1] = 9
    assert data[2] == 9
