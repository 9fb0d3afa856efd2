"""What ``assert_close`` compares once the inputs' sequences and mappings are walked:
leaves, of four kinds, tried in this order for each pair of items.

- ``NoneLeaf``: either item is None; both must be.
- ``BoolLeaf``: two booleans (Python or NumPy); they must be the same.
- ``NumberLeaf``: two Python numbers or NumPy scalars, compared in Python, with the
  tolerances of the dtype each type stands for (int64, float64, complex128).
- ``TensorLeaf``: two items of directly related types (a tensor and a tensor, an array
  and an array) that ``gradtrack.as_tensor`` takes; attributes first, then values.

``take`` answers a leaf, or None when the items are not of its kind; ``failure``
answers None when they compare equal (or close), else a ``Failure``; ``fields`` is
what torch prints of the pair when the comparison raised something unforeseen.

>>> import gradtrack
>>> from gradtrack.testing._leaves import Settings, TensorLeaf
>>> settings = Settings(rtol=None, atol=None)
>>> leaf = TensorLeaf.take(gradtrack.tensor([1., 2.]), gradtrack.tensor([1., 2.5]), (), settings)
>>> print(leaf.failure().message())
Tensor-likes are not close!
<BLANKLINE>
Mismatched elements: 1 / 2 (50.0%)
Greatest absolute difference: 0.5 at index (1,) (up to 1e-05 allowed)
Greatest relative difference: 0.20000000298023224 at index (1,) (up to 1.3e-06 allowed)
"""

import cmath
import sys

import gradtrack

from ._messages import Failure, attribute_text, scalar_text, tensor_text, unexpected_number_text
from ._tolerances import NUMBER_DTYPES, resolve


class Settings:
    """``assert_close``'s keyword arguments, as the leaves read them.

    >>> from gradtrack.testing._leaves import Settings
    >>> Settings(rtol=0.1, atol=0.0).check_stride
    False
    """

    __slots__ = ("allow_subclasses", "rtol", "atol", "equal_nan", "check_device", "check_dtype",
                 "check_layout", "check_stride")

    def __init__(self, *, allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, check_layout=True, check_stride=False):
        self.allow_subclasses, self.rtol, self.atol = allow_subclasses, rtol, atol
        self.equal_nan, self.check_device, self.check_dtype = equal_nan, check_device, check_dtype
        self.check_layout, self.check_stride = check_layout, check_stride


def _numpy():
    """NumPy if a program has imported it: without it, no item can be a NumPy object."""
    return sys.modules.get("numpy")


def _plain(value):
    item = getattr(value, "item", None)
    return item() if callable(item) else value


class NoneLeaf:
    """``None`` against anything: equal only to ``None``.

    >>> from gradtrack.testing._leaves import NoneLeaf, Settings
    >>> NoneLeaf.take(None, 1, (0,), Settings()).failure().message()
    'None mismatch: None is not 1\\n\\nThe failure occurred for item [0]'
    """

    kind = "NonePair"

    def __init__(self, actual, expected, path):
        self.actual, self.expected, self.path = actual, expected, path

    @classmethod
    def take(cls, actual, expected, path, settings):
        return cls(actual, expected, path) if actual is None or expected is None else None

    def failure(self):
        if self.actual is None and self.expected is None:
            return None
        return Failure(f"None mismatch: {self.actual} is not {self.expected}", self.path)

    def fields(self):
        return [("id", self.path), ("actual", self.actual), ("expected", self.expected)]


class BoolLeaf(NoneLeaf):
    """Two booleans (``bool`` or ``numpy.bool_``); torch's message names no item.

    >>> from gradtrack.testing._leaves import BoolLeaf, Settings
    >>> BoolLeaf.take(True, False, (0,), Settings()).failure().message()
    'Booleans mismatch: True is not False'
    """

    kind = "BooleanPair"

    @staticmethod
    def _is_bool(item):
        np = _numpy()
        return isinstance(item, bool) or (np is not None and isinstance(item, np.bool_))

    @classmethod
    def take(cls, actual, expected, path, settings):
        if cls._is_bool(actual) and cls._is_bool(expected):
            return cls(bool(actual), bool(expected), path)
        return None

    def failure(self):
        if self.actual is self.expected:
            return None
        return Failure(f"Booleans mismatch: {self.actual} is not {self.expected}", self.path,
                       names_item=False)


