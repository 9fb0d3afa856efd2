"""nn.functional.one_hot against torch 2.13: its argument checks in torch's words, and its
values and dtype (the op table's row, tests/ops/op_db/nn.py, covers the rest).
"""

import pytest

from helpers import same


# ---- errors, in torch's words ----------------------------------------------------------------

ERRORS = {
    "one_hot_float": lambda lib: lib.nn.functional.one_hot(lib.tensor([0.0, 2.0])),
    "one_hot_too_big": lambda lib: lib.nn.functional.one_hot(lib.tensor([0, 3]), 3),
    "one_hot_negative": lambda lib: lib.nn.functional.one_hot(lib.tensor([-1, 2]), 3),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_match_torch(case):
    same(ERRORS[case])


# ---- values, dtypes, named results and grad_fn names -------------------------------------------

SCENARIOS = {
    "one_hot": lambda lib: (lib.nn.functional.one_hot(lib.tensor([0, 2])),
                            lib.nn.functional.one_hot(lib.tensor([[1], [0]]), num_classes=3)),
}


@pytest.mark.parametrize("case", sorted(SCENARIOS))
def test_values_and_grad_fn_match_torch(case):
    same(SCENARIOS[case])
