"""Shared by the serialization tests: the same tensors built in gradtrack and in torch,
and the comparison of a loaded tensor with what was saved."""

import io
import zipfile

import numpy as np

import gradtrack as gt

DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8",
          "uint8", "bool"]


def base_values(dtype, n=24, seed=0):
    """float32 / int64 / bool values for a base tensor of ``dtype``."""
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.integers(0, 2, n).astype(bool)
    if dtype in ("float32", "float64", "float16", "bfloat16"):
        return (rng.standard_normal(n) * 10).astype(np.float32)
    return rng.integers(0, 100, n).astype(np.int64)


def make_base(lib, dtype, seed=0):
    """A 1-D tensor of 24 elements of ``dtype`` in ``lib`` (gradtrack or torch)."""
    return lib.tensor(base_values(dtype, seed=seed)).to(getattr(lib, dtype))


# Each stride kind: a function of a 24-element base giving a tensor that views it.
STRIDE_KINDS = {
    "contiguous": lambda b: b.reshape(2, 3, 4),
    "transposed": lambda b: b.reshape(4, 6).t(),
    "sliced": lambda b: b.reshape(4, 6)[1:3, 1:5],
    "stepped": lambda b: b[1::3],
    "expanded": lambda b: b[:3].reshape(3, 1).expand(3, 4),
    "scalar": lambda b: b[5],
    "empty": lambda b: b.reshape(4, 6)[:, :0],
}


def dtype_name(t):
    return str(t.dtype).split(".")[1]


def values(t):
    """A tensor's values as a NumPy array (bfloat16 widened to float32)."""
    t = t.detach()
    if dtype_name(t) == "bfloat16":
        t = t.float()
    return t.numpy()


def assert_same_tensor(loaded, saved):
    """``loaded`` (either library) has ``saved``'s dtype, shape, strides, offset,
    requires_grad and values."""
    assert dtype_name(loaded) == dtype_name(saved)
    assert tuple(loaded.shape) == tuple(saved.shape)
    assert tuple(loaded.stride()) == tuple(saved.stride())
    assert loaded.storage_offset() == saved.storage_offset()
    assert loaded.requires_grad == saved.requires_grad
    np.testing.assert_array_equal(values(loaded), values(saved))


def saved_bytes(save, obj, **kwargs):
    buffer = io.BytesIO()
    save(obj, buffer, **kwargs)
    return buffer.getvalue()


def storage_id(t):
    """Which storage a tensor of either library lies in."""
    if isinstance(t, gt.Tensor):
        return t.untyped_storage_ptr()
    return t.untyped_storage().data_ptr()


def checkpoint(data_pkl, records=None, folder="archive"):
    """A torch-layout archive holding ``data_pkl`` and ``records`` ({key: bytes})."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_STORED) as archive:
        archive.writestr(f"{folder}/data.pkl", data_pkl)
        archive.writestr(f"{folder}/byteorder", b"little")
        for key, data in (records or {}).items():
            archive.writestr(f"{folder}/data/{key}", data)
        archive.writestr(f"{folder}/version", b"3\n")
    return buffer.getvalue()
