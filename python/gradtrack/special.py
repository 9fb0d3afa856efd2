"""``torch.special``: the special functions, by torch's names.

Most are gradtrack's own functions under another name (``expit`` is ``sigmoid``,
``gammaln`` is ``lgamma``, ``psi`` is ``digamma``), the same objects, so their
``grad_fn`` names are the ones torch records. torch.special's own elementwise functions
(``i0e``, ``i1``, ``i1e``, ``ndtri``, ``log_ndtr``, ``erfcx``, ``entr``, ``xlog1py``) are
rows of the op list (``_declarations/pointwise.py``, ``special=True``), bound in
``_C._special``; ``ndtr`` is composed as torch composes it.

>>> import gradtrack
>>> gradtrack.special.expit(gradtrack.tensor([0.0]))
tensor([0.5000])
"""

import sys as _sys

from . import _C, _out
from ._declarations import pointwise_ops as _pointwise_ops
from ._registry import INSTALLED as _INSTALLED


def _row_function(op):
    fn = _out.elementwise(getattr(_C._special, op.name), op.name)
    self_arg, rest = op.example[0], ", ".join(op.example[1:])
    doc = (f"{op.doc}\n\n>>> x = {self_arg}\n"
           f">>> gradtrack.special.{op.public_name}(x{', ' + rest if rest else ''})\n"
           f"{op.prints}\n")
    return fn, doc


_DOCS = {}
for _op in _pointwise_ops():
    if _op.special:
        globals()[_op.public_name], _DOCS[_op.public_name] = _row_function(_op)
del _op


def _alias(name):
    return _INSTALLED[name]


# torch.special's names for gradtrack's functions: the same objects.
expit = _alias("sigmoid")
erf = _alias("erf")
erfc = _alias("erfc")
erfinv = _alias("erfinv")
exp2 = _alias("exp2")
expm1 = _alias("expm1")
log1p = _alias("log1p")
round = _alias("round")  # noqa: A001 - torch's name
sinc = _alias("sinc")
softmax = _alias("softmax")
log_softmax = _alias("log_softmax")
logsumexp = _alias("logsumexp")
i0 = _alias("i0")
digamma = _alias("digamma")
psi = digamma
gammaln = _alias("lgamma")
polygamma = _alias("polygamma")
xlogy = _alias("xlogy")
logit = _alias("logit")
multigammaln = _alias("mvlgamma")
gammainc = _alias("igamma")
gammaincc = _alias("igammac")


def _ndtr(input):  # noqa: A002 - torch's argument name
    """The standard normal distribution function, ``(1 + erf(x / sqrt(2))) / 2``, recorded
    as torch composes it (its ``grad_fn`` is ``MulBackward1``).

    >>> import gradtrack
    >>> gradtrack.special.ndtr(gradtrack.tensor([-1.0, 0.0, 1.96]))
    tensor([0.1587, 0.5000, 0.9750])
    """
    return _C._ops.special_ndtr(input)


_ndtr.__name__ = _ndtr.__qualname__ = "ndtr"
ndtr = _out.elementwise(_ndtr, "special_ndtr")

_C._docs.attach(_sys.modules[__name__], _DOCS)

__all__ = sorted([*_DOCS, "expit", "erf", "erfc", "erfinv", "exp2", "expm1", "log1p", "round",
                  "sinc", "softmax", "log_softmax", "logsumexp", "i0", "digamma", "psi",
                  "gammaln", "polygamma", "xlogy", "logit", "multigammaln", "ndtr", "gammainc",
                  "gammaincc"])
