"""A small MLP on scikit-learn's 8x8 handwritten digits: DataLoader, Adam, a scheduler, clipping.

The data set ships inside scikit-learn (``sklearn.datasets.load_digits``: 1797
images, 10 classes), so nothing is downloaded. The model is
64 -> 128 -> ReLU -> 10 with ``nn.CrossEntropyLoss``, fed by a shuffled
``DataLoader`` and trained with ``optim.Adam``, a cosine learning-rate schedule
and ``clip_grad_norm_`` — the loop a torch user writes; a tqdm bar shows the
epochs. It reaches about 97% test accuracy in a few seconds.

Run:  python examples/mlp_digits.py [--epochs 30] [--batch-size 32] [--lr 0.01]
Needs scikit-learn and tqdm:  pip install "gradtrack[examples]"
"""

import argparse
import sys
import time

import numpy as np

try:
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split
    from tqdm import tqdm
except ImportError as e:
    sys.exit(f"{e}: this example needs scikit-learn and tqdm; install them with\n"
             '    pip install "gradtrack[examples]"')

import gradtrack as gt
from gradtrack import Tensor
from gradtrack import nn, optim
from gradtrack.utils.data import DataLoader, TensorDataset


def load_data(seed: int) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """Train/test tensors: pixels scaled to [0, 1], labels as int64 class indices."""
    digits = load_digits()
    X = (digits.data / 16.0).astype(np.float32)
    y = digits.target.astype(np.int64)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.25, random_state=seed, stratify=y)
    return (gt.tensor(X_train), gt.tensor(y_train), gt.tensor(X_test), gt.tensor(y_test))


def accuracy(model: nn.Module, X: Tensor, y: Tensor) -> float:
    with gt.no_grad():
        predicted = model(X).argmax(1)
    return float((predicted == y).float().mean().item())


def train(model: nn.Module, X: Tensor, y: Tensor, epochs: int, batch_size: int, lr: float,
          progress: bool = True) -> float:
    loader = DataLoader(TensorDataset(X, y), batch_size=batch_size, shuffle=True)
    loss_fn = nn.CrossEntropyLoss()
    opt = optim.Adam(model.parameters(), lr=lr)
    sched = optim.lr_scheduler.CosineAnnealingLR(opt, T_max=epochs)
    n = X.shape[0]
    bar = tqdm(range(epochs), desc="training", unit="epoch", disable=not progress)
    for _ in bar:
        total = 0.0
        for xb, yb in loader:
            opt.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
            opt.step()
            total += loss.item() * xb.shape[0]
        sched.step()
        bar.set_postfix(loss=f"{total / n:.4f}", lr=f"{sched.get_last_lr()[0]:.5f}")
    return total / n


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-progress", action="store_true", help="hide the tqdm bar")
    args = parser.parse_args(argv)

    gt.manual_seed(args.seed)
    X_train, y_train, X_test, y_test = load_data(args.seed)
    model = nn.Sequential(nn.Linear(64, args.hidden), nn.ReLU(), nn.Linear(args.hidden, 10))
    print(model)
    print(f"train {X_train.shape[0]} images, test {X_test.shape[0]} images; "
          f"Adam lr={args.lr} with cosine annealing, clip_grad_norm_ 1.0, "
          f"batch {args.batch_size}, {args.epochs} epochs")
    start = time.perf_counter()
    final_loss = train(model, X_train, y_train, args.epochs, args.batch_size, args.lr,
                       progress=not args.no_progress)
    elapsed = time.perf_counter() - start
    print(f"final train loss {final_loss:.4f}, train accuracy "
          f"{accuracy(model, X_train, y_train):.4f} ({elapsed:.1f} s)")
    print(f"test accuracy: {accuracy(model, X_test, y_test):.4f}")


if __name__ == "__main__":
    main()
