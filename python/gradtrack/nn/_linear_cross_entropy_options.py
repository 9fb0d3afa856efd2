"""``nn.LinearCrossEntropyOptions``: how ``F.linear_cross_entropy`` chunks its batch."""

import dataclasses

import gradtrack

__all__ = ["LinearCrossEntropyOptions"]

# (device type, input dtype) -> (acc_policy, chunking_method) that "auto" stands for,
# as torch's table; other pairs take _AUTO_FALLBACK.
_AUTO_PICKS = {
    ("cpu", "bfloat16"): ("accurate", "aspect_ratio"),
    ("cpu", "float16"): ("accurate", "aspect_ratio"),
    ("cuda", "bfloat16"): ("compact", "aspect_ratio:2"),
    ("cuda", "float16"): ("compact", "aspect_ratio:2"),
}
_AUTO_FALLBACK = ("compact", "aspect_ratio:2")
_POLICIES = ("auto", "accurate", "balanced", "compact")


def _ceil_div(a, b):
    return -(-a // b)


@dataclasses.dataclass(frozen=True, slots=True)
class LinearCrossEntropyOptions:
    """Options that make ``F.linear_cross_entropy`` score its batch in chunks of rows.

    ``batch_chunk_size`` fixes the rows per chunk; ``chunking_method`` (``"auto"``,
    ``"aspect_ratio"``, ``"aspect_ratio:N"`` or None) picks it from the shapes so that a
    chunk's logits take about the input's memory (divided by N). ``acc_policy`` and
    ``acc_dtype`` choose what is accumulated in a wider dtype (float32 for half-precision
    inputs under ``"auto"``). ``allow_retain_graph`` keeps the precomputed gradients
    for a second backward.

    >>> from gradtrack import nn
    >>> nn.LinearCrossEntropyOptions(batch_chunk_size=64, chunking_method=None)
    LinearCrossEntropyOptions(allow_retain_graph=False, batch_chunk_size=64, \
chunking_method=None, acc_policy='auto', acc_dtype=None)
    """

    allow_retain_graph: bool = False
    batch_chunk_size: int = None
    chunking_method: str = "auto"
    acc_policy: str = "auto"
    acc_dtype: object = None

    def __post_init__(self):
        if self.acc_policy not in _POLICIES:
            raise ValueError(f"invalid acc_policy: {self.acc_policy!r}")
        method = self.chunking_method
        if method is not None and method != "auto":
            name, colon, factor = method.partition(":")
            factor = factor if colon else "1"
            if name != "aspect_ratio" or not factor.isdigit() or int(factor) <= 0:
                raise ValueError(f"invalid chunking_method: {method!r}")
        size = self.batch_chunk_size
        if size is not None and (type(size) is not int or size <= 0):
            raise ValueError(f"batch_chunk_size must be positive int or None, got {size!r}")
        allowed = (gradtrack.float16, gradtrack.bfloat16, gradtrack.float32, gradtrack.float64)
        if self.acc_dtype is not None and self.acc_dtype not in allowed:
            names = ", ".join(map(repr, allowed))
            raise ValueError(f"acc_dtype must be one of {{None, {names}}}, got "
                             f"{self.acc_dtype!r}. Pass acc_dtype=None to let the op pick "
                             "automatically.")

    @staticmethod
    def _chunk_for(method, num_batches, in_features, num_classes):
        """The rows per chunk that an ``aspect_ratio[:N]`` method gives."""
        factor = int(method.partition(":")[2] or 1)
        target = _ceil_div(num_batches, _ceil_div(num_classes, in_features))
        return min((1 << (target - 1).bit_length()) // factor, num_batches)

    def _adjust(self, num_batches, in_features, num_classes, dtype, device=None):
        """These options with "auto" and None resolved for one call."""
        policy, method = self.acc_policy, self.chunking_method
        if method == "auto" and self.batch_chunk_size is not None:
            method = None  # an explicit chunk size turns the automatic one off
        if "auto" in (policy, method):
            key = (getattr(device, "type", None), str(dtype).rsplit(".", 1)[-1])
            picks = _AUTO_PICKS.get(key, _AUTO_FALLBACK) if device is not None \
                else _AUTO_FALLBACK
            policy = picks[0] if policy == "auto" else policy
            method = picks[1] if method == "auto" else method
        chunk = num_batches if self.batch_chunk_size is None \
            else min(self.batch_chunk_size, num_batches)
        if method is not None:
            chunk = self._chunk_for(method, num_batches, in_features, num_classes)
            if self.batch_chunk_size is not None and self.batch_chunk_size != chunk:
                raise ValueError(f"batch_chunk_size (={self.batch_chunk_size}) and "
                                 f"chunking_method ('{method}') give different chunk sizes "
                                 f"({self.batch_chunk_size} vs {chunk}); pass only one.")
        acc_dtype = self.acc_dtype
        if acc_dtype is None:
            half = dtype in (gradtrack.float16, gradtrack.bfloat16)
            acc_dtype = gradtrack.float32 if half and self.acc_policy == "auto" \
                and getattr(device, "type", None) == "cpu" else dtype
        return dataclasses.replace(self, acc_policy=policy, chunking_method=method,
                                   batch_chunk_size=max(1, chunk), acc_dtype=acc_dtype)
