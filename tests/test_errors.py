"""Bad input raises torch's exception type with torch's message (torch -> gradtrack).

Every case is ONE builder ``lambda lib: ...`` run with ``lib=torch`` and
``lib=gradtrack``; torch's exception is the oracle. A refused in-place op must
leave the tensor's values and ``_version`` unchanged. Where gradtrack's text
cannot equal torch's, gradtrack's own text is pinned and the reason given.
"""

import warnings

import numpy as np
import pytest

import gradtrack

from helpers import torch_to_gradtrack

GT = gradtrack


def raised(fn, lib):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fn(lib)
        except Exception as exc:  # noqa: BLE001 - the exception is the result
            return exc
    return None


def assert_same_error(fn, torch):
    expected = raised(fn, torch)
    assert expected is not None, "torch raised nothing: the case is wrong"
    actual = raised(fn, GT)
    assert actual is not None, f"gradtrack raised nothing; torch: {expected!r}"
    builtin = next(c for c in type(expected).__mro__ if c.__module__ == "builtins")
    assert type(actual) is builtin, f"{type(actual).__name__} != {builtin.__name__}: {actual}"
    assert str(actual) == torch_to_gradtrack(str(expected))


def setitem(t, index, value):
    t[index] = value
    return t


def case(case_id, fn):
    return pytest.param(fn, id=case_id)


BROADCAST = [
    case("add_shapes", lambda lib: lib.ones(2, 3) + lib.ones(4)),
    case("mul_shapes", lambda lib: lib.ones(2, 3) * lib.ones(3, 2)),
    case("sub_fn_shapes", lambda lib: lib.sub(lib.ones(5), lib.ones(2, 4))),
    case("where_shapes", lambda lib: lib.where(lib.ones(2, dtype=lib.bool), lib.ones(3),
                                               lib.ones(2))),
    case("maximum_shapes", lambda lib: lib.maximum(lib.ones(2, 3), lib.ones(2, 2))),
    case("eq_shapes", lambda lib: lib.ones(3) == lib.ones(4)),
    case("expand_size", lambda lib: lib.ones(2, 3).expand(4, 3)),
    case("expand_too_few_sizes", lambda lib: lib.ones(2, 3).expand(3)),
    case("expand_negative_new_dim", lambda lib: lib.ones(3).expand(-1, 3)),
    case("cat_sizes", lambda lib: lib.cat([lib.ones(2, 3), lib.ones(2, 4)])),
    case("cat_dims", lambda lib: lib.cat([lib.ones(2, 3), lib.ones(3)])),
    case("cat_empty_list", lambda lib: lib.cat([])),
    case("stack_sizes", lambda lib: lib.stack([lib.ones(2), lib.ones(3)])),
    case("stack_empty_list", lambda lib: lib.stack([])),
    case("masked_fill_mask_shape", lambda lib: lib.ones(2, 3).masked_fill(
        lib.ones(2, dtype=lib.bool), 0.0)),
]

