"""The in-place pitfalls of autograd, run live, each followed by its fix.

Every snippet below really runs; the errors you see are the ones the library
raises. gradtrack raises PyTorch's exact messages and adds a note (PEP 678,
printed after the message) saying which call saved the tensor and which
in-place write changed it, with file and line; ``gradtrack.autograd.explain``
shows the same before backward is called. Neither exists in PyTorch.

    python examples/inplace_pitfalls.py            # with gradtrack
    python examples/inplace_pitfalls.py --lib torch  # the same script on PyTorch

Pitfalls:
  1. an in-place update of a leaf that requires grad
  2. ``.data``: the change is not tracked, the gradient is silently wrong
  3. ``.detach()``: the same change is tracked, backward refuses
  4. ``detach_()``: cuts the graph in place (and is refused on views)
  5. ``.grad`` of an intermediate result is None unless you ``retain_grad()``
  6. ``p = p - lr * p.grad``: p silently stops being a leaf
  7. ``optimizer.step()`` between forward and backward
  8. ``backward()`` twice through the same graph
"""

import argparse
import contextlib
import importlib
import io
import textwrap
import warnings
from collections.abc import Callable
from typing import Any

T: Any = None  # the library under study (gradtrack or torch), set by main()


def section(number: int, title: str) -> None:
    print()
    print(f"{number}. {title}")
    print("-" * (len(title) + 3))


WIDTH = 84  # prose, errors and notes all wrap to this width
width = WIDTH  # narrower inside a block of marked lines


def wrap(text: str, first: str, rest: str) -> str:
    """``text`` wrapped to WIDTH, its first line prefixed ``first``, the others ``rest``."""
    return textwrap.fill(" ".join(text.split()), width, initial_indent=first,
                         subsequent_indent=rest, break_long_words=False,
                         break_on_hyphens=False)


def say(text: str) -> None:
    """Prints an explanation as one indented, wrapped paragraph."""
    print(wrap(text, "   ", "   "))


def show(snippet: str, value: object) -> None:
    """Prints the snippet, then what it gives."""
    print(f"   >>> {snippet}")
    print(textwrap.indent(str(value), "   "))


# torch's message for detach_() on a view ends with advice about DistributedDataParallel
# buckets; a learner of in-place rules is better served by the sentence before it.
DDP_TAIL = " If you are using DistributedDataParallel"


def attempt(snippet: str, fn: Callable[[], Any]) -> Any:
    """Runs ``fn``; prints the snippet, then its result or the exception it raises."""
    print(f"   >>> {snippet}")
    try:
        result = fn()
    except Exception as e:  # showing the error is the point
        message = str(e)
        if DDP_TAIL in message:
            message = message[:message.index(DDP_TAIL)] + " (...)"
        print(wrap(f"{type(e).__name__}: {message}", "   ", "     "))
        for note in getattr(e, "__notes__", []):
            print(wrap(note, "   note: ", "         "))
        return e
    print(textwrap.indent(str(result), "   "))
    return result


# Lines only gradtrack prints (torch has no silent-write detector) carry this mark.
GRADTRACK_ONLY = "   [gradtrack] "


def silent_writes(on: bool) -> Any:
    """gradtrack's silent-write detector switched on or off for a block (torch has none)."""
    detector = getattr(T.autograd, "detect_silent_writes", None)
    return detector(on) if detector else contextlib.nullcontext()


def pitfall_leaf_update() -> None:
    section(1, "In-place update of a leaf that requires grad")
    w = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (w * w).sum().backward()
    show("w.grad", w.grad)

    def sgd_step() -> Any:
        v = w
        v -= 0.1 * w.grad  # `-=` on a tensor is sub_, an in-place op
        return v

    attempt("w -= 0.1 * w.grad", sgd_step)
    show("w._version  # the refused write changed nothing", w._version)
    say("""Autograd refuses: w is a leaf it accumulates gradients into, and
        writing it in place while grad mode is on would be recorded as part of
        the graph. Fix: write it where autograd does not record. Either of
        these two, each starting from the same w:""")
    w1 = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w1.grad = w.grad.clone()
    with T.no_grad():
        w1 -= 0.1 * w1.grad
    show("with no_grad(): w -= 0.1 * w.grad", w1)
    w2 = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w2.grad = w.grad.clone()
    w2.detach().sub_(w2.grad, alpha=0.1)
    show("w.detach().sub_(w.grad, alpha=0.1)", w2)
    show("w.is_leaf, w._version  # after either fix alike", (w2.is_leaf, w2._version))


