"""The documentation: its guides' examples run, and the site builds with --strict.

The guides under docs/ are written as doctests, so every example there is checked
against the library (messages word for word, versions, gradients); the site build
fails on any broken link, missing page or docstring the API reference cannot render.
"""

import doctest
import os
import pathlib
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[1]
GUIDES = sorted(p.name for p in (REPO / "docs").glob("*.md"))
EXAMPLE_GUIDES = {"getting-started.md", "inplace-rules.md", "broken-backward.md",
                  "custom-ops.md", "silent-writes.md"}


@pytest.mark.parametrize("name", GUIDES)
def test_guide_examples_run(name):
    result = doctest.testfile(str(REPO / "docs" / name), module_relative=False,
                              optionflags=doctest.ELLIPSIS, verbose=False, report=True)
    assert result.failed == 0
    if name in EXAMPLE_GUIDES:
        assert result.attempted > 5


def test_mkdocs_build_strict(tmp_path):
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q",
                           "-d", str(tmp_path / "site")], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    coverage = (tmp_path / "site" / "coverage" / "index.html").read_text()
    assert "gradtrack has" in coverage and "torch.nn.functional" in coverage
    api = (tmp_path / "site" / "api" / "functional" / "index.html").read_text()
    assert "cross_entropy" in api
