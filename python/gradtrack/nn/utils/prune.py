"""``nn.utils.prune``: zeroing parts of a module's tensor through a mask, as torch's.

Pruning ``module.<name>`` moves the parameter to ``<name>_orig``, registers the mask as
the buffer ``<name>_mask`` and sets ``module.<name>`` to ``<name>_orig * <name>_mask``
(a plain attribute, recomputed by a forward pre-hook before each call), so gradients
reach ``<name>_orig`` only where the mask is one. Pruning the same tensor again
gathers the methods in a :class:`PruningContainer`, and each new method only looks at
what the mask still keeps. :func:`remove` makes the pruned tensor the parameter again.

Random methods draw with the same calls, in the same order, as torch's, so a seeded
program prunes the same entries.

>>> import gradtrack
>>> from gradtrack import nn
>>> from gradtrack.nn.utils import prune
>>> layer = nn.Linear(2, 2)
>>> _ = layer.weight.data.copy_(gradtrack.tensor([[1.0, -3.0], [0.5, 2.0]]))
>>> _ = prune.l1_unstructured(layer, "weight", amount=2)
>>> layer.weight
tensor([[ 0., -3.],
        [ 0.,  2.]], grad_fn=<MulBackward0>)
>>> [name for name, _ in layer.named_parameters()], [name for name, _ in layer.named_buffers()]
(['bias', 'weight_orig'], ['weight_mask'])
"""

from abc import ABC, abstractmethod
from collections.abc import Iterable

from ._pruning_checks import _check_amount, _check_structured, _count_to_prune
from .convert_parameters import parameters_to_vector

__all__ = ["BasePruningMethod", "PruningContainer", "Identity", "RandomUnstructured",
           "L1Unstructured", "RandomStructured", "LnStructured", "CustomFromMask", "identity",
           "random_unstructured", "l1_unstructured", "random_structured", "ln_structured",
           "global_unstructured", "custom_from_mask", "remove", "is_pruned"]


