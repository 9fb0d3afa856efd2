"""MixtureSameFamily and LowRankMultivariateNormal against torch.distributions: values,
shapes, broadcasting, gradients in float32 and float64, seeded draws and the generator
stream after them, expand, reprs and argument errors; the MixtureSameFamilyConstraint
they validate with; and a Gaussian-mixture fit run under ``gradtrack.as_torch``."""

import subprocess
import sys

import pytest
from dist_parity import agree, grads, seeded

# logsumexp, log_softmax, cholesky, solve_triangular may round differently from torch's
# kernels (and LAPACK builds) in the last bits
ROUNDED = {"float32": 1e-5, "float64": 1e-13}


def _normal_mixture(lib, dtype="float32", batch=True, mix_batch=True):
    dt = getattr(lib, dtype)
    loc = lib.arange(6.0, dtype=dt).reshape(2, 3) - 2.5
    scale = lib.arange(6.0, dtype=dt).reshape(2, 3) % 3 * 0.5 + 0.5
    loc = (loc if batch else loc[0]).requires_grad_()
    scale = (scale if batch else scale[1]).requires_grad_()
    logits = lib.tensor([[0.5, -1.0, 2.0], [0.0, 1.0, -0.5]] if mix_batch else [0.5, -1.0, 2.0],
                        dtype=dt, requires_grad=True)
    mix = lib.distributions.Categorical(logits=logits)
    comp = lib.distributions.Normal(loc, scale)
    return lib.distributions.MixtureSameFamily(mix, comp), [logits, loc, scale]


def _mvn_mixture(lib, dtype="float32"):
    dt = getattr(lib, dtype)
    loc = lib.tensor([[[0.0, 1.0], [2.0, -1.0]], [[1.0, 1.0], [-2.0, 0.5]]], dtype=dt,
                     requires_grad=True)
    scale = lib.tensor([[[1.0, 0.5], [2.0, 1.0]], [[0.25, 1.5], [1.0, 1.0]]], dtype=dt,
                       requires_grad=True)
    # (sampling needs the categorical's batch to be the components' batch)
    probs = lib.tensor([[0.3, 0.7], [0.5, 0.5]], dtype=dt, requires_grad=True)
    comp = lib.distributions.Independent(lib.distributions.Normal(loc, scale), 1)
    return (lib.distributions.MixtureSameFamily(lib.distributions.Categorical(probs), comp),
            [probs, loc, scale])


