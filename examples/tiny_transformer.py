"""A tiny character-level transformer trained on text that ships with Python.

The corpus is the docstrings of a few standard-library modules (``collections``,
``json``, ``argparse``, ...), so nothing is downloaded. The model is the GPT
recipe at toy size: token and position embeddings, ``nn.TransformerEncoder`` layers
run with the causal mask from ``nn.Transformer.generate_square_subsequent_mask``
(``norm_first=True``, GELU), and a linear head predicting the next character, trained
with ``optim.AdamW``. A tqdm bar shows the steps; it then samples text from a few
prompts. In under a minute on two cores the samples are made of English-looking words
and Python-docstring fragments.

Run:  python examples/tiny_transformer.py [--steps 500] [--context 32] [--seed 0]
Needs tqdm:  pip install "gradtrack[examples]"
"""

import argparse
import importlib
import inspect
import math
import sys
import time
from collections.abc import Iterator

import numpy as np
import numpy.typing as npt

try:
    from tqdm import tqdm
except ImportError as e:
    sys.exit(f"{e}: this example needs tqdm; install it with\n"
             '    pip install "gradtrack[examples]"')

import gradtrack as gt
from gradtrack import Tensor, nn, optim

MODULES = ["collections", "json", "argparse", "textwrap", "functools", "itertools", "string",
           "pathlib", "random", "statistics", "heapq", "bisect", "fractions", "shlex", "csv"]


def load_corpus() -> str:
    """The docstrings of MODULES and their public members, whitespace tidied."""
    texts: list[str] = []
    for name in MODULES:
        module = importlib.import_module(name)
        for obj in [module] + [getattr(module, n) for n in sorted(vars(module))
                               if not n.startswith("_")]:
            doc = inspect.getdoc(obj)
            if doc and (obj is module or getattr(obj, "__module__", None) == name):
                texts.append(" ".join(doc.split()))
    text = "\n".join(dict.fromkeys(texts))  # each docstring once, in order
    return "".join(c for c in text if c.isascii())


class TinyGPT(nn.Module):
    """Embeddings -> causal TransformerEncoder -> LayerNorm -> next-character logits."""

    def __init__(self, vocab: int, context: int, d_model: int = 64, nhead: int = 4,
                 layers: int = 2, dropout: float = 0.1) -> None:
        super().__init__()
        self.tokens = nn.Embedding(vocab, d_model)
        self.positions = nn.Embedding(context, d_model)
        layer = nn.TransformerEncoderLayer(d_model, nhead, 4 * d_model, dropout,
                                           activation="gelu", batch_first=True,
                                           norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, norm=nn.LayerNorm(d_model),
                                             enable_nested_tensor=False)
        self.head = nn.Linear(d_model, vocab)
        self.register_buffer("causal", nn.Transformer.generate_square_subsequent_mask(context))

    def forward(self, idx: Tensor) -> Tensor:
        length = idx.shape[1]
        h = self.tokens(idx) + self.positions(gt.arange(length))
        mask = self.causal[:length, :length]
        logits: Tensor = self.head(self.encoder(h, mask=mask, is_causal=True))
        return logits


def batches(data: npt.NDArray[np.int64], context: int, batch_size: int,
            rng: np.random.Generator) -> Iterator[tuple[Tensor, Tensor]]:
    """Random windows of the corpus and the same windows shifted by one character."""
    while True:
        starts = rng.integers(0, len(data) - context - 1, size=batch_size)
        x = np.stack([data[s:s + context] for s in starts])
        y = np.stack([data[s + 1:s + context + 1] for s in starts])
        yield gt.tensor(x), gt.tensor(y)


def train(model: TinyGPT, data: npt.NDArray[np.int64], args: argparse.Namespace,
          progress: bool = True) -> tuple[float | None, float | None]:
    opt = optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    warmup: int = max(1, args.steps // 20)

    def schedule(step: int) -> float:  # linear warm-up, then cosine decay to a tenth
        if step < warmup:
            return (step + 1) / warmup
        return 0.1 + 0.45 * (1 + math.cos(math.pi * (step - warmup) / (args.steps - warmup)))
    sched = optim.lr_scheduler.LambdaLR(opt, schedule)
    loss_fn = nn.CrossEntropyLoss()
    stream = batches(data, args.context, args.batch_size, np.random.default_rng(args.seed))
    model.train()
    first: float | None = None
    smoothed: float | None = None
    bar = tqdm(range(args.steps), desc="training", unit="step", disable=not progress)
    for _ in bar:
        x, y = next(stream)
        logits = model(x)
        loss = loss_fn(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        value = loss.item()
        first = value if first is None else first
        smoothed = value if smoothed is None else 0.95 * smoothed + 0.05 * value
        bar.set_postfix(loss=f"{smoothed:.3f}")
    return first, smoothed


def sample(model: TinyGPT, prompt: str, stoi: dict[str, int], itos: list[str], context: int,
           length: int, temperature: float, generator: gt.Generator) -> str:
    """Continues ``prompt`` one character at a time from the model's distribution."""
    model.eval()
    idx = [stoi.get(c, 0) for c in prompt]
    with gt.no_grad():
        for _ in range(length):
            window = gt.tensor([idx[-context:]])
            logits = model(window)[0, -1] / temperature
            probs = gt.softmax(logits, dim=-1)
            idx.append(int(gt.multinomial(probs, 1, generator=generator).item()))
    return "".join(itos[i] for i in idx)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--context", type=int, default=32)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sample-length", type=int, default=120)
    parser.add_argument("--temperature", type=float, default=0.8)
    parser.add_argument("--no-progress", action="store_true", help="hide the tqdm bar")
    args = parser.parse_args(argv)

    gt.manual_seed(args.seed)
    text = load_corpus()
    chars = sorted(set(text))
    stoi = {c: i for i, c in enumerate(chars)}
    data = np.array([stoi[c] for c in text], dtype=np.int64)
    model = TinyGPT(len(chars), args.context)
    n_params = sum(p.numel() for p in model.parameters())
    print(f"corpus: docstrings of {len(MODULES)} standard-library modules, {len(text)} "
          f"characters, {len(chars)} distinct")
    print(f"model: {n_params} parameters, context {args.context}, {args.steps} steps of "
          f"{args.batch_size} windows")
    start = time.perf_counter()
    first, last = train(model, data, args, progress=not args.no_progress)
    elapsed = time.perf_counter() - start
    print(f"loss {first:.3f} -> {last:.3f} (uniform guess: {math.log(len(chars)):.3f}) "
          f"in {elapsed:.1f} s")
    generator = gt.Generator().manual_seed(args.seed)
    for prompt in ("Return a ", "The ", "This module "):
        out = sample(model, prompt, stoi, chars, args.context, args.sample_length,
                     args.temperature, generator)
        print(f"sample: {out!r}")


if __name__ == "__main__":
    main()
