"""Printing of gradtrack tensors.

The text produced here is meant to be byte-identical to what PyTorch 2.13
prints for the same tensor, with ``torch`` spelled ``gradtrack``. Users paste
reprs into bug reports, doctests and notebooks, so every space matters.

The layout in a nutshell:

* one ``_Formatter`` looks at (a summary of) all values once and picks a
  style (integer-valued floats, fixed point or scientific) and a width that
  every element is right-aligned to;
* ``_nested_str`` walks the dimensions, wrapping rows at ``linewidth`` and
  replacing the middle of long dimensions by ``...`` when the tensor has more
  than ``threshold`` elements;
* ``_tensor_repr`` adds the ``size=``/``dtype=``/``grad_fn=`` suffixes.

numpy is imported lazily: ``import gradtrack`` must stay fast, and nobody
pays for printing until they print.
"""

import math
import sys

__all__ = ["set_printoptions", "get_printoptions", "printoptions"]


class _PrintOptions:
    """The mutable, process-wide print settings (torch keeps one too)."""

    __slots__ = (
        "precision",
        "threshold",
        "edgeitems",
        "linewidth",
        "sci_mode",
    )

    def __init__(self):
        self.precision = 4
        self.threshold = 1000
        self.edgeitems = 3
        self.linewidth = 80
        self.sci_mode = None


_OPTS = _PrintOptions()

# (precision, threshold, edgeitems, linewidth) of each named profile.
_PROFILES = {
    "default": (4, 1000, 3, 80),
    "short": (2, 1000, 2, 80),
    "full": (4, math.inf, 3, 80),
}


def set_printoptions(
    precision=None,
    threshold=None,
    edgeitems=None,
    linewidth=None,
    profile=None,
    sci_mode=None,
):
    """Change how tensors are printed, for the whole process.

    Args:
        precision: digits after the decimal point for floats (default 4).
        threshold: element count above which the middle of each long
            dimension is replaced by ``...`` (default 1000).
        edgeitems: elements kept at each end of a summarized dimension
            (default 3).
        linewidth: characters per line before rows wrap (default 80).
        profile: ``"default"``, ``"short"`` or ``"full"``; applied first, so
            the other arguments override it.
        sci_mode: ``True``/``False`` forces scientific notation on/off;
            ``None`` lets the values decide. Like torch, every call resets
            it, including calls that only pass other options.

    Example::

        >>> import gradtrack
        >>> gradtrack.set_printoptions(precision=2)
        >>> gradtrack.tensor([1.12345])
        tensor([1.12])
        >>> gradtrack.set_printoptions(profile="default")
    """
    if profile in _PROFILES:
        (
            _OPTS.precision,
            _OPTS.threshold,
            _OPTS.edgeitems,
            _OPTS.linewidth,
        ) = _PROFILES[profile]
    if precision is not None:
        _OPTS.precision = precision
    if threshold is not None:
        _OPTS.threshold = threshold
    if edgeitems is not None:
        _OPTS.edgeitems = edgeitems
    if linewidth is not None:
        _OPTS.linewidth = linewidth
    _OPTS.sci_mode = sci_mode


def get_printoptions():
    """Return the current print options as a dict.

    The dict can be passed back as ``set_printoptions(**options)``.

    Example::

        >>> import gradtrack
        >>> gradtrack._tensor_str.get_printoptions()["precision"]
        4
    """
    return {name: getattr(_OPTS, name) for name in _PrintOptions.__slots__}


class printoptions:
    """Context manager that applies ``set_printoptions(**kwargs)`` temporarily.

    (A class rather than contextlib.contextmanager: importing contextlib
    costs gradtrack's import time.)

    Example::

        >>> import gradtrack
        >>> with gradtrack._tensor_str.printoptions(precision=1):
        ...     print(gradtrack.tensor([0.25]))
        tensor([0.2])
    """

    def __init__(self, **kwargs):
        self._kwargs = kwargs
        self._saved = None

    def __enter__(self):
        self._saved = get_printoptions()
        set_printoptions(**self._kwargs)

    def __exit__(self, *exc):
        set_printoptions(**self._saved)


