"""distributions.transforms and biject_to/transform_to against torch: each transform's
values, inverse, log_abs_det_jacobian and their gradients, domains, signs, shapes,
reprs, equality and caching; compositions and their event dims; the registries'
transforms for each constraint, and the errors."""

import pytest
from dist_parity import agree, grads

import gradtrack

X = [[-1.5, 0.0, 0.25], [2.0, -0.5, 3.0]]
POSITIVE = [[0.5, 1.0, 2.5], [3.0, 0.1, 4.0]]
UNIT = [[0.1, 0.5, 0.9], [0.25, 0.999, 0.01]]
# sigmoid, softplus, tanh, atanh and log1p kernels may round differently from torch's
# (tanh's float32 gradient by up to 2e-6)
ROUNDED = {"float32": 1e-5, "float64": 1e-14}


def _transform(lib, name, dtype="float32"):
    """The transform and an input in its domain."""
    T = lib.distributions.transforms
    dt = getattr(lib, dtype)
    real = lib.tensor(X, dtype=dt, requires_grad=True)
    positive = lib.tensor(POSITIVE, dtype=dt, requires_grad=True)
    return {
        "exp": (T.ExpTransform(), real),
        "power": (T.PowerTransform(lib.tensor([2.0, -0.5, 1.5], dtype=dt)), positive),
        "power_number": (T.PowerTransform(3.0), positive),
        "sigmoid": (T.SigmoidTransform(), real),
        "tanh": (T.TanhTransform(), real),
        "abs": (T.AbsTransform(), real),
        "affine": (T.AffineTransform(1.0, lib.tensor([2.0, -0.5, 3.0], dtype=dt)), real),
        "affine_number": (T.AffineTransform(lib.tensor(0.5, dtype=dt), -2.0), real),
        "affine_event": (T.AffineTransform(lib.zeros(3, dtype=dt), 2.0, event_dim=1), real),
        "affine_event_tensor": (T.AffineTransform(0.0, lib.tensor([1.0, 2.0, 4.0], dtype=dt),
                                                  event_dim=1), real),
        "softmax": (T.SoftmaxTransform(), real),
        "compose": (T.ComposeTransform([T.ExpTransform(), T.AffineTransform(1.0, 2.0)]), real),
        "compose_inverse": (T.ComposeTransform([T.SigmoidTransform().inv, T.ExpTransform()]),
                            lib.tensor(UNIT, dtype=dt, requires_grad=True)),
        "compose_vector": (T.ComposeTransform([T.ExpTransform(), T.AffineTransform(
            0.0, 3.0, event_dim=1)]), real),
        "identity": (T.identity_transform, real),
        "independent": (T.IndependentTransform(T.ExpTransform(), 1), real),
        "independent_2": (T.IndependentTransform(T.TanhTransform(), 2), real),
        "stick_breaking": (T.StickBreakingTransform(), lib.tensor(
            [[-1.0, 0.5, 2.0], [0.3, -0.7, 1.2]], dtype=dt, requires_grad=True)),
        "lower_cholesky": (T.LowerCholeskyTransform(), lib.tensor(
            [[[0.5, 2.0], [-1.0, 0.25]], [[-0.5, 0.0], [3.0, 1.0]]], dtype=dt, requires_grad=True)),
        "positive_definite": (T.PositiveDefiniteTransform(), lib.tensor(
            [[[0.5, 2.0], [-1.0, 0.25]], [[-0.5, 0.0], [3.0, 1.0]]], dtype=dt, requires_grad=True)),
    }[name]


NAMES = ["exp", "power", "power_number", "sigmoid", "tanh", "abs", "affine", "affine_number",
         "affine_event", "affine_event_tensor", "softmax", "compose", "compose_inverse",
         "compose_vector", "identity", "independent", "independent_2", "stick_breaking",
         "lower_cholesky", "positive_definite"]
NOT_BIJECTIVE = {"abs", "softmax", "lower_cholesky", "positive_definite"}


def _try(f):
    try:
        return f()
    except Exception as e:  # noqa: BLE001 - the error is compared
        return (type(e).__name__, str(e).replace("torch", "gradtrack"))


@pytest.mark.parametrize("name", NAMES)
def test_attributes_and_reprs(torch, name):
    def scenario(lib):
        t, _ = _transform(lib, name)
        inv = t.inv
        return [repr(t), repr(inv), repr(t.domain), repr(t.codomain), t.bijective,
                _try(lambda: t.event_dim), repr(inv.domain), repr(inv.codomain), inv.bijective,
                _try(lambda: t.sign), _try(lambda: inv.sign), inv.inv is t, t.inv is inv,
                t == t, t != t.inv, inv == t.inv, t._cache_size,
                [t.forward_shape((2, 3)), t.inverse_shape((2, 3))]]
    agree(scenario)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_values_inverses_and_jacobians(torch, name, dtype):
    def scenario(lib):
        t, x = _transform(lib, name, dtype)
        y = t(x)
        out = [y, grads(lib, y * y, [x])]
        back = t.inv(y)
        out += [back, grads(lib, back, [x])]
        if name not in NOT_BIJECTIVE:
            ladj = t.log_abs_det_jacobian(x, y)
            iladj = t.inv.log_abs_det_jacobian(y, x)
            out += [ladj, iladj]
            if ladj.requires_grad:  # an affine map's does not depend on x
                out.append(grads(lib, ladj, [x]))
        else:
            out.append(_try(lambda: t.log_abs_det_jacobian(x, y)))
        return out
    agree(scenario, ROUNDED[dtype])


