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
    """Maps the deprecated ``size_average``/``reduce`` pair to a reduction string.

    Its warning, and ``_reduction_enum``'s, name the library line that asked (torch's
    name a line of torch, not the user's), so the "default" filter shows each once."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if size_average and reduce:
        result = "mean"
    elif reduce:
        result = "sum"
    else:
        result = "none"
    warnings.warn(f"size_average and reduce args will be deprecated, please use "
                  f"reduction='{result}' instead.", stacklevel=2)
    return result


def _reduction_enum(reduction):
    enum = _REDUCTIONS.get(reduction)
    if enum is not None:
        return enum
    if reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' "
                      "instead.", stacklevel=2)
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


def assert_int_or_pair(arg, arg_name, message):
    """Raises ``AssertionError(message.format(arg_name))`` unless ``arg`` is an int or a
    pair.

    >>> import gradtrack.nn.functional as F
    >>> F.assert_int_or_pair((2, 3), "kernel_size", "{} must be int or pair")
    >>> F.assert_int_or_pair((2, 3, 4), "kernel_size", "{} must be int or pair")
    Traceback (most recent call last):
        ...
    AssertionError: kernel_size must be int or pair
    """
    if not (isinstance(arg, int) or len(arg) == 2):
        raise AssertionError(message.format(arg_name))


def boolean_dispatch(arg_name, arg_index, default, if_true, if_false, module_name, func_name):
    """A function that calls ``if_true`` or ``if_false`` by a boolean argument, found by
    keyword ``arg_name`` or at position ``arg_index`` (``default`` when absent), as
    ``max_pool2d`` picks its ``return_indices`` form. It takes the docstring of whichever
    of the two has one (both having one is a ``RuntimeError``).

    >>> import gradtrack.nn.functional as F
    >>> def pair(x, flag=False):
    ...     "Doubles, or pairs when flag is set."
    ...     return (x, x)
    >>> both = F.boolean_dispatch("flag", 1, False, pair, lambda x, flag=False: 2 * x,
    ...                           None, "both")
    >>> both(3), both(3, True), both(3, flag=True), both.__name__
    (6, (3, 3), (3, 3), 'both')
    """
    def fn(*args, **kwargs):
        if arg_name in kwargs:
            flag = kwargs[arg_name]
        elif arg_index < len(args):
            flag = args[arg_index]
        else:
            flag = default
        return if_true(*args, **kwargs) if flag else if_false(*args, **kwargs)

    if if_true.__doc__ is not None and if_false.__doc__ is not None:
        raise RuntimeError("only one function can have a docstring")
    doc = if_true.__doc__ if if_true.__doc__ is not None else if_false.__doc__
    if_true.__doc__ = if_false.__doc__ = doc
    fn.__doc__ = doc
    if module_name is not None:
        fn.__module__ = module_name
    if func_name is not None:
        fn.__name__ = func_name
    return fn
