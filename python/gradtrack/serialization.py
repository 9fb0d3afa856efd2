"""``gradtrack.save`` / ``gradtrack.load`` in torch's checkpoint format, and the
``weights_only`` allow-list (``add_safe_globals``, ``safe_globals``, ...).

``save`` writes what ``torch.save`` writes, so ``torch.load`` reads a gradtrack
checkpoint and ``gradtrack.load`` reads a torch one (NOTE [Torch's checkpoint layout]
in ``_serialization/writer.py``). ``load`` defaults to ``weights_only=True``: a
restricted unpickler that rebuilds tensors and plain containers and refuses
everything else (NOTE [The weights-only unpickler]). Files written by earlier
gradtrack versions (a zip of ``.npy`` arrays and JSON) still load.

This module stays light (``import gradtrack`` imports it); the format's machinery,
and NumPy with it, load on the first save or load.
"""

import os
import pickle
import threading

__all__ = ["save", "load", "add_safe_globals", "get_safe_globals", "clear_safe_globals",
           "safe_globals", "get_unsafe_globals_in_checkpoint", "skip_data"]

DEFAULT_PROTOCOL = 2

UNSAFE_MESSAGE = (
    "In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` "
    "from `False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will "
    "likely succeed, but it can result in arbitrary code execution. Do it only if you got the "
    "file from a trusted source.")
_DOCS_MESSAGE = (
    "\n\nCheck the documentation of torch.load to learn more about types accepted by default "
    "with weights_only https://pytorch.org/docs/stable/generated/torch.load.html.")

_marked_safe_globals = set()


class _SerializationState(threading.local):
    """Per-thread settings of save and load (``skip_data``), as torch keeps them."""

    skip_data = False
    materialize_fake_tensors = False


_state = _SerializationState()


# ---- the allow-list ------------------------------------------------------------------------

def add_safe_globals(safe_globals: list) -> None:
    """Marks functions and classes as safe for ``load(weights_only=True)``: a checkpoint
    may then name (call, instantiate, set the state of) them. An item is the object, or
    ``(object, "module.qualname")`` when the checkpoint names it differently.

    >>> import collections, gradtrack
    >>> gradtrack.serialization.add_safe_globals([collections.defaultdict])
    >>> collections.defaultdict in gradtrack.serialization.get_safe_globals()
    True
    >>> gradtrack.serialization.clear_safe_globals()
    """
    global _marked_safe_globals
    _marked_safe_globals = _marked_safe_globals | set(safe_globals)


def get_safe_globals() -> list:
    """The globals :func:`add_safe_globals` marked as safe, as a list.

    >>> import gradtrack
    >>> gradtrack.serialization.get_safe_globals()
    []
    """
    return list(_marked_safe_globals)


def clear_safe_globals() -> None:
    """Forgets every global :func:`add_safe_globals` marked as safe.

    >>> import gradtrack
    >>> gradtrack.serialization.add_safe_globals([complex])
    >>> gradtrack.serialization.clear_safe_globals()
    >>> gradtrack.serialization.get_safe_globals()
    []
    """
    global _marked_safe_globals
    _marked_safe_globals = set()


class _SerializationState(threading.local):
    """Per-thread settings of save and load (``skip_data``), as torch keeps them."""

    skip_data = False
    materialize_fake_tensors = False


_state = _SerializationState()


class safe_globals:
    """Context manager marking globals as safe for ``load(weights_only=True)`` inside it.

    >>> import collections, gradtrack
    >>> with gradtrack.serialization.safe_globals([collections.defaultdict]):
    ...     len(gradtrack.serialization.get_safe_globals())
    1
    >>> gradtrack.serialization.get_safe_globals()
    []
    """

    def __init__(self, safe_globals: list) -> None:
        self.safe_globals = safe_globals

    def __enter__(self) -> None:
        add_safe_globals(self.safe_globals)

    def __exit__(self, type, value, tb) -> None:
        global _marked_safe_globals
        _marked_safe_globals = _marked_safe_globals - set(self.safe_globals)


