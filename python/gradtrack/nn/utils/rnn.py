"""``nn.utils.rnn``: padded and packed batches of sequences of different lengths.

A ``PackedSequence`` holds the time steps of a batch one after the other, each step
only for the sequences still running (``batch_sizes[t]`` of them, longest first), so
a recurrent layer never computes on padding.

>>> import gradtrack
>>> from gradtrack.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence
>>> padded = gradtrack.tensor([[1.0, 2.0], [3.0, 0.0]])  # [T, B]: lengths 2 and 1
>>> packed = pack_padded_sequence(padded, [2, 1])
>>> packed.data, packed.batch_sizes
(tensor([1., 2., 3.]), tensor([2, 1]))
>>> pad_packed_sequence(packed)[0]
tensor([[1., 2.],
        [3., 0.]])
"""

from collections.abc import Iterable
from typing import Any, NamedTuple

from ... import _C
from ..._C import Tensor
from ...autograd.function import Function

__all__ = ["PackedSequence", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence",
           "unpad_sequence", "pack_sequence", "unpack_sequence", "invert_permutation"]

_SORT_ERROR = ("`lengths` array must be sorted in decreasing order when `enforce_sorted` is "
               "True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or "
               "pack_sequence to sidestep this requirement if you do not need ONNX exportability.")


class PackedSequence_(NamedTuple):  # noqa: N801 - torch's name for the base
    """The fields of a ``PackedSequence`` (a typed named tuple, as in torch)."""

    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


