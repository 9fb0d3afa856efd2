"""Named results of ops that return several tensors (``max(dim)``, ``min(dim)``)."""


class _ReturnType(tuple):
    """A (values, indices) pair that prints like PyTorch's structseq."""

    __slots__ = ()
    _name = ""

    def __new__(cls, pair):
        return tuple.__new__(cls, pair)

    @property
    def values(self):
        return self[0]

    @property
    def indices(self):
        return self[1]

    def __repr__(self):
        return (f"gradtrack.return_types.{self._name}(\nvalues={self[0]!r},\n"
                f"indices={self[1]!r})")

    def __reduce__(self):
        return (type(self), (tuple(self),))


class max(_ReturnType):  # noqa: A001 - PyTorch's name
    """``tensor.max(dim)``: the largest values and their indices."""

    __slots__ = ()
    _name = "max"


class min(_ReturnType):  # noqa: A001 - PyTorch's name
    """``tensor.min(dim)``: the smallest values and their indices."""

    __slots__ = ()
    _name = "min"