def get_unsafe_globals_in_checkpoint(f) -> list[str]:
    """The globals (functions and classes, as ``"module.name"`` strings) that the
    checkpoint ``f`` (a path or a binary file) names and that ``load(weights_only=True)``
    would refuse: those neither on torch's default allow-list nor marked safe with
    :func:`add_safe_globals` or :class:`safe_globals`. The pickle is read, not run, so
    this is safe on a file you do not trust; a global only an object built while
    unpickling would bring in is not listed. As torch's, the list is in no
    particular order.

    >>> import collections, io, gradtrack
    >>> buffer = io.BytesIO()
    >>> gradtrack.save({"w": gradtrack.ones(2), "d": collections.defaultdict(list)}, buffer)
    >>> _ = buffer.seek(0)
    >>> sorted(gradtrack.serialization.get_unsafe_globals_in_checkpoint(buffer))
    ['builtins.list', 'collections.defaultdict']
    """
    from ._serialization import files
    from ._serialization.pickle_globals import globals_in_pickle
    from ._serialization.torch_names import TORCH_ALLOWED_NAMES
    from ._serialization.unpickler import user_globals
    safe = TORCH_ALLOWED_NAMES | set(user_globals(_marked_safe_globals))
    data = files.checkpoint_pickle(f)
    if data is None:  # an earlier gradtrack's archive: arrays and JSON, no globals
        return []
    return list(globals_in_pickle(data) - safe)


class skip_data:
    """Context manager under which :func:`save` writes a checkpoint's structure with
    every storage's record at its full size but holding zeros (torch's ``skip_data``
    leaves that space unwritten, which reads as zeros), so the bytes can be written
    separately; and :func:`load` allocates storages without reading their bytes, so
    loaded tensors have the saved shapes, dtypes and strides and unspecified values.
    Settings are per thread. ``materialize_fake_tensors`` is accepted for torch's
    signature; gradtrack has no fake tensors, so it changes nothing.

    >>> import io, gradtrack
    >>> buffer = io.BytesIO()
    >>> with gradtrack.serialization.skip_data():
    ...     gradtrack.save(gradtrack.arange(6.0).reshape(2, 3), buffer)
    >>> _ = buffer.seek(0)
    >>> gradtrack.load(buffer)
    tensor([[0., 0., 0.],
            [0., 0., 0.]])
    """

    def __init__(self, materialize_fake_tensors: bool = False):
        self.materialize_fake_tensors = materialize_fake_tensors

    def __enter__(self):
        self._old_skip_data = _state.skip_data
        self._old_materialize_fake_tensors = _state.materialize_fake_tensors
        _state.skip_data = True
        _state.materialize_fake_tensors = self.materialize_fake_tensors

    def __exit__(self, type, value, tb):
        _state.skip_data = self._old_skip_data
        _state.materialize_fake_tensors = self._old_materialize_fake_tensors


# ---- save ----------------------------------------------------------------------------------

def save(obj: object, f, pickle_module=pickle, pickle_protocol: int = DEFAULT_PROTOCOL,
         _use_new_zipfile_serialization: bool = True,
         _disable_byteorder_record: bool = False) -> None:
    """Saves ``obj`` to the path or binary file ``f`` in torch's checkpoint format, which
    ``torch.load`` reads. Tensors keep their dtype, strides and storage sharing; anything
    else is pickled, as ``torch.save`` does. Saving to a path is atomic: the file is
    written beside it, flushed to disk, then renamed over it, so an interrupted or failed
    save leaves the previous file as it was. The format is torch's zip format, or with
    ``_use_new_zipfile_serialization=False`` torch's format before 1.6 (a run of
    pickles and raw bytes), pickled by gradtrack's own pickler (``pickle_module`` is
    accepted and not used).

    >>> import io, gradtrack
    >>> buffer = io.BytesIO()
    >>> gradtrack.save({"w": gradtrack.tensor([1.0, 2.0])}, buffer)
    >>> _ = buffer.seek(0)
    >>> gradtrack.load(buffer)
    {'w': tensor([1., 2.])}
    """
    from ._serialization import files
    from ._serialization.writer import write_checkpoint
    skip = _state.skip_data
    if skip and not _use_new_zipfile_serialization:
        raise RuntimeError("Cannot use skip_data=True with _use_new_zipfile_serialization=False")

    def write(stream, folder):
        if not _use_new_zipfile_serialization:
            from ._serialization.legacy_format import write_legacy
            write_legacy(obj, stream, pickle_protocol)
            return
        write_checkpoint(obj, stream, folder, pickle_protocol,
                         byteorder_record=not _disable_byteorder_record, skip_data=skip)

    if isinstance(f, (str, os.PathLike)):
        files.save_atomically(os.fspath(f), write)
    else:
        if not hasattr(f, "write"):
            raise AttributeError("expected 'f' to be string, path, or a file-like object with "
                                 "a 'write' attribute")
        write(f, "archive")
        if hasattr(f, "flush"):
            f.flush()