MATMUL = [
    case("matmul_2d_2d", lambda lib: lib.ones(2, 3) @ lib.ones(2, 3)),
    case("matmul_1d_1d", lambda lib: lib.matmul(lib.ones(3), lib.ones(4))),
    case("matmul_2d_1d", lambda lib: lib.matmul(lib.ones(2, 3), lib.ones(4))),
    case("matmul_1d_2d", lambda lib: lib.matmul(lib.ones(3), lib.ones(4, 2))),
    case("matmul_3d_3d_inner", lambda lib: lib.matmul(lib.ones(2, 2, 3), lib.ones(2, 4, 5))),
    case("matmul_batch_broadcast", lambda lib: lib.matmul(lib.ones(2, 2, 3), lib.ones(3, 3, 1))),
    case("matmul_0d", lambda lib: lib.matmul(lib.ones(2), lib.tensor(0.0))),
    case("matmul_dtype_float_double",
         lambda lib: lib.ones(2, 3) @ lib.ones(3, 2, dtype=lib.float64)),
    case("matmul_dtype_long_float", lambda lib: lib.ones(2, 3, dtype=lib.int64) @ lib.ones(3, 2)),
    case("mm_1d", lambda lib: lib.mm(lib.ones(2, 3), lib.ones(3))),
    case("mm_shapes", lambda lib: lib.mm(lib.ones(2, 3), lib.ones(2, 3))),
    case("mm_dtype", lambda lib: lib.mm(lib.ones(2, 3), lib.ones(3, 2, dtype=lib.float64))),
    case("bmm_2d", lambda lib: lib.bmm(lib.ones(2, 3), lib.ones(3, 2))),
    case("bmm_batch", lambda lib: lib.bmm(lib.ones(2, 2, 3), lib.ones(3, 3, 2))),
    case("mv_shapes", lambda lib: lib.mv(lib.ones(2, 3), lib.ones(2))),
    case("dot_sizes", lambda lib: lib.dot(lib.ones(2), lib.ones(3))),
    case("dot_2d", lambda lib: lib.dot(lib.ones(2, 2), lib.ones(2, 2))),
    case("dot_dtype", lambda lib: lib.dot(lib.ones(3), lib.ones(3, dtype=lib.float64))),
    case("outer_2d", lambda lib: lib.outer(lib.ones(2, 2), lib.ones(2))),
]

DIM_RANGE = [
    case("sum", lambda lib: lib.ones(2, 3).sum(2)),
    case("sum_0d", lambda lib: lib.tensor(1.0).sum(1)),
    case("mean_neg", lambda lib: lib.ones(2, 3).mean(-3)),
    case("transpose", lambda lib: lib.ones(2, 3).transpose(0, -3)),
    case("unsqueeze", lambda lib: lib.ones(2, 3).unsqueeze(3)),
    case("squeeze", lambda lib: lib.ones(2, 3).squeeze(2)),
    case("softmax", lambda lib: lib.ones(2, 3).softmax(2)),
    case("log_softmax", lambda lib: lib.log_softmax(lib.ones(2, 3), -3)),
    case("select_dim", lambda lib: lib.ones(2, 3).select(2, 0)),
    case("max_dim", lambda lib: lib.ones(2, 3).max(5)),
    case("argmax", lambda lib: lib.ones(2, 3).argmax(dim=-3)),
    case("amax", lambda lib: lib.ones(2, 3).amax(3)),
    case("any", lambda lib: lib.ones(2, 3).any(2)),
    case("flatten", lambda lib: lib.ones(2, 3).flatten(0, 3)),
    case("narrow_dim", lambda lib: lib.ones(2, 3).narrow(2, 0, 1)),
    case("chunk", lambda lib: lib.ones(2, 3).chunk(2, dim=2)),
    case("split", lambda lib: lib.ones(2, 3).split(1, 2)),
    case("unbind", lambda lib: lib.ones(2, 3).unbind(2)),
    case("cat", lambda lib: lib.cat([lib.ones(2), lib.ones(2)], dim=1)),
    case("stack", lambda lib: lib.stack([lib.ones(2), lib.ones(2)], dim=3)),
    case("gather", lambda lib: lib.ones(2, 3).gather(2, lib.zeros(1, 1, dtype=lib.int64))),
    case("index_select", lambda lib: lib.ones(2, 3).index_select(2, lib.zeros(1, dtype=lib.int64))),
    case("permute_duplicate", lambda lib: lib.ones(2, 3).permute(0, 0)),
    case("permute_length", lambda lib: lib.ones(2, 3).permute(0)),
    case("permute_range", lambda lib: lib.ones(2, 3).permute(0, 2)),
]

