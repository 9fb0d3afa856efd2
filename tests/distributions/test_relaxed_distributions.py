"""RelaxedBernoulli, LogitRelaxedBernoulli, RelaxedOneHotCategorical and
ExpRelaxedCategorical against torch.distributions: values, shapes, gradients in
float32 and float64, seeded draws and the generator stream after them, expand, reprs
and argument errors; and a Gumbel-softmax training program run under
``gradtrack.as_torch``."""

import subprocess
import sys

import pytest
from dist_parity import agree, grads, seeded

PROBS = [[0.1, 0.5, 0.9], [0.3, 0.7, 0.25]]
LOGITS = [[-2.0, 0.0, 1.5], [0.5, -0.25, 3.0]]
CAT_PROBS = [[0.2, 0.3, 0.5], [1.0, 2.0, 1.0]]
CAT_LOGITS = [[0.5, -1.0, 2.0], [3.0, 0.0, -4.0]]
# sigmoid, softplus, logsumexp and their backwards may round differently from
# torch's kernels in the last bit
ROUNDED = {"float32": 1e-5, "float64": 1e-13}


def _bernoulli(lib, by, dtype, logit=False):
    dt = getattr(lib, dtype)
    param = lib.tensor(PROBS if by == "probs" else LOGITS, dtype=dt, requires_grad=True)
    temperature = lib.tensor([0.5, 2.0, 1.0], dtype=dt, requires_grad=True)
    if logit:
        from importlib import import_module
        cls = import_module(lib.__name__ + ".distributions.relaxed_bernoulli").LogitRelaxedBernoulli
    else:
        cls = lib.distributions.RelaxedBernoulli
    return cls(temperature, **{by: param}), [temperature, param]


def _categorical(lib, by, dtype, exp=False):
    dt = getattr(lib, dtype)
    param = lib.tensor(CAT_PROBS if by == "probs" else CAT_LOGITS, dtype=dt, requires_grad=True)
    temperature = lib.tensor(0.75, dtype=dt, requires_grad=True)
    if exp:
        from importlib import import_module
        cls = import_module(lib.__name__ + ".distributions.relaxed_categorical").ExpRelaxedCategorical
    else:
        cls = lib.distributions.RelaxedOneHotCategorical
    return cls(temperature, **{by: param}), [temperature, param]


