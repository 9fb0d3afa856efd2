"""``torch.multiprocessing``: the standard library's ``multiprocessing`` (every name of
it), plus torch's ``spawn``/``start_processes`` with its error reporting.

Tensors sent through a queue or a pipe arrive as copies. gradtrack has no shared-memory
tensors (``Tensor.share_memory_`` does not exist), so a Hogwild program that shares
a model between processes stops with an AttributeError rather than training separate
copies.

>>> import gradtrack.multiprocessing as mp
>>> mp.get_sharing_strategy()
'file_descriptor'
"""

import multiprocessing
from multiprocessing import *  # noqa: F401,F403

from .spawn import (ProcessContext, ProcessException, ProcessExitedException,  # noqa: F401
                    ProcessRaisedException, spawn, start_processes)

__all__ = multiprocessing.__all__ + ["ProcessContext", "ProcessExitedException",
                                     "ProcessRaisedException", "spawn", "start_processes",
                                     "get_sharing_strategy", "set_sharing_strategy",
                                     "get_all_sharing_strategies"]

_sharing = {"strategy": "file_descriptor"}


def get_all_sharing_strategies():
    """The tensor-sharing strategies torch knows on Linux.

    >>> import gradtrack.multiprocessing as mp
    >>> sorted(mp.get_all_sharing_strategies())
    ['file_descriptor', 'file_system']
    """
    return {"file_descriptor", "file_system"}


def get_sharing_strategy():
    """The current sharing strategy (torch's default on Linux: ``file_descriptor``).

    >>> import gradtrack.multiprocessing as mp
    >>> mp.get_sharing_strategy()
    'file_descriptor'
    """
    return _sharing["strategy"]


def set_sharing_strategy(new_strategy):
    """Sets the sharing strategy, as torch (tensors travel as copies in gradtrack).

    >>> import gradtrack.multiprocessing as mp
    >>> mp.set_sharing_strategy("file_descriptor")
    """
    if new_strategy not in get_all_sharing_strategies():
        raise AssertionError(f"Invalid sharing strategy: {new_strategy}")
    _sharing["strategy"] = new_strategy
