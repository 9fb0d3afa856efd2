"""Every docstring example of the installed gradtrack package runs (doctest).

Each module of the package (found with ``pkgutil.walk_packages``, so a new module is
covered without a list to update) is imported and its examples run with
``doctest.ELLIPSIS``; any failed example fails that module's test. A docstring whose
example is wrong gets its example fixed, not the library.
"""

import doctest
import importlib
import pkgutil

import pytest

import gradtrack


def _module_names():
    errors = []
    names = ["gradtrack"] + [m.name for m in pkgutil.walk_packages(
        gradtrack.__path__, "gradtrack.", onerror=errors.append)]
    return sorted(names), errors


MODULES, WALK_ERRORS = _module_names()

# These modules document their API with examples: finding none there means the
# examples were lost (or doctest stopped seeing them), not that there is nothing to run.
WITH_EXAMPLES = {
    "gradtrack.nn", "gradtrack.nn.parameter", "gradtrack.nn.functional", "gradtrack.nn.init",
    "gradtrack.nn.modules.module", "gradtrack.nn.modules.linear",
    "gradtrack.nn.modules.activation", "gradtrack.nn.modules.container",
    "gradtrack.nn.modules.flatten", "gradtrack.nn.modules.loss", "gradtrack.optim",
    "gradtrack.optim.optimizer", "gradtrack.optim.sgd", "gradtrack.serialization",
    # training toolkit
    "gradtrack.optim.lr_scheduler", "gradtrack.nn.utils.clip_grad", "gradtrack.utils.data",
    "gradtrack.utils.data.dataloader", "gradtrack.utils.data.dataset",
    "gradtrack.utils.data.sampler", "gradtrack.utils.data._collate",
}


def test_every_package_of_gradtrack_imports():
    assert WALK_ERRORS == []
    assert WITH_EXAMPLES <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    report = []
    # The top-level module's examples run in a namespace of their own, as a user's
    # would: its globals shadow builtins (gradtrack.float, gradtrack.bool are dtypes).
    globs = {"__name__": name} if name == "gradtrack" else None
    for test in finder.find(module, name, globs=globs):
        runner.run(test, out=report.append)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, "".join(report)
    if name in WITH_EXAMPLES:
        assert result.attempted > 0, f"{name} has no docstring examples"
