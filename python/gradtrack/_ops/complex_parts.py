"""torch's functions on the parts of complex numbers, as they act on real tensors
(gradtrack's only kind): the conjugate and the real part are the tensor itself, the
imaginary part does not exist, and no tensor carries a lazy conjugate or negation.

A program written for complex and real inputs alike (``x.conj()``, ``x.real``,
``torch.resolve_conj(x)``) runs with real ones, as it does under torch.

>>> import gradtrack
>>> x = gradtrack.tensor([1.0, -2.0])
>>> x.conj() is x, x.real is x, x.is_conj()
(True, True, False)
"""

from .. import _C
from . import methods


def conj(input):  # noqa: A002 - torch's argument name
    """The complex conjugate: ``input`` itself for a real tensor.

    >>> import gradtrack
    >>> x = gradtrack.tensor([1.0, -2.0])
    >>> gradtrack.conj(x) is x
    True
    """
    return input


def conj_physical(input):  # noqa: A002
    """The complex conjugate, computed: ``input`` itself for a real tensor.

    >>> import gradtrack
    >>> x = gradtrack.tensor([1.0, -2.0])
    >>> gradtrack.conj_physical(x) is x
    True
    """
    return input


def resolve_conj(input):  # noqa: A002
    """``input`` with a lazy conjugation applied: itself, as no real tensor has one.

    >>> import gradtrack
    >>> x = gradtrack.tensor([1.0, -2.0])
    >>> gradtrack.resolve_conj(x) is x
    True
    """
    return input


def resolve_neg(input):  # noqa: A002
    """``input`` with a lazy negation applied: itself, as no real tensor has one.

    >>> import gradtrack
    >>> x = gradtrack.tensor([1.0, -2.0])
    >>> gradtrack.resolve_neg(x) is x
    True
    """
    return input


def is_conj(input) -> bool:  # noqa: A002
    """Whether ``input`` carries a lazy conjugation: never for a real tensor.

    >>> import gradtrack
    >>> gradtrack.is_conj(gradtrack.ones(2))
    False
    """
    return False


def is_neg(input) -> bool:  # noqa: A002
    """Whether ``input`` carries a lazy negation: never for a real tensor.

    >>> import gradtrack
    >>> gradtrack.is_neg(gradtrack.ones(2))
    False
    """
    return False


def real(input):  # noqa: A002
    """The real part: ``input`` itself for a real tensor.

    >>> import gradtrack
    >>> x = gradtrack.tensor([1.0, -2.0])
    >>> gradtrack.real(x) is x
    True
    """
    return input


_NO_IMAG = "imag is not implemented for tensors with non-complex dtypes."


def imag(input):  # noqa: A002
    """The imaginary part, which a real tensor does not have: raises torch's error.

    >>> import gradtrack
    >>> gradtrack.imag(gradtrack.ones(2))
    Traceback (most recent call last):
    RuntimeError: imag is not implemented for tensors with non-complex dtypes.
    """
    raise RuntimeError(_NO_IMAG)


def isreal(input):  # noqa: A002
    """Where the imaginary part is zero: everywhere, for a real tensor.

    >>> import gradtrack
    >>> gradtrack.isreal(gradtrack.tensor([1.0, float("nan")]))
    tensor([True, True])
    """
    return _C.ones(tuple(input.shape), dtype=_C.bool)


def _set_real(self, value):
    # torch copies into the real part, which is the tensor itself.
    self.copy_(value)


def _set_imag(self, value):
    raise RuntimeError(_NO_IMAG)


_REAL_DOC = """The real part: the tensor itself (setting it copies into the tensor).

>>> import gradtrack
>>> x = gradtrack.ones(2)
>>> x.real = gradtrack.tensor([3.0, 4.0])
>>> x
tensor([3., 4.])
"""
_IMAG_DOC = """The imaginary part, which a real tensor does not have: reading or setting it
raises torch's error.

>>> import gradtrack
>>> gradtrack.ones(2).imag
Traceback (most recent call last):
RuntimeError: imag is not implemented for tensors with non-complex dtypes.
"""

FUNCTIONS = (conj, conj_physical, resolve_conj, resolve_neg, is_conj, is_neg, real, imag, isreal)
METHODS = {**methods(conj, conj_physical, resolve_conj, resolve_neg, is_conj, is_neg, isreal),
           "real": property(real, _set_real, doc=_REAL_DOC),
           "imag": property(imag, _set_imag, doc=_IMAG_DOC)}
