"""Building a module whose parameters the caller initializes (``torch.nn.utils.init``)."""

import inspect

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """``module_cls(*args, **kwargs)`` for a caller that initializes the parameters and
    buffers itself: their values are unspecified, and the random generators are left
    as they were, as torch (which builds the module on the meta device) leaves them.

    The class must take a ``device`` argument, as torch requires.

    >>> import gradtrack
    >>> _ = gradtrack.manual_seed(0)
    >>> before = gradtrack.get_rng_state()
    >>> m = gradtrack.nn.utils.skip_init(gradtrack.nn.Linear, 5, 1)
    >>> m.weight.shape, bool((gradtrack.get_rng_state() == before).all())
    (gradtrack.Size([1, 5]), True)
    """
    from ... import get_rng_state, set_rng_state
    from ..modules.module import Module

    if not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    # NOTE: gradtrack has no meta device: the constructor runs on the CPU and
    # its draws from the generator are undone.
    state = get_rng_state()
    try:
        return module_cls(*args, **kwargs)
    finally:
        set_rng_state(state)
