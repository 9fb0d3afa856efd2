"""``torch.multiprocessing``: the standard library's ``multiprocessing`` (every name of
it), plus torch's ``spawn``/``start_processes`` with its error reporting, and tensors that
travel through shared memory.

A tensor sent through a ``Queue``, a ``Pipe`` or a spawned ``Process``'s arguments moves
into shared memory and arrives sharing it with the sender (``reductions``): a model
whose ``share_memory()`` was called can be trained by several processes at once, each
with its own optimizer, and every process sees the others' updates (Hogwild). The
handle travels as a file descriptor (``file_descriptor``, the default) or as a file
name in ``/dev/shm`` (``file_system``), as torch's sharing strategies on Linux.

>>> import gradtrack.multiprocessing as mp
>>> mp.get_sharing_strategy()
'file_descriptor'
"""

import multiprocessing
from multiprocessing import *  # noqa: F401,F403

from .. import _shared_memory
from . import reductions
from .spawn import (ProcessContext, ProcessException, ProcessExitedException,  # noqa: F401
                    ProcessRaisedException, spawn, start_processes)

__all__ = multiprocessing.__all__ + ["ProcessContext", "ProcessExitedException",
                                     "ProcessRaisedException", "spawn", "start_processes",
                                     "get_sharing_strategy", "set_sharing_strategy",
                                     "get_all_sharing_strategies"]



def get_all_sharing_strategies():
    """The tensor-sharing strategies torch knows on Linux.

    >>> import gradtrack.multiprocessing as mp
    >>> sorted(mp.get_all_sharing_strategies())
    ['file_descriptor', 'file_system']
    """
    return set(_shared_memory.STRATEGIES)


def get_sharing_strategy():
    """The current sharing strategy (torch's default on Linux: ``file_descriptor``).

    >>> import gradtrack.multiprocessing as mp
    >>> mp.get_sharing_strategy()
    'file_descriptor'
    """
    return _shared_memory.strategy()


def set_sharing_strategy(new_strategy):
    """Sets how tensors are shared: ``"file_descriptor"`` (a memfd whose descriptor travels
    to the receiver) or ``"file_system"`` (a file in ``/dev/shm`` whose name travels).

    >>> import gradtrack.multiprocessing as mp
    >>> mp.set_sharing_strategy("file_descriptor")
    """
    _shared_memory.set_strategy(new_strategy)


reductions.init_reductions()


def _count_out_at_exit(_):
    # A forked child leaves by os._exit, past atexit: multiprocessing's exit finalizers
    # run, so the child counts itself out of its /dev/shm files there.
    from multiprocessing import util
    from .. import _C
    util.Finalize(None, _C._release_shared_names, exitpriority=-100)


class _ChildHook:
    """The object multiprocessing's after-fork registry keys the hook on."""


_child_hook = _ChildHook()
multiprocessing.util.register_after_fork(_child_hook, _count_out_at_exit)
