"""The fixture of the hostile-input test files that list cases (hostile_cases.py)."""

import pytest

from hostile_cases import run_gradtrack_cases


@pytest.fixture(scope="module")
def gradtrack_outcomes(request):
    """{name: outcome} of each case of the test file's ``CASES``, all run by gradtrack in
    child processes (``run_gradtrack_cases``)."""
    cases = request.module.CASES
    return run_gradtrack_cases([(name, src) for name, (src, _) in cases.items()])
