"""Hogwild: several processes train one model in shared memory, without locks.

The model's parameters move to shared memory (``model.share_memory()``); each worker
process gets the model through ``gradtrack.multiprocessing`` (its arguments arrive
sharing memory with the parent), builds its own optimizer and takes SGD steps on its
own shard of the data, writing straight into the shared weights. The parent never
receives a result: it sees the trained weights in its own model when the workers end.

The data is made here: 8x8 "images" of 10 classes, each class a fixed random pattern
plus noise, so the script needs nothing to download.

Run:  python examples/hogwild_blobs.py [--workers 2] [--epochs 3] [--start-method spawn]
"""

import argparse

import gradtrack as gt
import gradtrack.multiprocessing as mp
from gradtrack import nn, optim


def make_data(n: int, seed: int) -> tuple[gt.Tensor, gt.Tensor]:
    """``n`` noisy 8x8 images of 10 class patterns, flattened, and their labels."""
    patterns = gt.rand(10, 64, generator=gt.Generator().manual_seed(1234))  # the classes
    g = gt.Generator().manual_seed(seed)
    labels = gt.randint(0, 10, (n,), generator=g)
    images = patterns[labels] + 0.35 * gt.randn(n, 64, generator=g)
    return images, labels


def make_model() -> nn.Module:
    return nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10))


def accuracy(model: nn.Module, X: gt.Tensor, y: gt.Tensor) -> float:
    with gt.no_grad():
        return float((model(X).argmax(1) == y).float().mean().item())


def train(rank: int, model: nn.Module, X: gt.Tensor, y: gt.Tensor, args: argparse.Namespace) -> None:
    """One worker: its own optimizer, its shard of the data, steps into the shared weights."""
    gt.manual_seed(args.seed + rank)
    gt.set_num_threads(1)  # the workers share the cores
    opt = optim.SGD(model.parameters(), lr=args.lr, momentum=0.5)
    loss_fn = nn.CrossEntropyLoss()
    mine_X, mine_y = X[rank::args.workers], y[rank::args.workers]
    for _ in range(args.epochs):
        order = gt.randperm(mine_X.shape[0])
        for i in range(0, order.numel(), args.batch_size):
            idx = order[i:i + args.batch_size]
            opt.zero_grad()
            loss_fn(model(mine_X[idx]), mine_y[idx]).backward()
            opt.step()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--samples", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--start-method", default="spawn", choices=["spawn", "fork", "forkserver"])
    args = parser.parse_args()

    gt.manual_seed(args.seed)
    X, y = make_data(args.samples, args.seed)
    X_test, y_test = make_data(500, args.seed + 1)
    model = make_model()
    model.share_memory()
    print(f"before: test accuracy {accuracy(model, X_test, y_test):.3f}")

    context = mp.get_context(args.start_method)
    workers = [context.Process(target=train, args=(rank, model, X, y, args))
               for rank in range(args.workers)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    if any(w.exitcode != 0 for w in workers):
        raise SystemExit("a worker failed")
    # The parent took no step: what it sees is what the workers wrote into shared memory.
    print(f"after {args.workers} workers x {args.epochs} epochs ({args.start_method}): "
          f"test accuracy {accuracy(model, X_test, y_test):.3f}")


if __name__ == "__main__":
    main()
