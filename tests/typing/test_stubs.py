"""The type stubs cover the extension: every name of ``gradtrack._C`` (and of its
submodules), every Tensor attribute and every public name of ``gradtrack`` has a stub,
and the installed package carries them (with ``py.typed``).

When a test here fails after adding a binding or a Tensor method, regenerate the
stubs: ``python tools/gen_stubs.py`` (needs ``pip install pybind11-stubgen``).
"""

import ast
import types
from pathlib import Path

import pytest

import gradtrack

PACKAGE = Path(gradtrack.__file__).resolve().parent
HINT = "no stub: run `python tools/gen_stubs.py` (pip install pybind11-stubgen)"
# Attributes every class has, which a stub need not repeat.
IMPLICIT = {"__doc__", "__module__", "__dict__", "__weakref__", "__hash__", "__firstlineno__",
            "__static_attributes__", "_pybind11_conduit_v1_"}  # pybind11-internal


def _stub(relative):
    path = PACKAGE / relative
    assert path.is_file(), f"{path} is not installed"
    return ast.parse(path.read_text())


def _defined(body):
    """The names a stub module or class body binds."""
    names = set()
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


def _submodules():
    C = gradtrack._C
    return [C] + sorted((m for m in vars(C).values() if isinstance(m, types.ModuleType)),
                        key=lambda m: m.__name__)


def test_py_typed_is_installed():
    # PEP 561: without the marker, type checkers ignore an installed package's annotations.
    assert (PACKAGE / "py.typed").is_file()


@pytest.mark.parametrize("module", _submodules(), ids=lambda m: m.__name__)
def test_every_extension_name_has_a_stub(module):
    relative = "_C/" + ("__init__" if module is gradtrack._C else module.__name__.rsplit(".", 1)[1])
    stubbed = _defined(_stub(relative + ".pyi").body)
    names = {n for n in dir(module) if not (n.startswith("__") and n.endswith("__"))}
    missing = sorted(names - stubbed)
    assert not missing, f"{module.__name__}: {missing} {HINT}"


def _tensor_class():
    tree = _stub("_C/__init__.pyi")
    return next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Tensor")


def test_every_tensor_attribute_has_a_stub():
    # Python-attached methods (gradtrack/_tensor.py, _extra_ops*.py, random.py) included.
    stubbed = _defined(_tensor_class().body)
    missing = sorted(set(vars(gradtrack.Tensor)) - IMPLICIT - stubbed)
    assert not missing, f"Tensor: {missing} {HINT}"


def test_tensor_methods_have_signatures():
    # An editor shows these: parameter names and types, and a return type, on every method.
    for node in _tensor_class().body:
        if isinstance(node, ast.FunctionDef):
            assert node.returns is not None, node.name
            params = [a.arg for a in node.args.args]
            assert params[:1] == ["self"], (node.name, params)
            assert all(a.annotation is not None for a in node.args.args[1:]), node.name
    methods = {n.name: n for n in _tensor_class().body if isinstance(n, ast.FunctionDef)}
    # a C++ method, a Python one, an alias of a C++ one: torch's parameter names
    assert [a.arg for a in methods["sum"].args.args] == ["self", "dim", "keepdim"]
    assert [a.arg for a in methods["requires_grad_"].args.args] == ["self", "requires_grad"]
    assert ast.unparse(methods["requires_grad_"].args.defaults[0]) == "True"
    assert ast.unparse(methods["absolute"].returns) == "Tensor"
    assert ast.unparse(methods["__mul__"].returns) == "Tensor"


def test_every_public_name_of_gradtrack_has_a_stub():
    stubbed = _defined(_stub("__init__.pyi").body)
    # serialization and multiprocessing load on first use (gradtrack.save/load, the
    # attribute), detect_silent_writes and as_torch only as pytest plugins or -m: whether
    # they are attributes yet depends on what ran before, so they are not names the stub
    # must list.
    names = {n for n in vars(gradtrack) if not n.startswith("_")} - {
        "serialization", "detect_silent_writes", "multiprocessing", "as_torch"}
    names |= {"__version__"}
    missing = sorted(names - stubbed)
    assert not missing, f"gradtrack: {missing} {HINT}"
