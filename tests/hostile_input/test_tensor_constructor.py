"""Hostile input: ``tensor()`` of what is not data (strings, sets, generators, ragged or
self-referencing lists, lists nested 100 000 deep), of sequences whose items are new
objects on each access and whose length changes while they are read, and of numbers the
requested dtype cannot hold (refused, never wrapped). hostile_cases.py runs them
(gradtrack in a child process); tests/hostile_input/test_tensor_of_hostile_objects.py
draws such objects with hypothesis.
"""

import pytest

from hostile_cases import case_table, check_case

torch = pytest.importorskip("torch")

CASES, case = case_table()   # CASES: name -> (source, mode)


# -- tensor() of things that are not data ------------------------------------------------------
for name, src in {
    "list_with_str": 'out = lib.tensor([1, "a"])',
    "ragged": "out = lib.tensor([[1, 2], [3]])",
    "list_with_none": "out = lib.tensor([1.0, None])",
    "generator": "out = lib.tensor(x for x in range(3))",
    "set": "out = lib.tensor({1, 2})",
    "dict": "out = lib.tensor({1: 2})",
    "none": "out = lib.tensor(None)",
    "object": "out = lib.tensor(object())",
    "str": 'out = lib.tensor("abc")',
    "bytes": 'out = lib.tensor(b"abc")',
    "range": "out = lib.tensor(range(5))",
    "empty_nested": "out = lib.tensor([[]])",
    "empty_nested_two": "out = lib.tensor([[], []])",
    "list_of_0dim_tensors": "out = lib.tensor([lib.tensor(1.0), lib.tensor(2.0)])",
    "list_of_1d_tensors": "out = lib.tensor([lib.ones(2), lib.ones(2)])",
    "int_2_63": "out = lib.tensor(2**63)",
    "list_int_2_63": "out = lib.tensor([2**63])",
    "int_below_int64": "out = lib.tensor(-2**63 - 1)",
    "float_overflow_literal": "out = lib.tensor(1e400)",
    "mixed_number_types": "out = lib.tensor([1, 2.5, True])",
    "bool_and_int": "out = lib.tensor([True, 2])",
    "long_list": "out = lib.tensor(list(range(10**6))).sum()",
    "long_nested_list": "out = lib.tensor([[float(i)] * 10 for i in range(100000)]).sum()",
    "nested_64_deep": "l = 1.0\nfor _ in range(64): l = [l]\nout = lib.tensor(l).shape",
    "nested_1000_deep": "l = 1.0\nfor _ in range(1000): l = [l]\nout = lib.tensor(l).shape",
    "nested_100000_deep": "l = 1.0\nfor _ in range(100000): l = [l]\nout = lib.tensor(l).shape",
    "self_referencing_list": "l = []\nl.append(l)\nout = lib.tensor(l)",
}.items():
    case(f"tensor_{name}", src)

# Sequences whose items are new objects on each access, and whose length changes while
# they are read: every item is held while read, and the buffer is written exactly as far
# as the shape says (a sequence that grows or shrinks is refused with torch's message).
CHANGING = """
class Fresh:
    # Each access builds a new float (as array.array does): nothing else refers to it.
    def __len__(self):
        return 3
    def __getitem__(self, i):
        if i >= 3:
            raise IndexError(i)
        return float(i) + 0.5
class Resized:
    # The length becomes `after` once the n-th item has been read.
    def __init__(self, before, after, n=0):
        self.size, self.after, self.n = before, after, n
    def __len__(self):
        return self.size
    def __getitem__(self, i):
        if i >= self.size:
            raise IndexError(i)
        if i >= self.n:
            self.size = self.after
        return 1.0
class LenChanges:
    # __len__ answers `before` for its first `calls` calls, then `after`.
    def __init__(self, before, after, calls):
        self.before, self.after, self.calls = before, after, calls
    def __len__(self):
        self.calls -= 1
        return self.before if self.calls >= 0 else self.after
    def __getitem__(self, i):
        return [1.0, 2.0, 3.0, 4.0][i]
"""
for name, src in {
    "array_double": "import array\nout = lib.tensor(array.array('d', [1.5, 2.5]))",
    "array_int": "import array\nout = lib.tensor(array.array('q', [1, 2 ** 40]))",
    "array_nested": ("import array\nout = lib.tensor([array.array('d', [1.5, 2.5]),\n"
                     "                  array.array('d', [3.5, 4.5])], dtype=lib.float64)"),
    "fresh_items": "out = lib.tensor(Fresh())",
    "fresh_items_nested": "out = lib.tensor([Fresh(), Fresh()])",
    "fresh_items_int_dtype": "out = lib.tensor(Fresh(), dtype=lib.float64)",
    "grows_while_read": "out = lib.tensor(Resized(2, 200000))",
    "shrinks_while_read": "out = lib.tensor(Resized(4, 1))",
    "grows_nested": "out = lib.tensor([[1.0, 2.0], Resized(2, 200000)])",
    "shrinks_nested": "out = lib.tensor([Resized(3, 1, 1), [1.0, 2.0, 3.0]])",
    "len_grows_after_shape": "out = lib.tensor(LenChanges(2, 4, 1))",
    "len_grows_after_scan": "out = lib.tensor(LenChanges(2, 4, 2))",
    "len_shrinks_after_scan": "out = lib.tensor(LenChanges(3, 1, 2))",
    "len_shrinks_after_shape": "out = lib.tensor(LenChanges(3, 1, 1))",
}.items():
    case(f"tensor_changing_{name}", CHANGING + src)

