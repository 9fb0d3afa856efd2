"""tools/coverage.py counts torch's own names only: what a torch module merely imported
(functools, typing, math, weakref, __future__, torch.Tensor for annotations) is left out,
and every function and class torch defines or lists in ``__all__`` is still counted."""

import importlib.util
import inspect
import pathlib

import pytest
import torch

# torch.distributed's deprecated aliases warn when the checks below touch them
pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning")

_PATH = pathlib.Path(__file__).resolve().parents[1] / "tools" / "coverage.py"
_SPEC = importlib.util.spec_from_file_location("coverage_tool", _PATH)
coverage_tool = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(coverage_tool)

IMPORTED = {
    "torch.optim.lr_scheduler": {"TYPE_CHECKING", "Tensor", "annotations", "inf", "partial",
                                 "ref", "wraps", "bisect_right"},
    "torch.special": {"Tensor"},
    "torch.nn.init": {"Tensor"},
    "torch.nn.functional": {"TYPE_CHECKING", "Tensor"},
    "torch": {"TYPE_CHECKING"},
}


def _names(dotted):
    return coverage_tool._public_names(coverage_tool._resolve(dotted), False)


@pytest.mark.parametrize("dotted", sorted(IMPORTED))
def test_imported_names_are_left_out(dotted):
    module = coverage_tool._resolve(dotted)
    assert IMPORTED[dotted] <= set(dir(module))  # the names are really there in torch
    assert not IMPORTED[dotted] & set(_names(dotted))


@pytest.mark.parametrize("dotted", [name for name, _, _ in coverage_tool.MODULES
                                    if name != "torch.Tensor"])
def test_every_torch_function_and_class_is_counted(dotted):
    module = coverage_tool._resolve(dotted)
    names = set(_names(dotted))
    for name in getattr(module, "__all__", ()):
        if not name.startswith("_") and not inspect.ismodule(getattr(module, name, None)):
            assert name in names, name
    for name, value in vars(module).items():
        defined_here = (inspect.isfunction(value) or inspect.isclass(value)) and \
            getattr(value, "__module__", "") == module.__name__
        if defined_here and not name.startswith("_"):
            assert name in names, name


def test_torch_constants_listed_in_all_are_counted():
    names = set(_names("torch"))
    assert {"inf", "nan", "pi", "e", "newaxis", "float32", "strided"} <= names
    assert "Tensor" in names


def test_lr_scheduler_row_counts_the_schedulers():
    rows = {name: have + lack for name, have, lack in coverage_tool.coverage()}
    counted = set(rows["torch.optim.lr_scheduler"])
    schedulers = {name for name, value in vars(torch.optim.lr_scheduler).items()
                  if inspect.isclass(value) and issubclass(value, torch.optim.lr_scheduler.LRScheduler)
                  and not name.startswith("_")}
    assert schedulers and schedulers <= counted
    assert not IMPORTED["torch.optim.lr_scheduler"] & counted
