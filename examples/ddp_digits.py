"""The digits MLP of mlp_digits.py, trained data-parallel on MPI ranks.

Every rank holds a replica of 64 -> 128 -> ReLU -> 10 and takes its share of each
global batch (``DistributedSampler``'s split); ``DistributedDataParallel``
averages the gradients over the ranks during backward, so plain SGD keeps the
replicas identical. At the end, rank 0 replays the same run in one process on
the whole global batches and prints whether the weights agree.

Run:  mpiexec -n 2 python examples/ddp_digits.py [--epochs 10] [--batch-size 64]
(multi-host: mpiexec -hosts node1,node2 -n 4 python examples/ddp_digits.py)
"""

import argparse
import copy
import time

import numpy as np
from numpy.typing import NDArray
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

import gradtrack as gt
from gradtrack import Tensor
import gradtrack.distributed as dist
from gradtrack import nn, optim
from gradtrack.nn.parallel import DistributedDataParallel
from gradtrack.utils.data.distributed import DistributedSampler


def load_data(seed: int) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    digits = load_digits()
    X = (digits.data / 16.0).astype(np.float32)
    y = digits.target.astype(np.int64)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.25, random_state=seed, stratify=y)
    return gt.tensor(X_train), gt.tensor(y_train), gt.tensor(X_test), gt.tensor(y_test)


def global_batches(n: int, batch_size: int, epoch: int, seed: int) -> list[NDArray[np.int64]]:
    """The epoch's order, cut into global batches (the same on every rank)."""
    order = np.random.default_rng(seed + epoch).permutation(n)
    usable = n - n % batch_size  # full batches only: every rank gets the same share
    return [order[i:i + batch_size] for i in range(0, usable, batch_size)]


def shard(batch: NDArray[np.int64], world: int, rank: int) -> Tensor:
    """This rank's part of a global batch: DistributedSampler's split of its positions."""
    positions = list(DistributedSampler(batch, num_replicas=world, rank=rank, shuffle=False))
    return gt.tensor(batch[positions])


def train(model: nn.Module, X: Tensor, y: Tensor, args: argparse.Namespace, world: int, rank: int,
          log: bool) -> None:
    loss_fn = nn.CrossEntropyLoss()
    opt = optim.SGD(model.parameters(), lr=args.lr)
    for epoch in range(args.epochs):
        total, seen = 0.0, 0
        for batch in global_batches(X.shape[0], args.batch_size, epoch, args.seed):
            idx = shard(batch, world, rank)
            opt.zero_grad()
            loss = loss_fn(model(X[idx]), y[idx])
            loss.backward()
            opt.step()
            total += loss.item() * idx.shape[0]
            seen += idx.shape[0]
        if log:
            print(f"epoch {epoch + 1:3d}  loss (rank 0's shards) {total / seen:.4f}", flush=True)


def accuracy(model: nn.Module, X: Tensor, y: Tensor) -> float:
    with gt.no_grad():
        return float((model(X).argmax(1) == y).float().mean().item())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=64, help="global batch size")
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    dist.init_process_group(backend="mpi")
    rank, world = dist.get_rank(), dist.get_world_size()
    if args.batch_size % world:
        raise SystemExit(f"--batch-size {args.batch_size} must be a multiple of the {world} ranks")
    X_train, y_train, X_test, y_test = load_data(args.seed)
    gt.manual_seed(args.seed + rank)  # different on purpose: DDP starts every rank from rank 0's
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    ddp = DistributedDataParallel(model)
    initial = copy.deepcopy(model)  # rank 0's weights, on every rank
    if rank == 0:
        print(f"{world} ranks, global batch {args.batch_size} ({args.batch_size // world} per rank), "
              f"SGD lr={args.lr}, {args.epochs} epochs", flush=True)
    start = time.perf_counter()
    train(ddp, X_train, y_train, args, world, rank, log=rank == 0)
    elapsed = time.perf_counter() - start

    if rank == 0:
        print(f"trained in {elapsed:.1f} s; test accuracy {accuracy(model, X_test, y_test):.4f}")
        train(initial, X_train, y_train, args, 1, 0, log=False)  # one process, whole batches
        diff = max((a - b).abs().max().item()
                   for a, b in zip(model.parameters(), initial.parameters()))
        verdict = "equal (to rounding)" if diff < 1e-4 else "DIFFERENT"
        print(f"check: DDP weights vs one process on the global batch: max |diff| = {diff:.2e} "
              f"-> {verdict}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