@pytest.mark.parametrize("logit", [False, True])
@pytest.mark.parametrize("by", ["probs", "logits"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_relaxed_bernoulli_values_and_gradients(torch, logit, by, dtype):
    def scenario(lib):
        d, params = _bernoulli(lib, by, dtype, logit)
        dt = getattr(lib, dtype)
        value = (lib.tensor([[0.2, 0.6, 0.95], [0.5, 0.01, 0.7]], dtype=dt) if not logit
                 else lib.tensor([[-1.0, 0.0, 2.5], [0.5, -3.0, 1.0]], dtype=dt))
        value.requires_grad_()
        lp = d.log_prob(value)
        out = [d.batch_shape, d.event_shape, d.param_shape if logit else d.base_dist.param_shape,
               repr(d), d.temperature, d.probs, d.logits, repr(d.support),
               repr(d.arg_constraints), d.has_rsample, lp, grads(lib, lp, params + [value])]
        return out
    agree(scenario, ROUNDED[dtype])


@pytest.mark.parametrize("logit", [False, True])
@pytest.mark.parametrize("by", ["probs", "logits"])
@pytest.mark.parametrize("shape", [(), (4,), (2, 1)])
def test_relaxed_bernoulli_seeded_draws(torch, logit, by, shape):
    def scenario(lib):
        d, params = _bernoulli(lib, by, "float32", logit)
        x = d.rsample(shape)
        return [x, grads(lib, x, params), d.sample(shape), lib.rand(3)]
    agree(seeded(scenario, 3), 1e-5)


def test_relaxed_bernoulli_float64_draws(torch):
    # log and log1p may round differently from torch's kernels in the last bit
    def scenario(lib):
        t = lib.tensor(0.5, dtype=lib.float64)
        d = lib.distributions.RelaxedBernoulli(t, lib.tensor([0.2, 0.5, 0.8], dtype=lib.float64))
        return [d.rsample((4,)), d.sample(), d.base_dist.rsample(), lib.rand(2)]
    agree(seeded(scenario, 1), 1e-14)


def test_relaxed_bernoulli_number_parameters_and_expand(torch):
    def scenario(lib):
        t = lib.tensor(0.3)
        d = lib.distributions.RelaxedBernoulli(t, 0.25)
        e = d.expand([2, 3])
        b = lib.distributions.RelaxedBernoulli(t, logits=lib.tensor([0.0, 1.0])).expand([4, 2])
        return [d.batch_shape, repr(d), d.log_prob(lib.tensor(0.5)), e.batch_shape, repr(e),
                repr(e.base_dist), e.probs, e.sample().shape, b.logits, repr(b),
                e._validate_args, type(e).__name__, type(e.base_dist).__name__]
    agree(seeded(scenario))


@pytest.mark.parametrize("exp", [False, True])
@pytest.mark.parametrize("by", ["probs", "logits"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_relaxed_categorical_values_and_gradients(torch, exp, by, dtype):
    def scenario(lib):
        d, params = _categorical(lib, by, dtype, exp)
        dt = getattr(lib, dtype)
        simplex = lib.tensor([[[0.1, 0.2, 0.7], [0.3, 0.3, 0.4]], [[0.8, 0.1, 0.1], [0.2, 0.5, 0.3]]],
                             dtype=dt)
        value = (simplex.log() if exp else simplex).requires_grad_()
        lp = d.log_prob(value)
        return [d.batch_shape, d.event_shape, repr(d), d.temperature, d.probs, d.logits,
                repr(d.support), d.has_rsample, lp, grads(lib, lp, params + [value]),
                d.param_shape if exp else d.base_dist.param_shape]
    agree(scenario, ROUNDED[dtype])


@pytest.mark.parametrize("exp", [False, True])
@pytest.mark.parametrize("by", ["probs", "logits"])
@pytest.mark.parametrize("shape", [(), (3,), (2, 1)])
def test_relaxed_categorical_seeded_draws(torch, exp, by, shape):
    def scenario(lib):
        d, params = _categorical(lib, by, "float32", exp)
        x = d.rsample(shape)
        return [x, grads(lib, x * x, params), d.sample(shape), lib.rand(3)]
    agree(seeded(scenario, 4), 1e-5)


def test_relaxed_categorical_expand_and_one_temperature_per_batch(torch):
    def scenario(lib):
        t = lib.tensor([0.5, 1.5])
        d = lib.distributions.RelaxedOneHotCategorical(t.unsqueeze(-1), lib.tensor([1.0, 2.0, 3.0]))
        e = lib.distributions.RelaxedOneHotCategorical(lib.tensor(2.0), lib.ones(3)).expand([2, 2])
        return [d.batch_shape, d.log_prob(lib.tensor([0.2, 0.3, 0.5])), e.batch_shape, repr(e),
                repr(e.base_dist), e.probs, e.rsample().shape, e._validate_args,
                type(e).__name__]
    agree(seeded(scenario), 1e-6)


@pytest.mark.parametrize("case", ["none", "both", "bad_probs", "bad_value", "outside_support",
                                  "cat_none", "cat_scalar", "cat_bad_probs", "cat_not_simplex",
                                  "cat_bad_event", "number_temperature_log_prob"])
def test_bad_arguments_raise_torchs_error(torch, case):
    def scenario(lib):
        D = lib.distributions
        t = lib.tensor(0.5)
        return {
            "none": lambda: D.RelaxedBernoulli(t),
            "both": lambda: D.RelaxedBernoulli(t, 0.5, 0.0),
            "bad_probs": lambda: D.RelaxedBernoulli(t, lib.tensor([0.5, 1.5])),
            "bad_value": lambda: D.RelaxedBernoulli(t, 0.5).log_prob(0.5),
            "outside_support": lambda: D.RelaxedBernoulli(t, 0.5).log_prob(lib.tensor(1.5)),
            "cat_none": lambda: D.RelaxedOneHotCategorical(t),
            "cat_scalar": lambda: D.RelaxedOneHotCategorical(t, lib.tensor(0.5)),
            "cat_bad_probs": lambda: D.RelaxedOneHotCategorical(t, lib.tensor([-0.5, 1.5]),
                                                                validate_args=True),
            "cat_not_simplex": lambda: D.RelaxedOneHotCategorical(t, lib.ones(2)).log_prob(
                lib.tensor([0.7, 0.7])),
            "cat_bad_event": lambda: D.RelaxedOneHotCategorical(t, lib.ones(2)).log_prob(
                lib.tensor([0.2, 0.3, 0.5])),
            "number_temperature_log_prob": lambda: D.RelaxedBernoulli(0.5, 0.5).log_prob(
                lib.tensor(0.5)),
        }[case]()
    agree(scenario, raises=True)


GUMBEL_SOFTMAX = """
import torch
from torch import nn
from torch.distributions import RelaxedBernoulli, RelaxedOneHotCategorical

torch.manual_seed(5)
encoder = nn.Linear(6, 4)
decoder = nn.Linear(4, 6)
gates = torch.zeros(6, requires_grad=True)
opt = torch.optim.Adam(list(encoder.parameters()) + list(decoder.parameters()) + [gates], lr=0.05)
x = torch.randn(8, 6)
for step in range(6):
    temperature = torch.tensor(max(0.3, 2.0 * 0.7 ** step))
    q = RelaxedOneHotCategorical(temperature, logits=encoder(x))
    z = q.rsample()
    mask = RelaxedBernoulli(temperature, logits=gates).rsample((8,))
    recon = decoder(z) * mask
    loss = ((recon - x) ** 2).mean() - 0.01 * q.log_prob(z).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, f"{loss.item():.5f}", z.argmax(-1).tolist(), f"{mask.mean().item():.5f}")
print(gates.detach(), q.probs[0].detach())
"""


def test_gumbel_softmax_program_prints_torchs_numbers(torch, tmp_path):
    script = tmp_path / "program.py"
    script.write_text(GUMBEL_SOFTMAX)
    runs = [subprocess.run([sys.executable, *args, str(script)], capture_output=True, text=True,
                           timeout=300, cwd=tmp_path) for args in ([], ["-m", "gradtrack.as_torch"])]
    for done in runs:
        assert done.returncode == 0, done.stderr[-3000:]
    assert runs[1].stdout == runs[0].stdout.replace("torch", "gradtrack")