INDEX_BOUNDS = [
    case("int", lambda lib: lib.ones(2, 3)[2]),
    case("neg_int", lambda lib: lib.ones(2, 3)[:, -4]),
    case("tensor", lambda lib: lib.ones(2, 3)[lib.tensor([0, 2])]),
    case("tensor_neg", lambda lib: lib.ones(2, 3)[lib.tensor([-3])]),
    case("list", lambda lib: lib.ones(2, 3)[[0, -3]]),
    case("second_dim_tensor", lambda lib: lib.ones(2, 3)[:, lib.tensor([3])]),
    case("select", lambda lib: lib.ones(3).select(0, 3)),
    case("narrow", lambda lib: lib.ones(3).narrow(0, 2, 2)),
    case("gather", lambda lib: lib.ones(2, 3).gather(1, lib.tensor([[3]]))),
    case("index_select", lambda lib: lib.ones(2, 3).index_select(0, lib.tensor([2]))),
    case("scatter_add", lambda lib: lib.ones(2, 3).scatter_add(1, lib.tensor([[5]]),
                                                              lib.ones(1, 1))),
    case("setitem_int", lambda lib: setitem(lib.ones(2, 3), 2, 1.0)),
    case("setitem_neg_int", lambda lib: setitem(lib.ones(2, 3), (0, -4), 1.0)),
    case("setitem_tensor", lambda lib: setitem(lib.ones(2, 3), lib.tensor([5]), 0.0)),
    case("setitem_list", lambda lib: setitem(lib.ones(2, 3), [0, 3], 1.0)),
    case("setitem_value_shape", lambda lib: setitem(lib.ones(2, 3), 0, lib.ones(4))),
    case("setitem_mask_value_shape", lambda lib: setitem(lib.ones(2, 3), lib.ones(2, 3) > 0,
                                                         lib.ones(5))),
    case("setitem_tensor_value_shape", lambda lib: setitem(lib.ones(2, 3), lib.tensor([0, 1]),
                                                           lib.ones(3, 3))),
]

INDEX_TYPES = [
    case("too_many", lambda lib: lib.ones(2, 3)[0, 0, 0]),
    case("too_many_with_ellipsis", lambda lib: lib.ones(2, 3)[0, ..., 0, 0]),
    case("0d_int", lambda lib: lib.tensor(1.0)[0]),
    case("setitem_too_many", lambda lib: setitem(lib.ones(2, 3), (0, 0, 0), 1.0)),
    case("str", lambda lib: lib.ones(2)["a"]),
    case("float", lambda lib: lib.ones(2)[1.5]),
    case("float_in_tuple", lambda lib: lib.ones(2, 2)[0, 0.5]),
    case("float_tensor", lambda lib: lib.ones(2)[lib.tensor([0.5])]),
    case("negative_step", lambda lib: lib.ones(3)[::-1]),
    case("zero_step", lambda lib: lib.ones(3)[::0]),
    case("mask_shape", lambda lib: lib.ones(2, 3)[lib.ones(3, dtype=lib.bool)]),
    case("mask_2d_shape", lambda lib: lib.ones(2, 3)[lib.ones(3, 2, dtype=lib.bool)]),
    case("index_shapes_broadcast", lambda lib: lib.ones(2, 3)[[0, 1], [0, 1, 2]]),
    case("setitem_str", lambda lib: setitem(lib.ones(2), "a", 1.0)),
    case("setitem_float_tensor", lambda lib: setitem(lib.ones(2), lib.tensor([0.0]), 1.0)),
]

VIEWS = [
    case("view_non_contiguous", lambda lib: lib.ones(2, 3).t().view(6)),
    case("view_expanded", lambda lib: lib.ones(3, 1).expand(3, 4).view(12)),
    case("view_size", lambda lib: lib.ones(2, 3).view(4)),
    case("view_two_inferred", lambda lib: lib.ones(2, 3).view(-1, -1)),
    case("view_negative", lambda lib: lib.ones(2).view(-2)),
    case("view_infer_zero", lambda lib: lib.ones(0, 3).view(-1, 0)),
    case("reshape_size", lambda lib: lib.ones(2, 3).reshape(5)),
    case("reshape_fn_size", lambda lib: lib.reshape(lib.ones(2, 3), (4, 2))),
    case("reshape_infer_zero", lambda lib: lib.ones(0, 3).reshape(-1, 0)),
    case("view_as", lambda lib: lib.ones(2, 3).view_as(lib.ones(5))),
    case("flatten_order", lambda lib: lib.ones(2, 3, 4).flatten(2, 1)),
    case("split_zero", lambda lib: lib.ones(2, 3).split(0)),
    case("chunk_zero", lambda lib: lib.ones(2, 3).chunk(0)),
    case("narrow_negative_length", lambda lib: lib.ones(3).narrow(0, 0, -1)),
    case("as_strided_storage", lambda lib: lib.ones(2).as_strided((3,), (1,))),
    case("t_3d", lambda lib: lib.ones(2, 3, 4).t()),
]

