"""A torch program run unchanged under ``python -m gradtrack.as_torch`` prints what
torch prints: a peaks-over-threshold fit (Weibull data, GeneralizedPareto and Pareto
tails), a HalfCauchy prior, Kumaraswamy and LogisticNormal draws, and a correlation
matrix kept valid by biject_to(corr_cholesky) and a CatTransform of constraints."""

import subprocess
import sys

PROGRAM = """
import torch
from torch.distributions import (GeneralizedPareto, HalfCauchy, Kumaraswamy, LogisticNormal,
                                 MultivariateNormal, Pareto, Weibull, biject_to, constraints)
from torch.distributions.transforms import CumulativeDistributionTransform

torch.manual_seed(5)
data = Weibull(torch.tensor(2.0), torch.tensor(0.7)).sample((400,))
threshold = data.quantile(0.8)
excess = data[data > threshold] - threshold
raw = torch.zeros(2, requires_grad=True)
to_params = biject_to(constraints.cat([constraints.positive, constraints.real], 0, [1, 1]))
opt = torch.optim.Adam([raw], lr=0.05)
for step in range(60):
    scale, shape = to_params(raw)
    nll = -GeneralizedPareto(0.0, scale, shape).log_prob(excess).mean()
    prior = HalfCauchy(torch.tensor(1.0)).log_prob(scale)
    loss = nll - prior / len(excess)
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"{nll.item():.5f}", [f"{v:.4f}" for v in to_params(raw).tolist()], len(excess))
tail = Pareto(threshold, torch.tensor(1.5))
print(f"{tail.log_prob(excess + threshold).mean().item():.5f}", tail.support)
print(Kumaraswamy(torch.tensor([2.0, 0.5]), torch.tensor(3.0)).rsample((2,)))
print(LogisticNormal(torch.zeros(2), torch.ones(2)).sample())

target = torch.tensor([[1.0, 0.5, 0.2], [0.5, 1.0, -0.3], [0.2, -0.3, 1.0]])
samples = MultivariateNormal(torch.zeros(3), target).sample((500,))
to_corr = biject_to(constraints.corr_cholesky)
free = torch.zeros(3, requires_grad=True)
opt = torch.optim.Adam([free], lr=0.05)
for step in range(80):
    L = to_corr(free)
    nll = -MultivariateNormal(torch.zeros(3), scale_tril=L).log_prob(samples).mean()
    opt.zero_grad()
    nll.backward()
    opt.step()
L = to_corr(free).detach()
print(f"{nll.item():.5f}", L @ L.T, to_corr.log_abs_det_jacobian(free, L))
u = CumulativeDistributionTransform(MultivariateNormal(torch.zeros(3), scale_tril=L))
print(u.domain, u.codomain, u.sign)
"""


def _run(args, tmp_path):
    script = tmp_path / "program.py"
    script.write_text(PROGRAM)
    done = subprocess.run([sys.executable, *args, str(script)], capture_output=True, text=True,
                          timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_program_prints_torchs_numbers(torch, tmp_path):
    want = _run([], tmp_path)
    got = _run(["-m", "gradtrack.as_torch"], tmp_path)
    assert got == want.replace("torch", "gradtrack")