class PackedSequence(PackedSequence_):
    """``(data, batch_sizes, sorted_indices, unsorted_indices)`` of a packed batch."""

    def __new__(cls, data: "Tensor | tuple[Tensor, Tensor]", batch_sizes: Tensor | None = None,
                sorted_indices: Tensor | None = None,
                unsorted_indices: Tensor | None = None) -> "PackedSequence":
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:  # (data, batch_sizes) given as one pair
            data, batch_sizes = data
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def _with_data(self, data: Tensor) -> "PackedSequence":
        return type(self)(data, self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    def to(self, *args: Any, **kwargs: Any) -> "PackedSequence":
        """The same packing with ``data.to(...)`` (the indices stay int64)."""
        data = self.data.to(*args, **kwargs)
        return self if data is self.data else self._with_data(data)

    def float(self) -> "PackedSequence":  # noqa: A003 - torch's name
        return self.to(dtype=_C.float32)

    def double(self) -> "PackedSequence":
        return self.to(dtype=_C.float64)

    def cpu(self) -> "PackedSequence":
        return self

    @property
    def is_cuda(self) -> bool:
        return False

    def is_pinned(self) -> bool:
        return False


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    """The permutation that undoes ``permutation`` (None stays None)."""
    if permutation is None:
        return None
    inverse = [0] * permutation.numel()
    for i, p in enumerate(permutation.tolist()):
        inverse[p] = i
    return _C.tensor(inverse, dtype=_C.int64)


def _lengths_list(lengths: "Tensor | Iterable[int]") -> list[int]:
    if isinstance(lengths, _C.Tensor):
        return [int(v) for v in lengths.tolist()]
    return [int(v) for v in lengths]


def _batch_sizes(lengths: list[int]) -> list[int]:
    """Sequences still running at each step, for lengths sorted longest first."""
    return [sum(1 for n in lengths if n > t) for t in range(lengths[0])] if lengths else []


def pack_padded_sequence(input: Tensor, lengths: "Tensor | Iterable[int]",  # noqa: A002
                         batch_first: bool = False, enforce_sorted: bool = True) -> PackedSequence:
    """Packs a padded batch ``[T, B, *]`` (``[B, T, *]`` with batch_first) of the given lengths."""
    lengths = _lengths_list(lengths)
    if enforce_sorted:
        if any(a < b for a, b in zip(lengths, lengths[1:])):
            raise RuntimeError(_SORT_ERROR)
        sorted_indices = None
    else:
        order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
        sorted_indices = _C.tensor(order, dtype=_C.int64)
        input = input.index_select(0 if batch_first else 1, sorted_indices)  # noqa: A001
        lengths = [lengths[i] for i in order]
    if lengths and lengths[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an "
                           "element in 'lengths' that is <= 0")
    sizes = _batch_sizes(lengths)
    data = _PackPaddedSequence.apply(input, sizes, batch_first)
    return PackedSequence(data, _C.tensor(sizes, dtype=_C.int64), sorted_indices, None)


class _PackPaddedSequence(Function):
    # torch's _pack_padded_sequence is one node that saves only the input's
    # sizes and the batch sizes, so writing to the input later is harmless;
    # its backward scatters the packed gradient into zeros (differentiably).
    @staticmethod
    def forward(ctx, input, sizes, batch_first):  # noqa: A002
        # named as the attributes torch's node shows
        ctx._saved_input_sym_sizes = tuple(input.shape)
        ctx._saved_batch_first = batch_first
        ctx._saved_result1 = _C.tensor(sizes, dtype=_C.int64)
        steps = input.transpose(0, 1) if batch_first else input
        return _C.cat([steps[t, :b] for t, b in enumerate(sizes)], 0)

    @staticmethod
    def backward(ctx, grad):
        size = list(ctx._saved_input_sym_sizes)
        if ctx._saved_batch_first:
            size[0], size[1] = size[1], size[0]
        grad_input = _C.zeros(size, dtype=grad.dtype)
        offset = 0
        for t, b in enumerate(ctx._saved_result1.tolist()):
            grad_input[t, :b].copy_(grad[offset:offset + b])
            offset += b
        if ctx._saved_batch_first:
            grad_input = grad_input.transpose(0, 1)
        return grad_input, None, None


_PackPaddedSequence._backward_cls.__name__ = "PackPaddedSequenceBackward0"
_PackPaddedSequence._backward_cls.__qualname__ = "PackPaddedSequenceBackward0"


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False, padding_value: float = 0.0,
                        total_length: int | None = None) -> tuple[Tensor, Tensor]:
    """Undoes ``pack_padded_sequence``: returns ``(padded, lengths)``."""
    sizes = [int(b) for b in sequence.batch_sizes.tolist()]
    steps, batch = len(sizes), sizes[0]
    if total_length is not None:
        if total_length < steps:
            raise ValueError("Expected total_length to be at least the length of the longest "
                             f"sequence in input, but got total_length={total_length} and max "
                             f"sequence length being {steps}")
        steps = total_length
    data = sequence.data
    rows, start = [], 0
    for b in sizes:
        chunk = data[start:start + b]
        start += b
        if b < batch:
            pad = _C.full((batch - b, *data.shape[1:]), padding_value, dtype=data.dtype)
            chunk = _C.cat([chunk, pad], 0)
        rows.append(chunk)
    if steps > len(sizes):
        rows += [_C.full((batch, *data.shape[1:]), padding_value, dtype=data.dtype)] * (
            steps - len(sizes))
    padded = _C.stack(rows, 0)
    lengths = [sum(1 for b in sizes if b > i) for i in range(batch)]
    lengths = _C.tensor(lengths, dtype=_C.int64)
    if batch_first:
        padded = padded.transpose(0, 1)
    unsorted = sequence.unsorted_indices
    if unsorted is not None:
        padded = padded.index_select(0 if batch_first else 1, unsorted)
        lengths = lengths[unsorted]
    return padded, lengths


def pad_sequence(sequences: "Tensor | Iterable[Tensor]", batch_first: bool = False,
                 padding_value: float = 0.0, padding_side: str = "right") -> Tensor:
    """Stacks tensors ``[L_i, *]`` into ``[T, B, *]`` (``[B, T, *]``), padded to the longest."""
    if padding_side not in ("left", "right"):
        raise RuntimeError("Expected padding_side to be one of left or right, but got "
                           f"{padding_side}.")
    sequences = list(sequences)
    longest = max(s.size(0) for s in sequences)
    rows = []
    for s in sequences:
        missing = longest - s.size(0)
        if missing:
            pad = _C.full((missing, *s.shape[1:]), padding_value, dtype=s.dtype)
            s = _C.cat([s, pad] if padding_side == "right" else [pad, s], 0)
        rows.append(s)
    return _C.stack(rows, 0 if batch_first else 1)


def unpad_sequence(padded_sequences: Tensor, lengths: "Tensor | Iterable[int]",
                   batch_first: bool = False) -> list[Tensor]:
    """The list of unpadded sequences of a padded batch."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [seq[:n] for seq, n in zip(padded_sequences, _lengths_list(lengths))]


def pack_sequence(sequences: list[Tensor], enforce_sorted: bool = True) -> PackedSequence:
    """Packs a list of tensors ``[L_i, *]``."""
    lengths = [s.size(0) for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list[Tensor]:
    """The list of sequences packed in ``packed_sequences``."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
