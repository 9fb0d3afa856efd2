"""Tensor.view(dtype): the same bytes read as another dtype, as PyTorch 2.13 does it.

It is detach() with a new dtype: no history, requires_grad False, not a view for
autograd, the storage and the version counter shared. A different element size
rescales the last dim, the other strides and the offset, with torch's checks."""

import numpy as np
import pytest

import gradtrack

from helpers import error_of, torch_to_gradtrack

CASES = [  # (make the source, target dtype name)
    (lambda L: L.arange(6.0).reshape(2, 3), "int32"),
    (lambda L: L.arange(6.0).reshape(2, 3), "float16"),
    (lambda L: L.arange(6.0).reshape(2, 3), "bfloat16"),
    (lambda L: L.arange(6.0).reshape(2, 3), "uint8"),
    (lambda L: L.arange(6.0).reshape(2, 3), "int8"),
    (lambda L: L.ones(2, 4), "float64"),
    (lambda L: L.ones(2, 4), "int64"),
    (lambda L: L.arange(6.0)[2:], "float64"),
    (lambda L: L.arange(6.0)[1:], "int16"),
    (lambda L: L.ones(4, 6)[::2], "float16"),
    (lambda L: L.tensor(1.0), "int32"),
    (lambda L: L.tensor([1, 0, 1, 1], dtype=L.uint8), "bool"),
    (lambda L: L.tensor([True, False, True, False]), "float32"),
    (lambda L: L.tensor([4607182418800017408]), "float64"),
    (lambda L: L.arange(8, dtype=L.int16), "float64"),
    (lambda L: L.ones(1, 1).expand(3, 4), "int32"),
    (lambda L: L.ones(0, 4), "float64"),
    (lambda L: L.tensor([-1.5, 2.25], dtype=L.float64), "int32"),
]

ERRORS = [
    (lambda L: L.arange(6.0).reshape(2, 3), "float64"),  # size(-1) not divisible
    (lambda L: L.arange(6.0).reshape(2, 3).t(), "float16"),  # stride(-1) != 1
    (lambda L: L.tensor(1.0), "float16"),  # 0-dim, different sizes
    (lambda L: L.ones(5)[1:], "float64"),  # offset not divisible
    (lambda L: L.ones(4, 5)[:, :4], "float64"),  # stride(0) not divisible
    (lambda L: L.ones(1, 1).expand(3, 4), "float16"),  # expanded last dim
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_view_dtype_matches_torch(torch, case):
    make, name = CASES[case]
    src, tsrc = make(gradtrack), make(torch)
    v, tv = src.view(getattr(gradtrack, name)), tsrc.view(getattr(torch, name))
    assert repr(v.dtype) == f"gradtrack.{name}"
    assert v.shape == tuple(tv.shape) and v.stride() == tv.stride()
    assert v.storage_offset() == tv.storage_offset()
    assert v.data_ptr() == src.data_ptr() + (v.storage_offset() * v.element_size()
                                             - src.storage_offset() * src.element_size())
    assert np.array_equal(v.float().numpy(), tv.float().numpy(), equal_nan=True)
    assert repr(v) == torch_to_gradtrack(repr(tv))


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_view_dtype_refusals_match_torch(torch, case):
    make, name = ERRORS[case]
    ours = error_of(lambda: make(gradtrack).view(getattr(gradtrack, name)))
    theirs = error_of(lambda: make(torch).view(getattr(torch, name)))
    assert ours == theirs


def test_view_dtype_is_a_detached_alias_sharing_the_version_counter(torch):
    for L in (gradtrack, torch):
        a = L.ones(2, requires_grad=True)
        v = a.view(L.int32)
        assert (v.requires_grad, v.is_leaf, v.grad_fn, v._is_view(), v._base) == \
            (False, True, None, False, None)
        same = a.view(L.float32)  # even to its own dtype
        assert (same.requires_grad, same.grad_fn, same._is_view()) == (False, None, False)
        v.add_(1)  # a write through the alias bumps the shared counter
        assert (a._version, v._version, same._version) == (1, 1, 1)
        assert a.detach()[0].item() == np.float32(np.int32(1065353217).view(np.float32))


def test_write_through_view_dtype_breaks_a_saved_tensor_as_in_torch(torch):
    messages = []
    for L in (gradtrack, torch):
        c = L.ones(2, requires_grad=True) * 1
        d = c * c
        c.view(L.int32).add_(1)
        messages.append(error_of(lambda: d.sum().backward()))
    assert messages[0][0] == messages[1][0] == "RuntimeError"
    assert messages[0][1] == torch_to_gradtrack(messages[1][1])


def test_view_dtype_by_keyword_and_python_type(torch):
    for L in (gradtrack, torch):
        b = L.arange(4.0)
        assert b.view(dtype=L.int32).dtype == L.int32
        assert tuple(b.view(size=(2, 2)).shape) == (2, 2)
        assert b.view(float).dtype == L.float64 and b.view(float).shape == (2,)
    for bad in (None, "float"):
        assert error_of(lambda: gradtrack.ones(2).view(bad))[0] == "TypeError"
        assert error_of(lambda: torch.ones(2).view(bad))[0] == "TypeError"
