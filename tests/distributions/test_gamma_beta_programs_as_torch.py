"""Whole torch programs using Gamma, Beta, Dirichlet, StudentT and NegativeBinomial run
unchanged under ``python -m gradtrack.as_torch`` and print what torch prints: a
Beta-policy pathwise policy-gradient step, a Gamma fitted by its reparameterized
draws, a Dirichlet mixture-weight fit, and count and robust regressions with
NegativeBinomial and StudentT likelihoods. Seeded sampling included."""

import subprocess
import sys

import pytest

BETA_POLICY = """
import torch
from torch import nn
from torch.distributions import Beta

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 2), nn.Softplus())
opt = torch.optim.Adam(net.parameters(), lr=1e-2)
target = torch.tensor(0.7)
for step in range(6):
    states = torch.randn(32, 3)
    params = net(states) + 1.0
    policy = Beta(params[:, 0], params[:, 1])
    actions = policy.rsample()
    reward = -(actions - target).pow(2)
    loss = -(reward.mean() + 0.01 * policy.entropy().mean())
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, f"{loss.item():.5f}", f"{actions.mean().item():.5f}", policy.batch_shape)
with torch.no_grad():
    p = net(torch.zeros(1, 3)) + 1.0
    print(Beta(p[:, 0], p[:, 1]).sample((4,)).squeeze(-1).tolist())
print(repr(Beta(2.0, 3.0)), Beta(2.0, 3.0).mean, Beta(torch.tensor([0.5]), 0.5).mode)
"""

GAMMA_FIT = """
import torch
from torch.distributions import Chi2, Dirichlet, Gamma, InverseGamma, kl_divergence

torch.manual_seed(1)
data = Gamma(torch.tensor(3.0), torch.tensor(2.0)).sample((500,))
log_conc = torch.zeros((), requires_grad=True)
log_rate = torch.zeros((), requires_grad=True)
opt = torch.optim.Adam([log_conc, log_rate], lr=0.05)
for step in range(40):
    q = Gamma(log_conc.exp(), log_rate.exp())
    z = q.rsample((64,))
    # moment matching through the reparameterized draws
    loss = (z.mean() - data.mean()).pow(2) + (z.var() - data.var()).pow(2)
    loss = loss - 0.01 * q.log_prob(data).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 0:
        print(step, f"{loss.item():.5f}", f"{log_conc.exp().item():.4f}", f"{log_rate.exp().item():.4f}")
print(Chi2(torch.tensor([2.0, 5.0])).sample().tolist(), InverseGamma(3.0, 2.0).rsample((2,)))

logits = torch.zeros(4, requires_grad=True)
counts = torch.tensor([10.0, 3.0, 1.0, 6.0])
opt = torch.optim.SGD([logits], lr=0.1)
for step in range(5):
    weights = Dirichlet(logits.exp()).rsample((16,))
    loss = -(weights * counts).sum(-1).mean() + 0.1 * logits.exp().sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
print([f"{v:.4f}" for v in logits.tolist()], weights.grad_fn.__class__.__name__)
print(Dirichlet(torch.tensor([2.0, 1.0, 1.0])).log_prob(torch.tensor([0.5, 0.25, 0.25])))
"""

COUNTS_AND_TAILS = """
import torch
from torch.distributions import FisherSnedecor, NegativeBinomial, StudentT

torch.manual_seed(2)
x = torch.randn(60, 2)
mu = (x @ torch.tensor([0.6, -0.4]) + 1.5).exp()
y = NegativeBinomial(total_count=4.0, logits=(mu / 4.0).log()).sample()
w = torch.zeros(2, requires_grad=True)
log_r = torch.zeros((), requires_grad=True)
opt = torch.optim.Adam([w, log_r], lr=0.1)
for step in range(25):
    r = log_r.exp()
    nb = NegativeBinomial(total_count=r, logits=(x @ w + 1.5) - r.log())
    loss = -nb.log_prob(y).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"{loss.item():.5f}", [f"{v:.4f}" for v in w.tolist()], f"{log_r.exp().item():.4f}")

noise = StudentT(torch.tensor(2.5)).sample((80,))
t = torch.linspace(-1, 1, 80)
obs = 2.0 * t + 0.5 + 0.3 * noise
slope = torch.zeros((), requires_grad=True)
log_df = torch.zeros((), requires_grad=True)
opt = torch.optim.Adam([slope, log_df], lr=0.1)
for step in range(30):
    lik = StudentT(log_df.exp() + 1.0, slope * t + 0.5, 0.3)
    loss = -lik.log_prob(obs).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"{loss.item():.5f}", f"{slope.item():.4f}", f"{log_df.exp().item():.4f}")
f = FisherSnedecor(torch.tensor([3.0, 8.0]), torch.tensor([12.0, 20.0]))
print(f.rsample((2,)), f.mean, f.variance, StudentT(3.0).entropy())
"""


def _run(args, tmp_path, source):
    script = tmp_path / "program.py"
    script.write_text(source)
    done = subprocess.run([sys.executable, *args, str(script)], capture_output=True, text=True,
                          timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.mark.parametrize("name", ["BETA_POLICY", "GAMMA_FIT", "COUNTS_AND_TAILS"])
def test_program_prints_torchs_numbers(torch, tmp_path, name):
    source = globals()[name]
    want = _run([], tmp_path, source)
    got = _run(["-m", "gradtrack.as_torch"], tmp_path, source)
    assert got == want.replace("torch", "gradtrack")  # gradtrack.Size where torch.Size
