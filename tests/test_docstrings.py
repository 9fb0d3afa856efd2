"""Every public name gradtrack exposes has a docstring with an example that runs.

The names are those of the modules the coverage page counts (plus linalg and the
autograd submodules): each module's public names, and the Tensor's methods and
properties including the central underscore ones (``_version``). Constants (dtypes,
``pi``) are documented by their type or not at all. A name without a docstring, or
with one that has no ``>>>`` example, is listed by name in its module's failure; the
examples themselves run as doctests (ELLIPSIS, NORMALIZE_WHITESPACE).
"""

import doctest
import importlib
import inspect
import types

import pytest

import gradtrack

MODULES = ["gradtrack", "gradtrack.Tensor", "gradtrack.nn", "gradtrack.nn.functional",
           "gradtrack.nn.init", "gradtrack.optim", "gradtrack.optim.lr_scheduler",
           "gradtrack.autograd", "gradtrack.autograd.functional",
           "gradtrack.autograd.forward_ad", "gradtrack.autograd.graph", "gradtrack.func",
           "gradtrack.utils.data", "gradtrack.special",
           "gradtrack.distributed", "gradtrack.linalg", "gradtrack.amp", "gradtrack.cuda",
           "gradtrack.cuda.amp", "gradtrack.backends.cuda", "gradtrack.backends.cudnn",
           "gradtrack.jit", "gradtrack.compiler", "gradtrack.multiprocessing"]

# The Tensor's central autograd fields: underscored, but every user meets them.
TENSOR_EXTRA = ["_version", "_base", "__dlpack__"]

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _owner(module_name):
    if module_name == "gradtrack.Tensor":
        return gradtrack.Tensor
    return importlib.import_module(module_name)


def _documented_kind(raw):
    """True for what carries its own docstring: functions, classes, properties."""
    if isinstance(raw, (types.ModuleType, gradtrack.dtype)):
        return False
    if isinstance(raw, (property, staticmethod, classmethod, type)):
        return True
    return callable(raw)


def public_names(module_name):
    """(name, object) of every public name of the module (or of Tensor)."""
    owner = _owner(module_name)
    names = [n for n in dir(owner) if not n.startswith("_")]
    if owner is gradtrack.Tensor:
        names += TENSOR_EXTRA
    found = []
    for name in sorted(set(names)):
        raw = inspect.getattr_static(owner, name) if isinstance(owner, type) \
            else getattr(owner, name)
        module = getattr(raw, "__module__", None) or ""
        if not isinstance(owner, type) and module and not module.startswith("gradtrack"):
            continue  # typing names, or a helper imported from the standard library
        if isinstance(owner, type) and name in dir(object):
            continue
        if _documented_kind(raw):
            found.append((name, getattr(owner, name) if isinstance(owner, type) else raw))
    return found


def _doc(obj):
    doc = getattr(obj, "__doc__", None)
    return doc if isinstance(doc, str) else ""


@pytest.mark.parametrize("module_name", MODULES)
def test_every_public_name_has_an_example(module_name):
    names = public_names(module_name)
    assert len(names) > 3
    no_doc = [n for n, obj in names if not _doc(obj).strip()]
    no_example = [n for n, obj in names if _doc(obj).strip() and ">>>" not in _doc(obj)]
    message = []
    if no_doc:
        message.append(f"{module_name}: no docstring ({len(no_doc)}): {', '.join(no_doc)}")
    if no_example:
        message.append(f"{module_name}: a docstring without a >>> example "
                       f"({len(no_example)}): {', '.join(no_example)}")
    assert not message, "\n".join(message)


def _globs(obj):
    """The namespace an example runs in: its function's module, else empty (also
    for the top-level module, whose globals shadow builtins: gradtrack.float and
    gradtrack.bool are dtypes)."""
    module = inspect.getmodule(obj)
    return dict(vars(module)) if module not in (None, gradtrack) else {}


@pytest.mark.parametrize("module_name", MODULES)
def test_docstring_examples_run(module_name):
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    report = []
    seen = set()
    for name, obj in public_names(module_name):
        doc = _doc(obj)
        if ">>>" not in doc or doc in seen:
            continue
        seen.add(doc)
        gradtrack.manual_seed(0)
        test = parser.get_doctest(doc, _globs(obj), f"{module_name}.{name}", None, 0)
        runner.run(test, out=report.append, clear_globs=True)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, "".join(report)


def test_attached_docstrings_keep_pybind_signatures_first():
    # The signature lines stay first: help() and tests/test_signatures.py read them.
    # (gradtrack.exp itself is now the Python out= wrapper of _out_more.py)
    assert gradtrack.Tensor.exp.__doc__.startswith("exp(self: Tensor) -> Tensor\n\n")
    overloaded = gradtrack._C.pow.__doc__  # the module function has two overloads
    assert "Overloaded function." in overloaded and ">>>" in gradtrack.pow.__doc__


def test_set_doc_replaces_its_text_and_refuses_other_objects():
    set_doc = gradtrack._C._docs.set_doc
    fn = gradtrack.Tensor.exp2
    before = fn.__doc__
    signature, _, text = before.partition("\n\n")
    try:
        set_doc(fn, "first")
        set_doc(fn, "second")
        assert fn.__doc__ == signature + "\n\nsecond"
        assert gradtrack.tensor([1.0]).exp2.__doc__ == fn.__doc__  # the bound method too
    finally:
        set_doc(fn, text)
    assert fn.__doc__ == before
    with pytest.raises(TypeError, match="builtin function"):
        set_doc(len, "no")  # CPython's own: its docstring is not gradtrack's to free
    with pytest.raises(TypeError, match="builtin function"):
        set_doc(gradtrack.nn.functional.relu, "no")


def test_api_reference_lists_the_cxx_bound_names():
    # docs/api/{gradtrack,tensor}.md get this section at build time (tools/api_cxx.py).
    import importlib.util
    import pathlib
    path = pathlib.Path(__file__).resolve().parents[1] / "tools" / "api_cxx.py"
    spec = importlib.util.spec_from_file_location("api_cxx_under_test", path)
    api_cxx = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(api_cxx)
    tensor_page = api_cxx.cxx_markdown("Tensor")
    assert "### `Tensor._version`" in tensor_page and "### `Tensor.grad_fn`" in tensor_page
    section = tensor_page.split("### `Tensor.exp`")[1].split("### ")[0]
    assert section.startswith("\n\n```text\nexp(self: Tensor) -> Tensor\n```\n\ne raised to each element.")
    assert ">>> gradtrack.tensor([0.0, 1.0, 2.0]).exp()\ntensor([1.0000, 2.7183, 7.3891])" in section
    assert "### `gradtrack.cat`" in api_cxx.cxx_markdown("gradtrack")
