"""Tensor.resize_ and resize_as_ against torch 2.13: shapes, strides, storage offsets,
versions, kept bytes, storage growth seen by every tensor on the storage, memory
formats and the refusals."""

import numpy as np
import pytest

import gradtrack

from helpers import same


def _geometry(t):
    return tuple(t.shape), t.stride(), t.storage_offset(), t._version


SCENARIOS = {
    "grow_shrink_grow": lambda lib: (lambda x: [_geometry(x.resize_(2, 3)), x.tolist(),
                                                _geometry(x.resize_(2, 2)), x.tolist(),
                                                _geometry(x.resize_(4, 4)), x[0].tolist()])(
        lib.arange(6.0)),
    "same_size_no_bump": lambda lib: (lambda x: [_geometry(x.resize_(2, 3)),
                                                 _geometry(x.resize_((2, 3))),
                                                 _geometry(x.resize_(lib.Size([3, 2])))])(
        lib.ones(2, 3)),
    "same_size_channels_last": lambda lib: _geometry(
        lib.ones(2, 3, 4, 5).resize_(2, 3, 4, 5, memory_format=lib.channels_last)),
    "channels_last_3d": lambda lib: _geometry(
        lib.ones(4).resize_(1, 2, 2, 2, 3, memory_format=lib.channels_last_3d)),
    "contiguous_format": lambda lib: _geometry(
        lib.ones(2, 3).resize_(3, 2, memory_format=lib.contiguous_format)),
    "list_and_zero_sizes": lambda lib: [_geometry(lib.ones(2).resize_([3])),
                                        _geometry(lib.ones(2).resize_(0)),
                                        _geometry(lib.ones(2).resize_(3, 0))],
    "view_keeps_offset": lambda lib: _geometry(lib.ones(2, 3)[:, 1].resize_(4)),
    "view_grows_the_base_storage": lambda lib: (lambda w: (lambda v: [
        _geometry(v.resize_(5)), w._version, tuple(w.shape), w.tolist(), v[:3].tolist()])(
        w[1:3]))(lib.arange(4.0)),
    "other_views_see_the_growth": lambda lib: (lambda b: (lambda vv: [
        _geometry(b.resize_(10)), vv.tolist(), b[:6].tolist()])(b.view(2, 3)))(
        lib.arange(6.0)),
    "resize_as_": lambda lib: [_geometry(lib.ones(2).resize_as_(lib.ones(3, 2))),
                               _geometry(lib.resize_as_(lib.ones(2), lib.ones(1, 4)))],
    "detached_alias": lambda lib: (lambda y: [_geometry(y.detach().resize_(5)),
                                              _geometry(y.data.resize_(5)), tuple(y.shape)])(
        lib.ones(3, requires_grad=True) * 1),
    # refusals
    "requires_grad_leaf": lambda lib: lib.ones(3, requires_grad=True).resize_(2),
    "requires_grad_nonleaf": lambda lib: (lib.ones(3, requires_grad=True) * 2).resize_(5),
    "negative": lambda lib: lib.ones(2).resize_(2, -1),
    "no_size": lambda lib: lib.ones(2).resize_(),
    "float_size": lambda lib: lib.ones(2).resize_(2.5),
    "preserve_format": lambda lib: lib.ones(2).resize_(3, memory_format=lib.preserve_format),
    "channels_last_rank": lambda lib: lib.ones(2).resize_(3, memory_format=lib.channels_last),
    "numpy_memory_grows": lambda lib: lib.from_numpy(np.ones(2)).resize_(5),
    "numpy_memory_shrinks": lambda lib: _geometry(lib.from_numpy(np.ones(2)).resize_(1)),
}


@pytest.mark.parametrize("case", sorted(SCENARIOS))
def test_resize_matches_torch(case):
    same(SCENARIOS[case])


def test_requires_grad_refusal_holds_under_no_grad():
    x = gradtrack.ones(3, requires_grad=True)
    with gradtrack.no_grad(), pytest.raises(RuntimeError,
                                            match="cannot resize variables that require grad"):
        x.resize_(2)
    assert tuple(x.shape) == (3,) and x._version == 0


def test_growth_keeps_every_byte_and_a_refusal_changes_nothing():
    x = gradtrack.arange(1000.0)
    x.resize_(10, 1000)
    np.testing.assert_array_equal(x[0].numpy(), np.arange(1000.0))
    bad = gradtrack.from_numpy(np.arange(3.0))
    with pytest.raises(RuntimeError, match="not resizable"):
        bad.resize_(10)
    assert tuple(bad.shape) == (3,) and bad._version == 0 and bad.tolist() == [0.0, 1.0, 2.0]


def test_shared_memory_is_not_resizable():
    # torch 2.13 crashes here (a segfault); gradtrack refuses with torch's storage error.
    t = gradtrack.ones(3)
    t.share_memory_()
    with pytest.raises(RuntimeError, match="Trying to resize storage that is not resizable"):
        t.resize_(100)
    assert t.tolist() == [1.0, 1.0, 1.0]
