"""CatTransform, StackTransform and ReshapeTransform, and the cat and stack
constraints with their registry entries, against torch: values, inverses,
log_abs_det_jacobian and their gradients, domains and codomains, event dims, shapes,
reprs, caching, the errors, and a TransformedDistribution through each."""

import pytest
from dist_parity import agree, grads, seeded

import gradtrack

X = [[-1.5, 0.0, 0.25, 1.0], [2.0, -0.5, 3.0, -2.0], [0.5, 1.5, -0.25, 0.75]]
# exp, sigmoid and tanh kernels may round differently from torch's
ROUNDED = {"float32": 1e-5, "float64": 1e-13}


def _transform(lib, name, dtype="float32"):
    """The transform and an input in its domain."""
    T = lib.distributions.transforms
    dt = getattr(lib, dtype)
    x = lib.tensor(X, dtype=dt, requires_grad=True)
    exp, sig, aff = T.ExpTransform(), T.SigmoidTransform(), T.AffineTransform(1.0, -2.0)
    vec = T.AffineTransform(0.0, 3.0, event_dim=1)
    return {
        "cat_0": (T.CatTransform([exp, aff], dim=0, lengths=[1, 2]), x),
        "cat_last": (T.CatTransform([exp, sig, aff], dim=-1, lengths=[1, 2, 1]), x),
        "cat_1_default_lengths": (T.CatTransform([exp, sig, aff, T.identity_transform], dim=1), x),
        "cat_event": (T.CatTransform([T.IndependentTransform(exp, 1), vec], dim=0, lengths=[2, 1]), x),
        "cat_event_last": (T.CatTransform([exp, vec], dim=-1, lengths=[2, 2]), x),
        "cat_nested": (T.CatTransform([T.CatTransform([exp, aff], 0, [1, 1]), sig], 0, [2, 1]), x),
        "stack_0": (T.StackTransform([exp, aff, sig], dim=0), x),
        "stack_last": (T.StackTransform([exp, sig, aff, T.TanhTransform()], dim=-1), x),
        "stack_event": (T.StackTransform([vec, T.IndependentTransform(exp, 1), vec], dim=0), x),
        "reshape": (T.ReshapeTransform((4,), (2, 2)), x),
        "reshape_all": (T.ReshapeTransform((3, 4), (12,)), x),
        "reshape_cache": (T.ReshapeTransform([2, 2], [4], cache_size=1),
                          lib.tensor(X, dtype=dt, requires_grad=True).view(3, 2, 2)),
    }[name]


NAMES = ["cat_0", "cat_last", "cat_1_default_lengths", "cat_event", "cat_event_last", "cat_nested",
         "stack_0", "stack_last", "stack_event", "reshape", "reshape_all", "reshape_cache"]


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
        d, c = t.domain, t.codomain
        return [repr(t), repr(inv), repr(d), repr(c), d.event_dim, c.event_dim, d.is_discrete,
                t.bijective, _try(lambda: t.event_dim), repr(inv.domain), inv.bijective,
                _try(lambda: t.sign), inv.inv is t, t == t, t != t.inv, t._cache_size,
                repr(getattr(d, "cseq", None)), getattr(t, "lengths", None), getattr(t, "dim", None),
                _try(lambda: t.length), t.with_cache(1)._cache_size, t.with_cache(t._cache_size) is t,
                [p._cache_size for p in getattr(t.with_cache(1), "transforms", [])],
                [_try(lambda: t.forward_shape((3, 4))), _try(lambda: t.inverse_shape((3, 4)))]]
    agree(scenario)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_values_inverses_and_jacobians(torch, name, dtype):
    def scenario(lib):
        t, x = _transform(lib, name, dtype)
        y = t(x)
        out = [y, grads(lib, y * y, [x])]
        back = t.inv(y)
        out += [back, grads(lib, back, [x]), back is x]
        # blocks of different event dims along an event dim cannot be joined (cat_event_last)
        ladj = _try(lambda: t.log_abs_det_jacobian(x, y))
        out += [ladj, _try(lambda: t.inv.log_abs_det_jacobian(y, x)),
                _try(lambda: bool(t.codomain.check(y).all())), _try(lambda: t.domain.check(x).shape)]
        if not isinstance(ladj, tuple) and ladj.requires_grad:
            out.append(grads(lib, ladj, [x]))
        return out
    agree(scenario, ROUNDED[dtype])


@pytest.mark.parametrize("case", [
    "cat_not_transforms", "cat_lengths", "cat_dim", "cat_size", "cat_inverse_size", "cat_jacobian_dim",
    "cat_jacobian_size", "stack_not_transforms", "stack_dim", "stack_size", "stack_inverse_size",
    "stack_jacobian_size", "reshape_numel", "reshape_too_few", "reshape_mismatch",
    "reshape_inverse_mismatch", "constraint_cat", "constraint_cat_lengths", "constraint_stack",
    "constraint_cat_dim", "constraint_stack_dim"])
