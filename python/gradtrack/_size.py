"""``gradtrack.Size``: the type of ``tensor.shape``, a tuple of ints."""

import operator
from typing import SupportsIndex, overload


class Size(tuple[int, ...]):
    """A tuple of dimension sizes that prints as ``gradtrack.Size([2, 3])``.

    >>> import gradtrack
    >>> gradtrack.zeros(2, 3).shape
    gradtrack.Size([2, 3])
    """

    __slots__ = ()

    def __new__(cls, sizes=()):
        items = tuple(sizes)
        for position, item in enumerate(items):
            if not isinstance(item, int) and not hasattr(type(item), "__index__"):
                raise TypeError(f"gradtrack.Size() takes an iterable of 'int' (item {position} "
                                f"is '{type(item).__name__}')")
        values = tuple(operator.index(item) for item in items)
        if any(not -(2 ** 63) <= v < 2 ** 63 for v in values):
            raise ValueError("Overflow when unpacking long long")
        return tuple.__new__(cls, values)

    def __repr__(self):
        return f"gradtrack.Size({list(self)!r})"

    __str__ = __repr__

    def numel(self) -> int:
        """The number of elements of a tensor of this shape."""
        n = 1
        for s in self:
            n *= s
        return n

    @overload
    def __getitem__(self, item: SupportsIndex) -> int: ...

    @overload
    def __getitem__(self, item: slice) -> "Size": ...

    def __getitem__(self, item: "SupportsIndex | slice") -> "int | Size":
        result = tuple.__getitem__(self, item)
        return Size(result) if isinstance(item, slice) else result

    def __add__(self, other):
        return Size(tuple.__add__(self, other))

    def __reduce__(self):
        return (Size, (tuple(self),))
