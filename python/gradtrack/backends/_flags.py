"""The ``flags(...)`` context manager the backend modules share: set some module-level
flags for a block, then restore every one of them."""

import contextlib


@contextlib.contextmanager
def set_flags(module, values):
    """Sets ``module.<name> = value`` for each given (not None) value, restoring on exit."""
    given = {name: value for name, value in values.items() if value is not None}
    saved = {name: getattr(module, name) for name in given}
    for name, value in given.items():
        setattr(module, name, value)
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(module, name, value)