class NumberLeaf:
    """Two numbers: Python ``int``, ``float``, ``complex`` or NumPy scalars (by their
    Python value). A ``bool`` or a subclass of a number type has no dtype: torch fails
    it with a RuntimeError before comparing anything.

    >>> from gradtrack.testing._leaves import NumberLeaf, Settings
    >>> NumberLeaf.take(1, 1.0, (), Settings()).failure().message()
    "The (d)types do not match: <class 'int'> != <class 'float'>."
    >>> NumberLeaf.take(1, 1.0, (), Settings(check_dtype=False)).failure() is None
    True
    """

    kind = "NumberPair"

    def __init__(self, actual, expected, path, settings, tolerances):
        self.actual, self.expected, self.path = actual, expected, path
        self.rtol, self.atol = tolerances
        self.equal_nan, self.check_dtype = settings.equal_nan, settings.check_dtype

    @staticmethod
    def _is_number(item):
        if isinstance(item, (int, float, complex)):
            return True
        np = _numpy()
        return np is not None and isinstance(item, np.number)

    @staticmethod
    def _python(item):
        np = _numpy()
        return item.item() if np is not None and isinstance(item, np.number) else item

    @classmethod
    def take(cls, actual, expected, path, settings):
        if not (cls._is_number(actual) and cls._is_number(expected)):
            return None
        a, e = cls._python(actual), cls._python(expected)
        try:
            dtypes = (NUMBER_DTYPES[type(a)], NUMBER_DTYPES[type(e)])
        except KeyError as error:
            raise RuntimeError(unexpected_number_text(path, actual, expected)) from error
        rtol, atol = resolve(settings.rtol, settings.atol, dtypes)
        return cls(a, e, path, settings, (_plain(rtol), _plain(atol)))

    def _close(self, a, e):
        if a == e:
            return True
        if self.equal_nan and cmath.isnan(a) and cmath.isnan(e):
            return True
        # a non-finite number is close only to itself, whatever the tolerances
        return cmath.isfinite(a) and cmath.isfinite(e) and abs(a - e) <= self.atol + self.rtol * abs(e)

    def failure(self):
        a, e = self.actual, self.expected
        if self.check_dtype and type(a) is not type(e):
            return Failure(f"The (d)types do not match: {type(a)} != {type(e)}.", self.path)
        if self._close(a, e):
            return None
        return Failure(scalar_text(a, e, rtol=self.rtol, atol=self.atol), self.path)

    def fields(self):
        return [("id", self.path), ("actual", self.actual), ("expected", self.expected),
                ("rtol", self.rtol), ("atol", self.atol), ("equal_nan", self.equal_nan),
                ("check_dtype", self.check_dtype)]


def _related(actual, expected, allow_subclasses):
    if allow_subclasses:
        return isinstance(actual, type(expected)) or isinstance(expected, type(actual))
    return type(actual) is type(expected)


def _as_tensor(item):
    if isinstance(item, gradtrack.Tensor):
        return item.detach()
    return gradtrack.as_tensor(item)


def _unravel(flat, shape):
    """The index (a tuple) of element ``flat`` of a contiguous tensor of ``shape``."""
    index = []
    for size in reversed(shape):
        flat, at = divmod(flat, size)
        index.append(at)
    return tuple(reversed(index))


def _greatest(differences, shape):
    value, flat = differences.flatten().max(0)
    return value.item(), _unravel(flat.item(), shape)


