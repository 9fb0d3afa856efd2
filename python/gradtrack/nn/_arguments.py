"""How ``nn.functional`` reads the arguments its functions share: the reduction
(a string, or torch's deprecated ``size_average``/``reduce`` pair), softmax's
implicit dim, and a loss's input and target broadcast to each other.

A leaf: the modules of ``nn.functional`` (``functional.py``, ``_functional_layers.py``,
``_attention_functional.py``, ``_resample.py``) all read these, so they live below
every one of them and no functional module has to import another one back.
"""

import warnings

from .. import _C

_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _legacy_reduction(size_average, reduce):
    """Maps the deprecated ``size_average``/``reduce`` pair to a reduction string."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if size_average and reduce:
        result = "mean"
    elif reduce:
        result = "sum"
    else:
        result = "none"
    warnings.warn(f"size_average and reduce args will be deprecated, please use "
                  f"reduction='{result}' instead.", stacklevel=3)
    return result


def _reduction_enum(reduction):
    enum = _REDUCTIONS.get(reduction)
    if enum is not None:
        return enum
    if reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' "
                      "instead.", stacklevel=3)
        return 1
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _implicit_dim(name, ndim, stacklevel):
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call "
                  "to include dim=X as an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def _broadcast_pair(a, b):
    """torch.broadcast_tensors for two tensors: each expanded to the common shape (itself
    when it has it), with infer_size's error when the shapes do not broadcast."""
    sa, sb = tuple(a.shape), tuple(b.shape)
    if sa == sb:
        return a, b
    shape = tuple(_C._broadcast_shape(sa, sb))
    return (a if sa == shape else a.expand(shape)), (b if sb == shape else b.expand(shape))
