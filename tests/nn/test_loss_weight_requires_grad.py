"""Class weights that require grad: torch's losses have no gradient formula for them and
refuse such a tensor up front; a silent zero gradient would be a wrong gradient."""

import pytest

import gradtrack

CASES = {
    "bce_weight": lambda lib, F, a, t, w, i: F.binary_cross_entropy(a.sigmoid(), t, w),
    "bce_logits_weight": lambda lib, F, a, t, w, i: F.binary_cross_entropy_with_logits(a, t, w),
    "bce_logits_pos_weight":
        lambda lib, F, a, t, w, i: F.binary_cross_entropy_with_logits(a, t, pos_weight=w),
    "nll_weight": lambda lib, F, a, t, w, i: F.nll_loss(a, i, w),
    "nll_weight_none": lambda lib, F, a, t, w, i: F.nll_loss(a, i, w, reduction="none"),
    "nll_weight_spatial": lambda lib, F, a, t, w, i: F.nll_loss(
        a.reshape(1, 3, 4).transpose(1, 2), lib.zeros(1, 3, dtype=lib.int64), w),
    "cross_entropy_weight": lambda lib, F, a, t, w, i: F.cross_entropy(a, i, w),
    "cross_entropy_weight_smoothing":
        lambda lib, F, a, t, w, i: F.cross_entropy(a, i, w, label_smoothing=0.1),
}


def _run(lib, case, no_grad=False):
    lib.manual_seed(0)
    a = lib.randn(3, 4, requires_grad=True)
    t, w = lib.rand(3, 4), lib.rand(4, requires_grad=True)
    i = lib.tensor([1, 0, 3])
    if no_grad:
        with lib.no_grad():
            return CASES[case](lib, lib.nn.functional, a, t, w, i)
    return CASES[case](lib, lib.nn.functional, a, t, w, i)


def _error(lib, case):
    with pytest.raises(Exception) as info:
        _run(lib, case)
    return type(info.value).__name__, str(info.value)


@pytest.mark.parametrize("case", sorted(CASES))
def test_weight_that_requires_grad_is_refused_as_torch_does(torch, case):
    assert _error(gradtrack, case) == _error(torch, case)


@pytest.mark.parametrize("case", sorted(CASES))
def test_no_grad_mode_allows_it_as_torch_does(torch, case):
    got, want = _run(gradtrack, case, no_grad=True), _run(torch, case, no_grad=True)
    assert got.tolist() == pytest.approx(want.tolist(), rel=1e-5)


def test_the_message_names_argument_and_function():
    kind, message = _error(gradtrack, "bce_logits_pos_weight")
    assert kind == "RuntimeError"
    assert message == ("The function 'binary_cross_entropy_with_logits' is not differentiable "
                       "with respect to argument 'pos_weight'. This input cannot have "
                       "requires_grad True.")
