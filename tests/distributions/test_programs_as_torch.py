"""Whole torch programs that use torch.distributions run unchanged under
``python -m gradtrack.as_torch`` and print what torch prints: a REINFORCE loop with a
Categorical policy, a PPO-style update with a Normal policy (Independent), and a
small VAE with Normal, rsample and kl_divergence. Seeded sampling included."""

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


def _run(args, tmp_path, source):
    script = tmp_path / "program.py"
    script.write_text(source)
    done = subprocess.run([sys.executable, *args, str(script)], capture_output=True, text=True,
                          timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.mark.parametrize("name", ["REINFORCE", "PPO", "VAE"])
def test_program_prints_torchs_numbers(torch, tmp_path, name):
    source = globals()[name]
    want = _run([], tmp_path, source)
    got = _run(["-m", "gradtrack.as_torch"], tmp_path, source)
    assert got == want.replace("torch", "gradtrack")  # gradtrack.Size where torch.Size
