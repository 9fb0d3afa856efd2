"""utils.data.default_collate / default_convert against torch 2.13: tensors, NumPy
arrays and scalars, Python numbers, strings, dicts, tuples, lists and namedtuples."""

import collections

import numpy as np
import pytest
from helpers import same, summary

import gradtrack
from gradtrack.utils.data import default_collate, default_convert

Point = collections.namedtuple("Point", "x y")

BATCHES = {
    "tensors": lambda lib: [lib.tensor([1.0, 2.0]), lib.tensor([3.0, 4.0])],
    "int tensors": lambda lib: [lib.tensor([[1], [2]]), lib.tensor([[3], [4]])],
    "0-d tensors": lambda lib: [lib.tensor(1.5), lib.tensor(2.5), lib.tensor(-1.0)],
    "bool tensors": lambda lib: [lib.tensor([True, False]), lib.tensor([False, False])],
    "floats": lambda lib: [1.5, 2.0, -3.25],
    "ints": lambda lib: [1, 2, 3],
    "bools": lambda lib: [True, False],
    "strings": lambda lib: ["a", "bc"],
    "bytes": lambda lib: [b"a", b"b"],
    "numpy arrays": lambda lib: [np.arange(3, dtype=np.int32), np.arange(3, dtype=np.int32)],
    "numpy float64": lambda lib: [np.ones((2, 2)), np.zeros((2, 2))],
    "numpy scalars f32": lambda lib: [np.float32(1.5), np.float32(2)],
    "numpy scalars i32": lambda lib: [np.int32(1), np.int32(7)],
    "numpy bools": lambda lib: [np.bool_(True), np.bool_(False)],
    "tuples": lambda lib: [(lib.tensor([1.0]), 0, "a"), (lib.tensor([2.0]), 1, "b")],
    "lists": lambda lib: [[1, 2.0], [3, 4.0]],
    "dicts": lambda lib: [{"x": lib.ones(2), "y": 1, "name": "p"},
                          {"x": lib.zeros(2), "y": 2, "name": "q"}],
    "nested": lambda lib: [{"a": [(1, 2.5)], "b": {"c": np.int64(3)}},
                           {"a": [(4, 5.5)], "b": {"c": np.int64(6)}}],
    "requires_grad": lambda lib: [lib.ones(2, requires_grad=True), lib.zeros(2)],
}


@pytest.mark.parametrize("name", sorted(BATCHES))
def test_default_collate_equals_torch(name):
    same(lambda lib: lib.utils.data.default_collate(BATCHES[name](lib)))


@pytest.mark.parametrize("name", sorted(BATCHES))
def test_default_convert_equals_torch(name):
    same(lambda lib: lib.utils.data.default_convert(BATCHES[name](lib)))


def test_default_collate_keeps_container_types(torch):
    for lib, collate in ((gradtrack, default_collate), (torch, torch.utils.data.default_collate)):
        out = collate([Point(1, 2.0), Point(3, 4.0)])
        assert type(out) is Point
        assert out.x.tolist() == [1, 3] and out.y.tolist() == [2.0, 4.0]
        assert str(out.y.dtype).endswith("float64")
        od = collate([collections.OrderedDict(b=1, a=2), collections.OrderedDict(b=3, a=4)])
        assert type(od) is collections.OrderedDict and list(od) == ["b", "a"]
        out = collate([("s", 1), ("t", 2)])
        assert type(out) is list and out[0] == ("s", "t")
        assert type(collate([[1, 2], [3, 4]])) is list
    converted = default_convert(Point(np.arange(2), (np.float64(3.0), "s")))
    assert type(converted) is Point and type(converted.y) is list
    assert summary(converted.x) == summary(torch.utils.data.default_convert(np.arange(2)))


ERRORS = [
    lambda lib: lib.utils.data.default_collate([object(), object()]),
    lambda lib: lib.utils.data.default_collate([np.array(["a"]), np.array(["b"])]),
    lambda lib: lib.utils.data.default_collate([[1, 2], [3]]),
    lambda lib: lib.utils.data.default_collate([lib.ones(2), lib.ones(3)]),
]


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_collate_errors_equal_torch(case):
    same(ERRORS[case])
