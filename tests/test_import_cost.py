"""What keeps ``import gradtrack`` cheap (the benchmarks' import_time goal) without
changing what a user sees: NOTE [Lazy signatures] in csrc/python/bind_fast_path.cpp
and NOTE [Loaded on first use] in python/gradtrack/_lazy.py."""

import inspect
import subprocess
import sys

import pytest

import gradtrack
from gradtrack import _C, _docs


def test_import_loads_no_inspect_or_ast():
    code = ("import sys, gradtrack; "
            "print(sorted(m for m in ('inspect', 'ast', 'dis', 'tokenize', 'numpy') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True).stdout
    assert out.strip() == "[]"


# what a fresh `import gradtrack` must not have loaded
LAZY = ("gradtrack.nn", "gradtrack.nn.functional", "gradtrack.nn.parameter", "gradtrack.optim",
        "gradtrack.profiler", "gradtrack.autograd.profiler", "gradtrack.distributed",
        "gradtrack.multiprocessing", "multiprocessing", "uuid", "json", "ctypes")


def _fresh(code):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=True).stdout.strip()


def test_import_loads_no_layers_optimizers_or_profiler():
    out = _fresh(f"import sys, gradtrack; print([m for m in {LAZY!r} if m in sys.modules])")
    assert out == "[]"


@pytest.mark.parametrize("code, expected", [
    # each way torch's users reach a submodule that torch imports up front
    ("gradtrack.nn.Linear(2, 3).weight.shape", "gradtrack.Size([3, 2])"),
    ("__import__('gradtrack.nn').nn.ReLU.__module__", "'gradtrack.nn.modules.activation'"),
    ("[__import__('importlib').import_module('gradtrack.nn.functional').relu.__name__]",
     "['relu']"),
    ("__import__('gradtrack', fromlist=['optim']).optim.SGD.__name__", "'SGD'"),
    ("gradtrack.autograd.profiler.profile.__name__", "'profile'"),
    ("gradtrack.profiler.ProfilerActivity.CPU.name", "'CPU'"),
    ("[n in dir(gradtrack) for n in ('nn', 'optim', 'profiler', 'distributed', "
     "'multiprocessing')] + ['profiler' in dir(gradtrack.autograd)]", "[True] * 6"),
    # a layer function that stands in for nn.functional loads it on its first call
    ("gradtrack.conv1d(gradtrack.ones(1, 1, 3), gradtrack.ones(1, 1, 2)).tolist()",
     "[[[2.0, 2.0]]]"),
    ("gradtrack.kl_div(gradtrack.zeros(2), gradtrack.ones(2)).tolist()", "[0.0, 0.0]"),
])
def test_lazy_submodules_are_there_on_first_use(code, expected):
    assert _fresh(f"import gradtrack; print(({code}) == ({expected}))") == "True"


def test_lazy_module_rebinds_its_name_on_first_use():
    out = _fresh("import gradtrack, sys; from gradtrack._ops import nn_layers as m; "
                 "print(type(m.F).__name__, 'gradtrack.nn' in sys.modules); m.selu; "
                 "m.selu(gradtrack.ones(1)); print(m.F.__name__, 'gradtrack.nn' in sys.modules)")
    assert out.splitlines() == ["LazyModule False", "gradtrack.nn.functional True"]


def test_unknown_attribute_still_raises():
    with pytest.raises(AttributeError, match="module 'gradtrack' has no attribute 'nope'"):
        gradtrack.nope  # noqa: B018
    with pytest.raises(AttributeError, match="module 'gradtrack.autograd' has no attribute 'x'"):
        gradtrack.autograd.x  # noqa: B018


def test_clean_is_cleandoc_on_every_table_text():
    texts = 0
    tables = [table for _, table in _docs.tables()]
    for table in tables + list(_docs.op_list_docs()):
        for text in table.values():
            assert _C._docs.clean(text) == inspect.cleandoc(text)
            texts += 1
    assert texts > 400
    odd = ["\n\n  a\n    b\n\n", "x", "", "\tfirst\n\t\tsecond\n\t third", "a\n   \n  b\n"]
    for text in odd:
        assert _C._docs.clean(text) == inspect.cleandoc(text)


def test_lazy_signature_is_built_once_and_stored():
    fn = gradtrack.exp
    slow = fn._gt_slow
    first = inspect.signature(fn)
    assert "_gt_signature" not in vars(slow)
    assert inspect.signature(fn) is first
    assert str(first) == "(input, *, out=None)"


@pytest.mark.parametrize("name, expected", [
    ("add", "(input, other, *, alpha=1, out=None)"),
    ("cumsum", "(input, dim, *, dtype=None, out=None)"),
    ("where", "(condition, input, other, *, out=None)"),
    ("tensor", "(data, *, dtype=None, requires_grad=False, device=None, pin_memory=False)"),
])
def test_module_function_signatures(name, expected):
    assert str(inspect.signature(getattr(gradtrack, name))) == expected


def test_new_methods_bind_the_fast_path():
    t = gradtrack.ones(2, dtype=gradtrack.float64)
    assert str(inspect.signature(t.new_zeros)) == (
        "(*args, size=None, dtype=None, requires_grad=False, device=None, layout=None, "
        "pin_memory=False)")
    assert str(inspect.signature(gradtrack.Tensor.new_full)).startswith("(self, size, fill_value")
    z = t.new_zeros(3, device="cpu", layout=gradtrack.strided)
    assert z.dtype == gradtrack.float64 and z.tolist() == [0.0, 0.0, 0.0]
    assert t.new_ones((2,)).tolist() == [1.0, 1.0]
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
        t.new_zeros(2, device="cuda")
    with pytest.raises(RuntimeError, match="pin_memory=True requires"):
        t.new_empty(2, pin_memory=True)


def test_methods_copied_from_functions():
    x = gradtrack.tensor([3.0, 1.0, 2.0])
    # cumsum is a copy of the function with `self` for `input`; diff keeps a wrapper
    # (its body reads the parameter from a closure)
    assert inspect.isfunction(gradtrack.Tensor.cumsum)
    assert str(inspect.signature(gradtrack.Tensor.cumsum)) == "(self, dim, *, dtype=None)"
    assert x.cumsum(0).tolist() == [3.0, 4.0, 6.0]
    assert x.cumsum(dim=0).tolist() == [3.0, 4.0, 6.0]
    assert str(inspect.signature(gradtrack.Tensor.diff)).startswith("(self, n=1, dim=-1")
    assert x.diff().tolist() == [-2.0, 1.0]
    assert gradtrack.Tensor.cumsum.__doc__ == gradtrack.cumsum.__doc__
