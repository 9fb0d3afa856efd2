"""Forward and backward of every op in tests/ops/op_db/.

For each spec x sample x dtype: (1) forward vs numpy; (2) forward vs torch
(values, dtype, shape, container type). For differentiable specs with float64
inputs: (3) gradcheck (finite differences) and gradients vs torch for the same
upstream gradient; (4) grad_fn names and requires_grad/is_leaf vs torch;
(5) create_graph=True double backward for a handful of ops. Factories are
checked the same way, and gradcheck itself must catch a wrong gradient.
"""

import warnings
import zlib

import numpy as np
import pytest

import gradtrack

from helpers import to_np
from op_db import CREATION, OPS

GT = gradtrack


# ---- building inputs -------------------------------------------------------------------------

def _seed(*parts):
    return zlib.crc32("|".join(map(str, parts)).encode())


def base_arrays(spec, sample, dtype):
    """The contiguous numpy arrays the inputs are made from (before views)."""
    rng = np.random.default_rng(_seed(spec.name, sample.id, dtype))
    arrays = []
    for arg in sample.args:
        dt = arg.dtype or dtype
        if arg.values is not None:
            arr = np.asarray(arg.values, dtype=np.float64 if dt not in ("bool",) else bool)
            arr = arr.reshape(arg.base).astype(dt)
        else:
            arr = (arg.domain or spec.domain).sample(rng, arg.base, dt)
        # np.array keeps 0-d arrays 0-d (np.ascontiguousarray would make them 1-d)
        arrays.append(np.array(arr, order="C", copy=True))
    return arrays


def numpy_inputs(sample, arrays):
    return [arg.view.np_fn(a) if arg.view else a for arg, a in zip(sample.args, arrays)]


def wants_grad(arg, arr):
    return arg.requires_grad and arr.dtype.kind == "f"


def leaves(lib, sample, arrays, requires_grad=False):
    """Contiguous leaf tensors (float ones require grad when asked)."""
    out = []
    for arg, arr in zip(sample.args, arrays):
        t = lib.tensor(arr)
        if requires_grad and wants_grad(arg, arr):
            t.requires_grad_()
        out.append(t)
    return out


def apply_views(sample, tensors):
    return [arg.view.lib_fn(t) if arg.view else t for arg, t in zip(sample.args, tensors)]


def flatten(out):
    if isinstance(out, (tuple, list)):
        return [x for o in out for x in flatten(o)]
    return [out]


def float_outputs(out):
    return [o for o in flatten(out) if o.dtype.is_floating_point]


def dtype_name(dtype):
    return str(dtype).split(".")[-1]


