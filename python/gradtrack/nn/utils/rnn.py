"""``nn.utils.rnn``: padded and packed batches of sequences of different lengths."""

from collections import namedtuple

__all__ = ["PackedSequence"]


class PackedSequence(namedtuple("PackedSequence",
                                ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])):
    """Sequences of different lengths packed time step by time step."""
