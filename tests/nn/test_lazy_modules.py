"""Lazy modules against torch: construction, repr, materialization on the first call (the
class becomes the non-lazy one, the parameters are the same objects, initialized from the
random stream as torch's), state dicts either way, optimizers built before the first call,
errors; and the module call's fast path once initialized."""

import copy

import numpy as np
import pytest

import gradtrack

torch = pytest.importorskip("torch")

LAZY = [
    ("LazyLinear", (3,), (2, 4)),
    ("LazyConv1d", (4, 3), (2, 2, 6)),
    ("LazyConv2d", (4, 3), (2, 2, 5, 5)),
    ("LazyConv3d", (2, 2), (1, 3, 3, 3, 3)),
    ("LazyConvTranspose1d", (3, 2), (2, 2, 5)),
    ("LazyConvTranspose2d", (2, 3), (1, 3, 3, 4)),
    ("LazyConvTranspose3d", (2, 2), (1, 2, 2, 3, 2)),
    ("LazyBatchNorm1d", (), (4, 3)),
    ("LazyBatchNorm2d", (), (2, 3, 2, 2)),
    ("LazyBatchNorm3d", (), (2, 2, 2, 2, 2)),
    ("LazyInstanceNorm1d", (), (2, 3, 4)),
    ("LazyInstanceNorm2d", (), (2, 3, 3, 3)),
    ("LazyInstanceNorm3d", (), (1, 2, 2, 2, 2)),
]


def _state(module):
    return {k: v.detach().numpy() for k, v in module.state_dict().items()}


@pytest.mark.parametrize("name,args,shape", LAZY)
def test_first_call_materializes_as_torch(name, args, shape):
    mods = {}
    for lib in (torch, gradtrack):
        lib.manual_seed(0)
        module = getattr(lib.nn, name)(*args)
        before = repr(module)
        assert module.has_uninitialized_params()
        weight_before = module._parameters.get("weight")
        x = lib.tensor(np.random.default_rng(1).standard_normal(shape), dtype=lib.float32)
        out = module(x)
        mods[lib.__name__] = (module, before, out, weight_before)
    (t, t_repr, t_out, _), (g, g_repr, g_out, g_weight) = mods["torch"], mods["gradtrack"]
    assert g_repr == t_repr
    assert repr(g) == repr(t)
    assert type(g).__name__ == type(t).__name__ == name[4:]
    assert not g.has_uninitialized_params() if hasattr(g, "has_uninitialized_params") else True
    assert g._parameters.get("weight") is g_weight  # the same object, now a Parameter
    if g_weight is not None:
        assert type(g_weight) is gradtrack.nn.Parameter
    assert g._forward_pre_hooks == {} and "_has_hooks" not in g.__dict__
    assert not hasattr(g, "_initialize_hook") and not hasattr(g, "_load_hook")
    t_state, g_state = _state(t), _state(g)
    assert list(g_state) == list(t_state)
    for key in t_state:
        assert g_state[key].dtype == t_state[key].dtype, key
        np.testing.assert_allclose(g_state[key], t_state[key], rtol=1e-6, atol=1e-7,
                                   err_msg=key)
    np.testing.assert_allclose(g_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-5,
                               atol=1e-6)


def test_uninitialized_tensors_as_torch():
    for lib in (torch, gradtrack):
        p = lib.nn.UninitializedParameter()
        b = lib.nn.UninitializedBuffer()
        assert (repr(p), p.requires_grad, p.dtype) == ("<UninitializedParameter>", True,
                                                        lib.float32)
        assert (repr(b), b.requires_grad, b.persistent) == ("<UninitializedBuffer>", False,
                                                             True)
        with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized"):
            p.shape
        assert lib.nn.parameter.is_lazy(p) and lib.nn.parameter.is_lazy(b)
        assert isinstance(p, lib.nn.Parameter)
        p.materialize((2, 3))
        b.materialize((4,), dtype=lib.float64)
        assert type(p) is lib.nn.Parameter and tuple(p.shape) == (2, 3) and p.requires_grad
        # torch's becomes a plain tensor; gradtrack's a Buffer (its tensors hold no marks)
        assert type(b) is (lib.Tensor if lib is torch else lib.nn.Buffer)
        assert isinstance(b, lib.nn.Buffer) and isinstance(b, lib.Tensor)
        assert b.dtype == lib.float64 and tuple(b.shape) == (4,)
        assert not lib.nn.parameter.is_lazy(p)
    assert repr(copy.deepcopy(gradtrack.nn.LazyLinear(2))) == \
        repr(copy.deepcopy(torch.nn.LazyLinear(2)))


