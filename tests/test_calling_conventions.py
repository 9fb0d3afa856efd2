"""torch's calling conventions for device-portable and old scripts:
CPU-only device answers and flags, device= errors, the default dtype and device, and
the legacy names (FloatTensor & co., Tensor.type() strings, Tensor.new,
autograd.Variable), each against torch 2.13.
"""

import pytest

import gradtrack

from helpers import same


def test_manual_seed_takes_seed_by_keyword():
    gradtrack.manual_seed(seed=3)
    a = gradtrack.rand(3)
    gradtrack.manual_seed(3)
    assert a.tolist() == gradtrack.rand(3).tolist()


@pytest.mark.parametrize("probe", [
    lambda lib: lib.cuda.is_available(),
    lambda lib: lib.cuda.device_count(),
    lambda lib: lib.backends.mps.is_available(),
    lambda lib: lib.accelerator.is_available(),
], ids=["cuda", "cuda_count", "mps", "accelerator"])
def test_no_accelerator_answers(probe):
    same(probe)


FLAGS = ("is_cpu", "is_cuda", "is_meta", "is_sparse", "is_sparse_csr", "is_quantized",
         "is_nested", "is_mkldnn", "is_xpu", "is_mps", "is_vulkan", "is_ipu", "is_xla",
         "is_mtia", "is_maia")


def test_device_and_kind_flags_match_torch():
    same(lambda lib: [getattr(t, flag) for flag in FLAGS
                      for t in (lib.ones(2), lib.ones(2, requires_grad=True) * 2,
                                lib.nn.Parameter(lib.ones(1)))])


DEVICE_CASES = {
    "zeros_cuda": lambda lib: lib.zeros(2, device="cuda"),
    "ones_cuda0": lambda lib: lib.ones(2, device="cuda:0"),
    "tensor_cuda": lambda lib: lib.tensor([1.0], device="cuda"),
    "device_obj_cuda": lambda lib: lib.zeros(2, device=lib.device("cuda")),
    "full_cuda": lambda lib: lib.full((2,), 1.0, device="cuda"),
    "arange_cuda": lambda lib: lib.arange(3, device="cuda"),
    "eye_cuda": lambda lib: lib.eye(2, device="cuda"),
    "randn_cuda": lambda lib: lib.randn(2, device="cuda"),
    "zeros_like_cuda": lambda lib: lib.zeros_like(lib.ones(2), device="cuda"),
    "to_cuda": lambda lib: lib.zeros(2).to("cuda"),
    "to_kw_cuda": lambda lib: lib.zeros(2).to(device="cuda"),
    "cuda_method": lambda lib: lib.zeros(2).cuda(),
    "cpu_ok": lambda lib: (lib.zeros(2, device="cpu"), lib.ones(1, device=lib.device("cpu")),
                           lib.zeros(1).to("cpu")),
    "device_repr": lambda lib: (repr(lib.device("cuda", 1)), str(lib.device("cuda:0")),
                                lib.device("cpu") == "cpu", lib.device("cpu") == lib.device("cpu:0"),
                                lib.zeros(1).device == lib.device("cpu"), repr(lib.zeros(1).device)),
    "device_bad": lambda lib: lib.device("foo"),
    "portable_pattern": lambda lib: lib.ones(2).to(
        lib.device("cuda" if lib.cuda.is_available() else "cpu")),
}


@pytest.mark.parametrize("case", sorted(DEVICE_CASES))
def test_devices_match_torch(case):
    same(DEVICE_CASES[case])


def test_default_dtype_round_trip():
    torch = pytest.importorskip("torch")
    for lib in (gradtrack, torch):
        assert lib.get_default_dtype() is lib.float32
        lib.set_default_dtype(lib.float64)
        try:
            got = (lib.get_default_dtype() is lib.float64, lib.tensor([1.5]).dtype,
                   lib.zeros(2).dtype, lib.arange(0.0, 1.0).dtype, (lib.tensor([1]) * 0.5).dtype,
                   lib.tensor([1]).sqrt().dtype, lib.rand(2).dtype, lib.ones(1).type(),
                   repr(lib.tensor([1.5], dtype=lib.float32)))
        finally:
            lib.set_default_dtype(lib.float32)
        name = lib.__name__
        assert got[1:] == (lib.float64,) * 6 + (f"{name}.DoubleTensor",
                                                f"tensor([1.5000], dtype={name}.float32)")
        assert lib.tensor([1.5]).dtype is lib.float32


@pytest.mark.parametrize("bad", ["int64", "bool"])
def test_set_default_dtype_refuses_non_float(bad):
    same(lambda lib: lib.set_default_dtype(getattr(lib, bad)))


def test_default_device():
    same(lambda lib: (lib.set_default_device("cpu"), repr(lib.zeros(1).device),
                      lib.set_default_device(None), repr(lib.get_default_device())))


