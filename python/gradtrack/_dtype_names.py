"""PyTorch's names for dtypes in messages, apart from the Tensor class so that
utils/hooks.py can name dtypes without importing _tensor.py (which imports it)."""

# C++ type and ScalarType names, as in PyTorch's .grad assignment messages.
CPP_NAME = {"bool": "bool", "uint8": "unsigned char", "int32": "int", "int64": "long int",
            "float32": "float", "float64": "double", "int8": "signed char", "int16": "short int",
            "float16": "c10::Half", "bfloat16": "c10::BFloat16"}
SCALAR_NAME = {"bool": "Bool", "uint8": "Byte", "int32": "Int", "int64": "Long",
               "float32": "Float", "float64": "Double", "int8": "Char", "int16": "Short",
               "float16": "Half", "bfloat16": "BFloat16"}
_LEGACY_NAME = {"uint8": "ByteTensor", "int32": "IntTensor", "int64": "LongTensor",
                "float32": "FloatTensor", "float64": "DoubleTensor", "int8": "CharTensor",
                "int16": "ShortTensor", "float16": "HalfTensor", "bfloat16": "BFloat16Tensor"}


_KEYS = {}  # dtype -> key: out= looks up two per call


def dtype_key(dtype):
    """``"float32"`` for ``gradtrack.float32``."""
    key = _KEYS.get(dtype)
    if key is None:
        key = _KEYS[dtype] = repr(dtype).split(".", 1)[1]
    return key


def legacy_type_name(t):
    """``gradtrack.FloatTensor``-style names, as PyTorch prints them.

    >>> import gradtrack
    >>> legacy_type_name(gradtrack.zeros(1))
    'gradtrack.FloatTensor'
    """
    key = dtype_key(t.dtype)
    return "CPUBoolType" if key == "bool" else "gradtrack." + _LEGACY_NAME[key]