def test_optimizer_built_before_the_first_call_trains_the_materialized_parameters():
    results = []
    for lib in (torch, gradtrack):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.LazyLinear(4), lib.nn.ReLU(), lib.nn.LazyLinear(1))
        opt = lib.optim.SGD(model.parameters(), lr=0.1)
        x = lib.tensor(np.linspace(-1, 1, 12).reshape(4, 3), dtype=lib.float32)
        for _ in range(3):
            opt.zero_grad()
            model(x).pow(2).mean().backward()
            opt.step()
        results.append([p.detach().numpy().copy() for p in model.parameters()])
        assert opt.param_groups[0]["params"][0] is model[0].weight
    for g, t in zip(results[1], results[0]):
        np.testing.assert_allclose(g, t, rtol=1e-5, atol=1e-6)


def test_state_dicts_and_dtype_conversion():
    for lib in (torch, gradtrack):
        lazy = lib.nn.LazyLinear(2)
        state = lazy.state_dict()
        assert [repr(v) for v in state.values()] == ["<UninitializedParameter>"] * 2
        # loading a full checkpoint materializes the lazy parameters
        full = lib.nn.Linear(3, 2)
        lazy.load_state_dict(full.state_dict())
        assert tuple(lazy.weight.shape) == (2, 3) and type(lazy).__name__ == "LazyLinear"
        assert lib.equal(lazy.weight, full.weight)
        lazy(lib.ones(1, 3))  # infers nothing new: the loaded values stay
        assert type(lazy).__name__ == "Linear" and lib.equal(lazy.weight, full.weight)
        # .double() before the first call: materialized in float64
        norm = lib.nn.LazyBatchNorm1d().double()
        norm(lib.ones(2, 3, dtype=lib.float64))
        assert norm.running_mean.dtype == lib.float64 and norm.weight.dtype == lib.float64
        assert type(norm.running_mean) is lib.Tensor


def test_errors_as_torch():
    for lib in (torch, gradtrack):
        conv = lib.nn.LazyConv2d(4, 3)
        with pytest.raises(RuntimeError) as err:
            conv(lib.ones(5, 5))
        assert str(err.value) == ("Expected 3D (unbatched) or 4D (batched) input to LazyConv2d,"
                                  f" but got input of size: {lib.__name__}.Size([5, 5])")
        transposed = lib.nn.LazyConvTranspose1d(4, 3, groups=2)
        with pytest.raises(ValueError, match="^in_channels must be divisible by groups$"):
            transposed(lib.ones(1, 3, 5))
        with pytest.raises(NotImplementedError,
                           match="initialize_parameters is not implemented for Lazy"):
            type("Lazy", (lib.nn.modules.lazy.LazyModuleMixin, lib.nn.Module), {})()(1)


def test_a_module_that_never_was_lazy_gets_no_hooks():
    layer = gradtrack.nn.Linear(2, 2)
    assert "_has_hooks" not in layer.__dict__
    assert type(layer).__call__ is gradtrack.nn.Module.__call__


def test_pickle_deepcopy_and_misuse_as_torch():
    import pickle

    from helpers import error_of
    for lib in (torch, gradtrack):
        for restored in (pickle.loads(pickle.dumps(lib.nn.LazyLinear(2))),
                         copy.deepcopy(lib.nn.LazyLinear(2))):
            assert repr(restored) == "LazyLinear(in_features=0, out_features=2, bias=True)"
            restored(lib.ones(1, 3))
            assert repr(restored) == "Linear(in_features=3, out_features=2, bias=True)"
            assert len(restored._forward_pre_hooks) == 0
            if lib is gradtrack:
                assert "_has_hooks" not in restored.__dict__  # back on the fast path
    for call in [lambda lib: lib.nn.Linear(3, 2).load_state_dict(lib.nn.LazyLinear(2).state_dict()),
                 lambda lib: lib.nn.LazyLinear(2).share_memory(),
                 lambda lib: lib.nn.LazyBatchNorm1d()(lib.ones(2)),
                 lambda lib: lib.nn.LazyInstanceNorm1d()(lib.ones(3, 5)),
                 lambda lib: lib.nn.LazyBatchNorm2d()(lib.ones(2, 3, 4))]:
        assert error_of(lambda: call(gradtrack)) == error_of(lambda: call(torch))


@pytest.mark.parametrize("use", [lambda p: p + 1, lambda p: p.sum(), lambda p: p.numel(),
                                 lambda p: p[0], lambda p: p.dim(), lambda p: -p,
                                 lambda p: p.requires_grad_(False), lambda p: p @ p])
def test_an_uninitialized_parameter_refuses_use_as_torch(use):
    from helpers import error_of
    got, want = (error_of(lambda: use(lib.nn.UninitializedParameter()))
                 for lib in (gradtrack, torch))
    assert got[0] == want[0] == "ValueError"
    assert got[1].split(" in <")[0] == want[1].split(" in <")[0]
    assert got[1].split("objects>. ")[1] == want[1].split("objects>. ")[1]
    for lib in (torch, gradtrack):  # what stays allowed
        p = lib.nn.UninitializedParameter()
        assert (p.dtype, p.requires_grad, p.is_leaf, p.grad) == (lib.float32, True, True, None)
        assert p.double().dtype == lib.float64 and tuple(p.size()) == (0,)
