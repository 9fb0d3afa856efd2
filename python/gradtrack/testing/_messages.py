"""The words of ``assert_close``'s failures, as torch writes them.

A failed comparison of one leaf (two tensors, two numbers, ...) is a ``Failure``: its
text, where in the inputs it happened, and whether that place is said. ``msg=`` is
applied when the failure becomes an exception (``Failure.exception``). The failures
of the inputs' structure (lengths, keys, types no comparison takes) are raised where
they are found, with ``item_line`` and without ``msg``, as torch does.

>>> from gradtrack.testing._messages import item_line, scalar_text
>>> item_line(("a", 1))
"\\n\\nThe failure occurred for item ['a'][1]"
>>> print(scalar_text(1.0, 3.0, rtol=0.0, atol=0.0))
Scalars are not equal!
<BLANKLINE>
Expected 3.0 but got 1.0.
Absolute difference: 2.0
Relative difference: 0.6666666666666666
"""

# torch's closing sentence when a comparison raised something it did not expect.
_UNEXPECTED = (
    "resulted in the unexpected exception above. If you are a user and see this message "
    "during normal operation please file an issue at https://github.com/pytorch/pytorch/issues. "
    "If you are a developer and working on the comparison functions, please except the "
    "previous error and raise an expressive `ErrorMeta` instead.")


def path_text(path):
    """``('a', 1)`` as ``['a'][1]``: the keys and indices that lead to an item.

    >>> from gradtrack.testing._messages import path_text
    >>> path_text((0, "b")), path_text(())
    ("[0]['b']", '')
    """
    return "".join(f"[{key!r}]" for key in path)


def item_line(path):
    """The line torch appends to a failure inside a sequence or mapping ('' at the top).

    >>> from gradtrack.testing._messages import item_line
    >>> item_line(()), item_line((2,))
    ('', '\\n\\nThe failure occurred for item [2]')
    """
    return f"\n\nThe failure occurred for item {path_text(path)}" if path else ""


class Failure:
    """One comparison that did not hold: ``text``, the ``path`` to the compared items and
    whether the message names that path (torch's boolean comparison never does).

    >>> from gradtrack.testing._messages import Failure
    >>> str(Failure("None mismatch: None is not 1", (3,)).exception(None))
    'None mismatch: None is not 1\\n\\nThe failure occurred for item [3]'
    """

    __slots__ = ("text", "path", "names_item")

    def __init__(self, text, path=(), names_item=True):
        self.text, self.path, self.names_item = text, path, names_item

    def message(self):
        return self.text + (item_line(self.path) if self.names_item else "")

    def exception(self, msg):
        """The AssertionError to raise: ``msg`` replaces the message (a string) or
        rewrites it (a callable); anything else leaves it as it is."""
        message = self.message()
        if callable(msg):
            message = msg(message)
        elif isinstance(msg, str):
            message = msg
        return AssertionError(message)


def _plain(value):
    """A tolerance as torch prints it: a tensor or NumPy number by its Python value."""
    item = getattr(value, "item", None)
    return item() if callable(item) else value


def _allowed(tolerance, exact):
    return "" if exact else f" (up to {_plain(tolerance)} allowed)"


def _exact(rtol, atol):
    return rtol == 0 and atol == 0


def scalar_text(actual, expected, *, rtol, atol):
    """The message for two numbers (or two 0-dim tensors, by their Python values) that
    are not close; the differences are Python arithmetic, ``inf`` relative to a 0.

    >>> from gradtrack.testing._messages import scalar_text
    >>> print(scalar_text(1, 0, rtol=0.1, atol=0))
    Scalars are not close!
    <BLANKLINE>
    Expected 0 but got 1.
    Absolute difference: 1 (up to 0 allowed)
    Relative difference: inf (up to 0.1 allowed)
    """
    exact = _exact(rtol, atol)
    absolute = abs(actual - expected)
    relative = float("inf") if expected == 0 else absolute / abs(expected)
    return (f"Scalars are not {'equal' if exact else 'close'}!\n\n"
            f"Expected {expected} but got {actual}.\n"
            f"Absolute difference: {absolute}{_allowed(atol, exact)}\n"
            f"Relative difference: {relative}{_allowed(rtol, exact)}")


def tensor_text(*, mismatched, total, greatest_absolute, greatest_relative, rtol, atol):
    """The message for two tensors that are not close; ``greatest_*`` are
    ``(difference, index)`` pairs.

    >>> from gradtrack.testing._messages import tensor_text
    >>> print(tensor_text(mismatched=1, total=3, greatest_absolute=(2.0, (1,)),
    ...                   greatest_relative=(0.5, (1,)), rtol=1.3e-06, atol=1e-05))
    Tensor-likes are not close!
    <BLANKLINE>
    Mismatched elements: 1 / 3 (33.3%)
    Greatest absolute difference: 2.0 at index (1,) (up to 1e-05 allowed)
    Greatest relative difference: 0.5 at index (1,) (up to 1.3e-06 allowed)
    """
    exact = _exact(rtol, atol)
    (absolute, at_absolute), (relative, at_relative) = greatest_absolute, greatest_relative
    return (f"Tensor-likes are not {'equal' if exact else 'close'}!\n\n"
            f"Mismatched elements: {mismatched} / {total} ({mismatched / total:.1%})\n"
            f"Greatest absolute difference: {absolute} at index {at_absolute}"
            f"{_allowed(atol, exact)}\n"
            f"Greatest relative difference: {relative} at index {at_relative}"
            f"{_allowed(rtol, exact)}")


def attribute_text(name, actual, expected):
    """The message for a tensor attribute (shape, dtype, stride, ...) that differs.

    >>> import gradtrack
    >>> from gradtrack.testing._messages import attribute_text
    >>> attribute_text("dtype", gradtrack.float32, gradtrack.float64)
    "The values for attribute 'dtype' do not match: gradtrack.float32 != gradtrack.float64."
    """
    return f"The values for attribute '{name}' do not match: {actual} != {expected}."


def unexpected_comparison_text(kind, fields):
    """torch's words for a comparison that raised an exception it did not foresee
    (a tolerance that is not a number, say): the pair, field by field.

    >>> from gradtrack.testing._messages import unexpected_comparison_text
    >>> print(unexpected_comparison_text("NumberPair", [("id", ()), ("rtol", "a")]))
    ... # doctest: +ELLIPSIS
    Comparing
    <BLANKLINE>
    NumberPair(
        id=(),
        rtol=a,
    )
    <BLANKLINE>
    resulted in the unexpected exception above. ...
    """
    body = "".join(f"    {name}={value!s},\n" for name, value in fields)
    return f"Comparing\n\n{kind}(\n{body})\n\n{_UNEXPECTED}"


def unexpected_number_text(path, actual, expected):
    """torch's words for two numbers whose type it has no dtype for (a ``bool`` against
    an ``int``, a subclass of ``float``): they fail before any comparison.

    >>> from gradtrack.testing._messages import unexpected_number_text
    >>> print(unexpected_number_text((), True, 1))  # doctest: +ELLIPSIS
    Originating a NumberPair() at item  with
    <BLANKLINE>
    bool(): True
    <BLANKLINE>
    and
    <BLANKLINE>
    int(): 1
    <BLANKLINE>
    resulted in the unexpected exception above. ...
    """
    return (f"Originating a NumberPair() at item {path_text(path)} with\n\n"
            f"{type(actual).__name__}(): {actual}\n\nand\n\n"
            f"{type(expected).__name__}(): {expected}\n\n{_UNEXPECTED}")