class _Formatter:
    """Turns single values into strings of one common width.

    Built once per tensor from the values that will be shown, so that all
    columns line up over the whole tensor, not just within a row.
    """

    def __init__(self, values, is_float):
        """``values``: flat numpy array of the (summarized) elements."""
        import numpy as np

        self.is_float = is_float
        self.int_mode = True
        self.sci_mode = False
        self.width = 1
        if not is_float:
            # Only distinct values can differ in length; unique() keeps a
            # large tensor printed in full from formatting every element.
            for value in np.unique(values).tolist():
                self.width = max(self.width, len(str(value)))
            return
        # nan, inf and zeros say nothing about the scale of the data, so
        # only finite non-zero values choose the style and the width.
        shown = values[np.isfinite(values) & (values != 0)]
        if shown.size == 0:
            return
        magnitudes = np.abs(shown.astype(np.float64))
        smallest, largest = float(magnitudes.min()), float(magnitudes.max())
        self.int_mode = bool(np.all(shown == np.ceil(shown)))
        if _OPTS.sci_mode is None:
            self.sci_mode = (
                largest / smallest > 1000.0
                or largest > 1.0e8
                or smallest < 1.0e-4
            )
        else:
            self.sci_mode = _OPTS.sci_mode
        for value in np.unique(shown).tolist():
            self.width = max(self.width, len(self._float_str(value)))

    def _float_str(self, value):
        """Format one float in the chosen style, without padding."""
        if self.sci_mode:
            return f"{value:.{_OPTS.precision}e}"
        if self.int_mode:
            # The trailing dot tells the reader it is a float tensor; nan
            # and inf already say so.
            if math.isnan(value) or math.isinf(value):
                return f"{value:.0f}"
            return f"{value:.0f}."
        return f"{value:.{_OPTS.precision}f}"

    def format(self, value):
        """Format a Python number right-aligned to the common width."""
        text = self._float_str(value) if self.is_float else str(value)
        return text.rjust(self.width)


def _summary_values(array, edgeitems):
    """Return the elements a summarized print shows, as a flat array.

    Summarizing keeps the first and last ``edgeitems`` entries of every
    dimension longer than ``2 * edgeitems``, so the kept elements form a
    grid of index sets, one per axis.

    The grid is read in one indexing step straight from the strided array:
    ``np.take`` (or ``reshape`` of a non-contiguous array) first makes a
    contiguous copy of the whole tensor, which for a broadcast view such as
    ``ones(1).expand(2**28)`` is a gigabyte for the sake of six values.
    """
    import numpy as np

    if array.ndim >= 1 and edgeitems == 0:
        # Every value is elided ("[...]"), so none of them can set the width.
        return np.empty(0, dtype=array.dtype)
    keeps = []
    for size in array.shape:
        if size > 2 * edgeitems:
            keeps.append([*range(edgeitems), *range(size - edgeitems, size)])
        else:
            keeps.append(range(size))
    return array[np.ix_(*keeps)].reshape(-1)


def _vector_str(vector, indent, summarize, formatter):
    """Format a 1-D array as ``[a, b, c]``, wrapping at the line width."""
    edge = _OPTS.edgeitems
    if summarize and not edge:
        items = ["..."]
    elif summarize and vector.shape[0] > 2 * edge:
        # The leading space keeps "..." from hugging the previous comma.
        items = (
            [formatter.format(v) for v in vector[:edge].tolist()]
            + [" ..."]
            + [formatter.format(v) for v in vector[-edge:].tolist()]
        )
    else:
        items = [formatter.format(v) for v in vector.tolist()]
    # Each element costs its width plus ", ".
    per_line = max(
        1, math.floor((_OPTS.linewidth - indent) / (formatter.width + 2))
    )
    lines = []
    for first in range(0, len(items), per_line):
        last = first + per_line
        lines.append(", ".join(items[first:last]))
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _nested_str(array, indent, summarize, formatter):
    """Format an n-D array recursively; ``indent`` is the column of '['."""
    if array.ndim == 0:
        return formatter.format(array.item())
    if array.ndim == 1:
        return _vector_str(array, indent, summarize, formatter)
    edge = _OPTS.edgeitems
    size = array.shape[0]
    if summarize and size > 2 * edge:
        # None stands for the elided middle block.
        picks = [*range(edge), None, *range(size - edge, size)]
    else:
        picks = range(size)
    rows = [
        (
            "..."
            if i is None
            else _nested_str(array[i], indent + 1, summarize, formatter)
        )
        for i in picks
    ]
    # Blocks of dim d are separated by d - 1 newlines: matrices by none
    # (just the line break), 3-D blocks by one blank line, and so on.
    separator = "," + "\n" * (array.ndim - 1) + " " * (indent + 1)
    return "[" + separator.join(rows) + "]"


def _body_str(array, is_float, indent):
    """Format the values of a non-empty tensor (what follows ``tensor(``)."""
    summarize = array.size > _OPTS.threshold
    values = (
        _summary_values(array, _OPTS.edgeitems)
        if summarize
        else array.reshape(-1)
    )
    formatter = _Formatter(values, is_float)
    return _nested_str(array, indent, summarize, formatter)