def assert_values(actual, expected, rtol, atol, what=""):
    actual = np.asarray(actual)
    expected = np.asarray(expected)
    assert actual.shape == expected.shape, f"{what}shape {actual.shape} != {expected.shape}"
    if actual.dtype.kind == "f" or expected.dtype.kind == "f":
        np.testing.assert_allclose(actual.astype(np.float64), expected.astype(np.float64),
                                   rtol=rtol, atol=atol, equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(actual.astype(np.int64), expected.astype(np.int64),
                                      err_msg=what)


def _id(*parts):
    return "-".join(str(p) for p in parts)


FORWARD = [pytest.param(spec, sample, dt, id=_id(spec.name, sample.id, dt))
           for spec in OPS for sample in spec.samples for dt in spec.dtypes]


def _grad_dtype(spec):
    return "float64" if "float64" in spec.dtypes else None


GRAD = [pytest.param(spec, sample, id=_id(spec.name, sample.id))
        for spec in OPS if spec.differentiable and _grad_dtype(spec)
        for sample in spec.samples]
GRADCHECK = [p for p in GRAD if p.values[0].gradcheck]
GRAD_FN = [pytest.param(spec, sample, "float64" if "float64" in spec.dtypes else "float32",
                        id=_id(spec.name, sample.id))
           for spec in OPS if set(spec.dtypes) & {"float32", "float64"}
           for sample in spec.samples]
GRADGRAD = [pytest.param(spec, sample, id=_id(spec.name, sample.id))
            for spec in OPS if spec.gradgrad for sample in spec.samples
            if all(0 not in a.base for a in sample.args)]


# ---- (1) forward vs numpy --------------------------------------------------------------------

@pytest.mark.parametrize("spec,sample,dtype", FORWARD)
def test_forward_matches_numpy(spec, sample, dtype):
    arrays = base_arrays(spec, sample, dtype)
    out = spec.fn(GT, *apply_views(sample, leaves(GT, sample, arrays)))
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        ref = spec.reference(*numpy_inputs(sample, arrays))
    outs, refs = flatten(out), flatten(ref)
    assert len(outs) == len(refs)
    for k, (o, r) in enumerate(zip(outs, refs)):
        assert isinstance(o, GT.Tensor), type(o)
        r = np.asarray(r)
        assert o.dtype.is_floating_point == (r.dtype.kind == "f"), (o.dtype, r.dtype)
        rtol, atol = spec.tolerance(dtype_name(o.dtype))
        assert_values(to_np(o), r, rtol, atol, f"output {k}: ")


# ---- (2) forward vs torch --------------------------------------------------------------------

def _container(out):
    return "Tensor" if not isinstance(out, (tuple, list)) else type(out).__name__


@pytest.mark.parametrize("spec,sample,dtype", FORWARD)
def test_forward_matches_torch(torch, spec, sample, dtype):
    arrays = base_arrays(spec, sample, dtype)
    out = spec.fn(GT, *apply_views(sample, leaves(GT, sample, arrays)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = spec.fn(torch, *apply_views(sample, leaves(torch, sample, arrays)))
    assert _container(out) == _container(expected)
    outs, exps = flatten(out), flatten(expected)
    assert len(outs) == len(exps)
    for k, (o, e) in enumerate(zip(outs, exps)):
        assert str(o.dtype) == str(e.dtype).replace("torch.", "gradtrack."), f"output {k}"
        assert tuple(o.shape) == tuple(e.shape), f"output {k}"
        rtol, atol = spec.tolerance(dtype_name(o.dtype))
        assert_values(to_np(o), e.detach().numpy(), rtol, atol, f"output {k}: ")


# ---- (3) backward: finite differences and torch ----------------------------------------------

def _gradcheck_fn(spec, sample):
    def fn(*xs):
        return tuple(float_outputs(spec.fn(GT, *apply_views(sample, xs))))
    return fn


@pytest.mark.parametrize("spec,sample", GRADCHECK)
def test_gradcheck(spec, sample):
    arrays = base_arrays(spec, sample, "float64")
    xs = leaves(GT, sample, arrays, requires_grad=True)
    assert any(x.requires_grad for x in xs)
    assert GT.autograd.gradcheck(_gradcheck_fn(spec, sample), tuple(xs))


def _upstream(lib, outs, seed):
    rng = np.random.default_rng(seed)
    return [lib.tensor(rng.standard_normal(tuple(o.shape))).to(o.dtype) for o in outs]


def _grads(lib, spec, sample, arrays, seed):
    xs = leaves(lib, sample, arrays, requires_grad=True)
    outs = float_outputs(spec.fn(lib, *apply_views(sample, xs)))
    req = [x for x in xs if x.requires_grad]
    flags = [o.requires_grad for o in outs]
    used = [o for o in outs if o.requires_grad]
    if not used:
        return flags, None
    grads = lib.autograd.grad(used, req, _upstream(lib, used, seed), allow_unused=True)
    return flags, grads


@pytest.mark.parametrize("spec,sample", GRAD)
def test_grad_matches_torch(torch, spec, sample):
    arrays = base_arrays(spec, sample, "float64")
    seed = _seed("upstream", spec.name, sample.id)
    flags, grads = _grads(GT, spec, sample, arrays, seed)
    t_flags, t_grads = _grads(torch, spec, sample, arrays, seed)
    assert flags == t_flags, "requires_grad of the outputs"
    if t_grads is None:
        return
    assert len(grads) == len(t_grads)
    for k, (g, tg) in enumerate(zip(grads, t_grads)):
        assert (g is None) == (tg is None), f"grad {k}: {g} vs {tg}"
        if tg is not None:
            assert str(g.dtype) == str(tg.dtype).replace("torch.", "gradtrack.")
            assert_values(to_np(g), tg.numpy(force=True), 1e-7, 1e-9, f"grad {k}: ")


# ---- (4) grad_fn names -----------------------------------------------------------------------

def _graph_info(lib, spec, sample, arrays):
    xs = leaves(lib, sample, arrays, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = spec.fn(lib, *apply_views(sample, xs))
    info = []
    for o in flatten(out):
        gf = o.grad_fn
        name = None if gf is None else type(gf).__name__
        qualified = None if gf is None else gf.name().replace("torch::", "gradtrack::")
        info.append((name, qualified, o.requires_grad, o.is_leaf))
    return info


@pytest.mark.parametrize("spec,sample,dtype", GRAD_FN)
def test_grad_fn_matches_torch(torch, spec, sample, dtype):
    arrays = base_arrays(spec, sample, dtype)
    assert _graph_info(GT, spec, sample, arrays) == _graph_info(torch, spec, sample, arrays)


# ---- (5) double backward ---------------------------------------------------------------------

def _double_backward(lib, spec, sample, arrays, seed):
    xs = leaves(lib, sample, arrays, requires_grad=True)
    req = [x for x in xs if x.requires_grad]
    outs = float_outputs(spec.fn(lib, *apply_views(sample, xs)))
    first = lib.autograd.grad(outs, req, _upstream(lib, outs, seed), create_graph=True)
    weights = _upstream(lib, first, seed + 1)
    total = sum((g * w).sum() for g, w in zip(first, weights))
    second = lib.autograd.grad(total, req, allow_unused=True)
    return first, second


@pytest.mark.parametrize("spec,sample", GRADGRAD)
def test_double_backward_matches_torch(torch, spec, sample):
    arrays = base_arrays(spec, sample, "float64")
    seed = _seed("gradgrad", spec.name, sample.id)
    first, second = _double_backward(GT, spec, sample, arrays, seed)
    t_first, t_second = _double_backward(torch, spec, sample, arrays, seed)
    for g, tg in zip(first, t_first):
        assert g.requires_grad == tg.requires_grad
        assert_values(to_np(g), tg.detach().numpy(), 1e-7, 1e-9, "first: ")
    for g, tg in zip(second, t_second):
        assert (g is None) == (tg is None)
        if tg is not None:
            assert_values(to_np(g), tg.numpy(force=True), 1e-7, 1e-9, "second: ")


def _first_plain_sample(spec):
    """The first sample without 0-d or empty inputs."""
    return next(s for s in spec.samples if all(a.base and 0 not in a.base for a in s.args))


@pytest.mark.parametrize("name", sorted({p.values[0].name for p in GRADGRAD}))
def test_gradgradcheck(name):
    spec = next(s for s in OPS if s.name == name)
    sample = _first_plain_sample(spec)
    xs = leaves(GT, sample, base_arrays(spec, sample, "float64"), requires_grad=True)
    assert GT.autograd.gradgradcheck(_gradcheck_fn(spec, sample), tuple(xs))


# ---- gradcheck must catch wrong gradients ----------------------------------------------------

def _x64():
    return GT.tensor([0.5, -1.25, 2.0], dtype=GT.float64, requires_grad=True)


def _detached_factor(x):
    return x * x.detach()          # true derivative 2x, autograd says x


def _hooked(x):
    y = x * 2
    y.register_hook(lambda g: g * 3)   # autograd says 6, finite differences 2
    return y


@pytest.mark.parametrize("broken", [_detached_factor, _hooked], ids=["detach", "hook"])
def test_gradcheck_catches_wrong_gradient(broken):
    assert GT.autograd.gradcheck(broken, (_x64(),), raise_exception=False) is False
    with pytest.raises(GT.autograd.GradcheckError):
        GT.autograd.gradcheck(broken, (_x64(),))
    assert issubclass(GT.autograd.GradcheckError, RuntimeError)


def test_gradcheck_accepts_correct_gradient():
    assert GT.autograd.gradcheck(lambda x: (x * x).sin(), (_x64(),)) is True


def test_gradcheck_accepts_non_contiguous_input():
    # torch.autograd.gradcheck accepts any strided input
    x = GT.tensor([[0.5, 1.0], [-2.0, 0.25]], dtype=GT.float64).t().requires_grad_()
    assert GT.autograd.gradcheck(lambda t: t.exp(), (x,))


def test_gradgradcheck_catches_wrong_second_derivative():
    def broken(x):
        return x * x * x.detach()    # autograd's x-derivative of 2x*x.detach() is 2x, not 4x
    assert GT.autograd.gradgradcheck(broken, (_x64(),), raise_exception=False) is False


# ---- factories -------------------------------------------------------------------------------

CREATE = [pytest.param(spec, id=spec.name) for spec in CREATION]


@pytest.mark.parametrize("spec", CREATE)
def test_creation_matches_numpy(spec):
    out = spec.fn(GT)
    assert isinstance(out, GT.Tensor)
    assert out.is_leaf and not out.requires_grad and out.grad_fn is None
    if spec.ref is None:
        return
    ref = spec.ref()
    assert out.dtype.is_floating_point == (ref.dtype.kind == "f")
    assert_values(to_np(out), ref, spec.rtol, spec.atol)


@pytest.mark.parametrize("spec", CREATE)
def test_creation_matches_torch(torch, spec):
    out, expected = spec.fn(GT), spec.fn(torch)
    assert str(out.dtype) == str(expected.dtype).replace("torch.", "gradtrack.")
    assert tuple(out.shape) == tuple(expected.shape)
    assert out.is_contiguous() == expected.is_contiguous()
    assert out.stride() == expected.stride()
    if spec.ref is not None:
        assert_values(to_np(out), expected.numpy(), spec.rtol, spec.atol)


FACTORIES_RG = {
    "zeros": lambda lib: lib.zeros(2, requires_grad=True),
    "ones": lambda lib: lib.ones((2, 2), dtype=lib.float64, requires_grad=True),
    "full": lambda lib: lib.full((2,), 1.5, requires_grad=True),
    "empty": lambda lib: lib.empty(3, requires_grad=True),
    "arange": lambda lib: lib.arange(0.0, 2.0, 0.5, requires_grad=True),
    "linspace": lambda lib: lib.linspace(0, 1, 3, requires_grad=True),
    "eye": lambda lib: lib.eye(2, requires_grad=True),
    "tensor": lambda lib: lib.tensor([1.0, 2.0], requires_grad=True),
    "zeros_like": lambda lib: lib.zeros_like(lib.ones(2), requires_grad=True),
    "rand": lambda lib: lib.rand(2, 3, requires_grad=True),
    "randn": lambda lib: lib.randn(4, dtype=lib.float64, requires_grad=True),
}


@pytest.mark.parametrize("name", sorted(FACTORIES_RG))
def test_factory_requires_grad_makes_leaf(name):
    t = FACTORIES_RG[name](GT)
    assert t.requires_grad and t.is_leaf and t.grad_fn is None
    (t * 2).sum().backward()
    assert_values(to_np(t.grad), np.full(tuple(t.shape), 2.0), 0, 0)


def test_from_numpy_aliases_both_ways():
    a = np.arange(6.0).reshape(2, 3)
    t = GT.from_numpy(a)
    assert t.dtype is GT.float64 and tuple(t.shape) == (2, 3)
    assert t.data_ptr() == a.ctypes.data
    a[0, 0] = 100.0
    assert t[0, 0].item() == 100.0
    t[1, 2] = -5.0
    assert a[1, 2] == -5.0
    t.add_(1)
    assert a[0, 1] == 2.0
    assert t._version == 2


def test_from_numpy_keeps_numpy_strides():
    a = np.arange(12, dtype=np.int32).reshape(3, 4)[:, ::2]
    t = GT.from_numpy(a)
    assert t.stride() == (4, 2)
    a[2, 1] = 99
    assert t[2, 1].item() == 99


def test_tensor_copies_numpy_input():
    a = np.ones(3)
    t = GT.tensor(a)
    a[0] = 7.0
    assert t[0].item() == 1.0
    assert t.data_ptr() != a.ctypes.data


def test_as_tensor_aliases_numpy_of_same_dtype(torch):
    a = np.zeros(3, dtype=np.float32)
    t, e = GT.as_tensor(a), torch.as_tensor(a)
    a[1] = 4.0
    assert e[1].item() == 4.0
    assert t[1].item() == 4.0


def test_as_tensor_returns_same_tensor():
    x = GT.ones(2)
    assert GT.as_tensor(x) is x
    assert GT.as_tensor(x, dtype=GT.float32) is x
    y = GT.as_tensor(x, dtype=GT.float64)
    assert y.dtype is GT.float64 and y is not x


def test_op_table_is_broad():
    names = {s.name for s in OPS}
    for required in ("add", "sub", "mul", "div", "div_trunc", "div_floor", "pow_scalar_2",
                     "pow_tensor", "rpow_scalar", "matmul", "mm", "bmm", "mv", "dot", "outer",
                     "log_softmax", "softmax", "gather", "scatter_add", "index_select",
                     "masked_fill", "where", "clamp", "clamp_tensor", "maximum", "minimum",
                     "sum", "mean", "max_dim", "argmax", "amax", "any", "all", "prod",
                     "cat", "stack", "split", "chunk", "unbind", "getitem_mask_full"):
        assert required in names
    assert len(FORWARD) > 1000 and len(GRADCHECK) > 200 and len(CREATE) > 50


# The dense float reductions run in vector kernels (csrc/kernels/simd.cpp): full vectors, a
# tail, and NaN/inf anywhere (NaN wins max/min; inf alone must not count as NaN).
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [1, 31, 64, 65, 127, 128, 129, 4095, 4096, 4097, 70001])
@pytest.mark.parametrize("special", [None, "nan_mid", "nan_first", "nan_last", "inf", "-inf"])
def test_vector_reductions_match_numpy_and_torch(dtype, n, special):
    x = np.random.default_rng(n).standard_normal(n).astype(dtype)
    where = {"nan_mid": n // 2, "nan_first": 0, "nan_last": n - 1, "inf": n // 3, "-inf": n // 3}
    if special:
        x[where[special]] = {"inf": np.inf, "-inf": -np.inf}.get(special, np.nan)
    a = gradtrack.from_numpy(x.copy())
    for op in ("max", "min"):
        got = getattr(a, op)().item()
        want = float(getattr(np, op)(x))  # numpy's max/min propagate NaN too
        assert repr(got) == repr(want) or (got != got and want != want), (op, got, want)
    total = a.sum().item()
    exact = float(np.sum(x.astype(np.float64)))
    if special and special.startswith("nan"):
        assert total != total
    else:
        assert total == pytest.approx(exact, rel=1e-6, abs=1e-4)
    assert a.view(1, n).max(1).values.item() == pytest.approx(a.max().item(), nan_ok=True)


def test_float32_exp_vector_kernel_accuracy_and_edges():
    # Dense float32 exp runs a vector kernel: with AVX-512 on every input, elsewhere a polynomial
    # over [-87, 88] whose out-of-range blocks (overflow, subnormal results, NaN, inf) fall back
    # to std::exp, which the strided path always uses. Either way: within 2 ulp of the float64
    # result (subnormal spacing below 2**-126), inf on overflow.
    x = np.concatenate([np.linspace(-110, 95, 300_007, dtype=np.float32),
                        np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 88.0, -87.0, 88.7, 88.8],
                                 dtype=np.float32)])
    dense = gradtrack.from_numpy(x.copy()).exp().numpy()
    strided = gradtrack.from_numpy(np.stack([x, x], 1).copy())[:, 0].exp().numpy()
    with np.errstate(over="ignore"):
        exact = np.exp(x.astype(np.float64))
        rounded = exact.astype(np.float32)
    finite = np.isfinite(rounded)
    ulp = np.spacing(rounded[finite]).astype(np.float64)
    for got in (dense, strided):
        assert np.max(np.abs(got[finite] - exact[finite]) / ulp) <= 2.0
        assert np.all(got[np.isinf(rounded)] == np.inf)
    assert np.isnan(dense[-9]) and dense[-8] == np.inf and dense[-7] == 0.0
    assert dense[-6] == 1.0 and dense[-5] == 1.0 and dense[-1] == np.inf
    y = gradtrack.from_numpy(x.copy())
    y.exp_()  # in place: the kernel reads a block before it writes it
    assert np.array_equal(y.numpy(), dense, equal_nan=True)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_relu_keeps_negative_zero_and_nan(dtype):
    # PyTorch's relu is clamp_min(x, 0): -0.0 and NaN come back unchanged, in and out of place.
    x = np.array([-0.0, 0.0, -1.0, 2.0, np.nan, -np.inf, np.inf], dtype=dtype)
    expected = ["-0.0", "0.0", "0.0", "2.0", "nan", "0.0", "inf"]
    out = gradtrack.from_numpy(x.copy()).relu()
    inplace = gradtrack.from_numpy(x.copy())
    inplace.relu_()
    assert [repr(v) for v in out.tolist()] == expected
    assert [repr(v) for v in inplace.tolist()] == expected
