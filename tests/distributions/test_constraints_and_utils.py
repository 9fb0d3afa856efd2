"""distributions.constraints and distributions.utils against torch: each constraint's
repr, attributes and check; broadcasting, the probs/logits conversions and
lazy_property."""

import pytest
from dist_parity import agree, grads

import gradtrack

VALUES = [[-1.0, 0.0, 0.5, 1.0], [2.0, float("nan"), float("inf"), 3.0]]

CONSTRAINTS = {
    "real": lambda c: c.real,
    "positive": lambda c: c.positive,
    "nonnegative": lambda c: c.nonnegative,
    "greater_than": lambda c: c.greater_than(0.5),
    "greater_than_eq": lambda c: c.greater_than_eq(0.5),
    "less_than": lambda c: c.less_than(1.0),
    "interval": lambda c: c.interval(-1.0, 0.5),
    "half_open_interval": lambda c: c.half_open_interval(-1.0, 1.0),
    "unit_interval": lambda c: c.unit_interval,
    "boolean": lambda c: c.boolean,
    "integer_interval": lambda c: c.integer_interval(0, 2),
    "nonnegative_integer": lambda c: c.nonnegative_integer,
    "positive_integer": lambda c: c.positive_integer,
    "simplex": lambda c: c.simplex,
    "one_hot": lambda c: c.one_hot,
    "real_vector": lambda c: c.real_vector,
    "independent": lambda c: c.independent(c.positive, 2),
}


@pytest.mark.parametrize("name", sorted(CONSTRAINTS))
def test_constraint_repr_attributes_and_check(torch, name):
    def scenario(lib):
        c = CONSTRAINTS[name](lib.distributions.constraints)
        value = lib.tensor(VALUES)
        return [repr(c), c.is_discrete, c.event_dim, c.check(value),
                c.check(lib.tensor([[0.0, 1.0, 0.0], [0.25, 0.25, 0.5]])),
                isinstance(c, lib.distributions.constraints.Constraint)]
    agree(scenario)


def test_tensor_bounds(torch):
    def scenario(lib):
        c = lib.distributions.constraints
        low, high = lib.tensor([0.0, 1.0]), lib.tensor([[2.0, 2.0], [0.5, 3.0]])
        x = lib.tensor([1.0, 1.5])
        return [repr(c.interval(low, high)), c.interval(low, high).check(x),
                repr(c.greater_than(low)), c.less_than(high).check(x)]
    agree(scenario)


def test_dependent_constraints(torch):
    def scenario(lib):
        c = lib.distributions.constraints
        d = c.dependent(is_discrete=True, event_dim=1)
        out = [repr(c.dependent), c.is_dependent(c.dependent), c.is_dependent(c.real),
               d.is_discrete, d.event_dim, repr(d), c.is_dependent(c.dependent_property),
               repr(lib.distributions.Uniform.support),
               c.is_dependent(lib.distributions.Categorical.support),
               lib.distributions.Categorical.support.event_dim]
        for get in (lambda: c.dependent.is_discrete, lambda: c.dependent.event_dim,
                    lambda: c.dependent.check(lib.zeros(1))):
            try:
                out.append(get())
            except Exception as e:  # noqa: BLE001 - the message is compared
                out.append((type(e).__name__, str(e)))
        return out
    agree(scenario)


def test_independent_constraint_errors(torch):
    agree(lambda lib: lib.distributions.constraints.independent(lib.distributions.constraints.real, 2)
          .check(lib.zeros(3)), raises=True)
    agree(lambda lib: lib.distributions.constraints.independent("real", 1), raises=True)
    agree(lambda lib: lib.distributions.constraints.independent(
        lib.distributions.constraints.real, -1), raises=True)
    agree(lambda lib: lib.distributions.constraints.independent(
        lib.distributions.constraints.real, 1.0), raises=True)


@pytest.mark.parametrize("args", [
    ("t64", 1.0), (1, 2.5), (True, "t32"), ("t32", "t64"), ("t32", 1j), ("t32", [1.0])])
def test_broadcast_all(torch, args):
    def scenario(lib):
        made = {"t32": lib.tensor([[1.0], [2.0]]), "t64": lib.tensor([3.0, 4.0], dtype=lib.float64)}
        values = [made.get(a, a) if isinstance(a, str) else a for a in args]
        return list(lib.distributions.utils.broadcast_all(*values))
    agree(scenario, raises=not all(isinstance(a, (str, int, float)) for a in args))


# softmax's and log's kernels may round differently from torch's in the last bit
@pytest.mark.parametrize("dtype, rtol", [("float32", 1e-6), ("float64", 1e-14)])
def test_probs_logits_conversions_and_their_gradients(torch, dtype, rtol):
    def scenario(lib):
        u = lib.distributions.utils
        probs = lib.tensor([[0.0, 0.25, 0.75], [1.0, 0.5, 1e-9]], dtype=getattr(lib, dtype),
                           requires_grad=True)
        logits = lib.tensor([[-3.0, 0.0, 2.5], [40.0, -40.0, 1.0]], dtype=getattr(lib, dtype),
                            requires_grad=True)
        out = []
        for r, x in ((u.clamp_probs(probs), probs), (u.probs_to_logits(probs), probs),
                     (u.probs_to_logits(probs, is_binary=True), probs),
                     (u.logits_to_probs(logits), logits),
                     (u.logits_to_probs(logits, is_binary=True), logits)):
            out += [r, grads(lib, r * r, [x])]
        return out
    agree(scenario, rtol)


def test_lazy_property_computes_once_with_grad_enabled(torch):
    def scenario(lib):
        logits = lib.tensor([0.5, -1.0], requires_grad=True)
        with lib.no_grad():
            d = lib.distributions.Bernoulli(logits=logits)
            probs = d.probs  # computed inside no_grad, yet with its graph
        lazy = lib.distributions.utils.lazy_property
        return [probs, "probs" in vars(d), d.probs is probs,
                isinstance(vars(type(d))["probs"], lazy),
                isinstance(type(d).probs, lazy)]
    agree(scenario)


def test_lazy_property_reads_as_its_function():
    lazy = gradtrack.distributions.Categorical.probs
    assert lazy.__name__ == "probs" and ">>>" in lazy.__doc__