def pitfall_data() -> None:
    section(2, ".data: the change is not tracked, the gradient is silently wrong")
    X = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with silent_writes(False):  # torch's behaviour, even with GRADTRACK_DETECT_SILENT_WRITES=1
        Y = X ** 2  # PowBackward0 saves X to compute dY/dX = 2 * X later
    X.data *= 2
    Y.sum().backward()
    show("Y  # computed before the change", Y)
    show("X.grad", X.grad)
    show("2 * T.tensor([1., 2., 3.])  # the correct gradient", 2 * T.tensor([1., 2., 3.]))
    show("X._version", X._version)
    say("""`.data` is an alias with its own, fresh version counter, so autograd
        cannot see the write: backward used the modified X and no error was
        raised. Fix: never modify saved values through `.data`; use
        `.detach()` (next pitfall) so the mistake is caught, or modify a
        `.clone()`.""")
    if hasattr(T.autograd, "detect_silent_writes"):
        caught_by_the_detector()


def caught_by_the_detector() -> None:
    """gradtrack's answer to pitfall 2: the same code, with the detector on when Y is made."""
    global width
    buffer = io.StringIO()
    width = WIDTH - len(GRADTRACK_ONLY) + 3
    with contextlib.redirect_stdout(buffer):
        say("""gradtrack can catch this: with its silent-write detector on, every
            tensor a node saves is watched, and backward refuses before it
            accumulates anything.""")
        X = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
        print("   >>> with gradtrack.autograd.detect_silent_writes():")
        print("   ...     Y = X ** 2")
        with T.autograd.detect_silent_writes():
            Y = X ** 2
        print("   >>> X.data *= 2")
        X.data *= 2
        attempt("Y.sum().backward()", lambda: Y.sum().backward())
        show("X.grad  # nothing was accumulated", X.grad)
    width = WIDTH
    for line in buffer.getvalue().splitlines():
        print(GRADTRACK_ONLY + line[3:])


def pitfall_detach() -> None:
    section(3, ".detach(): the same change is tracked, backward refuses")
    X = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    Y = X ** 2
    X.detach().mul_(2)  # detach() shares X's memory AND its version counter
    show("X._version", X._version)
    explain = getattr(T.autograd, "explain", None)  # gradtrack only
    if explain is not None:
        print("   explain(Y) before backward: the graph, and what each node saved")
        print(textwrap.indent(explain(Y), "      | "))
    attempt("Y.sum().backward()", lambda: Y.sum().backward())
    say("""The version counter moved from 0 (when PowBackward0 saved X) to 1,
        so backward refuses instead of returning a wrong gradient.
        Fix: finish backward before changing X, or change a copy.""")
    X = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    Y = X ** 2
    doubled = X.detach().clone().mul_(2)  # a copy: X itself is untouched
    Y.sum().backward()
    show("X.grad  # X untouched, a clone doubled", X.grad)
    show("doubled", doubled)


def pitfall_detach_inplace() -> None:
    section(4, "detach_(): cuts the graph in place")
    a = T.tensor([1.0, 2.0], requires_grad=True)
    b = a * 3
    show("b", b)
    b.detach_()
    show("b.detach_(); b, b.is_leaf, b.requires_grad", (b, b.is_leaf, b.requires_grad))
    attempt("(b * 2).sum().backward()", lambda: (b * 2).sum().backward())
    say("""detach_() turned b into a leaf that does not require grad: nothing
        flows back to `a` any more. Fix: keep b in the graph and take a
        separate `b.detach()` where you need a constant.""")
    b = a * 3
    constant = b.detach()
    (b * constant).sum().backward()
    show("a.grad  # b kept in the graph, constant = b.detach()", a.grad)
    attempt("(a * 3)[0].detach_()  # a view", lambda: (a * 3)[0].detach_())


