"""``torch.functional``, the module old tutorials import functions from
(``torch.functional.einsum``, ``norm``, ``split``, ``tensordot``).

>>> import gradtrack
>>> gradtrack.functional.einsum('i,i->', gradtrack.ones(3), gradtrack.ones(3))
tensor(3.)
"""

from ._ops.linalg import cdist, einsum, tensordot  # noqa: F401
from ._ops.reduction import norm  # noqa: F401
from ._ops.unique import unique, unique_consecutive  # noqa: F401
from ._ops.views import split  # noqa: F401 - gradtrack's, with torch's names

__all__ = ["einsum", "norm", "split", "tensordot", "cdist", "unique", "unique_consecutive"]
