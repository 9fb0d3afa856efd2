"""What torch's parser takes for a size, an ``int`` and a type argument, and its errors
for the rest: the ``Tensor.new_*`` factories, ``topk``/``kthvalue``'s ``k`` and
``Tensor.type``. Each scenario runs with torch and gradtrack; the outcomes (a value's
summary, or the exception's type and message) must be equal."""

import numpy as np
import pytest

import gradtrack
from helpers import same


def _new(lib):
    return lib.ones(2)


NEW_FACTORIES = {
    "ints": lambda lib: _new(lib).new_zeros(2, 3).shape,
    "one_tuple": lambda lib: _new(lib).new_ones((2, 3)).shape,
    "size_keyword": lambda lib: _new(lib).new_zeros(size=(2, 3)).shape,
    "size_keyword_list": lambda lib: _new(lib).new_empty(size=[4]).shape,
    "numpy_and_tensor_ints": lambda lib: _new(lib).new_zeros(np.int64(2), lib.tensor(3)).shape,
    "device_keyword": lambda lib: _new(lib).new_zeros(2, device="cpu").shape,
    "no_size": lambda lib: _new(lib).new_zeros(),
    "no_size_ones": lambda lib: _new(lib).new_ones(),
    "no_size_empty": lambda lib: _new(lib).new_empty(dtype=lib.float64),
    "size_twice": lambda lib: _new(lib).new_zeros(2, size=3),
    "size_keyword_int": lambda lib: _new(lib).new_zeros(size=3),
    "size_keyword_float": lambda lib: _new(lib).new_zeros(size=2.5),
    "float_size": lambda lib: _new(lib).new_zeros(2.5),
    "float_among_ints": lambda lib: _new(lib).new_zeros(2, 2.5),
    "float_in_list": lambda lib: _new(lib).new_ones([2, 2.5]),
    "two_tuples": lambda lib: _new(lib).new_zeros((2,), (3,)),
    "bool_size": lambda lib: _new(lib).new_zeros(True),
    "none_size": lambda lib: _new(lib).new_empty(None),
    "full_int_size": lambda lib: _new(lib).new_full(2, 1),
    "full_size_twice": lambda lib: _new(lib).new_full((2,), 1, size=3),
    "full_keywords": lambda lib: _new(lib).new_full(size=(2,), fill_value=3),
    "empty_strided_size_twice": lambda lib: _new(lib).new_empty_strided((2,), (1,), size=1),
    "new_tensor_device": lambda lib: _new(lib).new_tensor([1, 2], device="cpu"),
    "new_tensor_device_and_dtype": lambda lib: _new(lib).new_tensor(
        [1, 2], device="cpu", dtype=lib.int32),
}


@pytest.mark.parametrize("name", NEW_FACTORIES)
def test_new_factory_sizes(name):
    same(NEW_FACTORIES[name])


K_ARGUMENTS = {
    "method_bool": lambda lib: lib.ones(2, 3).topk(True),
    "function_bool": lambda lib: lib.topk(lib.ones(2, 3), True),
    "method_float": lambda lib: lib.ones(2, 3).topk(1.0),
    "kthvalue_method_bool": lambda lib: lib.ones(2, 3).kthvalue(True),
    "kthvalue_function_float": lambda lib: lib.kthvalue(lib.ones(2, 3), 1.5),
    "numpy_bool": lambda lib: lib.ones(2, 3).topk(np.bool_(True)),
    "float_tensor": lambda lib: lib.ones(2, 3).topk(lib.tensor(1.0)),
    "none": lambda lib: lib.ones(2, 3).topk(None),
    "one_element_int_tensor": lambda lib: lib.tensor([[3.0, 1.0, 2.0]]).topk(
        lib.tensor([[2]])),
    "numpy_int": lambda lib: lib.tensor([3.0, 1.0, 2.0]).topk(np.int32(1)),
    "uint8_tensor": lambda lib: lib.tensor([3.0, 1.0, 2.0]).kthvalue(
        lib.tensor(2, dtype=lib.uint8)),
}


@pytest.mark.parametrize("name", K_ARGUMENTS)
def test_k_is_an_int(name):
    same(K_ARGUMENTS[name])


TYPE_ARGUMENTS = {
    "int": lambda lib: lib.ones(2).type(1),
    "int_keyword": lambda lib: lib.ones(2).type(dtype=1),
    "python_float": lambda lib: lib.ones(2).type(float),
    "other_class": lambda lib: lib.ones(2).type(lib.nn.Module),
    "short_name": lambda lib: lib.ones(2).type("FloatTensor"),
    "dtype_name": lambda lib: lib.ones(2).type("torch.float64"),
    "cuda_name": lambda lib: lib.ones(2).type("torch.cuda.FloatTensor"),
    "unknown_keyword": lambda lib: lib.ones(2).type(lib.float64, foo=1),
    "full_name": lambda lib: lib.ones(2).type("torch.DoubleTensor").dtype == lib.float64,
    "legacy_class": lambda lib: lib.ones(2).type(lib.IntTensor).dtype == lib.int32,
    "tensor_class": lambda lib: lib.ones(2, dtype=lib.int64).type(lib.Tensor).dtype
    == lib.float32,
    "non_blocking_and_memory_format": lambda lib: lib.ones(2).type(
        lib.float64, True, memory_format=lib.contiguous_format).dtype == lib.float64,
    "same_dtype_is_self": lambda lib: (lambda x: x.type(lib.float32) is x)(lib.ones(2)),
}


@pytest.mark.parametrize("name", TYPE_ARGUMENTS)
def test_tensor_type_argument(name):
    same(TYPE_ARGUMENTS[name])


def test_without_torch():
    """The rules that do not need torch to check."""
    x = gradtrack.ones(2)
    assert x.new_zeros(size=(2, 3)).shape == (2, 3)
    assert x.new_tensor([1, 2], device="cpu").dtype == gradtrack.float32
    with pytest.raises(TypeError, match='missing 1 required positional arguments: "size"'):
        x.new_zeros()
    with pytest.raises(TypeError, match=r"argument 'k' \(position 1\) must be int, not bool"):
        gradtrack.ones(3).topk(True)
    with pytest.raises(TypeError, match=r"argument 'k' \(position 2\) must be int, not bool"):
        gradtrack.topk(gradtrack.ones(3), True)
    with pytest.raises(TypeError, match="dtype must be a type, str, or dtype object"):
        x.type(1)
    with pytest.raises(ValueError, match="invalid type: 'float'"):
        x.type(float)
    assert x.type("gradtrack.DoubleTensor").dtype == gradtrack.float64
