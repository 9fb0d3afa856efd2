"""A character-level LSTM language model trained on the docstrings of Python's standard library.

The text ships with Python: the docstrings of a few dozen stdlib modules and of
their public functions and classes (about 300 KB), so nothing is downloaded. The
model is ``nn.Embedding -> nn.LSTM (2 layers) -> nn.Linear`` over the characters,
trained on random 48-character windows with ``nn.CrossEntropyLoss``, ``optim.Adam``
and ``clip_grad_norm_`` (truncated backpropagation through time, as in torch's
word-language-model example); a tqdm bar shows the steps. It then samples text
one character at a time, carrying the LSTM's ``(h, c)`` state from step to step.
About 45 s on 2 cores; the samples read like docstrings (words, "Return the",
parameters in backquotes) after a few hundred steps.

Run:  python examples/char_rnn.py [--steps 400] [--batch-size 32] [--seq-len 48]
Needs tqdm:  pip install "gradtrack[examples]"
"""

import argparse
import importlib
import inspect
import sys
import time

try:
    from tqdm import tqdm
except ImportError as e:
    sys.exit(f"{e}: this example needs tqdm; install it with\n"
             '    pip install "gradtrack[examples]"')

import numpy as np
import numpy.typing as npt

import gradtrack as gt
from gradtrack import Tensor, nn, optim

MODULES = ("argparse", "base64", "bisect", "calendar", "collections", "contextlib", "copy",
           "csv", "dataclasses", "datetime", "decimal", "difflib", "email.message",
           "fractions", "functools", "glob", "gzip", "heapq", "html", "inspect", "ipaddress",
           "json", "logging", "os", "pathlib", "pickle", "pprint", "queue", "random", "re",
           "shutil", "statistics", "string", "subprocess", "tarfile", "tempfile", "textwrap",
           "threading", "typing", "unittest", "urllib.parse", "uuid", "warnings", "zipfile")


def stdlib_docstrings(limit: int) -> str:
    """Up to ``limit`` characters of docstrings, module by module, in a fixed order."""
    parts: list[str] = []
    for name in MODULES:
        try:
            module = importlib.import_module(name)
        except ImportError:  # a Python built without the module
            continue
        docs = [inspect.getdoc(module)]
        for attr in sorted(vars(module)):
            obj = getattr(module, attr)
            if not attr.startswith("_") and getattr(obj, "__module__", None) == name:
                docs.append(inspect.getdoc(obj))
        parts.extend(d for d in docs if d)
    return "\n\n".join(parts)[:limit]


# An LSTM's state: (h, c).
State = tuple[Tensor, Tensor]


class CharLSTM(nn.Module):
    def __init__(self, vocab: int, embed: int, hidden: int, layers: int, dropout: float) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, embed)
        self.lstm = nn.LSTM(embed, hidden, num_layers=layers, dropout=dropout, batch_first=True)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, x: Tensor, state: State | None = None) -> tuple[Tensor, State]:
        out, state = self.lstm(self.embed(x), state)
        return self.head(out), state


def batches(data: npt.NDArray[np.int64], batch_size: int, seq_len: int,
            rng: np.random.Generator) -> tuple[Tensor, Tensor]:
    """Random windows: inputs and the same windows shifted by one character."""
    starts = rng.integers(0, len(data) - seq_len - 1, size=batch_size)
    rows = np.stack([data[s:s + seq_len + 1] for s in starts])
    return gt.tensor(rows[:, :-1]), gt.tensor(rows[:, 1:])


def train(model: CharLSTM, data: npt.NDArray[np.int64], vocab: int, args: argparse.Namespace,
          progress: bool = True) -> float | None:
    rng = np.random.default_rng(args.seed)
    loss_fn = nn.CrossEntropyLoss()
    opt = optim.Adam(model.parameters(), lr=args.lr)
    bar = tqdm(range(args.steps), desc="training", unit="step", disable=not progress)
    smoothed: float | None = None
    for _ in bar:
        x, y = batches(data, args.batch_size, args.seq_len, rng)
        logits, _ = model(x)
        loss = loss_fn(logits.reshape(-1, vocab), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        opt.step()
        value = loss.item()
        smoothed = value if smoothed is None else 0.95 * smoothed + 0.05 * value
        bar.set_postfix(loss=f"{smoothed:.3f}")
    return smoothed


def sample(model: CharLSTM, chars: list[str], prompt: str, length: int, temperature: float,
           seed: int) -> str:
    """Continues ``prompt`` one character at a time from the softmax of the last logits."""
    index = {c: i for i, c in enumerate(chars)}
    rng = np.random.default_rng(seed)
    model.eval()
    text = prompt
    with gt.no_grad():
        logits, state = model(gt.tensor([[index[c] for c in prompt]]))
        for _ in range(length):
            probs = (logits[0, -1] / temperature).softmax(0).double().numpy()
            nxt = int(rng.choice(len(chars), p=probs / probs.sum()))
            text += chars[nxt]
            logits, state = model(gt.tensor([[nxt]]), state)
    model.train()
    return text


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--seq-len", type=int, default=48)
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--lr", type=float, default=4e-3)
    parser.add_argument("--chars", type=int, default=300_000, help="how much text to use")
    parser.add_argument("--sample-length", type=int, default=300)
    parser.add_argument("--temperature", type=float, default=0.7)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-progress", action="store_true", help="hide the tqdm bar")
    args = parser.parse_args(argv)

    gt.manual_seed(args.seed)
    text = stdlib_docstrings(args.chars)
    chars = sorted(set(text))
    index = {c: i for i, c in enumerate(chars)}
    data = np.array([index[c] for c in text], dtype=np.int64)
    model = CharLSTM(len(chars), 32, args.hidden, args.layers, dropout=0.1)
    print(model)
    print(f"{len(text)} characters of stdlib docstrings, {len(chars)} distinct; "
          f"{args.steps} steps of {args.batch_size} windows x {args.seq_len} characters")
    start = time.perf_counter()
    loss = train(model, data, len(chars), args, progress=not args.no_progress)
    elapsed = time.perf_counter() - start
    print(f"final loss {loss:.3f} (uniform guessing: {np.log(len(chars)):.3f}) in {elapsed:.1f} s")
    print("sample:")
    print(sample(model, chars, "Return the ", args.sample_length, args.temperature, args.seed))


if __name__ == "__main__":
    main()