class BasePruningMethod(ABC):
    """The base of every pruning method: a subclass says which entries to zero
    (:meth:`compute_mask`) and its ``PRUNING_TYPE``; this class applies the mask to a
    module's tensor and keeps it applied as the module's forward pre-hook.

    >>> import gradtrack
    >>> from gradtrack.nn.utils import prune
    >>> class EveryOther(prune.BasePruningMethod):
    ...     PRUNING_TYPE = "unstructured"
    ...     def compute_mask(self, t, default_mask):
    ...         mask = default_mask.clone()
    ...         mask.view(-1)[::2] = 0
    ...         return mask
    >>> layer = gradtrack.nn.Linear(3, 2)
    >>> _ = EveryOther.apply(layer, "bias")
    >>> layer.bias_mask
    tensor([0., 1.])
    """

    # set by apply(): a method made by hand has none, and using it fails on this name
    _tensor_name: str

    def __call__(self, module, inputs):
        """The forward pre-hook: recomputes ``module.<name>`` from the current
        ``<name>_orig`` and ``<name>_mask``.

        >>> import gradtrack
        >>> from gradtrack.nn.utils import prune
        >>> _ = gradtrack.manual_seed(0)
        >>> layer = prune.identity(gradtrack.nn.Linear(3, 2), "bias")
        >>> layer.bias_orig.data.fill_(1.0)
        tensor([1., 1.])
        >>> _ = layer(gradtrack.zeros(1, 3))
        >>> layer.bias
        tensor([1., 1.], grad_fn=<MulBackward0>)
        """
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t, default_mask):
        """The new mask of ``t`` (a tensor of ones and zeros of its shape), given the
        mask ``default_mask`` it has so far; every subclass defines it.

        >>> import gradtrack
        >>> from gradtrack.nn.utils import prune
        >>> prune.L1Unstructured(amount=1).compute_mask(gradtrack.tensor([2.0, -1.0]),
        ...                                             gradtrack.ones(2))
        tensor([1., 0.])
        """

    def apply_mask(self, module):
        """``module``'s pruned tensor: ``<name>_orig`` times ``<name>_mask`` (in the
        original's dtype), so gradients flow to the original and not to the mask.

        >>> import gradtrack
        >>> from gradtrack.nn.utils import prune
        >>> _ = gradtrack.manual_seed(0)
        >>> layer = gradtrack.nn.Linear(3, 2)
        >>> method = prune.L1Unstructured.apply(layer, "bias", amount=1)
        >>> method.apply_mask(layer)
        tensor([-0.0000, 0.4578], grad_fn=<MulBackward0>)
        """
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned")
        mask = getattr(module, self._tensor_name + "_mask")
        orig = getattr(module, self._tensor_name + "_orig")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module, name, *args, importance_scores=None, **kwargs):
        """Prunes ``module.<name>`` with ``cls(*args, **kwargs)``, on top of any pruning
        it already has (the hooks then become one :class:`PruningContainer`), choosing
        by ``importance_scores`` (a tensor of the same shape; the tensor itself when
        None); returns the hook now in place.

        >>> import gradtrack
        >>> from gradtrack.nn.utils import prune
        >>> _ = gradtrack.manual_seed(0)
        >>> layer = gradtrack.nn.Linear(3, 2)
        >>> _ = prune.L1Unstructured.apply(layer, "weight", amount=2)
        >>> type(prune.L1Unstructured.apply(layer, "weight", amount=1)).__name__
        'PruningContainer'
        >>> layer.weight_mask
        tensor([[0., 1., 1.],
                [1., 0., 0.]])
        """
        method = cls._combined_with_earlier(module, name, *args, **kwargs)
        orig = getattr(module, name)
        if importance_scores is not None:
            if importance_scores.shape != orig.shape:
                raise AssertionError(f"importance_scores should have the same shape as "
                                     f"parameter {name} of {module}, got "
                                     f"{importance_scores.shape} vs {orig.shape}")
        else:
            importance_scores = orig
        first_pruning = not isinstance(method, PruningContainer)
        if first_pruning:
            from ... import ones_like
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
            default_mask = ones_like(orig)
        else:
            from ... import contiguous_format
            default_mask = getattr(module, name + "_mask").detach().clone(
                memory_format=contiguous_format)
        try:
            mask = method.compute_mask(importance_scores, default_mask=default_mask)
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            # a failed first pruning gives the module its parameter back (it is then
            # the module's last parameter, as in torch); a container stays as it was
            if first_pruning:
                module.register_parameter(name, getattr(module, name + "_orig"))
                del module._parameters[name + "_orig"]
            raise
        return method

    @classmethod
    def _combined_with_earlier(cls, module, name, *args, **kwargs):
        """``cls(*args, **kwargs)``, in a container with the method already pruning
        ``module.<name>`` if any (its hook is dropped: apply() registers the result)."""
        earlier = [(key, hook) for key, hook in module._forward_pre_hooks.items()
                   if isinstance(hook, BasePruningMethod) and hook._tensor_name == name]
        if len(earlier) > 1:
            raise AssertionError(f"Avoid adding multiple pruning hooks to the same tensor "
                                 f"{name} of module {module}. Use a PruningContainer.")
        for key, _ in earlier:
            del module._forward_pre_hooks[key]
        method = cls(*args, **kwargs)
        method._tensor_name = name
        if not earlier:
            return method
        old = earlier[0][1]
        if not isinstance(old, PruningContainer):
            old = PruningContainer(old)
        old.add_pruning_method(method)
        return old

    def prune(self, t, default_mask=None, importance_scores=None):
        """``t`` pruned by this method (``t`` times its new mask), without a module;
        the mask is chosen by ``importance_scores`` when given.

        >>> import gradtrack
        >>> from gradtrack.nn.utils import prune
        >>> prune.L1Unstructured(amount=0.5).prune(gradtrack.tensor([3.0, -1.0, 0.5, 2.0]))
        tensor([3., -0., 0., 2.])
        """
        if importance_scores is not None:
            if importance_scores.shape != t.shape:
                raise AssertionError(f"importance_scores should have the same shape as tensor "
                                     f"t, got {importance_scores.shape} vs {t.shape}")
        else:
            importance_scores = t
        if default_mask is None:
            from ... import ones_like
            default_mask = ones_like(t)
        return t * self.compute_mask(importance_scores, default_mask=default_mask)

    def remove(self, module) -> None:
        """Makes the pruning of ``module.<name>`` permanent: the parameter ``<name>``
        holds the pruned values, ``<name>_orig`` and ``<name>_mask`` are gone. The
        hook itself stays registered: the function :func:`remove` also drops it.

        >>> import gradtrack
        >>> from gradtrack.nn.utils import prune
        >>> _ = gradtrack.manual_seed(0)
        >>> layer = gradtrack.nn.Linear(3, 2)
        >>> prune.L1Unstructured.apply(layer, "bias", amount=1).remove(layer)
        >>> layer.bias
        Parameter containing:
        tensor([-0.0000, 0.4578], requires_grad=True)
        """
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned before pruning can be "
                                 f"removed")
        pruned = self.apply_mask(module)
        if hasattr(module, self._tensor_name):
            delattr(module, self._tensor_name)
        # the original Parameter object stays (an optimizer may hold it), with the
        # pruned values as its data
        orig = module._parameters[self._tensor_name + "_orig"]
        orig.data = pruned.data
        del module._parameters[self._tensor_name + "_orig"]
        del module._buffers[self._tensor_name + "_mask"]
        setattr(module, self._tensor_name, orig)


