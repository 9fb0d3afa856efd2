"""``mypy --strict`` passes on the examples and on typed_usage.py, a typed program using
Tensor methods, nn.Module subclassing, optim, DataLoader and autograd.Function, and on
the generated ``_C`` stubs themselves. The settings are pyproject.toml's [tool.mypy] (the
examples' untyped dependencies ignored). Runs under an editable install and a wheel alike."""

import math
import runpy
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import gradtrack

ROOT = Path(__file__).resolve().parents[2]
TYPED_USAGE = Path(__file__).resolve().parent / "typed_usage.py"


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    # A fresh cache (a stale one could hide an error), shared by this file's runs.
    return str(tmp_path_factory.mktemp("mypy_cache"))


def mypy_strict(cache, *paths):
    return subprocess.run([sys.executable, "-m", "mypy", "--strict", "--cache-dir", cache, *paths],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)


# Every example, char_rnn (LSTM, packed sequences' layer) and tiny_transformer (attention,
# TransformerEncoder) included.
EXAMPLES = sorted(f"examples/{p.name}" for p in (ROOT / "examples").glob("*.py"))


def test_mypy_strict_passes_on_examples_and_typed_usage(cache):
    done = mypy_strict(cache, *EXAMPLES, str(TYPED_USAGE.relative_to(ROOT)))
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "Success: no issues found in" in done.stdout


def test_generated_stubs_pass_mypy_strict_themselves(cache, tmp_path):
    # The stubs gradtrack imports from (installed or in this checkout) are strict-clean:
    # under a wheel install mypy checks them as any installed package's stubs, so a bare
    # `tuple` or an untyped `*args` there would be an error in every user's strict run.
    # Checked as a copy of the package (not in site-packages, whose other modules would
    # shadow the standard library's) and without the checkout's config and mypy_path.
    package = Path(gradtrack.__file__).resolve().parent
    shutil.copytree(package, tmp_path / "gradtrack",
                    ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    stubs = sorted(f"gradtrack/_C/{p.name}" for p in package.glob("_C/*.pyi"))
    assert len(stubs) > 5, stubs
    done = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--config-file", "",
                           "--follow-imports", "silent", "--cache-dir", cache, "--python-version",
                           "3.10", *stubs, "gradtrack/__init__.pyi"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert f"Success: no issues found in {len(stubs) + 1} source files" in done.stdout


def test_mypy_strict_rejects_a_type_error(cache, tmp_path):
    # The check has teeth: the stubs give types, so a wrong use is an error (not Any).
    bad = tmp_path / "bad.py"
    bad.write_text("import gradtrack\n\n"
                   "x = gradtrack.ones(2)\n"
                   "n: str = x.shape[0]\n"
                   "y: int = x.sum()\n"
                   "x.no_such_method()\n")
    done = mypy_strict(cache, str(bad))
    assert done.returncode == 1, done.stdout
    assert 'Incompatible types in assignment (expression has type "int", variable has type "str")' in done.stdout
    assert 'expression has type "Tensor", variable has type "int"' in done.stdout
    assert '"Tensor" has no attribute "no_such_method"' in done.stdout


def test_typed_usage_runs():
    # The typed program is real code: it runs, trains and backpropagates.
    namespace = runpy.run_path(str(TYPED_USAGE))
    assert namespace["custom_function"]().tolist() == [3.0, 12.0]
    assert namespace["train"]() > 0
    # grads [0, 2, 2] + 3 * 4 + 2 * 4 + one hook call + two positive entries
    assert namespace["autograd_api"]() == 27.0
    # 2 full batches of 3 (x rows and y numels) + 2 held out + a 5-sample Subset + 2 batches
    assert namespace["data_pipeline"]() == 21
    assert math.isfinite(namespace["optimizers"]()) and math.isfinite(namespace["sequences"]())
