"""Whole torch programs that use torch.distributions run unchanged under
``python -m gradtrack.as_torch`` and print what torch prints: a REINFORCE loop with a
Categorical policy, a PPO-style update with a Normal policy (Independent), and a
small VAE with Normal, rsample and kl_divergence, a count regression with Poisson,
Binomial and Geometric likelihoods and a robust fit with Laplace, Cauchy and
Exponential, a maximum-likelihood fit of a MultivariateNormal's Cholesky factor, and a
tanh-squashed Gaussian policy (TransformedDistribution) with LogNormal, HalfNormal and
Gumbel and a parameter kept positive by biject_to, and a variational fit driven by
the KL pairs of the newer distributions. Seeded sampling included."""

import subprocess
import sys

import pytest

REINFORCE = """
import torch
from torch import nn
from torch.distributions import Categorical

torch.manual_seed(0)
policy = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 3))
opt = torch.optim.Adam(policy.parameters(), lr=1e-2)
for episode in range(5):
    states = torch.randn(8, 4)
    dist = Categorical(logits=policy(states))
    actions = dist.sample()
    rewards = (actions == 1).float() - 0.1 * actions.float()
    returns = rewards.flip(0).cumsum(0).flip(0)
    loss = -(dist.log_prob(actions) * (returns - returns.mean())).mean() - 0.01 * dist.entropy().mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(episode, actions.tolist(), f"{loss.item():.5f}", f"{dist.entropy().mean().item():.5f}")
print(Categorical(probs=torch.tensor([0.2, 0.3, 0.5])).sample((10,)).tolist())
"""

PPO = """
import torch
from torch import nn
from torch.distributions import Independent, Normal, kl_divergence

torch.manual_seed(1)
mu = nn.Linear(3, 2)
log_std = nn.Parameter(torch.zeros(2) - 0.5)
opt = torch.optim.SGD(list(mu.parameters()) + [log_std], lr=0.05)
obs = torch.randn(16, 3)
with torch.no_grad():
    old = Independent(Normal(mu(obs), log_std.exp()), 1)
    actions = old.sample()
    old_log_prob = old.log_prob(actions)
advantages = torch.randn(16)
for step in range(4):
    new = Independent(Normal(mu(obs), log_std.exp()), 1)
    ratio = (new.log_prob(actions) - old_log_prob).exp()
    clipped = torch.clamp(ratio, 0.8, 1.2)
    loss = -torch.min(ratio * advantages, clipped * advantages).mean()
    kl = kl_divergence(old, new).mean()
    opt.zero_grad()
    (loss + 0.1 * kl).backward()
    opt.step()
    print(step, f"{loss.item():.5f}", f"{kl.item():.6f}", f"{new.entropy().mean().item():.5f}")
print(f"{log_std.detach().tolist()[0]:.5f}", actions[0].tolist() == old.sample()[0].tolist())
"""

VAE = """
import torch
from torch import nn
from torch.distributions import Bernoulli, Normal, kl_divergence

torch.manual_seed(2)
enc = nn.Linear(6, 4)
dec = nn.Linear(2, 6)
opt = torch.optim.Adam(list(enc.parameters()) + list(dec.parameters()), lr=1e-2)
x = (torch.rand(10, 6) > 0.5).float()
prior = Normal(torch.zeros(2), torch.ones(2))
for step in range(5):
    h = enc(x)
    q = Normal(h[:, :2], nn.functional.softplus(h[:, 2:]) + 1e-3)
    z = q.rsample()
    recon = Bernoulli(logits=dec(z)).log_prob(x).sum(-1)
    kl = kl_divergence(q, prior).sum(-1)
    loss = (kl - recon).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, f"{loss.item():.5f}", f"{kl.mean().item():.5f}", f"{z[0, 0].item():.5f}")
print(prior.sample((2,)))
print(Normal(0.0, 1.0).cdf(torch.tensor([0.0, 1.0])), q.batch_shape, repr(prior))
"""

COUNTS = """
import torch
from torch.distributions import Binomial, Geometric, Poisson

torch.manual_seed(3)
x = torch.randn(40, 2)
true_rate = (x @ torch.tensor([0.8, -0.5]) + 1.0).exp()
y = Poisson(true_rate).sample()
w = torch.zeros(2, requires_grad=True)
b = torch.zeros((), requires_grad=True)
opt = torch.optim.Adam([w, b], lr=0.1)
for step in range(30):
    loss = -Poisson((x @ w + b).exp()).log_prob(y).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"{loss.item():.5f}", [f"{v:.4f}" for v in w.tolist()], f"{b.item():.4f}")
trials = Binomial(10, logits=x[:, 0])
print(trials.sample().tolist()[:10], f"{trials.log_prob(y.clamp(max=10)).sum().item():.4f}")
g = Geometric(probs=torch.tensor([0.2, 0.5, 0.9]))
print(g.sample((4,)).tolist(), g.entropy(), g.mean)
"""

ROBUST = """
import torch
from torch.distributions import Cauchy, Exponential, Laplace

torch.manual_seed(4)
data = Cauchy(torch.tensor(2.0), torch.tensor(0.5)).sample((200,))
loc = torch.zeros((), requires_grad=True)
log_scale = torch.zeros((), requires_grad=True)
opt = torch.optim.SGD([loc, log_scale], lr=0.05)
for step in range(40):
    nll = -Laplace(loc, log_scale.exp()).log_prob(data).mean()
    opt.zero_grad()
    nll.backward()
    opt.step()
print(f"{nll.item():.5f}", f"{loc.item():.5f}", f"{log_scale.exp().item():.5f}")
waits = Exponential(torch.tensor([0.5, 2.0])).rsample((3,))
print(waits, Laplace(0.0, 1.0).cdf(torch.tensor([-1.0, 0.5])))
print(Cauchy(0.0, 1.0).icdf(torch.tensor(0.75)), repr(Exponential(3.0)))
"""

