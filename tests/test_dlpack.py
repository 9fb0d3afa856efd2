"""DLPack exchange with NumPy and torch 2.13: zero copies both ways, torch's rules."""

import numpy as np
import pytest

import gradtrack
from gradtrack.utils import dlpack as gt_dlpack


def test_numpy_imports_gradtrack_tensor_without_copy():
    t = gradtrack.arange(6.0).reshape(2, 3)
    a = np.from_dlpack(t)
    assert a.shape == (2, 3) and a.dtype == np.float32
    a[1, 2] = 50.0
    assert t[1, 2].item() == 50.0
    t.add_(1)
    assert a[0, 0] == 1.0


def test_gradtrack_imports_numpy_without_copy_and_with_a_fresh_version():
    a = np.arange(4.0)
    t = gradtrack.from_dlpack(a)
    assert t.dtype == gradtrack.float64 and t._version == 0
    t.mul_(2)
    assert a.tolist() == [0.0, 2.0, 4.0, 6.0] and t._version == 1


def test_non_contiguous_keeps_strides_both_ways():
    t = gradtrack.arange(12.0).reshape(3, 4).t()
    a = np.from_dlpack(t)
    assert a.strides == (4, 16) and a.tolist() == t.tolist()
    back = gradtrack.from_dlpack(a)
    assert back.stride() == (1, 4) and back.tolist() == t.tolist()
    back[0, 0] = -1.0
    assert t[0, 0].item() == -1.0


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "uint8", "bool"])
def test_every_dtype_round_trips_through_torch(torch, dtype):
    src = gradtrack.tensor([1, 0, 1], dtype=getattr(gradtrack, dtype))
    theirs = torch.from_dlpack(src)
    assert str(theirs.dtype) == f"torch.{dtype}" and theirs.tolist() == src.tolist()
    ours = gradtrack.from_dlpack(theirs)
    assert ours.dtype == src.dtype and ours.tolist() == src.tolist()
    if dtype != "bool":
        theirs.add_(1)
        assert src.tolist() == ours.tolist() == theirs.tolist()  # one memory for all three


def test_versions_are_not_shared_across_the_exchange_as_in_torch(torch):
    t = gradtrack.ones(3)
    theirs = torch.from_dlpack(t)
    t.add_(1)
    assert t._version == 1 and theirs._version == 0
    theirs.add_(1)
    assert t._version == 1 and t.tolist() == [3.0, 3.0, 3.0]
    # torch's own behaviour, for comparison.
    s = torch.ones(3)
    u = torch.from_dlpack(s)
    s.add_(1)
    assert s._version == 1 and u._version == 0


def test_requires_grad_refuses_to_export_with_torchs_error(torch):
    ours = gradtrack.ones(2, requires_grad=True)
    theirs = torch.ones(2, requires_grad=True)
    for tensor in (ours, theirs):
        with pytest.raises(BufferError) as err:
            tensor.__dlpack__()
        assert str(err.value) == "Can't export tensors that require gradient, use tensor.detach()"
    with pytest.raises(BufferError):
        gradtrack.from_dlpack(ours)
    assert gradtrack.from_dlpack(ours.detach()).tolist() == [1.0, 1.0]


def test_stream_on_cpu_is_torchs_assertion(torch):
    for tensor in (gradtrack.ones(1), torch.ones(1)):
        with pytest.raises(AssertionError, match="^stream should be None on cpu.$"):
            tensor.__dlpack__(stream=1)


def test_device_and_capsule_kinds(torch):
    t = gradtrack.ones(2)
    device = t.__dlpack_device__()
    assert device == (1, 0) and device[0].name == "kDLCPU"
    assert device == torch.ones(2).__dlpack_device__()
    assert "dltensor_versioned" in repr(t.__dlpack__(max_version=(1, 0)))
    assert '"dltensor"' in repr(t.__dlpack__())
    capsule = gt_dlpack.to_dlpack(t)
    back = gt_dlpack.from_dlpack(capsule)
    back.add_(1)
    assert t.tolist() == [2.0, 2.0]


def test_copy_true_makes_an_independent_tensor():
    a = np.arange(3.0)
    t = gradtrack.from_dlpack(a, copy=True)
    t.add_(1)
    assert a.tolist() == [0.0, 1.0, 2.0]


def test_read_only_numpy_array_is_shared_silently_like_torch(torch, recwarn):
    a = np.arange(3.0)
    a.flags.writeable = False
    ours = gradtrack.from_dlpack(a)
    theirs = torch.from_dlpack(a)
    assert ours.tolist() == theirs.tolist() == [0.0, 1.0, 2.0]
    assert not [w for w in recwarn if "not writable" in str(w.message)]


def test_objects_without_dlpack_are_a_type_error():
    with pytest.raises(TypeError, match="expects an object with __dlpack__"):
        gradtrack.from_dlpack([1, 2])