@pytest.mark.parametrize("batch, mix_batch", [(True, True), (True, False), (False, False)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_mixture_values_and_gradients(torch, batch, mix_batch, dtype):
    def scenario(lib):
        d, params = _normal_mixture(lib, dtype, batch, mix_batch)
        value = lib.tensor([[0.5, -1.0], [2.0, 0.25], [-3.0, 1.0]], dtype=getattr(lib, dtype))
        value = (value if batch else value[:, 0]).requires_grad_()
        out = [d.batch_shape, d.event_shape, repr(d), repr(d.support), d.has_rsample,
               d._num_component, d._event_ndims]
        for r in (d.log_prob(value), d.cdf(value), d.mean, d.variance, d.stddev):
            out += [r, grads(lib, r, params + [value])]
        return out
    agree(scenario, ROUNDED[dtype])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_mixture_of_vector_components(torch, dtype):
    def scenario(lib):
        d, params = _mvn_mixture(lib, dtype)
        value = lib.tensor([[[0.5, 1.0], [0.0, 0.0]], [[-1.0, 2.0], [1.0, 1.0]],
                            [[0.0, 0.0], [0.0, 0.0]]], dtype=getattr(lib, dtype))
        lp = d.log_prob(value)
        return [d.batch_shape, d.event_shape, repr(d), repr(d.support), d.support.event_dim,
                lp, grads(lib, lp, params), d.mean, d.variance, grads(lib, d.variance, params)]
    agree(scenario, ROUNDED[dtype])


@pytest.mark.parametrize("shape", [(), (4,), (2, 3)])
def test_mixture_seeded_sample(torch, shape):
    def scenario(lib):
        d, _ = _normal_mixture(lib)
        v, _ = _mvn_mixture(lib)
        return [d.sample(shape), v.sample(shape), lib.rand(2)]
    agree(seeded(scenario, 2))


def test_mixture_expand_and_discrete_components(torch):
    def scenario(lib):
        D = lib.distributions
        d, _ = _normal_mixture(lib, batch=False)
        e = d.expand([4, 2])
        b = D.MixtureSameFamily(D.Categorical(lib.tensor([0.2, 0.8])),
                                D.Bernoulli(lib.tensor([0.1, 0.9])))
        p = D.MixtureSameFamily(D.Categorical(lib.ones(3)), D.Poisson(lib.tensor([1.0, 2.0, 5.0])))
        return [e.batch_shape, e.event_shape, repr(e), e.mixture_distribution.batch_shape,
                e.component_distribution.batch_shape, e.log_prob(lib.zeros(4, 2)),
                e.sample().shape, e._validate_args, b.log_prob(lib.tensor([0.0, 1.0])), b.mean,
                b.variance, repr(b.support), b.support.is_discrete, b.sample((5,)),
                p.log_prob(lib.tensor([0.0, 3.0])), p.sample((4,)), p.mean]
    agree(seeded(scenario, 1), 1e-6)


@pytest.mark.parametrize("case", ["not_categorical", "not_distribution", "batch_mismatch",
                                  "count_mismatch", "outside_support", "constraint_base",
                                  "constraint_dim", "no_rsample"])
def test_mixture_errors(torch, case):
    def scenario(lib):
        D = lib.distributions
        C = D.constraints
        cat = D.Categorical(lib.ones(3))
        normals = D.Normal(lib.zeros(2, 3), 1.0)
        return {
            "not_categorical": lambda: D.MixtureSameFamily(D.Normal(0.0, 1.0), normals),
            "not_distribution": lambda: D.MixtureSameFamily(cat, lib.zeros(3)),
            "batch_mismatch": lambda: D.MixtureSameFamily(D.Categorical(lib.ones(4, 3)), normals),
            "count_mismatch": lambda: D.MixtureSameFamily(D.Categorical(lib.ones(2)), normals),
            "outside_support": lambda: D.MixtureSameFamily(
                cat, D.Exponential(lib.ones(3))).log_prob(lib.tensor(-1.0)),
            "constraint_base": lambda: C.MixtureSameFamilyConstraint(lib.zeros(1)),
            "constraint_dim": lambda: C.MixtureSameFamilyConstraint(C.real_vector).check(
                lib.tensor(1.0)),
            "no_rsample": lambda: D.MixtureSameFamily(cat, D.Normal(lib.zeros(3), 1.0)).rsample(),
        }[case]()
    agree(scenario, raises=True)


def _lowrank(lib, dtype="float32", loc_shape=(2, 3), factor_batch=True):
    dt = getattr(lib, dtype)
    n = lib.Size(loc_shape).numel()
    loc = (lib.arange(float(n), dtype=dt).reshape(loc_shape) * 0.75 - 1.0).sin()
    W = lib.tensor([[[1.0, 0.5], [-0.5, 0.25], [0.0, 2.0]], [[0.3, -1.0], [1.2, 0.0], [0.5, 0.5]]],
                   dtype=dt)
    W = W if factor_batch else W[0]
    D = lib.tensor([1.0, 0.5, 2.0], dtype=dt)
    params = [loc.requires_grad_(), W.requires_grad_(), D.requires_grad_()]
    return lib.distributions.LowRankMultivariateNormal(*params), params


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_lowrank_values_matrices_and_gradients(torch, dtype):
    def scenario(lib):
        d, params = _lowrank(lib, dtype)
        value = lib.tensor([[[1.0, 0.25, -1.0], [0.5, -0.5, 1.5]], [[-2.0, 1.0, 0.0], [0.0, 0.0, 0.0]]],
                           dtype=getattr(lib, dtype), requires_grad=True)
        out = [d.batch_shape, d.event_shape, repr(d), repr(d.support), repr(d.arg_constraints),
               d.has_rsample, d.cov_factor.shape, d.cov_diag.shape, d.loc.shape,
               d._capacitance_tril, type(d._capacitance_tril.grad_fn).__name__]
        lp = d.log_prob(value)
        out += [lp, grads(lib, lp, params + [value])]
        for r in (d.entropy(), d.mean, d.mode, d.variance, d.stddev, d.scale_tril,
                  d.covariance_matrix, d.precision_matrix):
            out += [r, grads(lib, r, params)]
        return out
    # float32: the gradient in cov_diag sums terms of both signs over the batch
    agree(scenario, {"float32": 1e-4, "float64": 1e-13}[dtype])


@pytest.mark.parametrize("loc_shape, factor_batch, value_shape", [
    ((3,), True, (2, 3)), ((2, 3), False, (5, 2, 3)), ((2, 1, 3), True, (2, 2, 3)),
    ((3,), False, (3,)), ((3,), False, (4, 1, 3))])
def test_lowrank_batch_shapes_broadcast(torch, loc_shape, factor_batch, value_shape):
    def scenario(lib):
        d, _ = _lowrank(lib, "float64", loc_shape, factor_batch)
        n = lib.Size(value_shape).numel()
        value = lib.arange(float(n), dtype=lib.float64).reshape(value_shape).cos()
        return [d.batch_shape, d.log_prob(value), d.entropy(), d.variance, d.covariance_matrix,
                d.precision_matrix.shape, d.scale_tril]
    agree(scenario, 1e-13)


@pytest.mark.parametrize("shape", [(), (4,), (2, 1)])
def test_lowrank_seeded_rsample_sample_and_gradients(torch, shape):
    def scenario(lib):
        d, params = _lowrank(lib)
        x = d.rsample(shape)
        return [x, grads(lib, x * x, params), d.sample(shape), lib.rand(2)]
    agree(seeded(scenario, 6), 1e-6)


def test_lowrank_expand(torch):
    def scenario(lib):
        d, _ = _lowrank(lib, loc_shape=(3,), factor_batch=False)
        e = d.expand([4, 2])
        return [e.batch_shape, repr(e), e.loc.shape, e.cov_factor.shape, e.cov_diag.shape,
                e._unbroadcasted_cov_factor.shape, e.sample().shape,
                e.log_prob(lib.zeros(3)), e.covariance_matrix.shape, e._validate_args]
    agree(seeded(scenario), 1e-6)


@pytest.mark.parametrize("case", ["scalar_loc", "factor_1d", "factor_rows", "diag_size",
                                  "batches", "negative_diag", "nan_loc", "bad_value"])
def test_lowrank_errors(torch, case):
    def scenario(lib):
        LR = lib.distributions.LowRankMultivariateNormal
        loc, W, D = lib.zeros(3), lib.ones(3, 1), lib.ones(3)
        return {
            "scalar_loc": lambda: LR(lib.tensor(0.0), W, D),
            "factor_1d": lambda: LR(loc, lib.ones(3), D),
            "factor_rows": lambda: LR(loc, lib.ones(2, 1), D),
            "diag_size": lambda: LR(loc, W, lib.ones(2)),
            "batches": lambda: LR(lib.zeros(2, 3), lib.ones(4, 3, 1), D),
            "negative_diag": lambda: LR(loc, lib.zeros(3, 1), lib.tensor([1.0, -1.0, 1.0])),
            "nan_loc": lambda: LR(lib.tensor([0.0, float("nan"), 0.0]), W, D),
            "bad_value": lambda: LR(loc, W, D).log_prob(lib.zeros(2)),
        }[case]()
    agree(scenario, raises=True)


GAUSSIAN_MIXTURE = """
import torch
from torch.distributions import (Categorical, Independent, LowRankMultivariateNormal,
                                 MixtureSameFamily, Normal)

torch.manual_seed(3)
data = torch.cat([torch.randn(40, 2) * 0.5 + torch.tensor([2.0, 0.0]),
                  torch.randn(60, 2) * 0.8 - torch.tensor([1.0, 1.0])])
logits = torch.zeros(3, requires_grad=True)
means = torch.randn(3, 2, requires_grad=True)
log_scales = torch.zeros(3, 2, requires_grad=True)
opt = torch.optim.Adam([logits, means, log_scales], lr=0.1)
for step in range(30):
    gmm = MixtureSameFamily(Categorical(logits=logits),
                            Independent(Normal(means, log_scales.exp()), 1))
    nll = -gmm.log_prob(data).mean()
    opt.zero_grad()
    nll.backward()
    opt.step()
    if step % 10 == 9:
        print(step, f"{nll.item():.5f}", gmm.mean.detach(), gmm.variance.detach())
print(gmm.sample((4,)))
factor = torch.full((2, 1), 0.5, requires_grad=True)
low = LowRankMultivariateNormal(torch.zeros(2), factor, torch.ones(2))
loss = -low.log_prob(data).mean() + low.entropy()
loss.backward()
print(f"{loss.item():.5f}", factor.grad, low.rsample((2,)))
"""


def test_gaussian_mixture_program_prints_torchs_numbers(torch, tmp_path):
    script = tmp_path / "program.py"
    script.write_text(GAUSSIAN_MIXTURE)
    runs = [subprocess.run([sys.executable, *args, str(script)], capture_output=True, text=True,
                           timeout=300, cwd=tmp_path) for args in ([], ["-m", "gradtrack.as_torch"])]
    for done in runs:
        assert done.returncode == 0, done.stderr[-3000:]
    assert runs[1].stdout == runs[0].stdout.replace("torch", "gradtrack")