FACTORIES = [
    case("zeros_negative", lambda lib: lib.zeros(-1)),
    case("ones_negative", lambda lib: lib.ones(2, -3)),
    case("empty_negative", lambda lib: lib.empty(-2)),
    case("full_negative", lambda lib: lib.full((-1,), 1.0)),
    case("rand_negative", lambda lib: lib.rand(-1)),
    case("randn_negative", lambda lib: lib.randn(2, -1)),
    case("new_zeros_negative", lambda lib: lib.ones(2).new_zeros(-1)),
    case("eye_negative", lambda lib: lib.eye(-1)),
    case("arange_zero_step", lambda lib: lib.arange(0, 5, 0)),
    case("arange_wrong_sign", lambda lib: lib.arange(5, 0)),
    case("linspace_negative_steps", lambda lib: lib.linspace(0, 1, -1)),
    case("randint_bounds", lambda lib: lib.randint(5, 2, (2,))),
    case("tensor_ragged", lambda lib: lib.tensor([[1, 2], [3]])),
    case("tensor_ragged_deep", lambda lib: lib.tensor([[1.0], 2.0])),
    case("size_overflow", lambda lib: lib.zeros(2 ** 62)),
]

TYPES = [
    case("add_str", lambda lib: lib.ones(2) + "a"),
    case("radd_str", lambda lib: "a" + lib.ones(2)),
    case("mul_list", lambda lib: lib.ones(2) * [1, 2]),
    case("matmul_int", lambda lib: lib.ones(2) @ 2),
    case("lt_str", lambda lib: lib.ones(2) < "a"),
    case("zeros_float_size", lambda lib: lib.zeros(2.5)),
    case("ones_str_size", lambda lib: lib.ones("a")),
    case("tensor_str", lambda lib: lib.tensor("abc")),
    case("tensor_list_with_str", lambda lib: lib.tensor([1, "a"])),
    case("add_fn_str", lambda lib: lib.add(lib.ones(2), "a")),
    case("cat_tensor", lambda lib: lib.cat(lib.ones(2))),
    case("dtype_str", lambda lib: lib.ones(2, dtype="float32")),
    case("view_str", lambda lib: lib.ones(2).view("a")),
    case("index_float_tensor_py", lambda lib: [1, 2][lib.tensor(1.0)]),
    case("len_0d", lambda lib: len(lib.tensor(1.0))),
    case("iter_0d", lambda lib: iter(lib.tensor(1.0))),
    case("float_of_2", lambda lib: float(lib.ones(2))),
    case("int_of_2", lambda lib: int(lib.ones(2))),
]

SCALARS = [
    case("item_2", lambda lib: lib.ones(2).item()),
    case("item_0", lambda lib: lib.ones(0).item()),
    case("bool_of_2", lambda lib: bool(lib.ones(2))),
    case("bool_of_empty", lambda lib: bool(lib.ones(0))),
]

