"""The tensor constructor over hostile Python objects, drawn by hypothesis.

Each example is a *recipe* (plain data drawn by hypothesis) from which ``build``
makes a fresh object for each library, so that torch and gradtrack see the same
object in the same state: array.array, user sequences whose ``__len__`` changes
and whose ``__getitem__`` returns a new object on each access, numpy scalars,
objects with ``__index__`` / ``__float__``, nesting, bools, mixed ints and floats.
``gradtrack.tensor(obj)`` and ``torch.tensor(obj)`` must both succeed with the same
dtype, shape and values, or both raise the same exception type with the same
message (``torch`` spelled ``gradtrack``).

The examples are derandomized and bounded, so CI sees the same 200 every run.
"""

import array
import math

import numpy as np
import pytest

import gradtrack

torch = pytest.importorskip("torch")
hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402


# ---- recipes ----------------------------------------------------------------------------------
# A recipe is a tuple whose first item names the kind of object it builds.

# numpy scalar types the strategies draw (float16, int8 and int16 are tested in
# test_numpy_scalars_of_dtypes_gradtrack_lacks and tests/test_dtypes_small.py).
NUMPY_TYPES = ["bool_", "uint8", "int32", "int64", "float32", "float64"]
ARRAY_CODES = ["b", "B", "h", "i", "l", "q", "f", "d"]

ints = st.one_of(st.integers(-3, 300), st.sampled_from([2**31, -2**63, 2**63 - 1, 2**63, 2**64]))
floats = st.one_of(st.floats(-1e6, 1e6, width=32), st.sampled_from([math.nan, math.inf, -0.0, 1e300]))
numbers = st.one_of(st.booleans(), ints, floats)

leaf = st.one_of(
    st.tuples(st.just("num"), numbers),
    st.tuples(st.just("np"), st.sampled_from(NUMPY_TYPES), st.one_of(st.booleans(), st.integers(0, 100),
                                                                   st.floats(-100, 100, width=32))),
    st.tuples(st.just("index"), st.integers(-5, 5)),  # __index__ only
    st.tuples(st.just("float"), floats),  # __float__ only
    st.tuples(st.just("both"), st.integers(-5, 5)),  # __index__ and __float__
    st.tuples(st.just("array"), st.sampled_from(ARRAY_CODES), st.lists(st.integers(0, 100), max_size=4)),
    st.tuples(st.just("other"), st.sampled_from(["str", "none", "bytes", "object"])),
)


def containers(children):
    return st.one_of(
        st.tuples(st.just("list"), st.lists(children, max_size=4)),
        st.tuples(st.just("tuple"), st.lists(children, max_size=4)),
        # a user sequence: its len() grows by `grow` per call, and each access
        # builds a new item from the recipe at i % len(items)
        st.tuples(st.just("seq"), st.lists(children, min_size=1, max_size=4), st.integers(-1, 1),
                  st.booleans()),
    )


recipes = st.recursive(leaf, containers, max_leaves=10)


class Index:
    def __init__(self, v):
        self.v = v

    def __index__(self):
        return self.v


class Float:
    def __init__(self, v):
        self.v = v

    def __float__(self):
        return self.v


class Both(Index):
    def __float__(self):
        return float(self.v)


class Seq:
    """A sequence that changes under its reader."""

    def __init__(self, items, grow, fresh):
        self.items, self.grow, self.fresh, self.calls = items, grow, fresh, 0
        self.built = [build(r) for r in items]

    def __len__(self):
        n = len(self.items) + self.grow * self.calls
        self.calls += 1
        return max(n, 0)

    def __getitem__(self, i):
        if not isinstance(i, int) or i < 0 or i >= len(self.items) + abs(self.grow) * 4:
            raise IndexError(i)
        k = i % len(self.items)
        return build(self.items[k]) if self.fresh else self.built[k]


def build(recipe):
    kind = recipe[0]
    if kind == "const":  # a hand-written case: a function that makes the object
        return recipe[1]()
    if kind == "num":
        return recipe[1]
    if kind == "np":
        return getattr(np, recipe[1])(recipe[2])
    if kind == "index":
        return Index(recipe[1])
    if kind == "float":
        return Float(recipe[1])
    if kind == "both":
        return Both(recipe[1])
    if kind == "array":
        return array.array(recipe[1], recipe[2])
    if kind == "other":
        return {"str": "ab", "none": None, "bytes": b"ab", "object": object()}[recipe[1]]
    if kind == "list":
        return [build(r) for r in recipe[1]]
    if kind == "tuple":
        return tuple(build(r) for r in recipe[1])
    return Seq(recipe[1], recipe[2], recipe[3])


# ---- outcomes ---------------------------------------------------------------------------------

def picture(v):
    """Values comparable across libraries: floats by repr (nan, -0.0)."""
    if isinstance(v, list):
        return [picture(i) for i in v]
    return repr(v) if isinstance(v, float) else v


def outcome(lib, recipe):
    try:
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t = lib.tensor(build(recipe))
    except Exception as e:  # the error is the observable result
        return (type(e).__name__, str(e).replace("torch", "gradtrack"))
    return ("ok", str(t.dtype).split(".")[-1], list(t.shape), picture(t.tolist()))


@settings(max_examples=200, derandomize=True, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(recipes)
def test_tensor_of_hostile_objects_matches_torch(recipe):
    expected = outcome(torch, recipe)
    assert outcome(gradtrack, recipe) == expected


# ---- what the strategy found, pinned (each differed from torch before the fix) ----------------

@pytest.mark.parametrize("make", [
    lambda: [[], [1]],  # no element to store: the data is not read again, (2, 0)
    lambda: [np.int32(1)],  # a numpy scalar keeps its dtype in a list
    lambda: np.uint8(3),
    lambda: [np.uint8(1), np.int32(1)],  # and promotes with the others
    lambda: [np.float64(1.0)],
    lambda: [1.5, np.float64(1.0)],
    lambda: [False, array.array("b", [])],  # an empty sequence counts as the default float
    lambda: [0, np.bool_(False)],  # np.bool_ has no __index__: not storable as int64
], ids=["ragged-empty", "np-int32", "np-uint8", "np-uint8-int32", "np-float64-in-list",
        "float-and-np-float64", "empty-array-is-float", "np-bool-into-int64"])
def test_found_by_the_strategy(make):
    assert outcome(gradtrack, ("const", make)) == outcome(torch, ("const", make))


@pytest.mark.parametrize("np_type, gradtrack_dtype", [
    ("float16", "float16"), ("int8", "int8"), ("int16", "int16"), ("uint16", "int64"),
])
def test_numpy_scalars_of_dtypes_gradtrack_lacks(np_type, gradtrack_dtype):
    # float16/int8/int16 are kept, as torch keeps them. A documented difference for
    # uint16: gradtrack has no dtype for it, so the value is kept in its kind's default.
    t = gradtrack.tensor([getattr(np, np_type)(3)])
    assert str(t.dtype) == f"gradtrack.{gradtrack_dtype}" and t.tolist() == [3]
