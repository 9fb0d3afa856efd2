"""A small MLP on scikit-learn's 8x8 handwritten digits, trained with SGD + momentum.

The data set ships inside scikit-learn (``sklearn.datasets.load_digits``: 1797
images, 10 classes), so nothing is downloaded. The model is
64 -> 128 -> ReLU -> 10 with ``nn.CrossEntropyLoss`` and
``optim.SGD(momentum=0.9)``; a tqdm bar shows the epochs. It reaches about
97% test accuracy in a few seconds.

Run:  python examples/mlp_digits.py [--epochs 30] [--batch-size 32] [--lr 0.05]
"""

import argparse
import time

import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from tqdm import tqdm

import gradtrack as gt
from gradtrack import nn, optim


def load_data(seed):
    """Train/test tensors: pixels scaled to [0, 1], labels as int64 class indices."""
    digits = load_digits()
    X = (digits.data / 16.0).astype(np.float32)
    y = digits.target.astype(np.int64)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.25, random_state=seed, stratify=y)
    return (gt.tensor(X_train), gt.tensor(y_train), gt.tensor(X_test), gt.tensor(y_test))


def accuracy(model, X, y):
    with gt.no_grad():
        predicted = model(X).argmax(1)
    return (predicted == y).float().mean().item()


def train(model, X, y, epochs, batch_size, lr, progress=True):
    loss_fn = nn.CrossEntropyLoss()
    opt = optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    n = X.shape[0]
    bar = tqdm(range(epochs), desc="training", unit="epoch", disable=not progress)
    for _ in bar:
        order = gt.randperm(n)
        total = 0.0
        for start in range(0, n, batch_size):
            idx = order[start:start + batch_size]
            opt.zero_grad()
            loss = loss_fn(model(X[idx]), y[idx])
            loss.backward()
            opt.step()
            total += loss.item() * idx.shape[0]
        bar.set_postfix(loss=f"{total / n:.4f}")
    return total / n


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-progress", action="store_true", help="hide the tqdm bar")
    args = parser.parse_args(argv)

    gt.manual_seed(args.seed)
    X_train, y_train, X_test, y_test = load_data(args.seed)
    model = nn.Sequential(nn.Linear(64, args.hidden), nn.ReLU(), nn.Linear(args.hidden, 10))
    print(model)
    print(f"train {X_train.shape[0]} images, test {X_test.shape[0]} images; "
          f"SGD lr={args.lr} momentum=0.9, batch {args.batch_size}, {args.epochs} epochs")
    start = time.perf_counter()
    final_loss = train(model, X_train, y_train, args.epochs, args.batch_size, args.lr,
                       progress=not args.no_progress)
    elapsed = time.perf_counter() - start
    print(f"final train loss {final_loss:.4f}, train accuracy "
          f"{accuracy(model, X_train, y_train):.4f} ({elapsed:.1f} s)")
    print(f"test accuracy: {accuracy(model, X_test, y_test):.4f}")


if __name__ == "__main__":
    main()