DTYPES = [
    case("neg_bool", lambda lib: -lib.tensor([True])),
    case("sub_bool", lambda lib: lib.tensor([True]) - lib.tensor([False])),
    # one bool operand, a Python bool included, in every form of subtraction
    case("sub_bool_tensor_int", lambda lib: lib.tensor([True]) - 1),
    case("rsub_int_bool_tensor", lambda lib: 1 - lib.tensor([True])),
    case("sub_float_python_bool", lambda lib: lib.ones(2) - True),
    case("rsub_python_bool", lambda lib: True - lib.ones(2)),
    case("sub_int_python_bool", lambda lib: lib.tensor([1, 2]) - True),
    case("sub_float_bool_tensor", lambda lib: lib.ones(2) - lib.tensor([True, False])),
    case("sub_method_bool", lambda lib: lib.ones(2).sub(True)),
    case("torch_rsub_bool", lambda lib: lib.rsub(lib.ones(2), True)),
    case("sub__python_bool", lambda lib: lib.ones(2).sub_(True)),
    case("sub__bool_tensor", lambda lib: lib.ones(2).sub_(lib.tensor([True, False]))),
    case("isub_python_bool", lambda lib: lib.ones(2).__isub__(True)),
    case("sub_out_bool", lambda lib: lib.sub(lib.ones(2), lib.tensor([True, False]), out=lib.empty(2))),
    # alpha: a bool only for bool results, a float never for integer or bool ones
    case("add_float_bool_alpha", lambda lib: lib.add(lib.ones(2), 1, alpha=True)),
    case("add_int_bool_alpha", lambda lib: lib.add(lib.tensor([1]), lib.tensor([1]), alpha=True)),
    case("add__bool_alpha", lambda lib: lib.ones(2).add_(1, alpha=True)),
    case("sub_float_bool_alpha", lambda lib: lib.sub(lib.ones(2), 1, alpha=True)),
    case("add_bool_float_alpha", lambda lib: lib.add(lib.tensor([True]), lib.tensor([True]), alpha=1.5)),
    case("and_float", lambda lib: lib.ones(2) & lib.ones(2)),
    case("invert_float", lambda lib: ~lib.ones(2)),
    case("mean_long", lambda lib: lib.ones(2, dtype=lib.int64).mean()),
    case("argmax_bool", lambda lib: lib.ones(2, dtype=lib.bool).argmax()),
    case("softmax_long", lambda lib: lib.ones(2, dtype=lib.int64).softmax(0)),
    case("int_pow_negative", lambda lib: lib.tensor([2]) ** -1),
    case("int_floor_divide_zero", lambda lib: lib.tensor([1]) // lib.tensor([0])),
    case("int_div_floor_zero", lambda lib: lib.div(lib.tensor([1]), 0, rounding_mode="floor")),
    case("int_remainder_zero", lambda lib: lib.remainder(lib.tensor([1]), lib.tensor([0]))),
    case("div_bad_rounding_mode", lambda lib: lib.div(lib.ones(2), 2, rounding_mode="bad")),
    case("max_empty", lambda lib: lib.ones(0).max()),
    case("argmax_empty", lambda lib: lib.ones(0).argmax()),
    case("amax_empty", lambda lib: lib.ones(0).amax()),
    case("max_dim_empty", lambda lib: lib.ones(0, 3).max(0)),
    case("gather_index_dtype", lambda lib: lib.ones(2, 3).gather(1, lib.tensor([[0.5]]))),
    case("index_select_index_dtype", lambda lib: lib.ones(2).index_select(0, lib.tensor([0.0]))),
    case("masked_fill_long_mask", lambda lib: lib.ones(2).masked_fill(lib.tensor([1, 0]), 0.0)),
    case("where_float_condition", lambda lib: lib.where(lib.ones(2), lib.ones(2), lib.ones(2))),
    case("clamp_no_bounds", lambda lib: lib.clamp(lib.ones(2))),
    case("requires_grad_int_factory", lambda lib: lib.ones(2, dtype=lib.int64, requires_grad=True)),
    case("requires_grad_int_tensor", lambda lib: lib.tensor([1, 2], requires_grad=True)),
    case("floor_divide_backward", lambda lib: (lib.ones(2, requires_grad=True) // 2).sum()
         .backward()),
]

# Tensor methods that take nothing: CPython's words for torch's METH_NOARGS methods.
NO_ARGUMENTS = [
    case("exp_positional", lambda lib: lib.ones(2).exp(2)),
    case("neg_two_positional", lambda lib: lib.ones(2).neg(1, 2)),
    case("sin_keyword", lambda lib: lib.ones(2).sin(foo=1)),
    case("sigmoid_both", lambda lib: lib.ones(2).sigmoid(1, foo=2)),
    case("t_positional", lambda lib: lib.ones(2, 2).t(0)),
    case("numel_keyword", lambda lib: lib.ones(2).numel(foo=1)),
    case("float_keyword_is_parsed", lambda lib: lib.ones(2).float(foo=1)),
]

# Names gradtrack binds with one signature where torch's parser has several: the error
# lists torch's overloads (gradtrack/_parser_overloads.py).
OVERLOADS = [
    case("sum_unknown_keyword", lambda lib: lib.ones(2).sum(foo=1)),
    case("sum_function_unknown_keyword", lambda lib: lib.sum(lib.ones(2), foo=1)),
    case("max_unknown_keyword", lambda lib: lib.ones(2).max(foo=1)),
    case("clamp_string", lambda lib: lib.ones(2).clamp(min="a")),
    case("eq_no_argument", lambda lib: lib.ones(2).eq()),
    case("masked_fill_no_arguments", lambda lib: lib.ones(2).masked_fill()),
]

ALL_CASES = BROADCAST + MATMUL + INDEX_BOUNDS + INDEX_TYPES + VIEWS + FACTORIES + TYPES + \
    SCALARS + DTYPES + NO_ARGUMENTS + OVERLOADS
DIM_CASES = DIM_RANGE


@pytest.mark.parametrize("fn", ALL_CASES)
def test_error_matches_torch(torch, fn):
    assert_same_error(fn, torch)


@pytest.mark.parametrize("fn", DIM_CASES)
def test_dim_out_of_range_is_index_error(torch, fn):
    assert_same_error(fn, torch)


@pytest.mark.parametrize("fn", [c for c in DIM_CASES if "permute" not in c.id])
def test_dim_out_of_range_type_without_torch(fn):
    exc = raised(fn, GT)
    assert isinstance(exc, IndexError), repr(exc)
    assert str(exc).startswith("Dimension out of range (expected to be in range of [")


# ---- allocation failure ----------------------------------------------------------------------

@pytest.mark.parametrize("make", [
    lambda: GT.empty(10 ** 12),
    lambda: GT.empty(10 ** 6, 10 ** 6, dtype=GT.float64),
    lambda: GT.zeros(10 ** 12),
    lambda: GT.ones(10 ** 12, dtype=GT.uint8),
], ids=["empty", "empty_2d_double", "zeros", "ones_uint8"])
def test_allocation_too_large_raises(make):
    # torch: "[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't
    # allocate memory: you tried to allocate 4000000000000 bytes. Error code 12 (...)";
    # the "[enforce fail at file:line]" prefix is torch's C++ source location, so only
    # the part a user reads is pinned.
    with pytest.raises(RuntimeError, match="can't allocate memory"):
        make()
    assert GT.ones(2).sum().item() == 2.0   # still alive and usable


def test_allocation_message_names_bytes():
    with pytest.raises(RuntimeError) as info:
        GT.empty(10 ** 12)
    assert "you tried to allocate 4000000000000 bytes" in str(info.value)


# ---- numpy arrays gradtrack cannot alias -----------------------------------------------------

def test_from_numpy_read_only_warns_but_aliases():
    a = np.arange(3.0)
    a.flags.writeable = False
    with pytest.warns(UserWarning, match="The given NumPy array is not writable"):
        t = GT.from_numpy(a)
    assert t.data_ptr() == a.ctypes.data
    assert t.tolist() == [0.0, 1.0, 2.0]


def test_from_numpy_byte_swapped_is_value_error(torch):
    assert_same_error(lambda lib: lib.from_numpy(np.ones(3, dtype=">f4")), torch)


def test_from_numpy_negative_strides_is_value_error(torch):
    assert_same_error(lambda lib: lib.from_numpy(np.arange(3)[::-1]), torch)


def test_tensor_from_negative_strides_is_value_error(torch):
    assert_same_error(lambda lib: lib.tensor(np.arange(4.0).reshape(2, 2)[:, ::-1]), torch)


def test_from_numpy_object_dtype_is_type_error():
    # torch lists ITS supported dtypes (float16, complex64, int16, ...); gradtrack
    # supports fewer, so only the sentence before the list is torch's.
    with pytest.raises(TypeError) as info:
        GT.from_numpy(np.array([1, "a"], dtype=object))
    assert str(info.value).startswith(
        "can't convert np.ndarray of type numpy.object_. The only supported types are: ")
    assert "float64" in str(info.value) and "bool" in str(info.value)


def test_from_numpy_not_an_array_is_type_error(torch):
    assert_same_error(lambda lib: lib.from_numpy([1.0, 2.0]), torch)


# ---- refused in-place ops leave values and _version alone ------------------------------------

INPLACE = [
    ("iadd_broadcast_to", lambda lib: lib.ones(3), lambda lib, t: t.__iadd__(lib.ones(2, 3))),
    ("add__broadcast_to", lambda lib: lib.ones(1, 3), lambda lib, t: t.add_(lib.ones(2, 3))),
    ("mul__broadcast_to", lambda lib: lib.ones(3), lambda lib, t: t.mul_(lib.ones(2, 3))),
    ("sub__shapes", lambda lib: lib.ones(2, 3), lambda lib, t: t.sub_(lib.ones(4))),
    ("copy__broadcast_to", lambda lib: lib.ones(3), lambda lib, t: t.copy_(lib.ones(2, 3))),
    ("long_add_float_tensor", lambda lib: lib.ones(3, dtype=lib.int64),
     lambda lib, t: t.add_(lib.ones(3))),
    ("long_add_float_scalar", lambda lib: lib.ones(3, dtype=lib.int64), lambda lib, t: t.add_(0.5)),
    ("long_mul_float_scalar", lambda lib: lib.ones(3, dtype=lib.int64), lambda lib, t: t.mul_(1.5)),
    ("long_itruediv", lambda lib: lib.ones(3, dtype=lib.int64), lambda lib, t: t.__itruediv__(2)),
    ("long_div_", lambda lib: lib.ones(3, dtype=lib.int64), lambda lib, t: t.div_(2)),
    ("long_sqrt_", lambda lib: lib.ones(3, dtype=lib.int64), lambda lib, t: t.sqrt_()),
    ("long_exp_", lambda lib: lib.ones(3, dtype=lib.int64), lambda lib, t: t.exp_()),
    ("int32_sigmoid_", lambda lib: lib.ones(3, dtype=lib.int32), lambda lib, t: t.sigmoid_()),
    ("bool_add_int", lambda lib: lib.ones(3, dtype=lib.bool), lambda lib, t: t.add_(1)),
    ("uint8_mul_float", lambda lib: lib.ones(3, dtype=lib.uint8),
     lambda lib, t: t.mul_(lib.ones(3, dtype=lib.float64))),
    ("expanded_add_", lambda lib: lib.ones(1, 3).expand(2, 3), lambda lib, t: t.add_(1)),
    ("expanded_mul_", lambda lib: lib.ones(3, 1).expand(3, 2), lambda lib, t: t.mul_(2)),
    ("expanded_copy_", lambda lib: lib.ones(1, 3).expand(2, 3),
     lambda lib, t: t.copy_(lib.zeros(2, 3))),
    ("expanded_iadd", lambda lib: lib.ones(3).expand(2, 3), lambda lib, t: t.__iadd__(1)),
    ("expanded_clamp_", lambda lib: lib.ones(1, 3).expand(2, 3), lambda lib, t: t.clamp_(0, 0.5)),
    ("expanded_setitem", lambda lib: lib.ones(1, 3).expand(2, 3),
     lambda lib, t: setitem(t, slice(None), lib.zeros(2, 3))),
]


@pytest.mark.parametrize("make,op", [pytest.param(m, o, id=i) for i, m, o in INPLACE])
def test_inplace_error_matches_torch(torch, make, op):
    assert_same_error(lambda lib: op(lib, make(lib)), torch)


@pytest.mark.parametrize("make,op", [pytest.param(m, o, id=i) for i, m, o in INPLACE])
def test_refused_inplace_changes_nothing(make, op):
    t = make(GT)
    before = t.clone()
    version = t._version
    with pytest.raises(RuntimeError):
        op(GT, t)
    assert t._version == version
    assert t.dtype is before.dtype and tuple(t.shape) == tuple(before.shape)
    assert t.tolist() == before.tolist()


def test_refused_inplace_on_view_leaves_base_alone():
    base = GT.arange(6.0).view(2, 3)
    v = base[0]
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        v.add_(GT.ones(2, 3))
    assert base._version == 0 and v._version == 0
    assert base.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]


ALLOWED = [
    ("int32_add_int64", lambda lib: lib.ones(3, dtype=lib.int32),
     lambda lib, t: t.add_(lib.ones(3, dtype=lib.int64))),
    ("float32_add_float64", lambda lib: lib.ones(3), lambda lib, t: t.add_(lib.ones(3).double())),
    ("float_add_int", lambda lib: lib.ones(3), lambda lib, t: t.add_(lib.tensor([1, 2, 3]))),
    ("long_div_floor", lambda lib: lib.tensor([5, -5, 4]),
     lambda lib, t: t.div_(2, rounding_mode="floor")),
    ("broadcast_from", lambda lib: lib.ones(2, 3), lambda lib, t: t.add_(lib.tensor([1., 2., 3.]))),
    ("copy_broadcast_from", lambda lib: lib.ones(2, 3),
     lambda lib, t: t.copy_(lib.tensor([1., 2., 3.]))),
    ("long_copy_casts", lambda lib: lib.zeros(2, dtype=lib.int64),
     lambda lib, t: t.copy_(lib.tensor([1.7, -2.2]))),
    ("long_setitem_casts", lambda lib: lib.zeros(2, dtype=lib.int64),
     lambda lib, t: setitem(t, 0, 2.7)),
    ("expanded_fill_", lambda lib: lib.ones(1, 3).expand(2, 3), lambda lib, t: t.fill_(5.0)),
    ("bool_mul_bool", lambda lib: lib.ones(3, dtype=lib.bool),
     lambda lib, t: t.mul_(lib.tensor([True, False, True]))),
]


@pytest.mark.parametrize("make,op", [pytest.param(m, o, id=i) for i, m, o in ALLOWED])
def test_allowed_inplace_matches_torch(torch, make, op):
    t, e = make(GT), make(torch)
    result, expected = op(GT, t), op(torch, e)
    assert result is t
    assert expected is e
    assert str(t.dtype) == str(e.dtype).replace("torch.", "gradtrack.")
    assert t.tolist() == e.tolist()
    assert t._version == e._version


def test_bool_add_takes_an_integer_alpha_as_torch_does(torch):
    # add with bool results accepts any integer alpha (torch only refuses floats there)
    for lib_pair in ((gradtrack, torch),):
        got, want = (lib.add(lib.tensor([True, False]), lib.tensor([True, False]), alpha=2)
                     for lib in lib_pair)
        assert got.dtype == gradtrack.bool and got.tolist() == want.tolist() == [True, False]
    b, tb = gradtrack.tensor([True, False]), torch.tensor([True, False])
    assert b.add_(b, alpha=3).tolist() == tb.add_(tb, alpha=3).tolist()
    assert b._version == 1


def test_parser_overloads_are_torchs(torch):
    """gradtrack/_parser_overloads.py is what tools/gen_parser_overloads.py reads from the
    installed torch now."""
    import importlib.util
    import pathlib

    from gradtrack import _parser_overloads
    path = pathlib.Path(__file__).resolve().parents[1] / "tools" / "gen_parser_overloads.py"
    spec = importlib.util.spec_from_file_location("gen_parser_overloads", path)
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    assert tool.collect() == (_parser_overloads.METHODS, _parser_overloads.FUNCTIONS)
