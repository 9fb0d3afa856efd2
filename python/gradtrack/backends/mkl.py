"""``torch.backends.mkl``: answers as torch's CPU build (gradtrack's BLAS is OpenBLAS).

>>> import gradtrack
>>> gradtrack.backends.mkl.is_available()
True
"""


def is_available():
    """True, as torch's CPU build answers.

    >>> import gradtrack
    >>> gradtrack.backends.mkl.is_available()
    True
    """
    return True