GAUSSIAN = """
import torch
from torch.distributions import MultivariateNormal

torch.manual_seed(5)
true = MultivariateNormal(torch.tensor([1.0, -2.0, 0.5]),
                          torch.tensor([[2.0, 0.6, 0.0], [0.6, 1.0, -0.3], [0.0, -0.3, 0.5]]))
data = true.sample((256,))
loc = torch.zeros(3, requires_grad=True)
raw = torch.zeros(3, 3, requires_grad=True)
opt = torch.optim.Adam([loc, raw], lr=0.05)
for step in range(60):
    tril = raw.tril(-1) + torch.diag_embed(raw.diagonal().exp())
    nll = -MultivariateNormal(loc, scale_tril=tril).log_prob(data).mean()
    opt.zero_grad()
    nll.backward()
    opt.step()
print(f"{nll.item():.4f}", [f"{v:.4f}" for v in loc.tolist()])
fit = MultivariateNormal(loc.detach(), scale_tril=tril.detach())
print(fit.covariance_matrix.diagonal(), f"{fit.entropy().item():.5f}")
by_precision = MultivariateNormal(torch.zeros(2), precision_matrix=torch.tensor([[2.0, 0.5], [0.5, 1.0]]))
print(by_precision.rsample((2,)), by_precision.variance, by_precision.batch_shape)
"""

SQUASHED = """
import torch
from torch import nn
from torch.distributions import (Gumbel, HalfNormal, LogNormal, Normal, TransformedDistribution,
                                 biject_to, constraints)
from torch.distributions.transforms import AffineTransform, TanhTransform

torch.manual_seed(6)
policy = nn.Linear(4, 4)
opt = torch.optim.Adam(policy.parameters(), lr=1e-2)
obs = torch.randn(32, 4)
for step in range(5):
    mu, log_std = policy(obs).chunk(2, -1)
    dist = TransformedDistribution(Normal(mu, log_std.clamp(-5, 2).exp()),
                                   [TanhTransform(cache_size=1), AffineTransform(0.0, 2.0)])
    action = dist.rsample()
    log_prob = dist.log_prob(action).sum(-1)
    loss = (0.2 * log_prob - (action * torch.tensor([1.0, -0.5])).sum(-1)).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, f"{loss.item():.5f}", f"{action.abs().max().item():.5f}")
raw = torch.zeros(2, requires_grad=True)
to_positive = biject_to(constraints.positive)
data = LogNormal(torch.tensor([0.5, -1.0]), torch.tensor([0.3, 0.8])).sample((100,))
sgd = torch.optim.SGD([raw], lr=0.1)
for step in range(20):
    nll = -LogNormal(torch.tensor([0.5, -1.0]), to_positive(raw)).log_prob(data).mean()
    sgd.zero_grad()
    nll.backward()
    sgd.step()
print(f"{nll.item():.5f}", to_positive(raw).detach(), repr(to_positive))
logits = torch.tensor([0.5, 1.5, -1.0])
print((logits + Gumbel(0.0, 1.0).sample((6, 3))).argmax(-1).tolist())
print(HalfNormal(torch.tensor([1.0, 2.0])).log_prob(torch.tensor([0.5, 3.0])),
      Gumbel(torch.tensor(0.0), torch.tensor(2.0)).cdf(torch.tensor(1.0)))
"""

DIVERGENCES = """
import torch
from torch.distributions import (Exponential, Laplace, LogNormal, MultivariateNormal, Normal,
                                 Poisson, kl_divergence)

torch.manual_seed(7)
target = MultivariateNormal(torch.tensor([1.0, -1.0]),
                            torch.tensor([[1.0, 0.8], [0.8, 1.0]]))
loc = torch.zeros(2, requires_grad=True)
raw = torch.zeros(2, 2, requires_grad=True)
opt = torch.optim.Adam([loc, raw], lr=0.05)
for step in range(50):
    tril = raw.tril(-1) + torch.diag_embed(raw.diagonal().exp())
    q = MultivariateNormal(loc, scale_tril=tril)
    kl = kl_divergence(q, target)
    opt.zero_grad()
    kl.backward()
    opt.step()
print(f"{kl.item():.6f}", q.sample((2,)), q.rsample().shape)
rate = torch.tensor([0.5, 2.0], requires_grad=True)
kls = [kl_divergence(Exponential(rate), Exponential(torch.tensor(1.0))),
       kl_divergence(Poisson(rate), Poisson(torch.tensor([1.0, 1.0]))),
       kl_divergence(Laplace(rate, 1.0), Laplace(0.0, rate)),
       kl_divergence(Normal(rate, 1.0), Laplace(0.0, 2.0)),
       kl_divergence(LogNormal(rate, 1.0), LogNormal(0.0, 2.0))]
torch.stack(kls).sum().backward()
print(torch.stack(kls).detach(), rate.grad)
"""


def _run(args, tmp_path, source):
    script = tmp_path / "program.py"
    script.write_text(source)
    done = subprocess.run([sys.executable, *args, str(script)], capture_output=True, text=True,
                          timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.mark.parametrize("name", ["REINFORCE", "PPO", "VAE", "COUNTS", "ROBUST", "GAUSSIAN", "SQUASHED", "DIVERGENCES"])
def test_program_prints_torchs_numbers(torch, tmp_path, name):
    source = globals()[name]
    want = _run([], tmp_path, source)
    got = _run(["-m", "gradtrack.as_torch"], tmp_path, source)
    assert got == want.replace("torch", "gradtrack")  # gradtrack.Size where torch.Size
