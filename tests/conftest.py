"""Shared fixtures: torch as the oracle (skips only when torch is missing), ``lib`` and
``threads``.

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


@pytest.fixture(params=[1, 2], ids=["1thread", "2threads"])
def threads(request):
    """Each test on one thread and on two (the kernels split work differently)."""
    old = gradtrack.get_num_threads()
    gradtrack.set_num_threads(request.param)
    yield request.param
    gradtrack.set_num_threads(old)
