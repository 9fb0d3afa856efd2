"""A small CNN on scikit-learn's 8x8 handwritten digits, trained with SGD + momentum.

The data set ships inside scikit-learn (``sklearn.datasets.load_digits``: 1797
images, 10 classes), so nothing is downloaded. The model is two 3x3
convolutions (``nn.Conv2d``, ``nn.BatchNorm2d``, ``nn.ReLU``, ``nn.MaxPool2d``) and
two linear layers with ``nn.Dropout`` between them, trained with ``nn.CrossEntropyLoss``, ``optim.SGD(momentum=0.9)``
with weight decay and a cosine learning-rate decay, on images shifted at random
by up to one pixel each epoch; a tqdm bar shows the epochs. It reaches about
98-99% test accuracy in seconds.

Run:  python examples/cnn_digits.py [--epochs 25] [--batch-size 32] [--lr 0.05]
"""

import argparse
import math
import time

import numpy as np
from numpy.typing import NDArray
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from tqdm import tqdm

import gradtrack as gt
from gradtrack import Tensor
from gradtrack import nn, optim


def load_data(seed: int = 0) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """Train/test tensors: images (N, 1, 8, 8) scaled to [0, 1], labels as int64.

    The split is the same for every run (``seed`` 0, as mlp_digits.py's default), so
    runs with other seeds differ only in initialisation and batch order."""
    digits = load_digits()
    X = (digits.images / 16.0).astype(np.float32)[:, None, :, :]
    y = digits.target.astype(np.int64)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.25, random_state=seed, stratify=y)
    return (gt.tensor(X_train), gt.tensor(y_train), gt.tensor(X_test), gt.tensor(y_test))


def make_model(channels: int = 16) -> nn.Sequential:
    """8x8 -> conv 3x3 -> 8x8 -> pool -> 4x4 -> conv 3x3 -> 4x4 -> pool -> 2x2 -> 10 classes."""
    return nn.Sequential(
        nn.Conv2d(1, channels, 3, padding=1), nn.BatchNorm2d(channels), nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(channels, 2 * channels, 3, padding=1), nn.BatchNorm2d(2 * channels), nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(2 * channels * 2 * 2, 64), nn.ReLU(), nn.Dropout(0.25),
        nn.Linear(64, 10))


def accuracy(model: nn.Module, X: Tensor, y: Tensor) -> float:
    """Accuracy in eval mode: BatchNorm uses its running statistics, Dropout is off."""
    model.eval()
    with gt.no_grad():
        predicted = model(X).argmax(1)
    model.train()
    return float((predicted == y).float().mean().item())


def shifted(X: NDArray[np.float32], rng: np.random.Generator) -> NDArray[np.float32]:
    """Each image moved by up to one pixel in each direction (zeros fill in): a cheap
    augmentation that makes the small network generalise better."""
    n: int = X.shape[0]
    padded = np.pad(X, ((0, 0), (0, 0), (1, 1), (1, 1)))
    dy, dx = rng.integers(0, 3, n), rng.integers(0, 3, n)
    rows = dy[:, None] + np.arange(8)[None, :]
    cols = dx[:, None] + np.arange(8)[None, :]
    out: NDArray[np.float32] = padded[np.arange(n)[:, None, None], 0, rows[:, :, None], cols[:, None, :]][:, None]
    return out


def train(model: nn.Module, X: Tensor, y: Tensor, epochs: int, batch_size: int, lr: float,
          weight_decay: float = 0.0, augment: bool = True, progress: bool = True, seed: int = 0) -> float:
    loss_fn = nn.CrossEntropyLoss()
    opt = optim.SGD(model.parameters(), lr=lr, momentum=0.9, weight_decay=weight_decay)
    n = X.shape[0]
    rng = np.random.default_rng(seed)
    images = X.numpy()
    bar = tqdm(range(epochs), desc="training", unit="epoch", disable=not progress)
    for epoch in bar:
        # cosine decay of the learning rate over the run
        for group in opt.param_groups:
            group["lr"] = lr * 0.5 * (1 + math.cos(math.pi * epoch / epochs))
        inputs = gt.tensor(shifted(images, rng)) if augment else X
        order = gt.randperm(n)
        total = 0.0
        for start in range(0, n, batch_size):
            idx = order[start:start + batch_size]
            opt.zero_grad()
            loss = loss_fn(model(inputs[idx]), y[idx])
            loss.backward()
            opt.step()
            total += loss.item() * idx.shape[0]
        bar.set_postfix(loss=f"{total / n:.4f}")
    return total / n


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--epochs", type=int, default=25)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--weight-decay", type=float, default=1e-3)
    parser.add_argument("--channels", type=int, default=32)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-augment", action="store_true", help="no random 1-pixel shifts")
    parser.add_argument("--no-progress", action="store_true", help="hide the tqdm bar")
    args = parser.parse_args(argv)

    gt.manual_seed(args.seed)
    X_train, y_train, X_test, y_test = load_data()
    model = make_model(args.channels)
    print(model)
    print(f"train {X_train.shape[0]} images, test {X_test.shape[0]} images; "
          f"SGD lr={args.lr} momentum=0.9 weight_decay={args.weight_decay}, "
          f"batch {args.batch_size}, {args.epochs} epochs")
    start = time.perf_counter()
    final_loss = train(model, X_train, y_train, args.epochs, args.batch_size, args.lr,
                       args.weight_decay, augment=not args.no_augment,
                       progress=not args.no_progress, seed=args.seed)
    elapsed = time.perf_counter() - start
    print(f"final train loss {final_loss:.4f}, train accuracy "
          f"{accuracy(model, X_train, y_train):.4f} ({elapsed:.1f} s)")
    print(f"test accuracy: {accuracy(model, X_test, y_test):.4f}")


if __name__ == "__main__":
    main()
