"""``nn.factory_kwargs``: the device/dtype/memory_format keywords a layer passes on to the
tensor factories, checked and collected into one dict."""

_FACTORY_KEYS = ("device", "dtype", "memory_format")
_ACCEPTED_KEYS = frozenset(_FACTORY_KEYS) | {"factory_kwargs"}


def factory_kwargs(kwargs):
    r"""Return a canonicalized dict of factory kwargs.

    ``kwargs`` may hold ``device``, ``dtype`` and ``memory_format``, plus a
    ``factory_kwargs`` dict whose entries are taken as they are (a way to pass a
    factory keyword whose name is already taken by the caller's own signature). Any other
    key raises ``TypeError``, and so does a key given both directly and inside
    ``factory_kwargs``. ``None`` gives an empty dict; the argument is never modified.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.factory_kwargs({"dtype": gradtrack.float64, "factory_kwargs": {"device": "cpu"}})
    {'device': 'cpu', 'dtype': gradtrack.float64}
    >>> nn.factory_kwargs(None)
    {}
    """
    if kwargs is None:
        return {}
    keys = kwargs.keys()
    if not keys <= _ACCEPTED_KEYS:
        raise TypeError(f"unexpected kwargs {keys - _ACCEPTED_KEYS}")
    result = dict(kwargs.get("factory_kwargs", {}))
    for key in _FACTORY_KEYS:
        if key not in kwargs:
            continue
        if key in result:
            raise TypeError(f"{key} specified twice, in **kwargs and in factory_kwargs")
        result[key] = kwargs[key]
    return result
