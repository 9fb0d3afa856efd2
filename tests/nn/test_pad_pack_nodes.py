"""Nodes of padding and packing as torch 2.13 records them.

- reflect / replicate padding save their input, so writing to it in place after
  the pad makes backward raise torch's "modified by an inplace operation" error
  (constant and circular padding save nothing and keep working);
- ``pack_padded_sequence(...).data`` hangs from one ``PackPaddedSequenceBackward0``
  node that saves only sizes, whose backward scatters the gradient into zeros
  (differentiably: its own gradient chain is torch's).
"""

import pytest

import gradtrack
from gradtrack.nn.utils import rnn as gt_rnn

from helpers import same


def _pad_then_write(mode, nd):
    def scenario(lib):
        x = lib.arange(2.0 * 4**nd, dtype=lib.float64).reshape([1, 2] + [4] * nd)
        x.requires_grad_()
        y = x * 1
        p = lib.nn.functional.pad(y, (1, 1) * nd, mode=mode)
        y.add_(1)
        (p * p).sum().backward()
        return type(p.grad_fn).__name__, x.grad, y._version

    return scenario


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular", "constant"])
@pytest.mark.parametrize("nd", [1, 2, 3])
def test_pad_input_written_after_pad(mode, nd):
    same(_pad_then_write(mode, nd))


def test_reflect_pad_gradient_unchanged_without_write():
    def scenario(lib):
        x = lib.arange(8.0, dtype=lib.float64).reshape(1, 2, 4).requires_grad_()
        p = lib.nn.functional.pad(x * 1, (2, 1), mode="reflect")
        (p * lib.arange(14.0, dtype=lib.float64).reshape(1, 2, 7)).sum().backward()
        return p, x.grad

    same(scenario)


def _pack(lib, batch_first, enforce_sorted):
    rnn = gradtrack.nn.utils.rnn if lib is gradtrack else lib.nn.utils.rnn
    x = (lib.arange(24.0, dtype=lib.float64).reshape(4, 3, 2) / 7).sin().requires_grad_()
    inp = x.transpose(0, 1) if batch_first else x
    lengths = [4, 2, 1] if enforce_sorted else [2, 4, 1]
    return x, rnn.pack_padded_sequence(inp, lengths, batch_first=batch_first,
                                       enforce_sorted=enforce_sorted)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("enforce_sorted", [True, False])
def test_pack_padded_sequence_node_and_gradients(batch_first, enforce_sorted):
    def scenario(lib):
        x, packed = _pack(lib, batch_first, enforce_sorted)
        data = packed.data
        node = data.grad_fn
        seen = (type(node).__name__, [type(n).__name__ for n, _ in node.next_functions],
                data._version, node._saved_batch_first, list(node._saved_input_sym_sizes),
                node._saved_result1)
        w = lib.arange(data.numel(), dtype=lib.float64).reshape(data.shape)
        gx, = lib.autograd.grad((data**2 * w).sum(), x, create_graph=True)
        ggx, = lib.autograd.grad((gx * gx).sum(), x)
        return seen, gx, ggx

    same(scenario)


def test_pack_padded_sequence_input_written_after_pack():
    # The node saves no tensor: torch's backward still runs after the write.
    def scenario(lib):
        rnn = gt_rnn if lib is gradtrack else lib.nn.utils.rnn
        x = lib.ones(3, 2, requires_grad=True)
        y = x * 2
        packed = rnn.pack_padded_sequence(y, [3, 1])
        y.add_(1)
        packed.data.sum().backward()
        return x.grad

    same(scenario)