LEGACY = {
    "float_tensor_data": lambda lib: lib.FloatTensor([1, 2]),
    "float_tensor_sizes": lambda lib: lib.FloatTensor(2, 3).shape,
    "long_tensor": lambda lib: lib.LongTensor([1, 2]),
    "int_tensor": lambda lib: lib.IntTensor([[1], [2]]),
    "bool_tensor": lambda lib: lib.BoolTensor([1, 0]),
    "double_tensor_size": lambda lib: lib.DoubleTensor(2).shape,
    "double_tensor_dtype": lambda lib: str(lib.DoubleTensor([1]).dtype),
    "empty": lambda lib: lib.FloatTensor(),
    "isinstance": lambda lib: (isinstance(lib.zeros(2), lib.FloatTensor),
                               isinstance(lib.zeros(2, dtype=lib.float64), lib.FloatTensor),
                               isinstance(lib.zeros(2, dtype=lib.int64), lib.LongTensor)),
    "type_strings": lambda lib: [lib.zeros(1, dtype=getattr(lib, d)).type()
                                 for d in ("float32", "float64", "int64", "int32", "bool",
                                           "uint8")],
    "type_convert": lambda lib: (lib.zeros(2).type(lib.float64),
                                 lib.zeros(2).type(lib.__name__ + ".LongTensor"),
                                 lib.zeros(2).type(lib.IntTensor)),
    "variable": lambda lib: (lambda t: (lambda v: (v, v.is_leaf, v.requires_grad, v is t,
                                                   isinstance(t, lib.autograd.Variable)))(
        lib.autograd.Variable(t, requires_grad=True)))(lib.ones(2)),
    "variable_of_nonleaf": lambda lib: lib.autograd.Variable(lib.ones(2, requires_grad=True) * 2),
    # Tensor.new: sizes (values unspecified: only the shape is compared), data, aliases
    "new_empty": lambda lib: lib.zeros(2, dtype=lib.float64).new(),
    "new_sizes": lambda lib: [(t.shape, str(t.dtype)) for t in (
        lib.zeros(1, dtype=lib.int32).new(2, 3), lib.zeros(1).new(lib.Size([4, 1])),
        lib.zeros(1).new(0), lib.zeros(1).new(lib.Size([])))],
    "new_data": lambda lib: (lib.zeros(1, dtype=lib.float64).new([1, 2]),
                             lib.zeros(1).new((2, 3)), lib.zeros(1, dtype=lib.int32).new([1.5, 2]),
                             lib.zeros(1).new([]), lib.zeros(1).new(()),
                             lib.zeros(1).new([[1, 2]], device="cpu")),
    "new_alias": lambda lib: (lambda t: (lambda r: (r, r is t, r._base is t, r.is_leaf,
                                                    r.data_ptr() == t.data_ptr()))(
        lib.zeros(1).new(t)))(lib.tensor([1.0, 2.0], requires_grad=True)),
    "new_other_dtype": lambda lib: lib.zeros(1, dtype=lib.float64).new(lib.tensor([1, 2])),
    "new_number": lambda lib: lib.zeros(1).new(3.5),
    "new_bool": lambda lib: lib.zeros(1).new(True),
    "new_none": lambda lib: lib.zeros(1).new(None),
    "new_str": lambda lib: lib.zeros(1).new("a"),
    "new_negative": lambda lib: lib.zeros(1).new(-1),
    "new_mixed": lambda lib: lib.zeros(1).new(2.0, 3),
    "new_dtype_keyword": lambda lib: lib.zeros(1).new(2, dtype=lib.int32),
    "new_meta": lambda lib: lib.zeros(1).new(2, device="meta"),
}


@pytest.mark.parametrize("case", sorted(LEGACY))
def test_legacy_names_match_torch(case):
    same(LEGACY[case])


def test_variable_shares_memory():
    t = gradtrack.ones(2)
    v = gradtrack.autograd.Variable(t, requires_grad=True)
    with gradtrack.no_grad():
        v.mul_(3)
    assert t.tolist() == [3.0, 3.0]


# ---- set_default_tensor_type and OutOfMemoryError --------------------------------------------

_TENSOR_TYPE_SCRIPT = """
import sys, warnings
lib = __import__(sys.argv[1])
name = sys.argv[1]
out = []
for t in (lib.DoubleTensor, name + ".FloatTensor", name + ".IntTensor", lib.float64, 5,
          lib.HalfTensor):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            lib.set_default_tensor_type(t)
            out.append(("ok", str(lib.get_default_dtype()), str(lib.ones(1).dtype)))
        except Exception as e:
            out.append((type(e).__name__, str(e)))
    out.append([str(w.message).split(" (Triggered")[0] for w in caught])
out.append([c.__name__ for c in lib.OutOfMemoryError.__mro__[1:]])
out.append(lib.cuda.OutOfMemoryError is lib.OutOfMemoryError)
print(repr(out).replace(name, "LIB"))
"""


def test_set_default_tensor_type_and_out_of_memory_error_match_torch(torch):
    import subprocess
    import sys

    runs = [subprocess.run([sys.executable, "-c", _TENSOR_TYPE_SCRIPT, name],
                           capture_output=True, text=True, timeout=120, check=True).stdout
            for name in ("gradtrack", "torch")]
    # each library names itself in the deprecation message: both read LIB here
    assert runs[0] == runs[1]


@pytest.mark.parametrize("name", ["zeros_like", "ones_like", "empty_like", "rand_like",
                                  "randn_like", "full_like"])
def test_like_factories_name_a_non_tensor_input_as_torch(torch, name):
    def message(lib):
        args = (1.0, 2) if name == "full_like" else (1.0,)
        with pytest.raises(TypeError) as e:
            getattr(lib, name)(*args)
        return str(e.value)
    assert message(gradtrack) == message(torch)
