"""The loss functions torch has at the top level with its ATen ops' parameters
(``torch.kl_div``, ``torch.margin_ranking_loss``, ...), calling ``nn.functional``.

NOTE [Top-level losses reduce by an int]
torch's top-level losses take ``reduction`` as ATen's enum, an int: 0 none, 1 mean,
2 sum; any other int gives the unreduced losses, as ATen's reduction does. torch's
argument parser cannot read the C++ default the signatures print
(``at::Reduction::Mean``) and uses 0, so called without ``reduction`` they do not reduce
(measured on torch 2.13: ``torch.kl_div(x, t).shape == x.shape``); these do the same.
A string is refused with torch's TypeError.

>>> import gradtrack
>>> gradtrack.hinge_embedding_loss(gradtrack.tensor([0.5, 2.0]), gradtrack.tensor([1., -1.]))
tensor([0.5000, 0.0000])
"""

import warnings

from .._lazy import LazyModule

# nn.functional, imported when one of these is first called: NOTE [Loaded on first use]
F = LazyModule("gradtrack.nn.functional", __name__, "F")  # noqa: N816 - torch's spelling

_REDUCTIONS = {1: "mean", 2: "sum"}


def _reduction(name, reduction, position):
    if isinstance(reduction, bool) or not isinstance(reduction, int):
        raise TypeError(f"{name}(): argument 'reduction' (position {position}) must be int, "
                        f"not {type(reduction).__name__}")
    return _REDUCTIONS.get(reduction, "none")


def kl_div(input, target, reduction=0, *, log_target=False):  # noqa: A002 - torch's names
    """``nn.functional.kl_div`` with ``reduction`` as an int (NOTE [Top-level losses
    reduce by an int]).

    >>> import gradtrack
    >>> gradtrack.kl_div(gradtrack.tensor([-1.0]), gradtrack.tensor([0.5]), 2)
    tensor(0.1534)
    """
    how = _reduction("kl_div", reduction, 3)
    if how == "mean":
        # nn.functional's warning about "mean" is its own Python's: torch's ATen op is quiet
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            return F.kl_div(input, target, reduction=how, log_target=log_target)
    return F.kl_div(input, target, reduction=how, log_target=log_target)


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None,  # noqa: A002
                                     reduction=0):
    """``nn.functional.binary_cross_entropy_with_logits`` with ``reduction`` as an int
    (NOTE [Top-level losses reduce by an int]).

    >>> import gradtrack
    >>> gradtrack.binary_cross_entropy_with_logits(gradtrack.tensor([0.0]), gradtrack.tensor([1.0]))
    tensor([0.6931])
    """
    return F.binary_cross_entropy_with_logits(
        input, target, weight, reduction=_reduction("binary_cross_entropy_with_logits",
                                                    reduction, 5),
        pos_weight=pos_weight)


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0):
    """``nn.functional.margin_ranking_loss`` with ``reduction`` as an int (NOTE [Top-level
    losses reduce by an int]).

    >>> import gradtrack
    >>> gradtrack.margin_ranking_loss(gradtrack.tensor([1.0]), gradtrack.tensor([2.0]),
    ...                               gradtrack.tensor([1.0]))
    tensor([1.])
    """
    return F.margin_ranking_loss(input1, input2, target, margin,
                                 reduction=_reduction("margin_ranking_loss", reduction, 5))


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
    """``nn.functional.cosine_embedding_loss`` with ``reduction`` as an int (NOTE
    [Top-level losses reduce by an int]).

    >>> import gradtrack
    >>> gradtrack.cosine_embedding_loss(gradtrack.tensor([[1.0, 0.0]]),
    ...                                 gradtrack.tensor([[0.0, 1.0]]), gradtrack.tensor([1.0]))
    tensor([1.])
    """
    return F.cosine_embedding_loss(input1, input2, target, margin,
                                   reduction=_reduction("cosine_embedding_loss", reduction, 5))


def hinge_embedding_loss(input, target, margin=1.0, reduction=0):  # noqa: A002
    """``nn.functional.hinge_embedding_loss`` with ``reduction`` as an int (NOTE
    [Top-level losses reduce by an int]).

    >>> import gradtrack
    >>> gradtrack.hinge_embedding_loss(gradtrack.tensor([0.5, 2.0]), gradtrack.tensor([1., -1.]))
    tensor([0.5000, 0.0000])
    """
    return F.hinge_embedding_loss(input, target, margin,
                                  reduction=_reduction("hinge_embedding_loss", reduction, 4))


def poisson_nll_loss(input, target, log_input, full, eps, reduction):  # noqa: A002
    """``nn.functional.poisson_nll_loss`` with every argument given and ``reduction`` as
    an int (NOTE [Top-level losses reduce by an int]).

    >>> import gradtrack
    >>> gradtrack.poisson_nll_loss(gradtrack.tensor([0.0]), gradtrack.tensor([2.0]),
    ...                            True, False, 1e-8, 1)
    tensor(1.)
    """
    return F.poisson_nll_loss(input, target, log_input, full, eps=eps,
                              reduction=_reduction("poisson_nll_loss", reduction, 6))


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2.0, eps=1e-06, swap=False,
                        reduction=0):
    """``nn.functional.triplet_margin_loss`` with ``reduction`` as an int (NOTE [Top-level
    losses reduce by an int]).

    >>> import gradtrack
    >>> gradtrack.triplet_margin_loss(gradtrack.tensor([[0.0]]), gradtrack.tensor([[1.0]]),
    ...                               gradtrack.tensor([[3.0]]))
    tensor([0.])
    """
    return F.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                 reduction=_reduction("triplet_margin_loss", reduction, 8))


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=0,
             zero_infinity=False):
    """``nn.functional.ctc_loss`` with ``reduction`` as an int (NOTE [Top-level losses
    reduce by an int]).

    >>> import gradtrack
    >>> lp = gradtrack.full((2, 1, 2), 0.5).log()
    >>> gradtrack.ctc_loss(lp, gradtrack.tensor([[1]]), [2], [1])
    tensor([0.2877])
    """
    return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                      reduction=_reduction("ctc_loss", reduction, 6),
                      zero_infinity=zero_infinity)


FUNCTIONS = (kl_div, binary_cross_entropy_with_logits, margin_ranking_loss,
             cosine_embedding_loss, hinge_embedding_loss, poisson_nll_loss, triplet_margin_loss,
             ctc_loss)
