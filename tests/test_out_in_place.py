"""out= on the elementwise functions writes the result straight into ``out``
(NOTE [out= written in place] in csrc/ops/common.h): the same values, one
``_version`` bump and views that see the write, as torch; torch's errors for
an ``out`` that overlaps an argument or carries a forward-AD tangent, raised
before anything is written.
"""

import warnings

import numpy as np
import pytest

import gradtrack
from gradtrack import _C, _out

N = 1003  # not a multiple of any vector width


def _inputs(lib, name):
    """Arguments for ``name``: floats in (0.1, 0.9) (a domain every op takes), ints for
    the bitwise ops, a bool tensor for logical_not; the second operand broadcasts."""
    g = np.random.default_rng(sum(map(ord, name)))
    x = lib.tensor(g.uniform(0.1, 0.9, (N,)).astype(np.float32))
    y = lib.tensor(g.uniform(0.5, 1.5, (1,)).astype(np.float32)) if name == "pow" else \
        lib.tensor(g.uniform(0.5, 1.5, (N,)).astype(np.float32))
    if name.startswith("bitwise") or name in ("gcd", "lcm"):
        xi, yi = lib.tensor(g.integers(0, 99, (N,))), lib.tensor(g.integers(0, 99, (N,)))
        return (xi,) if name == "bitwise_not" else (xi, yi)
    if name == "logical_not":
        return (x > 0.6,)
    if name == "acosh":  # defined from 1 up
        return (x + 1,)
    if name == "polygamma":  # polygamma(n, input): the order first
        return (1, x)
    return (x, y) if name in _out.BINARY else (x,)


def _write(lib, name):
    """(values, dtype, version bump, a view made before sees the write, returned out itself)."""
    args = _inputs(lib, name)
    expected = getattr(lib, name)(*args)
    out = lib.zeros(expected.shape, dtype=expected.dtype)
    view = out[1:]
    before = out._version
    r = getattr(lib, name)(*args, out=out)
    return (out.numpy().astype(np.float64), str(out.dtype).split(".")[-1],
            out._version - before, np.array_equal(view.numpy(), expected.numpy()[1:]), r is out)


@pytest.mark.parametrize("name", _out.UNARY + _out.BINARY)
def test_out_is_written_directly_as_torch_writes_it(torch, name):
    got, want = _write(gradtrack, name), _write(torch, name)
    np.testing.assert_allclose(got[0], want[0], rtol=2e-6, atol=1e-7)
    assert got[1:] == want[1:] == (want[1], 1, True, True)
    # ... and the result took out's memory: nothing was computed elsewhere and copied
    args = _inputs(gradtrack, name)
    out = gradtrack.empty(got[0].shape, dtype=getattr(gradtrack, got[1]))
    result, written = _C._inplace.into(out, getattr(gradtrack, name), args, {})
    assert written and result.data_ptr() == out.data_ptr()


def _outcome(lib, call):
    """What a call does to a tensor: its values and version after, or the error."""
    x = lib.arange(12.0)
    before = x.clone()
    try:
        call(lib, x)
    except Exception as e:  # the error is the observable result
        return (type(e).__name__, str(e), bool((x == before).all()), x._version)
    return ("ok", x.tolist(), x._version)


OVERLAPS = {
    "out is the input": lambda L, x: L.mul(x, 2, out=x),
    "out is both inputs": lambda L, x: L.add(x, x, out=x),
    "out shifted over the input": lambda L, x: L.exp(x[:11], out=x[1:]),
    "out and an input share half": lambda L, x: L.sub(x[:8], x[4:], out=x[4:]),
    "out overlaps itself": lambda L, x: L.add(x[:3], 1, out=x[:1].expand(3)),
    "strided, not dense: never refused": lambda L, x: L.add(x.view(3, 4)[:, :2], 1,
                                                            out=x.view(3, 4)[:, 2:]),
    "disjoint halves of one tensor": lambda L, x: L.mul(x[:6], 3, out=x[6:]),
    "out a transposed view": lambda L, x: L.neg(x.view(4, 3).t().clone(),
                                                out=x.view(3, 4).t()),
    "out resized from another shape": lambda L, x: L.mul(x[:4].clone(), 2, out=x[:2]),
}


