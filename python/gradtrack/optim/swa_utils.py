"""Stochastic weight averaging, as ``torch.optim.swa_utils``:
:class:`AveragedModel` (a running average of a model's parameters),
:class:`SWALR` (anneals each group's ``lr`` to a constant ``swa_lr``),
:func:`update_bn` (recomputes batch-norm statistics for the averaged weights)
and the averaging functions.

On the CPU PyTorch averages one tensor at a time with :func:`get_swa_avg_fn`
(its foreach kernels are for accelerators), so the running average here is
computed the same way and matches it bit for bit.

>>> import gradtrack
>>> from gradtrack import nn, optim
>>> from gradtrack.optim.swa_utils import AveragedModel
>>> model = nn.Linear(1, 1, bias=False)
>>> swa = AveragedModel(model)
>>> for value in (1.0, 2.0, 6.0):
...     with gradtrack.no_grad():
...         _ = model.weight.fill_(value)
...     swa.update_parameters(model)
>>> swa.module.weight, swa.n_averaged
(Parameter containing:
tensor([[3.]], requires_grad=True), tensor(3))
"""

import itertools
import math
import warnings
from copy import deepcopy
from typing import Any

from .. import _C
from ..autograd.grad_mode import no_grad
from ..nn.modules.batchnorm import _BatchNorm
from ..nn.modules.module import Module
from ._lr_base import LRScheduler, _format_param

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn", "get_swa_multi_avg_fn",
           "get_ema_avg_fn", "get_swa_avg_fn"]

_Tensor = _C.Tensor


def _check_decay(decay):
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] "
                         "range.")