# Numbers the requested integer dtype cannot hold are refused, never wrapped.
for name, src in {
    "nan_int64": "out = lib.tensor([float('nan')], dtype=lib.int64)",
    "nan_int32": "out = lib.tensor([float('nan')], dtype=lib.int32)",
    "nan_uint8": "out = lib.tensor([float('nan')], dtype=lib.uint8)",
    "nan_bool": "out = lib.tensor([float('nan')], dtype=lib.bool)",
    "nan_0dim_int64": "out = lib.tensor(float('nan'), dtype=lib.int64)",
    "inf_int64": "out = lib.tensor([1.0, float('inf')], dtype=lib.int64)",
    "minus_inf_int32": "out = lib.tensor([float('-inf')], dtype=lib.int32)",
    "int_300_uint8": "out = lib.tensor([300], dtype=lib.uint8)",
    "int_256_uint8": "out = lib.tensor([[1, 2], [3, 256]], dtype=lib.uint8)",
    "int_minus_1_uint8": "out = lib.tensor([-1], dtype=lib.uint8)",
    "int_minus_255_uint8": "out = lib.tensor([-255], dtype=lib.uint8)",
    "int_minus_256_uint8": "out = lib.tensor([-256], dtype=lib.uint8)",
    "float_255_5_uint8": "out = lib.tensor([255.5], dtype=lib.uint8)",
    "float_minus_half_uint8": "out = lib.tensor([-0.5], dtype=lib.uint8)",
    "float_255_uint8": "out = lib.tensor([255.0, 0.0], dtype=lib.uint8)",
    "float_1e300_int32": "out = lib.tensor([1e300], dtype=lib.int32)",
    "float_3e9_int32": "out = lib.tensor([3e9], dtype=lib.int32)",
    "int_3e9_int32": "out = lib.tensor([3 * 10**9], dtype=lib.int32)",
    "int_2_31_int32": "out = lib.tensor([2**31], dtype=lib.int32)",
    "int_minus_2_31_int32": "out = lib.tensor([-2**31, 2**31 - 1], dtype=lib.int32)",
    "int_below_int32": "out = lib.tensor([-2**31 - 1], dtype=lib.int32)",
    "float_1e300_int64": "out = lib.tensor([1e300], dtype=lib.int64)",
    "float_9_3e18_int64": "out = lib.tensor([9.3e18], dtype=lib.int64)",
    "float_2_63_int64": "out = lib.tensor([2.0**63, -2.0**63], dtype=lib.int64)",
    "float_1e300_float32": "out = lib.tensor([1e300], dtype=lib.float32)",
    "bool_and_float_uint8": "out = lib.tensor([True, 2.5], dtype=lib.uint8)",
    "numpy_nan_int64": "out = lib.tensor([np.float64('nan')], dtype=lib.int64)",
    "numpy_int_300_uint8": "out = lib.tensor([np.int64(300)], dtype=lib.uint8)",
    "as_tensor_nan_int64": "out = lib.as_tensor([float('nan')], dtype=lib.int64)",
    "int_2_63_float32": "out = lib.tensor([2**63, -2**63 - 1], dtype=lib.float32)",
    "int_2_70_float64": "out = lib.tensor([2**70], dtype=lib.float64)",
    "int_10_400_float64": "out = lib.tensor([10**400], dtype=lib.float64)",
    "int_2_63_bool": "out = lib.tensor([2**63, 10**400, 0], dtype=lib.bool)",
    "int_2_63_uint8": "out = lib.tensor([2**63], dtype=lib.uint8)",
    "int_2_63_int32": "out = lib.tensor([2**63], dtype=lib.int32)",
    "int_2_63_with_float": "out = lib.tensor([2**63, 1.5])",
    "int_2_63_0dim_float32": "out = lib.tensor(2**63, dtype=lib.float32)",
    "int_of_nan": "out = int(lib.tensor(float('nan')))",
    "int_of_inf": "out = int(lib.tensor(float('inf')))",
    "int_of_minus_inf": "out = int(lib.tensor(float('-inf'), dtype=lib.float64))",
    "int_of_1e300": "out = int(lib.tensor(1e300, dtype=lib.float64))",
    "int_of_1e30_float32": "out = int(lib.tensor(1e30))",
    "int_of_2_63": "out = int(lib.tensor(2.0**63, dtype=lib.float64))",
    "int_of_minus_2_7": "out = int(lib.tensor(-2.7))",
    "int_of_int_and_bool": "out = (int(lib.tensor(5)), int(lib.tensor(True)))",
}.items():
    case(f"convert_{name}", src)


# ---- the tests -------------------------------------------------------------------------------

@pytest.mark.parametrize("name", list(CASES))
def test_hostile_case(name, gradtrack_outcomes):
    check_case(torch, CASES[name], gradtrack_outcomes[name])
