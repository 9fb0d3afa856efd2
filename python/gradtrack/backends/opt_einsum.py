"""``torch.backends.opt_einsum``: whether the ``opt_einsum`` package is installed, and
the ``enabled``/``strategy`` flags, as torch. gradtrack's ``einsum`` contracts left to
right whatever they say.

>>> import gradtrack
>>> isinstance(gradtrack.backends.opt_einsum.is_available(), bool)
True
"""

import importlib.util


def is_available():
    """Whether the ``opt_einsum`` package can be imported.

    >>> import gradtrack
    >>> isinstance(gradtrack.backends.opt_einsum.is_available(), bool)
    True
    """
    return importlib.util.find_spec("opt_einsum") is not None


def get_opt_einsum():
    """The ``opt_einsum`` package if installed, else None.

    >>> import gradtrack
    >>> m = gradtrack.backends.opt_einsum.get_opt_einsum()
    """
    return importlib.import_module("opt_einsum") if is_available() else None


enabled = is_available()
strategy = "auto" if enabled else None