def _dtype_name(dtype):
    """``gradtrack.float64`` -> ``float64``."""
    return str(dtype).rpartition(".")[2]


def _default_dtype_name():
    """Name of the default float dtype, honouring a set_default_dtype."""
    # Looked up lazily through sys.modules: this module is imported by the
    # package itself, and a fake tensor used in isolation needs no package.
    getter = getattr(sys.modules.get("gradtrack"), "get_default_dtype", None)
    return _dtype_name(getter()) if getter is not None else "float32"


def _grad_suffix(tensor):
    """``grad_fn=<Name>``, ``requires_grad=True`` or None."""
    try:
        node = tensor.grad_fn
    except RuntimeError:
        # Reading grad_fn can raise (e.g. a no-grad view modified in place);
        # printing must still work, so say the history is unusable.
        return "grad_fn=<Invalid>"
    if node is not None:
        return f"grad_fn=<{type(node).__name__}>"
    if tensor.requires_grad:
        return "requires_grad=True"
    return None


def _add_suffixes(text, suffixes, indent):
    """Append ``, suffix`` items and the closing ')' to ``text``.

    A suffix moves to a new line (aligned under the first '[') when it would
    push the last line past ``linewidth``.
    """
    # torch measures the last line two characters longer than it is; we
    # keep that arithmetic so lines break at exactly the same places.
    line_len = len(text) - text.rfind("\n") + 1
    parts = [text]
    for suffix in suffixes:
        width = _torch_len(suffix)
        if line_len + width + 2 > _OPTS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            line_len = indent + width
        else:
            parts.append(", " + suffix)
            line_len += width + 2
    parts.append(")")
    return "".join(parts)


def _torch_len(suffix):
    """Length ``suffix`` would have in torch, where dtypes say ``torch.``.

    Our output must equal torch's with only the module name changed, so the
    wrap decision is made on torch's length: otherwise ``dtype=gradtrack.*``,
    four characters longer, would move a suffix to the next line whenever
    torch's line ends within four characters of ``linewidth``.
    """
    growth = len("gradtrack") - len("torch")
    return len(suffix) - growth * suffix.count("gradtrack.")


def _tensor_repr(tensor):
    """Return the repr (and str) of a gradtrack tensor, as torch prints it.

    Example::

        >>> import gradtrack
        >>> gradtrack.tensor([1.0, 2.5], dtype=gradtrack.float64)
        tensor([1.0000, 2.5000], dtype=gradtrack.float64)
    """
    prefix = "tensor("
    indent = len(prefix)
    dtype_name = _dtype_name(tensor.dtype)
    detached = tensor.detach()
    # torch formats float16/bfloat16 values from their float32 widening.
    if dtype_name in ("float16", "bfloat16"):
        detached = detached.float()
    array = detached.numpy()
    default_float = _default_dtype_name()
    suffixes = []
    if array.size == 0:
        # numpy style: a plain "[]" is (0,); any other shape is spelled out.
        if array.ndim != 1:
            suffixes.append(f"size={_shape_str(array.shape)}")
        # With no elements to look at, even int64 needs naming.
        if dtype_name != default_float:
            suffixes.append(f"dtype={tensor.dtype}")
        body = "[]"
    else:
        if not _OPTS.edgeitems:
            # Everything is elided, so the shape is the only clue left.
            suffixes.append(f"size={_shape_str(array.shape)}")
        if dtype_name not in (default_float, "int64", "bool"):
            suffixes.append(f"dtype={tensor.dtype}")
        body = _body_str(array, tensor.dtype.is_floating_point, indent)
    grad = _grad_suffix(tensor)
    if grad is not None:
        suffixes.append(grad)
    tangent = _tangent_of(tensor)
    if tangent is not None:
        suffixes.append(f"tangent={tangent!r}")
    return _add_suffixes(prefix + body, suffixes, indent)


def _tangent_of(tensor):
    """The forward-AD tangent a dual tensor carries, or None."""
    c = getattr(sys.modules.get("gradtrack"), "_C", None)
    fw = getattr(c, "_forward_ad", None)
    if fw is None or fw.current_level() < 0:
        return None
    return fw.tangent(tensor)


def _shape_str(shape):
    """Shape as a plain tuple string, ``(0, 3)``."""
    return str(tuple(int(size) for size in shape))


def _tensor_format(tensor, format_spec):
    """``format(t, spec)``: a 0-dim tensor formats like its Python value.

    Example::

        >>> import gradtrack
        >>> f"{gradtrack.tensor(2.5):.2f}"
        '2.50'
    """
    if tensor.dim() == 0:
        return format(tensor.detach().numpy().item(), format_spec)
    return object.__format__(tensor, format_spec)