@pytest.mark.parametrize("case", OVERLAPS)
def test_out_overlapping_an_argument_as_torch(torch, case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the resize's deprecation warning
        assert _outcome(gradtrack, OVERLAPS[case]) == _outcome(torch, OVERLAPS[case])


REFUSED = {
    "integer division by zero": lambda L, x: L.remainder(L.arange(12), 0, out=L.zeros(12).long()),
    "bool subtraction": lambda L, x: L.sub(x > 3, x > 4, out=x > 5),
    "float result into a long out": lambda L, x: L.exp(x, out=L.zeros(12, dtype=L.long)),
    "abs into another dtype": lambda L, x: L.abs(x, out=L.zeros(12, dtype=L.float64)),
}


@pytest.mark.parametrize("case", REFUSED)
def test_a_refused_out_write_leaves_out_as_it_was(torch, case):
    outs = []
    for lib in (gradtrack, torch):
        out = lib.arange(12.0)
        try:
            REFUSED[case](lib, out)
        except Exception as e:  # noqa: BLE001 - comparing torch's error
            outs.append((type(e).__name__, str(e)))
        else:
            outs.append("no error")
    assert outs[0] == outs[1] != "no error"
    # an out that is refused keeps its values and version (checked on a contiguous out)
    out = gradtrack.arange(12.0)
    with pytest.raises(RuntimeError):
        gradtrack.exp(out[:11], out=out[1:])
    assert out.tolist() == list(map(float, range(12))) and out._version == 0


def _tangent_refusal(lib, name, on_out):
    """torch's error for out= under a dual level with a tangent on the first argument
    (or on out), and whether out's version stayed; None when that tensor is not float."""
    fwd = lib.autograd.forward_ad
    with fwd.dual_level():
        args = _inputs(lib, name)
        if name == "max":
            args, out = (args[0], 0), (lib.zeros(()), lib.zeros((), dtype=lib.long))
        else:
            r = getattr(lib, name)(*args)
            out = lib.zeros(r.shape, dtype=r.dtype)
        first = next(a for a in args if isinstance(a, lib.Tensor))
        carrier = (out[0] if isinstance(out, tuple) else out) if on_out else first
        if not carrier.dtype.is_floating_point:
            return None
        dual = fwd.make_dual(carrier, lib.ones_like(carrier))
        if on_out:
            out = (dual, out[1]) if isinstance(out, tuple) else dual
        else:
            args = tuple(dual if a is carrier else a for a in args)
        first = out[0] if isinstance(out, tuple) else out
        version = first._version
        with pytest.raises(NotImplementedError) as e:
            getattr(lib, name)(*args, out=out)
        return str(e.value), first._version == version


@pytest.mark.parametrize("name", _out.UNARY + _out.BINARY + ("max",))
@pytest.mark.parametrize("on_out", (False, True), ids=("on_argument", "on_out"))
def test_out_refuses_a_forward_ad_tangent_with_torchs_error(torch, name, on_out):
    got, want = _tangent_refusal(gradtrack, name, on_out), _tangent_refusal(torch, name, on_out)
    if want is None:
        assert got is None
        return
    # torch writes out before it refuses; gradtrack refuses first and leaves it alone
    assert got == (want[0], True)


def test_an_intermediate_that_took_out_is_overwritten_by_the_result():
    x = gradtrack.rand(10, 10)
    out = gradtrack.empty(10, 10)
    # exp's result takes out; the doubling is a fresh tensor, copied over it
    result, written = _C._inplace.into(out, lambda a: gradtrack.exp(a) * 2, (x,), {})
    assert not written and result.data_ptr() != out.data_ptr()
    # a result that is a transposed view of out is cloned before it is copied into out
    result, written = _C._inplace.into(out, lambda a: gradtrack.exp(a).t(), (x,), {})
    assert not written and result.data_ptr() != out.data_ptr()
    assert gradtrack.equal(result, x.exp().t())


RESIZING_CALLS = {
    "elementwise": lambda L, o: L.mul(L.ones(3), 2, out=o),
    "cat": lambda L, o: L.cat([L.ones(3)], out=o),
    "factory": lambda L, o: L.arange(3, out=o),
    "max against a tensor": lambda L, o: L.max(L.ones(3), L.ones(3), out=o),
    "clamp": lambda L, o: L.clamp(L.ones(3), 0, 1, out=o),
}


@pytest.mark.parametrize("path", RESIZING_CALLS)
def test_the_resize_warning_names_the_callers_line(torch, path):
    lines = []
    for lib in (gradtrack, torch):
        out = lib.zeros(2)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            RESIZING_CALLS[path](lib, out)
        lines.append([(w.filename, w.lineno) for w in caught])
    assert lines[0] == lines[1] and lines[0][0][0] == __file__


def _product_args(lib, name):
    g = np.random.default_rng(7)
    shapes = {"mm": ((33, 70), (70, 41)), "matmul": ((33, 70), (70, 41)),
              "bmm": ((3, 33, 70), (3, 70, 41))}[name]
    return tuple(lib.tensor(g.standard_normal(s).astype(np.float32)) for s in shapes)


def _product_write(lib, name, out_kind):
    """mm/bmm/matmul with out=: (values, version bump, a view made before sees the
    write, returned out itself, warnings raised) for an out of the result's shape and
    dtype, of another shape, non-contiguous, or of another dtype."""
    args = _product_args(lib, name)
    shape = tuple(getattr(lib, name)(*args).shape)
    if out_kind == "fits":
        out = lib.zeros(shape)
    elif out_kind == "other_shape":
        out = lib.zeros(5)
    elif out_kind == "transposed":
        out = lib.zeros(tuple(reversed(shape))).mT if len(shape) == 2 else \
            lib.zeros(shape[0], shape[2], shape[1]).mT
    else:
        out = lib.zeros(shape, dtype=lib.float64)
    view = out.view(-1)[:3] if out.is_contiguous() else out[0]
    before = out._version
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            r = getattr(lib, name)(*args, out=out)
        except RuntimeError as e:
            return ("error", str(e).replace(lib.__name__, "LIB"), out._version - before,
                    float(out.abs().sum()))
    expected = getattr(lib, name)(*args)
    return (out.numpy().astype(np.float64).round(4).tolist(),
            np.allclose(out.numpy(), expected.numpy(), rtol=1e-5, atol=1e-5),
            out._version - before, bool((view == out.reshape(-1)[:3]).all()) if
            out.is_contiguous() else None, r is out, len(caught), tuple(out.shape), out.stride())


@pytest.mark.parametrize("out_kind", ["fits", "other_shape", "transposed", "other_dtype"])
@pytest.mark.parametrize("name", ["mm", "bmm", "matmul"])
def test_products_write_out_as_torch(torch, name, out_kind):
    got, want = _product_write(gradtrack, name, out_kind), _product_write(torch, name, out_kind)
    if got[0] == "error":
        assert got == want
        return
    np.testing.assert_allclose(got[0], want[0], rtol=1e-4, atol=1e-4)
    assert got[1:] == want[1:]


@pytest.mark.parametrize("name", ["mm", "bmm", "matmul"])
def test_products_take_out_s_memory(name):
    """A fitting out is the product's own result: nothing is computed elsewhere and
    copied (the 15-20% an out= product cost over one without)."""
    args = _product_args(gradtrack, name)
    out = gradtrack.empty(tuple(getattr(gradtrack, name)(*args).shape))
    result, written = _C._inplace.into(out, getattr(gradtrack, name), args, {})
    assert written and result.data_ptr() == out.data_ptr()
    np.testing.assert_allclose(out.numpy(), getattr(gradtrack, name)(*args).numpy(), rtol=1e-6)


def test_a_product_with_an_out_that_overlaps_an_argument_reads_the_argument_first():
    a = gradtrack.tensor(np.arange(16.0, dtype=np.float32).reshape(4, 4))
    expected = (a @ a).numpy()
    gradtrack.mm(a, a, out=a)
    np.testing.assert_allclose(a.numpy(), expected)