def get_ema_multi_avg_fn(decay=0.999):
    """An exponential moving average over lists of tensors, in place:
    ``ema = lerp(ema, current, 1 - decay)``.

    >>> import gradtrack
    >>> from gradtrack.optim.swa_utils import get_ema_multi_avg_fn
    >>> ema = [gradtrack.zeros(2)]
    >>> get_ema_multi_avg_fn(0.5)(ema, [gradtrack.ones(2)], 1)
    >>> ema[0]
    tensor([0.5000, 0.5000])
    """
    _check_decay(decay)

    def ema_update(ema_param_list, current_param_list, _):
        with no_grad():
            if ema_param_list[0].is_floating_point() or ema_param_list[0].is_complex():
                for p_ema, p_model in zip(ema_param_list, current_param_list):
                    p_ema.lerp_(p_model, 1 - decay)
            else:
                for p_ema, p_model in zip(ema_param_list, current_param_list):
                    p_ema.copy_(p_ema * decay + p_model * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn():
    """The equal-weight running average over lists of tensors, in place.

    >>> import gradtrack
    >>> from gradtrack.optim.swa_utils import get_swa_multi_avg_fn
    >>> avg = [gradtrack.zeros(2)]
    >>> get_swa_multi_avg_fn()(avg, [gradtrack.ones(2)], 1)
    >>> avg[0]
    tensor([0.5000, 0.5000])
    """
    def swa_update(averaged_param_list, current_param_list, num_averaged):
        with no_grad():
            if averaged_param_list[0].is_floating_point() or averaged_param_list[0].is_complex():
                weight = 1 / (num_averaged + 1)
                if isinstance(weight, _Tensor):
                    weight = weight.item()
                for p_avg, p_model in zip(averaged_param_list, current_param_list):
                    p_avg.lerp_(p_model, weight)
            else:
                for p_avg, p_model in zip(averaged_param_list, current_param_list):
                    diff = p_model - p_avg
                    if isinstance(num_averaged, _Tensor):
                        p_avg.addcdiv_(diff, num_averaged + 1)
                    else:
                        p_avg.add_(diff, alpha=1.0 / (num_averaged + 1))

    return swa_update


def get_ema_avg_fn(decay=0.999):
    """``decay * ema + (1 - decay) * current`` (one tensor, out of place).

    >>> import gradtrack
    >>> from gradtrack.optim.swa_utils import get_ema_avg_fn
    >>> get_ema_avg_fn(0.5)(gradtrack.zeros(2), gradtrack.ones(2), 1)
    tensor([0.5000, 0.5000])
    """
    _check_decay(decay)

    def ema_update(ema_param, current_param, num_averaged):
        with no_grad():
            return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn():
    """``averaged + (current - averaged) / (num_averaged + 1)`` (one tensor, out of place).

    >>> import gradtrack
    >>> from gradtrack.optim.swa_utils import get_swa_avg_fn
    >>> get_swa_avg_fn()(gradtrack.zeros(2), gradtrack.ones(2), 3)
    tensor([0.2500, 0.2500])
    """
    def swa_update(averaged_param, current_param, num_averaged):
        with no_grad():
            return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


class AveragedModel(Module):
    """A copy of ``model`` whose parameters (and, with ``use_buffers=True``,
    buffers) are a running average of ``model``'s, updated by
    :meth:`update_parameters`; ``avg_fn`` / ``multi_avg_fn`` choose the average
    (equal weights by default).

    >>> from gradtrack import nn
    >>> from gradtrack.optim.swa_utils import AveragedModel, get_ema_multi_avg_fn
    >>> ema = AveragedModel(nn.Linear(2, 1), multi_avg_fn=get_ema_multi_avg_fn(0.99))
    >>> ema.n_averaged
    tensor(0)
    """

    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", _C.tensor(0, dtype=_C.int64))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        """Calls the averaged copy of the model."""
        return self.module(*args, **kwargs)

    def update_parameters(self, model):
        """Folds ``model``'s current parameters into the average (the first call
        copies them); buffers are copied unless ``use_buffers``."""
        with no_grad():
            self._update_parameters(model)

    def _update_parameters(self, model):
        if self.use_buffers:
            self_param = itertools.chain(self.module.parameters(), self.module.buffers())
            model_param = itertools.chain(model.parameters(), model.buffers())
        else:
            self_param, model_param = self.parameters(), model.parameters()
        averaged, current = [], []
        copy_param = bool(self.n_averaged == 0)
        for p_averaged, p_model in zip(self_param, model_param):
            p_model_ = p_model.detach()
            averaged.append(p_averaged.detach())
            current.append(p_model_)
            if copy_param:
                p_averaged.detach().copy_(p_model_)
        if self.n_averaged > 0:
            if self.multi_avg_fn is not None or self.avg_fn is None:
                for (p_list, m_list) in _group_by_dtype(averaged, current):
                    if self.multi_avg_fn:
                        self.multi_avg_fn(p_list, m_list, self.n_averaged)
                    else:
                        avg_fn = get_swa_avg_fn()
                        for p_averaged, p_model in zip(p_list, m_list):
                            p_averaged.copy_(avg_fn(p_averaged, p_model, self.n_averaged))
            else:
                for p_averaged, p_model in zip(averaged, current):
                    p_averaged.detach().copy_(
                        self.avg_fn(p_averaged.detach(), p_model, self.n_averaged))
        if not self.use_buffers:
            for b_swa, b_model in zip(self.module.buffers(), model.buffers()):
                b_swa.detach().copy_(b_model.detach())
        self.n_averaged += 1


def _group_by_dtype(averaged, current):
    groups: dict[Any, tuple[list, list]] = {}
    for p_avg, p_model in zip(averaged, current):
        lists = groups.setdefault(p_avg.dtype, ([], []))
        lists[0].append(p_avg)
        lists[1].append(p_model)
    return list(groups.values())


def update_bn(loader, model, device=None):
    """Recomputes the running statistics of every batch-norm layer of ``model``
    with one pass over ``loader`` (a cumulative average: momentum ``None``).

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> from gradtrack.optim.swa_utils import update_bn
    >>> model = nn.BatchNorm1d(1)
    >>> update_bn([gradtrack.tensor([[1.0], [3.0]])], model)
    >>> model.running_mean
    tensor([2.])
    """
    with no_grad():
        momenta = {}
        for module in model.modules():
            if isinstance(module, _BatchNorm):
                module.reset_running_stats()
                momenta[module] = module.momentum
        if not momenta:
            return
        was_training = model.training
        model.train()
        for module in momenta:
            module.momentum = None
        for input in loader:  # noqa: A001 - PyTorch's name
            if isinstance(input, (list, tuple)):
                input = input[0]  # noqa: A001
            if device is not None:
                input = input.to(device)  # noqa: A001
            model(input)
        for bn_module in momenta:
            bn_module.momentum = momenta[bn_module]
        model.train(was_training)


class SWALR(LRScheduler):
    """Anneals each group's ``lr`` to ``swa_lr`` over ``anneal_epochs`` steps
    (``'cos'`` or ``'linear'``), then holds it.

    >>> import gradtrack
    >>> from gradtrack import optim
    >>> from gradtrack.optim.swa_utils import SWALR
    >>> opt = optim.SGD([gradtrack.zeros(1, requires_grad=True)], lr=1.0)
    >>> sched = SWALR(opt, swa_lr=0.1, anneal_epochs=2, anneal_strategy="linear")
    >>> lrs = []
    >>> for _ in range(3):
    ...     opt.step(); sched.step(); lrs.append(round(sched.get_last_lr()[0], 4))
    >>> lrs
    [0.55, 0.1, 0.1]
    """

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos",
                 last_epoch=-1):
        swa_lrs = _format_param("swa_lr", optimizer, swa_lr)
        for value, group in zip(swa_lrs, optimizer.param_groups):
            group["swa_lr"] = value
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError("anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self):
        """The next learning rates: between each group's current ``lr`` and its
        ``swa_lr``, by the annealing function of the step."""
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please use "
                          "`get_last_lr()`.", UserWarning, stacklevel=2)
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_t = max(0, min(1, (step - 1) / max(1, self.anneal_epochs)))
        prev_alpha = self.anneal_func(prev_t)
        groups = self.optimizer.param_groups
        prev_lrs = [self._get_initial_lr(group["lr"], group["swa_lr"], prev_alpha)
                    for group in groups]
        t = max(0, min(1, step / max(1, self.anneal_epochs)))
        alpha = self.anneal_func(t)
        return [group["swa_lr"] * alpha + lr * (1 - alpha) for group, lr in zip(groups, prev_lrs)]

    def _set_anneal_func(self, anneal_strategy):
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal

    def state_dict(self):
        """Every attribute but the optimizer and the annealing function."""
        return {key: value for key, value in self.__dict__.items()
                if key not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict):
        """Restores :meth:`state_dict`'s attributes (and the annealing function)."""
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