def test_errors(torch, case):
    def scenario(lib):
        T, C = lib.distributions.transforms, lib.distributions.constraints
        exp = T.ExpTransform()
        x = lib.zeros(3, 4)
        cat = T.CatTransform([exp, exp], dim=1, lengths=[2, 2])
        stack = T.StackTransform([exp, exp], dim=0)
        return {
            "cat_not_transforms": lambda: T.CatTransform([exp, 1]),
            "cat_lengths": lambda: T.CatTransform([exp], lengths=[1, 2]),
            "cat_dim": lambda: T.CatTransform([exp], dim=2)(lib.zeros(2)),
            "cat_size": lambda: cat(lib.zeros(3, 5)),
            "cat_inverse_size": lambda: cat.inv(lib.zeros(3, 3)),
            "cat_jacobian_dim": lambda: cat.log_abs_det_jacobian(lib.zeros(4), x),
            "cat_jacobian_size": lambda: cat.log_abs_det_jacobian(x, lib.zeros(3, 5)),
            "stack_not_transforms": lambda: T.StackTransform(["exp"]),
            "stack_dim": lambda: T.StackTransform([exp], dim=-3)(x),
            "stack_size": lambda: stack(x),
            "stack_inverse_size": lambda: stack.inv(lib.zeros(1, 4)),
            "stack_jacobian_size": lambda: stack.log_abs_det_jacobian(lib.zeros(2, 4), x),
            "reshape_numel": lambda: T.ReshapeTransform((2, 3), (5,)),
            "reshape_too_few": lambda: T.ReshapeTransform((2, 3), (6,)).forward_shape((3,)),
            "reshape_mismatch": lambda: T.ReshapeTransform((2, 3), (6,)).forward_shape((3, 2)),
            "reshape_inverse_mismatch": lambda: T.ReshapeTransform((2, 3), (6,)).inverse_shape(
                lib.Size([4, 5])),
            "constraint_cat": lambda: C.cat([C.real, "real"]),
            "constraint_cat_lengths": lambda: C.cat([C.real], lengths=[]),
            "constraint_stack": lambda: C.stack([C.real, None]),
            "constraint_cat_dim": lambda: C.cat([C.real], dim=1).check(lib.zeros(2)),
            "constraint_stack_dim": lambda: C.stack([C.real], dim=1).check(lib.zeros(2)),
        }[case]()
    agree(scenario, raises=True)


def test_constraints(torch):
    def scenario(lib):
        C = lib.distributions.constraints
        v = lib.tensor([[0.5, -1.0, 2.0], [0.0, 3.0, float("nan")]])
        out = []
        for c in (C.cat([C.positive, C.real], dim=-1, lengths=[1, 2]), C.cat([C.unit_interval, C.real], 0),
                  C.stack([C.real, C.positive, C.boolean], dim=1), C.stack([C.positive, C.real], 0),
                  C.stack([C.real_vector, C.real_vector], 0), C.cat([C.real_vector, C.simplex], 0, [1, 1])):
            out += [repr(c), c.event_dim, c.is_discrete, _try(lambda: c.check(v)),
                    repr(c.cseq), getattr(c, "lengths", None), c.dim]
        out.append(sorted(n for n in ("cat", "stack") if n in C.__all__))
        return out
    agree(scenario)


def test_registries(torch):
    def scenario(lib):
        D = lib.distributions
        C = D.constraints
        cat = C.cat([C.positive, C.interval(-1.0, 1.0), C.real], dim=-1, lengths=[1, 2, 1])
        stack = C.stack([C.positive, C.interval(0.0, 2.0), C.real], dim=0)
        x = lib.tensor(X, requires_grad=True)
        out = []
        for registry in (D.biject_to, D.transform_to):
            for constraint in (cat, stack):
                t = registry(constraint)
                y = t(x)
                out += [repr(t), repr([type(p).__name__ for p in t.transforms]), y, grads(lib, y, [x]),
                        bool(constraint.check(y).all()), t.inv(y), _try(lambda: t.log_abs_det_jacobian(x, y))]
        return out
    agree(scenario, 1e-5)


@pytest.mark.parametrize("shape", [(), (2,)])
def test_transformed_distributions(torch, shape):
    def scenario(lib):
        D, T = lib.distributions, lib.distributions.transforms
        loc = lib.tensor(X, requires_grad=True)
        scale = lib.tensor([0.5, 1.0, 2.0, 1.5], requires_grad=True)
        out = []
        stack = T.StackTransform([T.ExpTransform(), T.AffineTransform(1.0, 2.0), T.TanhTransform()], dim=0)
        # a stack along dim 0 sees the sample dim there: only plain draws fit it
        for t in [T.CatTransform([T.ExpTransform(), T.SigmoidTransform()], dim=-1, lengths=[3, 1]),
                  T.ReshapeTransform((4,), (2, 2))] + ([stack] if shape == () else []):
            d = D.TransformedDistribution(D.Normal(loc, scale), [t])
            v = d.rsample(shape)
            lp = d.log_prob(v.detach())
            out += [d.batch_shape, d.event_shape, repr(d.support), v, lp, grads(lib, lp, [loc, scale])]
            out += [d.expand(lib.Size([5]) + d.batch_shape).batch_shape]
        return out + [lib.rand(2)]
    agree(seeded(scenario, 4), 1e-5)


def test_gradcheck_in_float64():
    T = gradtrack.distributions.transforms
    x = gradtrack.tensor([[-0.7, 0.2, 1.1, 0.4], [0.3, -1.2, 0.5, 2.0]], dtype=gradtrack.float64,
                         requires_grad=True)
    for t in (T.CatTransform([T.ExpTransform(), T.SigmoidTransform()], dim=1, lengths=[1, 3]),
              T.StackTransform([T.TanhTransform(), T.AffineTransform(0.5, 3.0)], dim=0),
              T.ReshapeTransform((4,), (2, 2))):
        assert gradtrack.autograd.gradcheck(t, (x,))
        assert gradtrack.autograd.gradcheck(lambda a, t=t: t.inv(t(a)), (x,))
