"""Docstrings of torch's older conventions: ``device``, the default device and the legacy
tensor types, ``FloatTensor`` & co. (``_legacy.py``).

``FUNCTIONS`` documents ``gradtrack.NAME``.
"""

FUNCTIONS = {
    "device": """
    >>> gradtrack.device("cpu"), gradtrack.device("cuda", 0).index
    (device(type='cpu'), 0)
    """,
    "get_default_device": """
    >>> gradtrack.get_default_device()
    device(type='cpu')
    """,
    "set_default_device": """
    >>> gradtrack.set_default_device("cpu")
    >>> gradtrack.get_default_device()
    device(type='cpu')
    """,
    "BoolTensor": """
    >>> x = gradtrack.BoolTensor([1, 0])
    >>> x.dtype, isinstance(gradtrack.ones(1, dtype=gradtrack.bool), gradtrack.BoolTensor)
    (gradtrack.bool, True)
    """,
    "ByteTensor": """
    >>> x = gradtrack.ByteTensor([1, 0])
    >>> x.dtype, isinstance(gradtrack.ones(1, dtype=gradtrack.uint8), gradtrack.ByteTensor)
    (gradtrack.uint8, True)
    """,
    "IntTensor": """
    >>> x = gradtrack.IntTensor([1, 0])
    >>> x.dtype, isinstance(gradtrack.ones(1, dtype=gradtrack.int32), gradtrack.IntTensor)
    (gradtrack.int32, True)
    """,
    "LongTensor": """
    >>> x = gradtrack.LongTensor([1, 0])
    >>> x.dtype, isinstance(gradtrack.ones(1, dtype=gradtrack.int64), gradtrack.LongTensor)
    (gradtrack.int64, True)
    """,
    "FloatTensor": """
    >>> x = gradtrack.FloatTensor([1, 0])
    >>> x.dtype, isinstance(gradtrack.ones(1, dtype=gradtrack.float32), gradtrack.FloatTensor)
    (gradtrack.float32, True)
    """,
    "DoubleTensor": """
    >>> x = gradtrack.DoubleTensor([1, 0])
    >>> x.dtype, isinstance(gradtrack.ones(1, dtype=gradtrack.float64), gradtrack.DoubleTensor)
    (gradtrack.float64, True)
    """,
    "BFloat16Tensor": """A legacy constructor: a bfloat16 tensor of the given data or size.

    >>> gradtrack.BFloat16Tensor([1.5, 2.0])
    tensor([1.5000, 2.0000], dtype=gradtrack.bfloat16)
    """,
    "CharTensor": """A legacy constructor: an int8 tensor of the given data or size.

    >>> gradtrack.CharTensor([1, -2])
    tensor([ 1, -2], dtype=gradtrack.int8)
    """,
    "HalfTensor": """A legacy constructor: a float16 tensor of the given data or size.

    >>> gradtrack.HalfTensor([0.5, 2.0])
    tensor([0.5000, 2.0000], dtype=gradtrack.float16)
    """,
    "ShortTensor": """A legacy constructor: an int16 tensor of the given data or size.

    >>> gradtrack.ShortTensor([3, 4])
    tensor([3, 4], dtype=gradtrack.int16)
    """,
}
