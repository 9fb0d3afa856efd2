"""Tensor.untyped_storage() (address, size, sharing, against torch 2.13) and the
complex dtype names gradtrack has without complex tensors (complex64 & co.)."""

import pickle

import pytest

import gradtrack

from helpers import same


def test_untyped_storage_answers_as_torch():
    def scenario(lib):
        base = lib.arange(6.0)
        view = base[2:].view(2, 2)
        s, sv = base.untyped_storage(), view.untyped_storage()
        return (type(s).__name__, s.nbytes(), s.size(), len(s), s.element_size(), str(s.device),
                sv.data_ptr() == s.data_ptr(), sv.nbytes(), s.data_ptr() == base.data_ptr(),
                view.data_ptr() - sv.data_ptr(), s.is_shared(),
                lib.ones(3, dtype=lib.float64).untyped_storage().nbytes(),
                lib.ones(0).untyped_storage().nbytes())

    same(scenario)


def test_untyped_storage_follows_sharing_and_growth():
    x = gradtrack.zeros(4)
    s = x.untyped_storage()
    assert not s.is_shared()
    x.share_memory_()
    assert s.is_shared() and s.data_ptr() == x.data_ptr()
    y = gradtrack.zeros(2)
    y.resize_(1000)
    assert y.untyped_storage().nbytes() == 4000


def test_untyped_storage_keeps_the_memory_alive():
    s = gradtrack.arange(3.0)[1:].untyped_storage()  # the tensors are gone
    assert s.nbytes() == 12 and s.data_ptr() != 0


def test_complex_dtype_names_as_torch():
    same(lambda lib: [(repr(d), d.is_complex, d.is_floating_point, d.itemsize)
                      for d in (lib.complex32, lib.complex64, lib.complex128)]
         + [lib.cfloat is lib.complex64, lib.cdouble is lib.complex128,
            lib.chalf is lib.complex32])


def test_complex_dtypes_pickle_by_name():
    for d in (gradtrack.complex32, gradtrack.complex64, gradtrack.complex128):
        assert pickle.loads(pickle.dumps(d)) is d


@pytest.mark.parametrize("make", [
    lambda: gradtrack.zeros(2, dtype=gradtrack.complex64),
    lambda: gradtrack.tensor([1.0], dtype=gradtrack.cdouble),
    lambda: gradtrack.ones(2).to(gradtrack.complex64),
    lambda: gradtrack.ones(2).to(dtype=gradtrack.chalf),
], ids=["zeros", "tensor", "to_positional", "to_keyword"])
def test_no_tensor_takes_a_complex_dtype(make):
    with pytest.raises(TypeError, match="tensors are not supported \\(gradtrack computes in real "
                                        "dtypes only\\)"):
        make()


FLOAT_OF_A_TENSOR_REQUIRING_GRAD = """
import sys
lib = __import__(sys.argv[1])
t = lib.tensor(1.5, requires_grad=True)
t.item(), int(t), bool(t), float(t.detach())
lib.histc(t.expand(3) * 1, bins=3)  # gradtrack's own Python converts here, silently
print("before float")
float(t), float(t * 2), complex(t)
print("after")
"""


def test_float_of_a_tensor_requiring_grad_warns_once_as_torch(torch, tmp_path):
    # torch 2.13 warns once per process, for float() and complex() only, and only for the
    # program's own conversions (histc converts inside, in C++ in torch, in Python here).
    import subprocess
    import sys

    script = tmp_path / "program.py"
    script.write_text(FLOAT_OF_A_TENSOR_REQUIRING_GRAD)
    runs = {lib: subprocess.run([sys.executable, str(script), lib], capture_output=True,
                                text=True, timeout=120) for lib in ("torch", "gradtrack")}
    for run in runs.values():
        assert run.returncode == 0, run.stderr[-2000:]
        assert run.stdout == "before float\nafter\n"
    warned = [[line for line in run.stderr.splitlines() if "UserWarning" in line]
              for run in runs.values()]
    assert warned[0] == warned[1] and len(warned[1]) == 1
    assert "Converting a tensor with requires_grad=True to a scalar" in warned[1][0]