def test_sigmoid_clamps_and_tanh_stays_finite(torch):
    def scenario(lib):
        T = lib.distributions.transforms
        x = lib.tensor([-200.0, -30.0, 0.0, 30.0, 200.0])
        s, h = T.SigmoidTransform(), T.TanhTransform()
        return [s(x), s.inv(s(x)), s.inv(lib.tensor([0.0, 1.0])), s.log_abs_det_jacobian(x, s(x)),
                h(x), h.log_abs_det_jacobian(x, h(x))]
    agree(scenario, 1e-6)


def test_cache_returns_the_very_input(torch):
    def scenario(lib):
        T = lib.distributions.transforms
        x = lib.tensor([0.5, 1.0])
        cached, plain = T.ExpTransform(cache_size=1), T.ExpTransform()
        y = cached(x)
        compose = T.ComposeTransform([T.ExpTransform(), T.TanhTransform()], cache_size=1)
        z = compose(x)
        return [cached.inv(y) is x, cached(x) is y, plain.inv(plain(x)) is x,
                cached.with_cache(1) is cached, plain.with_cache(0) is plain,
                plain.with_cache()._cache_size, cached.inv.with_cache(0)._cache_size,
                compose.inv(z) is x, [p._cache_size for p in compose.parts],
                compose.with_cache(1) is compose, compose.with_cache(0)._cache_size,
                T.PowerTransform(2.0).with_cache()._cache_size,
                T.AffineTransform(0.0, 1.0, event_dim=1).with_cache().event_dim,
                T.IndependentTransform(T.ExpTransform(), 1).with_cache(1).base_transform._cache_size]
    agree(scenario)


@pytest.mark.parametrize("case", ["cache_size", "subclass_with_cache", "too_few_dims",
                                  "too_few_dims_inverse", "softmax_shape", "softmax_inverse_shape",
                                  "base_call", "base_sign", "base_jacobian", "hash"])
def test_errors(torch, case):
    def scenario(lib):
        T = lib.distributions.transforms

        class Shift(T.Transform):
            def __init__(self, by, cache_size=0):
                super().__init__(cache_size=cache_size)
                self.by = by
        return {
            "cache_size": lambda: T.ExpTransform(cache_size=2),
            "subclass_with_cache": lambda: Shift(1.0).with_cache(),
            "too_few_dims": lambda: T.IndependentTransform(T.ExpTransform(), 2)(lib.zeros(3)),
            "too_few_dims_inverse": lambda: T.IndependentTransform(T.ExpTransform(), 1).inv(
                lib.tensor(1.0)),
            "softmax_shape": lambda: T.SoftmaxTransform().forward_shape(()),
            "softmax_inverse_shape": lambda: T.SoftmaxTransform().inverse_shape(()),
            "base_call": lambda: T.Transform()(lib.zeros(1)),
            "base_sign": lambda: T.Transform().sign,
            "base_jacobian": lambda: T.Transform().log_abs_det_jacobian(lib.zeros(1), lib.zeros(1)),
            "hash": lambda: hash(T.ExpTransform()),
        }[case]()
    agree(scenario, raises=True)


def test_equality(torch):
    def scenario(lib):
        T = lib.distributions.transforms
        a = T.AffineTransform(1.0, 2.0)
        return [T.ExpTransform() == T.ExpTransform(), T.ExpTransform() == T.TanhTransform(),
                a == T.AffineTransform(1.0, 2.0), a == T.AffineTransform(1.0, 3.0),
                a == T.AffineTransform(lib.tensor([1.0, 1.0]), 2.0),
                a == T.AffineTransform(lib.tensor([1.0, 0.0]), 2.0),
                T.PowerTransform(2.0) == T.PowerTransform(lib.tensor([2.0, 2.0])),
                T.PowerTransform(2.0) == T.PowerTransform(3.0),
                T.ExpTransform().inv == T.ExpTransform().inv, T.ExpTransform().inv == a,
                T.ComposeTransform([a]) == T.ComposeTransform([T.AffineTransform(1.0, 2.0)]),
                T.ComposeTransform([a]) == a, T.Transform() == T.Transform(),
                T.SigmoidTransform() != T.SigmoidTransform(), T.AbsTransform() == T.AbsTransform(),
                T.SoftmaxTransform() == T.SoftmaxTransform()]
    agree(scenario)


