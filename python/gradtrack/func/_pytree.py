"""The nested containers the function transforms accept: tuples, lists, dicts and
namedtuples of leaves, flattened and rebuilt as ``torch.utils._pytree`` does (its
``TreeSpec`` printing included, which torch's error messages show).

>>> from gradtrack.func._pytree import tree_flatten, tree_unflatten
>>> leaves, spec = tree_flatten(({"a": 1, "b": 2}, 3))
>>> leaves
[1, 2, 3]
>>> tree_unflatten([x * 10 for x in leaves], spec)
({'a': 10, 'b': 20}, 30)
"""

from collections import OrderedDict


class TreeSpec:
    """The shape of a nested container: its kind, context (dict keys, the namedtuple
    class) and the specs of its children; a leaf prints as ``*``.

    >>> from gradtrack.func._pytree import tree_flatten
    >>> tree_flatten([1, (2,)])[1]
    TreeSpec(list, None, [*,
      TreeSpec(tuple, None, [*])])
    """

    __slots__ = ("type", "context", "children", "num_leaves")

    def __init__(self, kind, context, children):
        self.type = kind
        self.context = context
        self.children = children
        self.num_leaves = sum(c.num_leaves for c in children) if kind is not None else 1

    def is_leaf(self) -> bool:
        return self.type is None

    def _name(self):
        return "namedtuple" if _is_namedtuple_type(self.type) else self.type.__name__

    def __repr__(self, indent: int = 0) -> str:
        if self.type is None:
            return "*"
        text = ""
        if self.children:
            indent += 2
            text = self.children[0].__repr__(indent)
            text += "," if len(self.children) > 1 else ""
            text += ",".join("\n" + " " * indent + c.__repr__(indent) for c in self.children[1:])
        return f"TreeSpec({self._name()}, {self.context}, [{text}])"

    def __eq__(self, other):
        return (isinstance(other, TreeSpec) and self.type is other.type
                and self.context == other.context and self.children == other.children)

    def __hash__(self):
        return id(self)


LEAF = TreeSpec(None, None, [])
_LEAF_TYPES = set()  # filled below: the Tensor class, numbers, None (the common leaves)


def _is_namedtuple_type(kind):
    return isinstance(kind, type) and issubclass(kind, tuple) and hasattr(kind, "_fields")


def _node(tree):
    """(kind, context, children) of a container, or None for a leaf."""
    kind = type(tree)
    if kind in _LEAF_TYPES:
        return None
    if kind is tuple or kind is list:
        return kind, None, list(tree)
    if kind is dict or kind is OrderedDict:
        keys = list(tree)
        return kind, keys, [tree[k] for k in keys]
    if issubclass(kind, tuple) and hasattr(kind, "_fields"):
        return kind, kind, list(tree)
    return None


def tree_flatten(tree):
    """(the leaves in order, the TreeSpec that rebuilds ``tree`` from them)."""
    leaves = []
    spec = _flatten_into(tree, leaves)
    return leaves, spec


def _flatten_into(tree, leaves):
    node = _node(tree)
    if node is None:
        leaves.append(tree)
        return LEAF
    kind, context, children = node
    return TreeSpec(kind, context, [_flatten_into(c, leaves) for c in children])


def tree_unflatten(leaves, spec):
    """The container ``spec`` describes, holding ``leaves``."""
    it = iter(leaves)
    return _build(it, spec)


def _build(it, spec):
    if spec.type is None:
        return next(it)
    children = [_build(it, c) for c in spec.children]
    kind = spec.type
    if kind is tuple:
        return tuple(children)
    if kind is list:
        return children
    if kind is dict or kind is OrderedDict:
        return kind(zip(spec.context, children))
    return kind(*children)


def tree_map(fn, tree):
    """``tree`` with ``fn`` applied to every leaf."""
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([fn(x) for x in leaves], spec)


def broadcast_to_and_flatten(prefix, spec):
    """The leaves of ``prefix`` repeated over the subtrees of ``spec`` they stand for
    (``in_dims=(None, 0)`` for ``(params_dict, x)``), or None when ``prefix`` does not
    have ``spec``'s structure."""
    out = []
    return out if _broadcast(prefix, spec, out) else None


def _broadcast(prefix, spec, out):
    node = _node(prefix)
    if node is None:
        out.extend([prefix] * spec.num_leaves)
        return True
    if spec.type is None:
        return False
    kind, context, children = node
    if kind is not spec.type or context != spec.context or len(children) != len(spec.children):
        return False
    return all(_broadcast(p, s, out) for p, s in zip(children, spec.children))


def _common_leaves():
    # (nn's Parameter is a leaf by the last test of _node: nn loads on first use)
    from .. import _C
    _LEAF_TYPES.update((_C.Tensor, int, float, bool, type(None), str))


_common_leaves()