class PruningContainer(BasePruningMethod):
    """The pruning methods applied one after another to the same tensor; its mask is
    the last method's, computed on the part the earlier masks keep.

    >>> import gradtrack
    >>> from gradtrack.nn.utils import prune
    >>> layer = gradtrack.nn.Linear(3, 2)
    >>> _ = prune.l1_unstructured(layer, "weight", amount=1)
    >>> _ = prune.ln_structured(layer, "weight", amount=1, n=1, dim=0)
    >>> container = next(iter(layer._forward_pre_hooks.values()))
    >>> [type(m).__name__ for m in container], len(container)
    (['L1Unstructured', 'LnStructured'], 2)
    """

    def __init__(self, *args):
        self._pruning_methods = ()
        if len(args) == 1:
            self._tensor_name = args[0]._tensor_name
        for method in args:
            self.add_pruning_method(method)

    def add_pruning_method(self, method) -> None:
        """Appends ``method``, which must prune the container's tensor.

        >>> from gradtrack.nn.utils import prune
        >>> container = prune.PruningContainer()
        >>> container._tensor_name = "weight"
        >>> method = prune.Identity()
        >>> method._tensor_name = "weight"
        >>> container.add_pruning_method(method)
        >>> len(container)
        1
        """
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if method is not None and self._tensor_name != method._tensor_name:
            raise ValueError(f"Can only add pruning methods acting on the parameter named "
                             f"'{self._tensor_name}' to PruningContainer {self}. Found "
                             f"'{method._tensor_name}'")
        self._pruning_methods += (method,)

    def __len__(self) -> int:
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, idx):
        return self._pruning_methods[idx]

    def compute_mask(self, t, default_mask):
        """The last method's mask computed on what ``default_mask`` keeps: the kept
        entries for an unstructured method, the channels not all zero along its
        ``dim`` for a structured one, everything for a global one; entries pruned
        before stay pruned. When ``default_mask`` already has ``t``'s dtype it is
        written in place (torch does so too).

        >>> import gradtrack
        >>> from gradtrack.nn.utils import prune
        >>> container = prune.PruningContainer()
        >>> container._tensor_name = "w"
        >>> method = prune.L1Unstructured(amount=1)
        >>> method._tensor_name = "w"
        >>> container.add_pruning_method(method)
        >>> container.compute_mask(gradtrack.tensor([0.1, 5.0, 2.0]),
        ...                        gradtrack.tensor([0.0, 1.0, 1.0]))
        tensor([0., 1., 0.])
        """
        method = self._pruning_methods[-1]
        new_mask = default_mask.to(dtype=t.dtype)
        kind = method.PRUNING_TYPE
        if kind == "unstructured":
            where = default_mask == 1
        elif kind == "structured":
            if not hasattr(method, "dim"):
                raise AttributeError('Pruning methods of PRUNING_TYPE "structured" need to '
                                     "have the attribute `dim` defined.")
            n_dims = t.dim()
            dim = method.dim + n_dims if method.dim < 0 else method.dim
            if dim < 0:
                raise IndexError(f"Index is out of bounds for tensor with dimensions {n_dims}")
            channel_alive = default_mask.sum(dim=[d for d in range(n_dims) if d != dim]) != 0
            where = [slice(None)] * n_dims
            where[dim] = channel_alive  # a dim past the last is torch's IndexError here
            where = tuple(where)
        elif kind == "global":
            where = (slice(None),) * len(t.shape)
        else:
            raise ValueError(f"Unrecognized PRUNING_TYPE {kind}")
        partial = method.compute_mask(t[where], default_mask=default_mask[where])
        new_mask[where] = partial.to(dtype=new_mask.dtype)
        return new_mask


