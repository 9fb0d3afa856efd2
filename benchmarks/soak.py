"""Soak test: many training steps, resident memory must stay flat.

    python -m benchmarks.soak --steps 100000       # the full run (a few minutes)

Trains the benchmark's 784-128-10 MLP (SGD with momentum) on fixed synthetic
data and compares RSS after a warm-up with RSS at the end. Exits non-zero if
it grew by more than --limit-mb.
"""

import argparse
import sys


def rss_mb():
    """Current resident set size in MiB (Linux)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=100_000)
    p.add_argument("--warmup", type=int, default=1000)
    p.add_argument("--limit-mb", type=float, default=5.0)
    args = p.parse_args(argv)

    import gradtrack as gt
    gt.manual_seed(0)
    model = gt.nn.Sequential(gt.nn.Linear(784, 128), gt.nn.ReLU(), gt.nn.Linear(128, 10))
    opt = gt.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = gt.nn.CrossEntropyLoss()
    x = gt.randn(64, 784)
    y = gt.randint(0, 10, (64,))
    start = None
    for step in range(args.steps):
        if step == min(args.warmup, args.steps - 1):
            start = rss_mb()
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
    end = rss_mb()
    growth = end - start
    print(f"steps {args.steps}  RSS after warm-up {start:.1f} MiB  at end {end:.1f} MiB  "
          f"RSS growth {growth:+.2f} MiB (limit {args.limit_mb} MiB)  final loss {loss.item():.4f}")
    return 0 if growth <= args.limit_mb else 1


if __name__ == "__main__":
    sys.exit(main())
