"""Handles returned by ``register_hook`` and friends."""


class RemovableHandle:
    """Removes the hook it was returned for; usable as a context manager."""

    def __init__(self, handle):
        self._handle = handle

    @property
    def id(self):
        return self._handle.id

    def remove(self):
        """Unregisters the hook (idempotent)."""
        self._handle.remove()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()
