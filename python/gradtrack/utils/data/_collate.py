"""``default_collate`` / ``default_convert``: samples -> batch, as torch 2.13 does it.

Tensors are stacked along a new first dimension, NumPy arrays become tensors
(then stacked), Python floats a float64 tensor, ints an int64 tensor, strings
stay a list; dicts, namedtuples, tuples and lists are collated field by field.

>>> import gradtrack
>>> from gradtrack.utils.data import default_collate
>>> default_collate([(gradtrack.tensor([1.0, 2.0]), 0), (gradtrack.tensor([3.0, 4.0]), 1)])
[tensor([[1., 2.],
        [3., 4.]]), tensor([0, 1])]
>>> default_collate([{"x": 1.5, "name": "a"}, {"x": 2.5, "name": "b"}])
{'x': tensor([1.5000, 2.5000], dtype=gradtrack.float64), 'name': ['a', 'b']}
"""

import collections.abc
import copy
import re

import gradtrack

from ... import _C

__all__ = ["collate", "default_collate", "default_convert", "default_collate_fn_map",
           "default_collate_err_msg_format"]

# NumPy dtypes that cannot become tensors: strings, bytes, objects.
np_str_obj_array_pattern = re.compile(r"[SaUO]")

default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
    "found {}")


def _is_numpy_value(data):
    kind = type(data)
    return kind.__module__ == "numpy" and kind.__name__ not in ("str_", "string_")


def _rebuild_like(data, values, mutable_base):
    """A container of ``data``'s type holding ``values`` (a plain list/dict if it cannot)."""
    try:
        if isinstance(data, mutable_base):
            clone = copy.copy(data)
            if isinstance(values, dict):
                clone.update(values)
            else:
                for i, v in enumerate(values):
                    clone[i] = v
            return clone
        return type(data)(values)
    except TypeError:
        return values


def default_convert(data):
    """Turns NumPy arrays and scalars into tensors inside ``data`` (no batching).

    >>> import numpy as np
    >>> from gradtrack.utils.data import default_convert
    >>> default_convert({"a": np.arange(3)})
    {'a': tensor([0, 1, 2])}
    """
    if isinstance(data, _C.Tensor):
        return data
    if _is_numpy_value(data):
        if type(data).__name__ == "ndarray" and np_str_obj_array_pattern.search(data.dtype.str):
            return data
        return gradtrack.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        values = {key: default_convert(data[key]) for key in data}
        return _rebuild_like(data, values, collections.abc.MutableMapping)
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        values = [default_convert(d) for d in data]
        return _rebuild_like(data, values, collections.abc.MutableSequence)
    return data


def _collate_sequence(batch, elem, collate_fn_map):
    it = iter(batch)
    elem_size = len(next(it))
    if not all(len(e) == elem_size for e in it):
        raise RuntimeError("each element in list of batch should be of equal size")
    columns = [collate(samples, collate_fn_map=collate_fn_map)
               for samples in zip(*batch, strict=False)]
    if isinstance(elem, tuple):
        return columns
    return _rebuild_like(elem, columns, collections.abc.MutableSequence)


def collate(batch, *, collate_fn_map=None):
    """Collates ``batch`` with the function ``collate_fn_map`` gives each element type."""
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for collate_type in collate_fn_map:
            if isinstance(elem, collate_type):
                return collate_fn_map[collate_type](batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        values = {key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map)
                  for key in elem}
        return _rebuild_like(elem, values, collections.abc.MutableMapping)
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return elem_type(*(collate(samples, collate_fn_map=collate_fn_map)
                           for samples in zip(*batch, strict=False)))
    if isinstance(elem, collections.abc.Sequence):
        return _collate_sequence(batch, elem, collate_fn_map)
    raise TypeError(default_collate_err_msg_format.format(elem_type))


def collate_tensor_fn(batch, *, collate_fn_map=None):
    """Stacks the tensors along a new first dimension."""
    return _C.stack(list(batch), 0)


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    """NumPy arrays -> tensors, then collated as tensors."""
    elem = batch[0]
    if np_str_obj_array_pattern.search(elem.dtype.str) is not None:
        raise TypeError(default_collate_err_msg_format.format(elem.dtype))
    return collate([gradtrack.as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    """NumPy scalars -> one 1-D tensor of their dtype."""
    import numpy as np
    return gradtrack.as_tensor(np.asarray(batch))


def collate_float_fn(batch, *, collate_fn_map=None):
    """Python floats -> a float64 tensor."""
    return gradtrack.tensor(batch, dtype=gradtrack.float64)


def collate_int_fn(batch, *, collate_fn_map=None):
    """Python ints (and bools) -> an int64 (bool) tensor."""
    return gradtrack.tensor(batch)


def collate_str_fn(batch, *, collate_fn_map=None):
    """Strings (and bytes) stay a list."""
    return batch


default_collate_fn_map = {_C.Tensor: collate_tensor_fn}
try:
    import numpy as _np
    default_collate_fn_map[_np.ndarray] = collate_numpy_array_fn
    default_collate_fn_map[(_np.bool_, _np.number, _np.object_)] = collate_numpy_scalar_fn
except ImportError:  # pragma: no cover - numpy is a dependency
    pass
default_collate_fn_map[float] = collate_float_fn
default_collate_fn_map[int] = collate_int_fn
default_collate_fn_map[str] = collate_str_fn
default_collate_fn_map[bytes] = collate_str_fn


def default_collate(batch):
    """Collates a list of samples into a batch (see the module docstring).

    >>> import gradtrack
    >>> from gradtrack.utils.data import default_collate
    >>> default_collate([(gradtrack.tensor([1.0]), 0), (gradtrack.tensor([2.0]), 1)])
    [tensor([[1.],
            [2.]]), tensor([0, 1])]
    """
    return collate(batch, collate_fn_map=default_collate_fn_map)
