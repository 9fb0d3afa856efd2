"""Shared fixtures: torch as the oracle (skips only when torch is missing)."""

import pytest


@pytest.fixture
def torch():
    return pytest.importorskip("torch")
