"""Linear regression by gradient descent, twice: a hand-written SGD step, then optim.SGD.

The data are synthetic, y = X @ w + b + noise, with w = [2, -3.4] and b = 4.2.
The model is ``nn.Linear(2, 1)`` started from ``nn.init.normal_(std=0.01)``.

The hand-written step is the one the PyTorch docs recommend today::

    for p in net.parameters():
        p.detach().sub_(p.grad, alpha=lr)

``detach()`` gives an alias that shares the parameter's memory *and* its
version counter, so the update is legal on a leaf that requires grad, keeps it a
leaf, and still bumps ``p._version`` (a graph that saved ``p`` would notice).

Run:  python examples/linear_regression.py [--steps 200] [--lr 0.1] [--seed 0]
"""

import argparse
import time

import gradtrack as gt
from gradtrack import Tensor
from gradtrack import nn, optim

TRUE_W = [2.0, -3.4]
TRUE_B = 4.2


def make_data(n: int, noise: float, seed: int) -> tuple[Tensor, Tensor]:
    """``n`` samples of y = X @ TRUE_W + TRUE_B + noise (seeded, so runs repeat)."""
    gt.manual_seed(seed)
    X = gt.randn(n, 2)
    y = X @ gt.tensor(TRUE_W).reshape(2, 1) + TRUE_B + noise * gt.randn(n, 1)
    return X, y


def fresh_model(seed: int) -> nn.Linear:
    gt.manual_seed(seed + 1)
    net = nn.Linear(2, 1)
    # One no_grad in-place write each: the parameters stay leaves, _version becomes 2.
    nn.init.normal_(net.weight, mean=0.0, std=0.01)
    nn.init.normal_(net.bias, mean=0.0, std=0.01)
    return net


def train_by_hand(net: nn.Linear, X: Tensor, y: Tensor, steps: int, lr: float, log_every: int) -> nn.Linear:
    loss_fn = nn.MSELoss()
    for step in range(steps):
        loss = loss_fn(net(X), y)
        net.zero_grad()
        loss.backward()
        for p in net.parameters():
            p.detach().sub_(p.grad, alpha=lr)  # in place on the shared memory
        if step % log_every == 0 or step == steps - 1:
            print(f"  step {step:4d}  loss {loss.item():.6f}")
    return net


def train_with_optimizer(net: nn.Linear, X: Tensor, y: Tensor, steps: int, lr: float,
                         log_every: int) -> nn.Linear:
    loss_fn = nn.MSELoss()
    opt = optim.SGD(net.parameters(), lr=lr)
    for step in range(steps):
        opt.zero_grad()
        loss = loss_fn(net(X), y)
        loss.backward()
        opt.step()
        if step % log_every == 0 or step == steps - 1:
            print(f"  step {step:4d}  loss {loss.item():.6f}")
    return net


def report(net: nn.Linear) -> float:
    w = [round(v, 4) for v in net.weight.detach().reshape(-1).tolist()]
    b = round(net.bias.item(), 4)
    print(f"  recovered w = {w}   true w = {TRUE_W}")
    print(f"  recovered b = {b}   true b = {TRUE_B}")
    print(f"  weight: is_leaf={net.weight.is_leaf}, grad_fn={net.weight.grad_fn}, "
          f"_version={net.weight._version}")
    err_w = max(abs(a - t) for a, t in zip(net.weight.detach().reshape(-1).tolist(), TRUE_W))
    return max(float(err_w), abs(float(net.bias.item()) - TRUE_B))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--steps", type=int, default=200, help="gradient steps per run")
    parser.add_argument("--lr", type=float, default=0.1, help="learning rate")
    parser.add_argument("--samples", type=int, default=1000, help="size of the data set")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    log_every = max(1, args.steps // 5)
    X, y = make_data(args.samples, noise=0.01, seed=args.seed)

    start = time.perf_counter()
    print(f"1) hand-written SGD: p.detach().sub_(p.grad, alpha={args.lr}), {args.steps} steps")
    err_manual = report(train_by_hand(fresh_model(args.seed), X, y, args.steps, args.lr,
                                      log_every))
    print(f"2) optim.SGD(net.parameters(), lr={args.lr}), {args.steps} steps")
    err_optim = report(train_with_optimizer(fresh_model(args.seed), X, y, args.steps, args.lr,
                                            log_every))
    elapsed = time.perf_counter() - start
    print(f"largest error: hand-written {err_manual:.4f}, optim.SGD {err_optim:.4f} "
          f"({elapsed:.2f} s)")


if __name__ == "__main__":
    main()
