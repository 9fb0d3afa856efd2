"""Walks ``actual`` and ``expected`` together: sequences item by item, mappings key by
key, down to the leaves (``_leaves.py``) that compare two items.

A structure that does not match (lengths, keys) or two items no leaf takes raise here,
before any leaf is compared, with the path to them and without the ``msg=`` of
``assert_close`` (torch's behaviour).

>>> from gradtrack.testing._leaves import Settings
>>> from gradtrack.testing._structure import leaves
>>> [leaf.path for leaf in leaves({"b": [1.0, 2.0], "a": None}, {"a": None, "b": (1.0, 3.0)},
...                               Settings())]
[('a',), ('b', 0), ('b', 1)]
"""

from collections.abc import Mapping, Sequence

from ._leaves import KINDS
from ._messages import item_line


def _is_sequence(item):
    return isinstance(item, Sequence) and not isinstance(item, str)


def _keys_in_order(mapping):
    """Sorted when the keys sort; else in the order of a set of them, as torch does."""
    keys = set(mapping.keys())
    try:
        return sorted(keys)
    except TypeError:
        return list(keys)


def _check_keys(actual, expected, path):
    actual_keys, expected_keys = set(actual.keys()), set(expected.keys())
    if actual_keys == expected_keys:
        return
    missing, extra = sorted(expected_keys - actual_keys), sorted(actual_keys - expected_keys)
    raise AssertionError(f"The keys of the mappings do not match:\n"
                         f"Missing keys in the actual mapping: {missing}\n"
                         f"Additional keys in the actual mapping: {extra}" + item_line(path))


def _leaf(actual, expected, path, settings):
    for kind in KINDS:
        leaf = kind.take(actual, expected, path, settings)
        if leaf is not None:
            return leaf
    raise TypeError(f"No comparison pair was able to handle inputs of type {type(actual)} "
                    f"and {type(expected)}." + item_line(path))


def leaves(actual, expected, settings, path=()):
    """The leaves of ``actual`` against ``expected``, in the order they are compared.

    >>> from gradtrack.testing._leaves import Settings
    >>> from gradtrack.testing._structure import leaves
    >>> leaves([1.0], [1.0, 2.0], Settings())
    Traceback (most recent call last):
    ...
    AssertionError: The length of the sequences mismatch: 1 != 2
    """
    if _is_sequence(actual) and _is_sequence(expected):
        if len(actual) != len(expected):
            raise AssertionError(f"The length of the sequences mismatch: {len(actual)} != "
                                 f"{len(expected)}" + item_line(path))
        found = []
        for index, (a, e) in enumerate(zip(actual, expected)):
            found += leaves(a, e, settings, path + (index,))
        return found
    if isinstance(actual, Mapping) and isinstance(expected, Mapping):
        _check_keys(actual, expected, path)
        found = []
        for key in _keys_in_order(actual):
            found += leaves(actual[key], expected[key], settings, path + (key,))
        return found
    return [_leaf(actual, expected, path, settings)]
