"""Shared fixtures: torch as the oracle (skips only when torch is missing), and ``lib``.

Shared plain helpers are in ``tests/helpers.py``.
"""

import pytest

import gradtrack


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


@pytest.fixture(params=["gradtrack", "torch"])
def lib(request):
    """Each test runs once with gradtrack and once with torch (skipped without torch)."""
    if request.param == "torch":
        return pytest.importorskip("torch")
    return gradtrack