# ---- load ----------------------------------------------------------------------------------

def _weights_only_message(message):
    # torch's wording around the unpickler's own error, by what that error is about.
    if "was not an allowed global by default." in message:
        return ("Weights only load failed. This file can still be loaded, to do so you have two "
                "options, \033[1mdo those steps only if you trust the source of the "
                f"checkpoint\033[0m. \n\t(1) {UNSAFE_MESSAGE}\n\t(2) Alternatively, to load "
                "with `weights_only=True` please check the recommended steps in the following "
                "error message.\n\tWeightsUnpickler error: " + message + _DOCS_MESSAGE)
    updated = f"Weights only load failed. {UNSAFE_MESSAGE}\n"
    if "is blocked" not in message:
        updated += ("Please file an issue with the following so that we can make "
                    "`weights_only=True` compatible with your use case: WeightsUnpickler "
                    "error: ")
    return updated + "\n\n" + message + _DOCS_MESSAGE


def _resolve_weights_only(weights_only, pickle_module):
    true_values = ("1", "y", "yes", "true")
    force_on = os.getenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "0").lower() in true_values
    force_off = os.getenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "0").lower() in true_values
    if force_on and force_off:
        raise RuntimeError("Only one of `TORCH_FORCE_WEIGHTS_ONLY_LOAD` or "
                           "`TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD` should be set, but both were set.")
    not_set = weights_only is None
    if not_set:
        weights_only = pickle_module is None
    if force_on:
        weights_only = True
    elif force_off and not_set:
        import warnings
        warnings.warn("Environment variable TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD detected, since the"
                      "`weights_only` argument was not explicitly passed to `torch.load`, "
                      "forcing weights_only=False.", UserWarning, stacklevel=3)
        weights_only = False
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
    return weights_only


def load(f, map_location=None, pickle_module=None, *, weights_only: bool | None = None,
         mmap: bool | None = None, **pickle_load_args):
    """Loads a checkpoint written by ``torch.save`` or :func:`save` (or by an earlier
    gradtrack's ``save``) from the path or binary file ``f``.

    ``weights_only=True`` (the default) rebuilds only tensors, parameters,
    numbers, strings and plain containers, plus what :func:`add_safe_globals` allows;
    any other name in the file raises ``pickle.UnpicklingError`` before it runs.
    ``weights_only=False`` unpickles everything: only for files you trust.
    ``map_location`` (a device, a string, a dict such as ``{"cuda:0": "cpu"}``, or a
    callable) must place every storage on the CPU. ``mmap=True`` maps storages from
    the file instead of reading them. Files in torch's format before 1.6
    (``_use_new_zipfile_serialization=False``) load too, but not with ``mmap``.
    Under :class:`skip_data`, storages are allocated and their bytes not read.

    >>> import io, gradtrack
    >>> buffer = io.BytesIO()
    >>> gradtrack.save([gradtrack.arange(3), 5], buffer)
    >>> _ = buffer.seek(0)
    >>> gradtrack.load(buffer)
    [tensor([0, 1, 2]), 5]
    """
    from ._serialization import files
    weights_only = _resolve_weights_only(weights_only, pickle_module)
    if pickle_load_args and weights_only:
        import warnings
        warnings.warn("pickle_load_args only works if `weights_only=False`.", stacklevel=2)
    if mmap and not isinstance(f, (str, os.PathLike)):
        raise ValueError("f must be a file path in order to use the mmap argument")
    try:
        return files.load_file(f, map_location, weights_only, bool(mmap),
                               list(_marked_safe_globals), pickle_module, pickle_load_args,
                               _state.skip_data)
    except pickle.UnpicklingError as e:
        if not weights_only:
            raise
        raise pickle.UnpicklingError(_weights_only_message(str(e))) from None
