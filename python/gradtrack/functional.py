"""``torch.functional``, the module old tutorials import functions from
(``torch.functional.einsum``, ``norm``, ``split``, ``tensordot``).

>>> import gradtrack
>>> gradtrack.functional.einsum('i,i->', gradtrack.ones(3), gradtrack.ones(3))
tensor(3.)
"""

from . import split  # noqa: F401 - gradtrack's, with torch's names
from ._extra_ops2 import einsum, norm, tensordot  # noqa: F401

__all__ = ["einsum", "norm", "split", "tensordot"]

# cdist (issue 19)
from ._search_ops import cdist  # noqa: E402,F401

__all__ += ["cdist"]

# unique with dim, unique_consecutive (issue 19)
from ._unique import unique, unique_consecutive  # noqa: E402,F401

__all__ += ["unique", "unique_consecutive"]
