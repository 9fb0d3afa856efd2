"""``torch.backends.openmp``: gradtrack's kernels are built with OpenMP, as torch's.

>>> import gradtrack
>>> gradtrack.backends.openmp.is_available()
True
"""


def is_available():
    """True: gradtrack's kernels are built with OpenMP.

    >>> import gradtrack
    >>> gradtrack.backends.openmp.is_available()
    True
    """
    return True