class Identity(BasePruningMethod):
    """Prunes nothing: the mask is all ones (useful to give a tensor the pruned
    form, ``<name>_orig`` and ``<name>_mask``).

    >>> import gradtrack
    >>> from gradtrack.nn.utils import prune
    >>> _ = gradtrack.manual_seed(0)
    >>> layer = gradtrack.nn.Linear(3, 2)
    >>> prune.Identity.apply(layer, "bias").compute_mask(layer.bias, layer.bias_mask)
    tensor([1., 1.])
    """

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        """``default_mask`` itself.

        >>> import gradtrack
        >>> from gradtrack.nn.utils import prune
        >>> prune.Identity().compute_mask(gradtrack.ones(2), gradtrack.tensor([0.0, 1.0]))
        tensor([0., 1.])
        """
        return default_mask

    @classmethod
    def apply(cls, module, name):
        """Gives ``module.<name>`` an all-ones mask; returns the hook.

        >>> import gradtrack
        >>> from gradtrack.nn.utils import prune
        >>> type(prune.Identity.apply(gradtrack.nn.Linear(3, 2), "bias")).__name__
        'Identity'
        """
        return super().apply(module, name)


class RandomUnstructured(BasePruningMethod):
    """Prunes ``amount`` entries (an int) or that share of them (a float), chosen at
    random: one uniform draw per entry, the largest draws pruned.

    >>> import gradtrack
    >>> from gradtrack.nn.utils import prune
    >>> _ = gradtrack.manual_seed(0)
    >>> prune.RandomUnstructured(amount=2).compute_mask(gradtrack.ones(4), gradtrack.ones(4))
    tensor([0., 0., 1., 1.])
    """

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _check_amount(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        """``default_mask`` with the chosen entries of ``t`` zeroed.

        >>> import gradtrack
        >>> from gradtrack.nn.utils import prune
        >>> _ = gradtrack.manual_seed(0)
        >>> prune.RandomUnstructured(amount=0.25).compute_mask(gradtrack.ones(4),
        ...                                                    gradtrack.ones(4))
        tensor([1., 0., 1., 1.])
        """
        from ... import contiguous_format, rand_like, topk
        count = _count_to_prune(self.amount, t.nelement())
        mask = default_mask.clone(memory_format=contiguous_format)
        if count != 0:
            draws = rand_like(t)
            mask.view(-1)[topk(draws.view(-1), k=count).indices] = 0
        return mask

    @classmethod
    def apply(cls, module, name, amount):
        """Prunes ``module.<name>`` at random; returns the hook.

        >>> import gradtrack
        >>> from gradtrack.nn.utils import prune
        >>> _ = gradtrack.manual_seed(0)
        >>> layer = gradtrack.nn.Linear(3, 2)
        >>> _ = prune.RandomUnstructured.apply(layer, "weight", amount=3)
        >>> layer.weight_mask
        tensor([[0., 0., 1.],
                [0., 1., 1.]])
        """
        return super().apply(module, name, amount=amount)


class L1Unstructured(BasePruningMethod):
    """Prunes the ``amount`` entries (an int) or that share of them (a float) of
    smallest absolute value.

    >>> import gradtrack
    >>> from gradtrack.nn.utils import prune
    >>> prune.L1Unstructured(amount=0.5).compute_mask(gradtrack.tensor([1.0, -4.0, 0.5, 2.0]),
    ...                                               gradtrack.ones(4))
    tensor([0., 1., 0., 1.])
    """

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _check_amount(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        """``default_mask`` with the entries of ``t`` of smallest absolute value zeroed.

        >>> import gradtrack
        >>> from gradtrack.nn.utils import prune
        >>> prune.L1Unstructured(amount=1).compute_mask(gradtrack.tensor([-3.0, 2.0]),
        ...                                             gradtrack.ones(2))
        tensor([1., 0.])
        """
        from ... import contiguous_format, topk
        count = _count_to_prune(self.amount, t.nelement())
        mask = default_mask.clone(memory_format=contiguous_format)
        if count != 0:
            mask.view(-1)[topk(t.abs().view(-1), k=count, largest=False).indices] = 0
        return mask

    @classmethod
    def apply(cls, module, name, amount, importance_scores=None):
        """Prunes the smallest entries of ``module.<name>`` (or those of smallest
        ``importance_scores``); returns the hook.

        >>> import gradtrack
        >>> from gradtrack.nn.utils import prune
        >>> _ = gradtrack.manual_seed(0)
        >>> layer = gradtrack.nn.Linear(3, 2)
        >>> _ = prune.L1Unstructured.apply(layer, "weight", amount=0.5)
        >>> layer.weight_mask
        tensor([[0., 1., 1.],
                [1., 0., 0.]])
        """
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


class RandomStructured(BasePruningMethod):
    """Prunes ``amount`` channels (an int) or that share of them (a float) along
    ``dim``, chosen at random: one uniform draw per channel, the smallest pruned.

    >>> import gradtrack
    >>> from gradtrack.nn.utils import prune
    >>> _ = gradtrack.manual_seed(0)
    >>> prune.RandomStructured(amount=1, dim=1).compute_mask(gradtrack.ones(2, 3),
    ...                                                      gradtrack.ones(2, 3))
    tensor([[1., 1., 0.],
            [1., 1., 0.]])
    """

    PRUNING_TYPE = "structured"

    def __init__(self, amount, dim=-1):
        _check_amount(amount)
        self.amount = amount
        self.dim = dim

    def compute_mask(self, t, default_mask):
        """``default_mask`` with the chosen channels of ``t`` along ``dim`` zeroed
        (``default_mask`` itself when none is).

        >>> import gradtrack
        >>> from gradtrack.nn.utils import prune
        >>> _ = gradtrack.manual_seed(0)
        >>> prune.RandomStructured(amount=0.5, dim=0).compute_mask(gradtrack.ones(2, 2),
        ...                                                        gradtrack.ones(2, 2))
        tensor([[0., 0.],
                [1., 1.]])
        """
        from ... import kthvalue, rand, zeros_like
        _check_structured(t, self.dim)
        channels = t.shape[self.dim]
        count = _count_to_prune(self.amount, channels)
        if count == 0:
            return default_mask
        draws = rand(channels)
        kept = draws > kthvalue(draws, k=count).values
        mask = zeros_like(t)
        mask[tuple(kept if d == self.dim % t.dim() else slice(None)
                   for d in range(t.dim()))] = 1
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module, name, amount, dim=-1):
        """Prunes random channels of ``module.<name>`` along ``dim``; returns the hook.

        >>> import gradtrack
        >>> from gradtrack.nn.utils import prune
        >>> _ = gradtrack.manual_seed(0)
        >>> layer = gradtrack.nn.Linear(3, 2)
        >>> _ = prune.RandomStructured.apply(layer, "weight", amount=1, dim=0)
        >>> layer.weight_mask
        tensor([[0., 0., 0.],
                [1., 1., 1.]])
        """
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Prunes the ``amount`` channels (an int) or that share of them (a float) along
    ``dim`` of smallest ``n``-norm (``n`` as ``gradtrack.norm``'s ``p``).

    >>> import gradtrack
    >>> from gradtrack.nn.utils import prune
    >>> t = gradtrack.tensor([[1.0, 0.1], [2.0, 0.2]])
    >>> prune.LnStructured(amount=1, n=2, dim=1).compute_mask(t, gradtrack.ones(2, 2))
    tensor([[1., 0.],
            [1., 0.]])
    """

    PRUNING_TYPE = "structured"

    def __init__(self, amount, n, dim=-1):
        _check_amount(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def compute_mask(self, t, default_mask):
        """``default_mask`` with the channels of ``t`` along ``dim`` of smallest norm
        zeroed (``default_mask`` itself when none is).

        >>> import gradtrack
        >>> from gradtrack.nn.utils import prune
        >>> t = gradtrack.tensor([[3.0, 4.0], [0.1, 0.1]])
        >>> prune.LnStructured(amount=0.5, n=1, dim=0).compute_mask(t, gradtrack.ones(2, 2))
        tensor([[1., 1.],
                [0., 0.]])
        """
        from ... import norm, topk, zeros_like
        _check_structured(t, self.dim)
        channels = t.shape[self.dim]
        count = _count_to_prune(self.amount, channels)
        dims = list(range(t.dim()))
        dim = dims[self.dim]  # an IndexError for a dim below -t.dim(), as in torch
        dims.remove(dim)
        # torch computes the norms and the kept channels even when nothing is pruned
        kept = topk(norm(t, p=self.n, dim=dims), k=channels - count, largest=True).indices
        if count == 0:
            return default_mask
        mask = zeros_like(t)
        mask[tuple(kept if d == dim else slice(None) for d in range(t.dim()))] = 1
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module, name, amount, n, dim, importance_scores=None):
        """Prunes the channels of ``module.<name>`` along ``dim`` of smallest norm (or
        those whose ``importance_scores`` have the smallest norm); returns the hook.

        >>> import gradtrack
        >>> from gradtrack.nn.utils import prune
        >>> _ = gradtrack.manual_seed(0)
        >>> layer = gradtrack.nn.Linear(3, 2)
        >>> _ = prune.LnStructured.apply(layer, "weight", amount=1, n=2, dim=1)
        >>> layer.weight_mask
        tensor([[1., 0., 1.],
                [1., 0., 1.]])
        """
        return super().apply(module, name, amount=amount, n=n, dim=dim,
                             importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    """Prunes where the given ``mask`` (of the tensor's shape) is zero.

    >>> import gradtrack
    >>> from gradtrack.nn.utils import prune
    >>> prune.CustomFromMask(gradtrack.tensor([0.0, 1.0])).prune(gradtrack.tensor([5.0, 6.0]))
    tensor([0., 6.])
    """

    PRUNING_TYPE = "global"

    def __init__(self, mask):
        self.mask = mask

    def compute_mask(self, t, default_mask):
        """``default_mask`` times the given mask.

        >>> import gradtrack
        >>> from gradtrack.nn.utils import prune
        >>> prune.CustomFromMask(gradtrack.tensor([0, 1])).compute_mask(
        ...     gradtrack.ones(2), gradtrack.tensor([1.0, 0.0]))
        tensor([0., 0.])
        """
        if default_mask.shape != self.mask.shape:
            raise AssertionError(f"default_mask shape {default_mask.shape} must match "
                                 f"self.mask shape {self.mask.shape}")
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module, name, mask):
        """Prunes ``module.<name>`` where ``mask`` is zero; returns the hook.

        >>> import gradtrack
        >>> from gradtrack.nn.utils import prune
        >>> _ = gradtrack.manual_seed(0)
        >>> layer = gradtrack.nn.Linear(3, 2)
        >>> _ = prune.CustomFromMask.apply(layer, "bias", gradtrack.tensor([1.0, 0.0]))
        >>> layer.bias
        tensor([-0.0114,  0.0000], grad_fn=<MulBackward0>)
        """
        return super().apply(module, name, mask=mask)


def identity(module, name):
    """Gives ``module.<name>`` the pruned form with an all-ones mask; returns ``module``.

    >>> import gradtrack
    >>> from gradtrack.nn.utils import prune
    >>> layer = prune.identity(gradtrack.nn.Linear(3, 2), "bias")
    >>> layer.bias_mask
    tensor([1., 1.])
    """
    Identity.apply(module, name)
    return module


def random_unstructured(module, name, amount):
    """Prunes ``amount`` entries (an int) or that share (a float) of ``module.<name>``
    at random; returns ``module``.

    >>> import gradtrack
    >>> from gradtrack.nn.utils import prune
    >>> _ = gradtrack.manual_seed(0)
    >>> prune.random_unstructured(gradtrack.nn.Linear(3, 2), "weight", amount=0.5).weight_mask
    tensor([[0., 0., 1.],
            [0., 1., 1.]])
    """
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module, name, amount, importance_scores=None):
    """Prunes the ``amount`` entries (an int) or that share (a float) of
    ``module.<name>`` of smallest absolute value (or of smallest ``importance_scores``);
    returns ``module``.

    >>> import gradtrack
    >>> from gradtrack.nn.utils import prune
    >>> _ = gradtrack.manual_seed(0)
    >>> prune.l1_unstructured(gradtrack.nn.Linear(3, 2), "bias", amount=1).bias
    tensor([-0.0000, 0.4578], grad_fn=<MulBackward0>)
    """
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name, amount, dim):
    """Prunes ``amount`` channels (an int) or that share (a float) of ``module.<name>``
    along ``dim`` at random; returns ``module``.

    >>> import gradtrack
    >>> from gradtrack.nn.utils import prune
    >>> _ = gradtrack.manual_seed(0)
    >>> prune.random_structured(gradtrack.nn.Linear(3, 2), "weight", 1, dim=1).weight_mask
    tensor([[1., 1., 0.],
            [1., 1., 0.]])
    """
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module, name, amount, n, dim, importance_scores=None):
    """Prunes the ``amount`` channels (an int) or that share (a float) of
    ``module.<name>`` along ``dim`` of smallest ``n``-norm (or whose
    ``importance_scores`` have the smallest); returns ``module``.

    >>> import gradtrack
    >>> from gradtrack.nn.utils import prune
    >>> _ = gradtrack.manual_seed(0)
    >>> prune.ln_structured(gradtrack.nn.Linear(3, 2), "weight", 0.5, n=2, dim=0).weight_mask
    tensor([[1., 1., 1.],
            [0., 0., 0.]])
    """
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs) -> None:
    """Prunes the ``(module, name)`` tensors of ``parameters`` as one: the entries
    are compared across all of them (by ``importance_scores[(module, name)]`` where
    given), with ``pruning_method(**kwargs)``, which must be unstructured; each tensor
    then gets its share as a :class:`CustomFromMask`.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> from gradtrack.nn.utils import prune
    >>> a, b = nn.Linear(2, 1, bias=False), nn.Linear(2, 1, bias=False)
    >>> _ = a.weight.data.copy_(gradtrack.tensor([[1.0, 4.0]]))
    >>> _ = b.weight.data.copy_(gradtrack.tensor([[3.0, 2.0]]))
    >>> prune.global_unstructured([(a, "weight"), (b, "weight")],
    ...                           pruning_method=prune.L1Unstructured, amount=2)
    >>> a.weight_mask, b.weight_mask
    (tensor([[0., 1.]]), tensor([[1., 0.]]))
    """
    from ... import ones_like
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    if importance_scores is None:
        importance_scores = {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    # ``parameters`` is walked three times, as torch does (a generator is used up by
    # the first walk, and then fails the same way there)
    scores = parameters_to_vector([importance_scores.get((module, name), getattr(module, name))
                                   for module, name in parameters])
    masks = parameters_to_vector([getattr(module, name + "_mask", ones_like(getattr(module, name)))
                                  for module, name in parameters])
    container = PruningContainer()
    container._tensor_name = "temp"
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError(f'Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. '
                        f"Found method {pruning_method} of type {method.PRUNING_TYPE}")
    container.add_pruning_method(method)
    final_mask = container.compute_mask(scores, masks)
    start = 0
    for module, name in parameters:
        param = getattr(module, name)
        size = param.numel()
        custom_from_mask(module, name, mask=final_mask[start:start + size].view_as(param))
        start += size


def custom_from_mask(module, name, mask):
    """Prunes ``module.<name>`` where ``mask`` is zero; returns ``module``.

    >>> import gradtrack
    >>> from gradtrack.nn.utils import prune
    >>> _ = gradtrack.manual_seed(0)
    >>> layer = prune.custom_from_mask(gradtrack.nn.Linear(3, 2), "bias",
    ...                                mask=gradtrack.tensor([0.0, 1.0]))
    >>> layer.bias
    tensor([-0.0000, 0.4578], grad_fn=<MulBackward0>)
    """
    CustomFromMask.apply(module, name, mask)
    return module


def remove(module, name):
    """Makes the pruning of ``module.<name>`` permanent and drops its hook: ``<name>``
    is a parameter again, holding the pruned values; returns ``module``.

    >>> import gradtrack
    >>> from gradtrack.nn.utils import prune
    >>> layer = prune.l1_unstructured(gradtrack.nn.Linear(3, 2), "bias", amount=1)
    >>> [n for n, _ in prune.remove(layer, "bias").named_parameters()]
    ['weight', 'bias']
    """
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            module._refresh_hook_flag()
            return module
    raise ValueError(f"Parameter '{name}' of module {module} has to be pruned before pruning "
                     f"can be removed")


def is_pruned(module) -> bool:
    """Whether ``module`` or any of its submodules has a pruning hook.

    >>> from gradtrack import nn
    >>> from gradtrack.nn.utils import prune
    >>> model = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
    >>> prune.is_pruned(model), prune.is_pruned(prune.identity(model[0], "weight"))
    (False, True)
    """
    return any(isinstance(hook, BasePruningMethod)
               for _, submodule in module.named_modules()
               for hook in submodule._forward_pre_hooks.values())