class TensorLeaf:
    """Two tensor-likes of directly related types (any two types when subclasses are
    refused: the same type), each a tensor or what ``gradtrack.as_tensor`` takes.

    >>> import gradtrack
    >>> from gradtrack.testing._leaves import Settings, TensorLeaf
    >>> leaf = TensorLeaf.take(gradtrack.ones(2), gradtrack.ones(3), (), Settings())
    >>> leaf.failure().message()
    "The values for attribute 'shape' do not match: gradtrack.Size([2]) != gradtrack.Size([3])."
    """

    kind = "TensorLikePair"

    def __init__(self, actual, expected, path, settings, tolerances):
        self.actual, self.expected, self.path = actual, expected, path
        self.rtol, self.atol = tolerances
        self.settings = settings

    @classmethod
    def take(cls, actual, expected, path, settings):
        if not _related(actual, expected, settings.allow_subclasses):
            return None
        try:
            a, e = _as_tensor(actual), _as_tensor(expected)
        except Exception:  # noqa: BLE001 - what as_tensor refuses, no leaf takes
            return None
        rtol, atol = resolve(settings.rtol, settings.atol, (a.dtype, e.dtype))
        return cls(a, e, path, settings, (_plain(rtol), _plain(atol)))

    def _attributes(self, a, e):
        """The first attribute that differs, in torch's order, as its message."""
        s = self.settings
        checks = (("shape", True, lambda t: t.shape), ("layout", s.check_layout, lambda t: t.layout),
                  ("stride()", s.check_stride, lambda t: t.stride()),
                  ("device", s.check_device, lambda t: t.device),
                  ("dtype", s.check_dtype, lambda t: t.dtype))
        for name, wanted, read in checks:
            if wanted and read(a) != read(e):
                return attribute_text(name, read(a), read(e))
        return None

    def _close(self, a, e):
        equal_nan = self.settings.equal_nan
        if not isinstance(equal_nan, bool):
            raise TypeError(f"isclose(): argument 'equal_nan' must be bool, not {type(equal_nan).__name__}")
        close = gradtrack.isclose(a, e, rtol=self.rtol, atol=self.atol, equal_nan=equal_nan)
        if a.is_floating_point():
            # as torch's isclose: a non-finite value is close only to itself (or NaN to NaN)
            close = close & ((a == e) | (a.isfinite() & e.isfinite()) | (a.isnan() & e.isnan()))
        return close

    def failure(self):
        a, e = self.actual, self.expected
        text = self._attributes(a, e)
        if text is not None:
            return Failure(text, self.path)
        if a.dtype != e.dtype:
            common = gradtrack.promote_types(a.dtype, e.dtype)
            a, e = a.to(common), e.to(common)
        mismatch = self._close(a, e).logical_not()
        mismatched = int(mismatch.sum().item())
        if mismatched == 0:
            return None
        if a.dim() == 0:
            return Failure(scalar_text(a.item(), e.item(), rtol=self.rtol, atol=self.atol), self.path)
        return Failure(self._values_text(a, e, mismatch, mismatched), self.path)

    def _values_text(self, a, e, mismatch, mismatched):
        if not a.is_floating_point():
            a, e = a.to(gradtrack.int64), e.to(gradtrack.int64)
        absolute = (a - e).abs()
        relative = absolute / e.abs()
        matched = mismatch.logical_not()
        # only the elements that are not close count for the greatest differences
        absolute, relative = absolute.masked_fill(matched, 0), relative.masked_fill(matched, 0)
        shape = tuple(a.shape)
        return tensor_text(mismatched=mismatched, total=a.numel(),
                           greatest_absolute=_greatest(absolute, shape),
                           greatest_relative=_greatest(relative, shape), rtol=self.rtol, atol=self.atol)

    def fields(self):
        s = self.settings
        return [("id", self.path), ("actual", self.actual), ("expected", self.expected),
                ("rtol", self.rtol), ("atol", self.atol), ("equal_nan", s.equal_nan),
                ("check_device", s.check_device), ("check_dtype", s.check_dtype),
                ("check_layout", s.check_layout), ("check_stride", s.check_stride)]


# Tried in this order for each pair of items.
KINDS = (NoneLeaf, BoolLeaf, NumberLeaf, TensorLeaf)