def test_compose_event_dims_and_empty(torch):
    def scenario(lib):
        T = lib.distributions.transforms
        vec = T.AffineTransform(0.0, 2.0, event_dim=1)
        mat = T.AffineTransform(0.0, 2.0, event_dim=2)
        out = []
        for parts in ([T.ExpTransform(), vec], [vec, T.ExpTransform()], [mat, vec, T.ExpTransform()],
                      [T.SoftmaxTransform(), T.ExpTransform()], []):
            c = T.ComposeTransform(parts)
            x = lib.arange(6.0).reshape(2, 3) / 4
            out += [repr(c.domain), repr(c.codomain), _try(lambda: c.bijective), _try(lambda: c.sign),
                    repr(c.inv), _try(lambda: c.log_abs_det_jacobian(x, c(x)))]
        return out
    agree(scenario)


CONSTRAINTS = {
    "real": lambda c: c.real, "real_vector": lambda c: c.real_vector,
    "independent": lambda c: c.independent(c.positive, 2), "positive": lambda c: c.positive,
    "nonnegative": lambda c: c.nonnegative, "greater_than": lambda c: c.greater_than(1.5),
    "greater_than_eq": lambda c: c.greater_than_eq(-1.0), "less_than": lambda c: c.less_than(2.0),
    "unit_interval": lambda c: c.unit_interval, "interval": lambda c: c.interval(-1.0, 3.0),
    "half_open_interval": lambda c: c.half_open_interval(0.0, 2.0),
    "tensor_interval": lambda c: c.interval(_zeros_like_library(c), 1.0),
    "simplex": lambda c: c.simplex,
    "lower_cholesky": lambda c: c.lower_cholesky,
    "positive_definite": lambda c: c.positive_definite,
    "positive_semidefinite": lambda c: c.positive_semidefinite,
}


def _zeros_like_library(c):
    # a tensor bound, of the library the constraint module belongs to
    lib = __import__(c.__name__.split(".")[0])
    return lib.zeros(3)


@pytest.mark.parametrize("name", sorted(CONSTRAINTS))
@pytest.mark.parametrize("registry", ["biject_to", "transform_to"])
def test_registries(torch, name, registry):
    def scenario(lib):
        D = lib.distributions
        constraint = CONSTRAINTS[name](D.constraints)
        t = _try(lambda: getattr(D, registry)(constraint))
        if isinstance(t, tuple):
            return t
        x = lib.tensor(X if constraint.event_dim < 2 else [X[0][:2], X[1][:2]],
                       requires_grad=True)
        y = t(x)
        out = [repr(t), y, grads(lib, y, [x]), bool(constraint.check(y).all()), t.inv(y)]
        if t.bijective:
            out.append(t.log_abs_det_jacobian(x, y))
        return out
    agree(scenario, 1e-6)


def test_registry_errors_and_registration(torch):
    def scenario(lib):
        D = lib.distributions
        registry = D.constraint_registry.ConstraintRegistry()
        registry.register(D.constraints.positive)(lambda c: "positive " + repr(c))
        registry.register(type(D.constraints.boolean), lambda c: "boolean")
        return [registry(D.constraints.greater_than(3.0)), registry(D.constraints.boolean),
                _try(lambda: registry(D.constraints.real)),
                _try(lambda: registry.register(int, lambda c: None)),
                _try(lambda: registry.register("real", lambda c: None)),
                _try(lambda: D.biject_to(D.constraints.boolean)),
                _try(lambda: D.transform_to(D.constraints.integer_interval(0, 2))),
                D.biject_to is D.constraint_registry.biject_to]
    agree(scenario)


def test_gradcheck_transforms_in_float64():
    T = gradtrack.distributions.transforms
    dt = gradtrack.float64
    x = gradtrack.tensor([[-0.7, 0.2, 1.1]], dtype=dt, requires_grad=True)
    p = gradtrack.tensor([[0.4, 1.3, 2.2]], dtype=dt, requires_grad=True)
    m = gradtrack.tensor([[0.4, -1.3], [2.2, 0.1]], dtype=dt, requires_grad=True)
    for t, v in ((T.ExpTransform(), x), (T.SigmoidTransform(), x), (T.TanhTransform(), x),
                 (T.PowerTransform(1.5), p), (T.AffineTransform(1.0, -2.0), x),
                 (T.SoftmaxTransform(), x), (T.StickBreakingTransform(), x),
                 (T.LowerCholeskyTransform(), m), (T.PositiveDefiniteTransform(), m)):
        assert gradtrack.autograd.gradcheck(t, (v,))
        if t.bijective:
            assert gradtrack.autograd.gradcheck(lambda a, t=t: t.log_abs_det_jacobian(a, t(a)), (v,))