def pitfall_retain_grad() -> None:
    section(5, ".grad of an intermediate result")
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 2
    (y * y).sum().backward()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        grad = y.grad
    show("y.grad", grad)
    for w in caught:
        # torch adds where in its C++ sources the warning was raised; not for a learner.
        message = str(w.message).split(" (Triggered internally at")[0]
        print(wrap(message, "   warning: ", "            "))
    say("""Only leaves get .grad. Fix: call retain_grad() on the intermediate
        before backward.""")
    y = x * 2
    y.retain_grad()
    (y * y).sum().backward()
    show("y.grad  # after y.retain_grad()", y.grad)


def pitfall_rebinding() -> None:
    section(6, "p = p - lr * p.grad: p stops being a leaf")
    p = T.tensor([1.0, -2.0], requires_grad=True)
    (p * p).sum().backward()
    p = p - 0.1 * p.grad  # a NEW tensor, computed from the old p
    show("p", p)
    show("p.is_leaf", p.is_leaf)
    (p * p).sum().backward()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        show("p.grad  # after the next backward", p.grad)
    attempt("optim.SGD([p], lr=0.1)", lambda: T.optim.SGD([p], lr=0.1))
    say("""The out-of-place expression builds a graph (SubBackward0) and
        rebinds the name: the next backward fills the OLD leaf's .grad and the
        training loop quietly stops learning. Fix: update in place where
        autograd does not record, or let an optimizer do it.""")
    p = T.tensor([1.0, -2.0], requires_grad=True)
    (p * p).sum().backward()
    with T.no_grad():
        p.sub_(p.grad, alpha=0.1)
    show("with no_grad(): p.sub_(p.grad, alpha=0.1); p, p.is_leaf", (p, p.is_leaf))


def pitfall_step_before_backward() -> None:
    section(7, "optimizer.step() between forward and backward")
    T.manual_seed(0)
    model = T.nn.Sequential(T.nn.Linear(3, 4), T.nn.Tanh(), T.nn.Linear(4, 1))
    opt = T.optim.SGD(model.parameters(), lr=0.1)
    x = T.ones(2, 3)
    model(x).sum().backward()  # some earlier gradients are lying around
    loss = model(x).sum()      # AddmmBackward0 saves the last layer's weight
    opt.step()                 # ... which this updates in place
    attempt("loss.backward()", lambda: loss.backward())
    say("""The step changed a weight that the pending graph saved, so the
        gradient it would give belongs to weights that no longer exist.
        Fix: the order zero_grad -> forward -> backward -> step.""")
    opt.zero_grad()
    loss = model(x).sum()
    loss.backward()
    opt.step()
    show("round(loss.item(), 4)  # zero_grad, forward, backward, step", round(loss.item(), 4))
    show("[p._version for p in model.parameters()]", [p._version for p in model.parameters()])


def pitfall_backward_twice() -> None:
    section(8, "backward() twice through the same graph")
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    loss = (x * x).sum()
    loss.backward()
    attempt("loss.backward()  # again", lambda: loss.backward())
    say("""The first backward freed the tensors the graph saved (MulBackward0
        kept x twice) to save memory. Fix: usually, run the forward again; if
        you really need two passes, keep them with retain_graph=True in the
        first call.""")
    x.grad = None
    loss = (x * x).sum()
    loss.backward(retain_graph=True)
    loss.backward()
    show("x.grad  # backward(retain_graph=True), then backward", x.grad)


PITFALLS = [pitfall_leaf_update, pitfall_data, pitfall_detach, pitfall_detach_inplace,
            pitfall_retain_grad, pitfall_rebinding, pitfall_step_before_backward,
            pitfall_backward_twice]


def main(argv: list[str] | None = None) -> None:
    global T
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--lib", default="gradtrack", help="gradtrack (default) or torch")
    parser.add_argument("--only", type=int, nargs="*", help="run only these pitfall numbers")
    args = parser.parse_args(argv)
    T = importlib.import_module(args.lib)
    print(f"In-place pitfalls, live, with {args.lib} {getattr(T, '__version__', '')}".rstrip())
    for number, pitfall in enumerate(PITFALLS, 1):
        if not args.only or number in args.only:
            pitfall()
    print()
    print("Summary: update parameters in place under no_grad() (or through .detach()), never")
    print("through .data; backward before optimizer.step(); retain_grad() for intermediates;")
    print("retain_graph=True only where you really backward twice.")


if __name__ == "__main__":
    main()
