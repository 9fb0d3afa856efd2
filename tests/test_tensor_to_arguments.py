"""``Tensor.to``'s three argument forms as torch 2.13 parses them (NOTE [Tensor.to's
forms] in _tensor.py): what each call returns (dtype, values, whether it is ``self``) or
the error it raises, word for word."""

import pytest

import gradtrack

from helpers import raised, torch_to_gradtrack

CALLS = {
    "dtype": lambda lib, x: x.to(lib.float64),
    "same_dtype": lambda lib, x: x.to(lib.float32),
    "python_float_type": lambda lib, x: x.to(float),
    "python_int_type": lambda lib, x: x.to(int),
    "python_bool_type": lambda lib, x: x.to(bool),
    "dtype_non_blocking": lambda lib, x: x.to(lib.float32, True),
    "dtype_copy": lambda lib, x: x.to(lib.float32, False, True),
    "device_dtype_flags": lambda lib, x: x.to("cpu", lib.float64, True),
    "none_none_copy": lambda lib, x: x.to(None, None, False, True),
    "other_tensor": lambda lib, x: x.to(lib.zeros(1, dtype=lib.int32)),
    "number_as_tensor": lambda lib, x: x.to(2.5),
    "bool_as_tensor": lambda lib, x: x.to(True),
    "tensor_keyword": lambda lib, x: x.to(tensor=1.5),
    "keywords": lambda lib, x: x.to(device="cpu", dtype=lib.float16, copy=True),
    "memory_format": lambda lib, x: x.to(lib.int64, memory_format=lib.contiguous_format),
    "nothing": lambda lib, x: x.to(),
    "device_object": lambda lib, x: x.to(lib.device("cpu")),
    # refused
    "dtype_then_device": lambda lib, x: x.to(lib.float32, "cpu"),
    "two_devices": lambda lib, x: x.to("cpu", "cpu"),
    "two_dtypes": lambda lib, x: x.to(lib.float64, lib.float32),
    "tensor_then_dtype": lambda lib, x: x.to(x, lib.float64),
    "tensor_dtype_flag": lambda lib, x: x.to(x, lib.float64, True),
    "int_flag": lambda lib, x: x.to(lib.float64, 1),
    "string_dtype": lambda lib, x: x.to(dtype="float32"),
    "unknown_keyword": lambda lib, x: x.to(lib.float64, foo=1),
    "unknown_keywords": lambda lib, x: x.to(lib.float32, "cpu", foo=1, bar=2),
    "keywords_only": lambda lib, x: x.to(dtype="a", foo=1),
    "int_keyword_flag": lambda lib, x: x.to(non_blocking=1),
    "layout": lambda lib, x: x.to(lib.strided),
    "too_many": lambda lib, x: x.to(lib.float32, "cpu", True, True, True),
    "device_index": lambda lib, x: x.to(3),
}


def _outcome(lib, call):
    x = lib.arange(4, dtype=lib.float32).reshape(2, 2)
    try:
        y = call(lib, x)
    except Exception as e:  # noqa: BLE001 - the error is the observable result
        return type(e).__name__, torch_to_gradtrack(str(e))
    return str(y.dtype).split(".")[-1], y.tolist(), y is x, y.is_contiguous()


@pytest.mark.parametrize("name", CALLS)
def test_to_parses_its_arguments_as_torch(torch, name):
    assert _outcome(gradtrack, CALLS[name]) == _outcome(torch, CALLS[name])


def test_complex_dtypes_keep_their_own_error():
    assert raised(lambda: gradtrack.ones(2).to(gradtrack.complex64), gradtrack)[0] == "TypeError"
