"""The Distribution base class against torch's: shapes, the methods a subclass
does not define, validation switches, repr, expand's checked instance, and loading
gradtrack.distributions on first use."""

import subprocess
import sys

import pytest
from dist_parity import agree

import gradtrack


@pytest.fixture
def default_validation():
    """Restores both libraries' class-wide validation default after the test."""
    import torch
    yield
    gradtrack.distributions.Distribution.set_default_validate_args(True)
    torch.distributions.Distribution.set_default_validate_args(True)


def test_base_shapes_and_unimplemented_methods(torch):
    def scenario(lib):
        d = lib.distributions.Distribution(lib.Size([2, 3]), lib.Size([4]), validate_args=False)
        out = [d.batch_shape, d.event_shape, d._extended_shape(), d._extended_shape((5,)),
               d._extended_shape(lib.Size([1, 2])), d.has_rsample, d.has_enumerate_support,
               d._validate_args]
        for name in ("mean", "mode", "variance", "stddev", "support", "arg_constraints"):
            try:
                out.append(getattr(d, name))
            except NotImplementedError as e:
                out.append(("NotImplementedError", str(e).replace("torch", "gradtrack")))
        for call in (lambda: d.sample(), lambda: d.rsample(), lambda: d.log_prob(lib.zeros(4)),
                     lambda: d.cdf(lib.zeros(4)), lambda: d.icdf(lib.zeros(4)),
                     lambda: d.entropy(), lambda: d.perplexity(), lambda: d.enumerate_support(),
                     lambda: d.expand([2])):
            try:
                out.append(call())
            except NotImplementedError as e:
                out.append(("NotImplementedError", str(e)))
        return out
    agree(scenario)


def test_a_subclass_without_constraints_warns_when_validating(torch):
    def scenario(lib):
        class Bare(lib.distributions.Distribution):
            pass
        d = Bare(lib.Size([2]))
        try:
            d._validate_sample(lib.zeros(2))
        except NotImplementedError:
            pass
        return [repr(Bare(validate_args=False)), d.batch_shape]
    # repr reads arg_constraints, which Bare lacks: both raise NotImplementedError
    agree(scenario, raises=True)

    def warnings_only(lib):
        class Bare(lib.distributions.Distribution):
            arg_constraints = {}
        d = Bare(lib.Size([2]))
        d._validate_sample(lib.zeros(2))
        return repr(d)
    agree(warnings_only)


def test_validate_sample_messages(torch):
    for value in ("number", "event", "broadcast", "support", "ok"):
        def scenario(lib, value=value):
            d = lib.distributions.OneHotCategorical(lib.ones(2, 3))
            v = {"number": 1.0, "event": lib.zeros(2, 2), "broadcast": lib.zeros(3, 3),
                 "support": lib.full((2, 3), 0.5), "ok": lib.eye(3)[:2]}[value]
            return d._validate_sample(v)
        agree(scenario, raises=value != "ok")


def test_set_default_validate_args(torch, default_validation):
    def scenario(lib):
        D = lib.distributions
        D.Distribution.set_default_validate_args(False)
        off = D.Normal(0.0, -1.0)
        explicit = D.Normal(lib.zeros(1), lib.ones(1), validate_args=True)
        D.Distribution.set_default_validate_args(True)
        try:
            D.Normal(0.0, -1.0)
        except ValueError as e:
            message = str(e)
        for bad in (None, 2, "yes"):
            try:
                D.Distribution.set_default_validate_args(bad)
            except ValueError as e:
                message += f"|{type(e).__name__}:{e}"
        D.Distribution.set_default_validate_args(1)  # 1 == True: accepted
        return [off.scale, off._validate_args, explicit._validate_args, message,
                D.Distribution._validate_args]
    agree(scenario)


def test_expand_of_a_subclass_with_its_own_init(torch):
    def scenario(lib):
        class Shifted(lib.distributions.Normal):
            def __init__(self, loc):
                super().__init__(loc + 1, 1.0)

        return Shifted(lib.zeros(1)).expand([2])
    agree(scenario, raises=True)

    def inherited(lib):
        class Same(lib.distributions.Normal):
            pass
        same = Same(lib.zeros(1), 1.0).expand([3])
        return [type(same).__name__, same.batch_shape, same.loc, same._validate_args]
    agree(inherited)


def test_repr_of_parameters_given_and_computed(torch):
    def scenario(lib):
        D = lib.distributions
        c = D.Categorical(logits=lib.zeros(3))
        before = repr(c)
        c.probs  # computed now, so repr shows it too  # noqa: B018
        return [before, repr(c), repr(D.Bernoulli(lib.tensor([0.5]))),
                repr(D.Uniform(lib.zeros(1, 2), 1.0)), repr(D.Normal(lib.tensor([[1.0]]), 2.0))]
    agree(scenario)


def test_names_match_torch(torch):
    import gradtrack.distributions as ours
    assert set(ours.__all__) <= set(torch.distributions.__all__)
    def called(obj):  # a class or function by its name; identity_transform, biject_to by type
        return getattr(obj, "__name__", type(obj).__name__)
    for name in ours.__all__:
        assert called(getattr(ours, name)) == called(getattr(torch.distributions, name))


def _fresh(code, *args):
    return subprocess.run([sys.executable, *args, "-c", code], capture_output=True, text=True,
                          timeout=120, check=True).stdout.strip()


def test_loaded_on_first_use():
    code = ("import sys, gradtrack; before = 'gradtrack.distributions' in sys.modules; "
            "n = gradtrack.distributions.Normal; "
            "print(before, 'distributions' in dir(gradtrack), n.__module__)")
    assert _fresh(code) == "False True gradtrack.distributions.normal"


def test_torch_distributions_under_as_torch():
    code = ("import gradtrack.as_torch; gradtrack.as_torch.install(); import torch; "
            "from torch.distributions import Normal, kl_divergence; "
            "import torch.distributions.constraints as c; "
            "print(torch.distributions.Normal is Normal, c.positive, "
            "kl_divergence(Normal(0.0, 1.0), Normal(1.0, 1.0)).item())")
    assert _fresh(code) == "True GreaterThan(lower_bound=0.0) 0.5"
