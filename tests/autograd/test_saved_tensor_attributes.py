"""A node's saved tensors by name (``grad_fn._saved_self``, ``_saved_other``,
``_saved_result``, pow's ``_saved_exponent``) for the elementwise ops, as torch's nodes show
them (NOTE [Saved tensors by name] in autograd/graph.py): which names a node has, whether
the value is the input itself, its values, None where nothing was saved, and torch's
errors once the graph is freed or a saved tensor was written in place."""

import numpy as np
import pytest

import gradtrack
from gradtrack import _declarations
from helpers import same

NAMES = ("_saved_self", "_saved_other", "_saved_result", "_saved_exponent")


def _ops():
    out = []
    for op in _declarations.pointwise_ops():
        if isinstance(op.derivative, _declarations.Derivative) and not op.special \
                and op.arity in (1, 2):
            out.append(op)
    return out


OPS = {op.name: op.arity for op in _ops()}


def _view(lib, name, arity, rg_other=True):
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.uniform(0.2, 0.8, 3), requires_grad=True)
    y = lib.tensor(rng.uniform(0.2, 0.8, 3), requires_grad=rg_other)
    fn = getattr(lib, name, None)
    if fn is None:
        return "missing"
    try:
        out = fn(x) if arity == 1 else fn(x, y)
    except Exception as e:  # noqa: BLE001 - an op both refuse at these values
        return type(e).__name__
    node = out.grad_fn
    if node is None:
        return None
    seen = []
    for attr in NAMES:
        try:
            v = getattr(node, attr)
        except AttributeError:
            continue
        if v is None or not hasattr(v, "shape"):
            seen.append((attr, v if v is None else "number"))
        else:
            seen.append((attr, v is x, v is y, np.round(v.detach().numpy(), 12).tolist()))
    return type(node).__name__, seen


@pytest.mark.parametrize("name", sorted(OPS))
def test_saved_tensors_of_elementwise_nodes_match_torch(torch, name):
    for rg_other in (True, False):
        ours = _view(gradtrack, name, OPS[name], rg_other)
        theirs = _view(torch, name, OPS[name], rg_other)
        if theirs == "missing":
            pytest.skip(f"torch has no top-level {name}")
        assert ours == theirs


def test_saved_tensor_after_backward_and_after_an_inplace_write():
    def scenario(lib):
        x = lib.tensor([0.5, 1.5], requires_grad=True)
        s = x.sin()
        s.sum().backward()
        try:
            s.grad_fn._saved_self
        except RuntimeError as e:
            freed = str(e)
        w = x * 1
        q = w.cos()
        w.add_(1)
        try:
            q.grad_fn._saved_self
            written = None
        except RuntimeError as e:
            written = str(e)
        return freed, written
    same(scenario)


def test_nodes_without_a_saved_name_raise_attribute_error(lib):
    x = lib.ones(2, requires_grad=True)
    node = (x + x).grad_fn
    with pytest.raises(AttributeError, match="'AddBackward0' object has no attribute "
                                             "'_saved_self'"):
        node._saved_self


# Which tensors a node keeps decides which in-place write makes backward raise: erfinv
# kept its result, ldexp its input and sgn nothing, where torch's keep self, (other,
# result) and (self, result).
_CALLS = {"erfinv": lambda lib, a, b: a.erfinv(), "ldexp": lambda lib, a, b: lib.ldexp(a, b),
          "sgn": lambda lib, a, b: a.sgn()}


@pytest.mark.parametrize("name", sorted(_CALLS))
@pytest.mark.parametrize("written", ["input", "other", "result"])
def test_inplace_write_after_the_op_raises_as_torch(name, written):
    def scenario(lib):
        x = lib.tensor([0.3, -0.2], requires_grad=True)
        y = lib.tensor([1.0, 2.0], requires_grad=True)
        a, b = x * 1, y * 1
        out = _CALLS[name](lib, a, b)
        {"input": a, "other": b, "result": out}[written].mul_(2)
        try:
            out.sum().backward()
        except RuntimeError as e:
            return str(e).split(":")[0]
        return "ok"
    same(scenario)
