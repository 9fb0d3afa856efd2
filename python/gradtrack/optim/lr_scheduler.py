"""Learning-rate schedulers, as ``torch.optim.lr_scheduler`` in PyTorch 2.13.

Each scheduler writes ``group['lr']`` of its optimizer on ``step()``; the
sequence of ``get_last_lr()`` values is PyTorch's to the last bit, because the
arithmetic is done in the same order (most schedulers are *chainable*: they
scale the current ``lr`` rather than recompute it from ``initial_lr``).

>>> import gradtrack
>>> from gradtrack import optim
>>> w = gradtrack.zeros(2, requires_grad=True)
>>> opt = optim.SGD([w], lr=1.0)
>>> sched = optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
>>> lrs = []
>>> for _ in range(5):
...     opt.step()
...     sched.step()
...     lrs.append(sched.get_last_lr()[0])
>>> lrs
[1.0, 0.5, 0.5, 0.25, 0.25]
"""

import math
import types
from bisect import bisect_right
from collections import Counter

from ._lr_base import (  # noqa: F401 - re-exported names are torch's
    EPOCH_DEPRECATION_WARNING, LRScheduler, _check_optimizer, _format_param, _group_values,
    _LRScheduler, _set_group_value, _warn_get_lr_called_within_step,
)
from .optimizer import Optimizer
from ._lr_cyclic import CosineAnnealingWarmRestarts, CyclicLR, OneCycleLR
from ._lr_plateau import ReduceLROnPlateau

__all__ = [
    "LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR", "LinearLR",
    "ExponentialLR", "SequentialLR", "CosineAnnealingLR", "ChainedScheduler",
    "ReduceLROnPlateau", "CyclicLR", "CosineAnnealingWarmRestarts", "OneCycleLR",
    "PolynomialLR", "LRScheduler",
]


def _lambdas(optimizer, lr_lambda):
    if not isinstance(lr_lambda, (list, tuple)):
        return [lr_lambda] * len(optimizer.param_groups)
    if len(lr_lambda) != len(optimizer.param_groups):
        raise ValueError(f"Expected {len(optimizer.param_groups)} lr_lambdas, but got "
                         f"{len(lr_lambda)}")
    return list(lr_lambda)


class _LambdaStateMixin:
    """state_dict of the lambda schedulers: a callable object's ``__dict__``,
    ``None`` for a plain function or lambda (those are not saved)."""

    def state_dict(self):
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [None if isinstance(fn, types.FunctionType) else fn.__dict__.copy()
                               for fn in self.lr_lambdas]
        return state

    def load_state_dict(self, state_dict):
        saved = state_dict.pop("lr_lambdas")
        self.__dict__.update(state_dict)
        state_dict["lr_lambdas"] = saved
        for fn, fn_state in zip(self.lr_lambdas, saved):
            if fn_state is not None:
                fn.__dict__.update(fn_state)


class LambdaLR(_LambdaStateMixin, LRScheduler):
    """``lr = initial_lr * lr_lambda(epoch)``.

    >>> import gradtrack
    >>> from gradtrack import optim
    >>> opt = optim.SGD([gradtrack.zeros(1, requires_grad=True)], lr=1.0)
    >>> sched = optim.lr_scheduler.LambdaLR(opt, lambda epoch: 0.5 ** epoch)
    >>> opt.step(); sched.step(); sched.get_last_lr()
    [0.5]
    """

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.optimizer = optimizer
        self.lr_lambdas = _lambdas(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        _warn_get_lr_called_within_step(self)
        return [base_lr * fn(self.last_epoch)
                for fn, base_lr in zip(self.lr_lambdas, self.base_lrs, strict=True)]


class MultiplicativeLR(_LambdaStateMixin, LRScheduler):
    """Each step multiplies ``lr`` by ``lr_lambda(epoch)``.

    >>> import gradtrack
    >>> from gradtrack import optim
    >>> opt = optim.SGD([gradtrack.zeros(1, requires_grad=True)], lr=1.0)
    >>> sched = optim.lr_scheduler.MultiplicativeLR(opt, lr_lambda=lambda epoch: 0.5)
    >>> lrs = []
    >>> for _ in range(3):
    ...     opt.step()
    ...     sched.step()
    ...     lrs.append(round(sched.get_last_lr()[0], 4))
    >>> lrs
    [0.5, 0.25, 0.125]
    """

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.optimizer = optimizer
        self.lr_lambdas = _lambdas(optimizer, lr_lambda)
        for fn in self.lr_lambdas:
            if not callable(fn):
                raise TypeError(f"lr_lambda should be a function, but got {type(fn).__name__}")
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        _warn_get_lr_called_within_step(self)
        if self._is_initial:
            return _group_values(self.optimizer, "lr")
        return [group["lr"] * fn(self.last_epoch)
                for fn, group in zip(self.lr_lambdas, self.optimizer.param_groups, strict=True)]


class StepLR(LRScheduler):
    """Multiplies ``lr`` by ``gamma`` every ``step_size`` epochs.

    >>> import gradtrack
    >>> from gradtrack import optim
    >>> opt = optim.SGD([gradtrack.zeros(1, requires_grad=True)], lr=1.0)
    >>> sched = optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    >>> lrs = []
    >>> for _ in range(5):
    ...     opt.step()
    ...     sched.step()
    ...     lrs.append(round(sched.get_last_lr()[0], 4))
    >>> lrs
    [1.0, 0.5, 0.5, 0.25, 0.25]
    """

    def __init__(self, optimizer: Optimizer, step_size: int, gamma: float = 0.1, last_epoch: int = -1) -> None:
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        _warn_get_lr_called_within_step(self)
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return _group_values(self.optimizer, "lr")
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base_lr * self.gamma ** (self.last_epoch // self.step_size)
                for base_lr in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiplies ``lr`` by ``gamma`` at each milestone (twice at a repeated one).

    >>> import gradtrack
    >>> from gradtrack import optim
    >>> opt = optim.SGD([gradtrack.zeros(1, requires_grad=True)], lr=1.0)
    >>> sched = optim.lr_scheduler.MultiStepLR(opt, milestones=[1, 3], gamma=0.1)
    >>> lrs = []
    >>> for _ in range(4):
    ...     opt.step()
    ...     sched.step()
    ...     lrs.append(round(sched.get_last_lr()[0], 4))
    >>> lrs
    [0.1, 0.1, 0.01, 0.01]
    """

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        _warn_get_lr_called_within_step(self)
        if self.last_epoch not in self.milestones:
            return _group_values(self.optimizer, "lr")
        times = self.milestones[self.last_epoch]
        return [group["lr"] * self.gamma ** times for group in self.optimizer.param_groups]

    def load_state_dict(self, state_dict):
        """Restores the attributes; ``milestones`` is a Counter again after ``gradtrack.load``
        (which gives back plain dicts)."""
        super().load_state_dict(state_dict)
        self.milestones = Counter(self.milestones)

    def _get_closed_form_lr(self):
        milestones = sorted(self.milestones.elements())
        return [base_lr * self.gamma ** bisect_right(milestones, self.last_epoch)
                for base_lr in self.base_lrs]


class ConstantLR(LRScheduler):
    """``lr * factor`` until epoch ``total_iters``, then ``lr``.

    >>> import gradtrack
    >>> from gradtrack import optim
    >>> opt = optim.SGD([gradtrack.zeros(1, requires_grad=True)], lr=1.0)
    >>> sched = optim.lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=2)
    >>> lrs = []
    >>> for _ in range(3):
    ...     opt.step()
    ...     sched.step()
    ...     lrs.append(round(sched.get_last_lr()[0], 4))
    >>> lrs
    [0.5, 1.0, 1.0]
    """

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1):
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        _warn_get_lr_called_within_step(self)
        if self.last_epoch == 0:
            return [group["lr"] * self.factor for group in self.optimizer.param_groups]
        if self.last_epoch != self.total_iters:
            return _group_values(self.optimizer, "lr")
        return [group["lr"] * (1.0 / self.factor) for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base_lr * (self.factor + (self.last_epoch >= self.total_iters) * (1 - self.factor))
                for base_lr in self.base_lrs]


class LinearLR(LRScheduler):
    """Moves the factor linearly from ``start_factor`` to ``end_factor`` over ``total_iters``.

    >>> import gradtrack
    >>> from gradtrack import optim
    >>> opt = optim.SGD([gradtrack.zeros(1, requires_grad=True)], lr=1.0)
    >>> sched = optim.lr_scheduler.LinearLR(opt, start_factor=0.25, total_iters=3)
    >>> lrs = []
    >>> for _ in range(4):
    ...     opt.step()
    ...     sched.step()
    ...     lrs.append(round(sched.get_last_lr()[0], 4))
    >>> lrs
    [0.5, 0.75, 1.0, 1.0]
    """

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5,
                 last_epoch=-1):
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and "
                             "less or equal to 1.")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        _warn_get_lr_called_within_step(self)
        if self.last_epoch == 0:
            return [group["lr"] * self.start_factor for group in self.optimizer.param_groups]
        if self._is_initial or self.last_epoch > self.total_iters:
            return _group_values(self.optimizer, "lr")
        delta = self.end_factor - self.start_factor
        ratio = 1.0 + delta / (self.total_iters * self.start_factor
                               + (self.last_epoch - 1) * delta)
        return [group["lr"] * ratio for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base_lr * (self.start_factor + (self.end_factor - self.start_factor)
                           * min(self.total_iters, self.last_epoch) / self.total_iters)
                for base_lr in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Multiplies ``lr`` by ``gamma`` every epoch.

    >>> import gradtrack
    >>> from gradtrack import optim
    >>> opt = optim.SGD([gradtrack.zeros(1, requires_grad=True)], lr=1.0)
    >>> sched = optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)
    >>> lrs = []
    >>> for _ in range(3):
    ...     opt.step()
    ...     sched.step()
    ...     lrs.append(round(sched.get_last_lr()[0], 4))
    >>> lrs
    [0.9, 0.81, 0.729]
    """

    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        _warn_get_lr_called_within_step(self)
        if self._is_initial:
            return _group_values(self.optimizer, "lr")
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base_lr * self.gamma ** self.last_epoch for base_lr in self.base_lrs]


class PolynomialLR(LRScheduler):
    """Decays ``lr`` as ``(1 - epoch / total_iters) ** power`` until ``total_iters``.

    >>> import gradtrack
    >>> from gradtrack import optim
    >>> opt = optim.SGD([gradtrack.zeros(1, requires_grad=True)], lr=1.0)
    >>> sched = optim.lr_scheduler.PolynomialLR(opt, total_iters=4, power=2.0)
    >>> lrs = []
    >>> for _ in range(4):
    ...     opt.step()
    ...     sched.step()
    ...     lrs.append(round(sched.get_last_lr()[0], 4))
    >>> lrs
    [0.5625, 0.25, 0.0625, 0.0]
    """

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1):
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        _warn_get_lr_called_within_step(self)
        if self._is_initial or self.last_epoch > self.total_iters:
            return _group_values(self.optimizer, "lr")
        factor = ((1.0 - self.last_epoch / self.total_iters)
                  / (1.0 - (self.last_epoch - 1) / self.total_iters)) ** self.power
        return [group["lr"] * factor for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base_lr * (1.0 - min(self.total_iters, self.last_epoch) / self.total_iters)
                ** self.power for base_lr in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """Cosine from ``initial_lr`` down to ``eta_min`` over ``T_max`` epochs (and back up).

    >>> import gradtrack
    >>> from gradtrack import optim
    >>> opt = optim.SGD([gradtrack.zeros(1, requires_grad=True)], lr=1.0)
    >>> sched = optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4)
    >>> lrs = []
    >>> for _ in range(4):
    ...     opt.step()
    ...     sched.step()
    ...     lrs.append(round(sched.get_last_lr()[0], 4))
    >>> lrs
    [0.8536, 0.5, 0.1464, 0.0]
    """

    def __init__(self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0,  # noqa: N803 - torch's name
                 last_epoch: int = -1) -> None:
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        _warn_get_lr_called_within_step(self)
        groups = self.optimizer.param_groups
        if self._is_initial:
            return _group_values(self.optimizer, "lr")
        if self._step_count == 1 and self.last_epoch > 0:
            return [self.eta_min + (base_lr - self.eta_min)
                    * (1 + math.cos(self.last_epoch * math.pi / self.T_max)) / 2
                    for base_lr in self.base_lrs]
        if (self.last_epoch - 1 - self.T_max) % (2 * self.T_max) == 0:
            return [group["lr"] + (base_lr - self.eta_min) * (1 - math.cos(math.pi / self.T_max)) / 2
                    for base_lr, group in zip(self.base_lrs, groups, strict=True)]
        ratio = ((1 + math.cos(math.pi * self.last_epoch / self.T_max))
                 / (1 + math.cos(math.pi * (self.last_epoch - 1) / self.T_max)))
        return [ratio * (group["lr"] - self.eta_min) + self.eta_min for group in groups]

    def _get_closed_form_lr(self):
        return [self.eta_min + (base_lr - self.eta_min)
                * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for base_lr in self.base_lrs]


def _check_children(owner, optimizer, schedulers):
    name = type(owner).__name__
    for i, scheduler in enumerate(schedulers):
        if not hasattr(scheduler, "optimizer"):
            raise TypeError(f"{name} at index {i} should have `optimizer` as its attribute.")
        if isinstance(scheduler, ReduceLROnPlateau):
            raise ValueError(
                f"{name} does not support `ReduceLROnPlateau` scheduler as it requires "
                "additional kwargs to be specified when calling `step`, but got one at index "
                f"{i} in the given schedulers sequence.")
        if optimizer != scheduler.optimizer:
            raise ValueError(
                f"{name} expects all schedulers to belong to the same optimizer, but got "
                f"scheduler {type(scheduler).__name__} at index {i} has {scheduler.optimizer}, "
                f"which is different from {type(optimizer).__name__}.")


class _CompositeStateMixin:
    """state_dict of schedulers made of schedulers: each child's own state_dict."""

    def state_dict(self):
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_schedulers")}
        state["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return state

    def load_state_dict(self, state_dict):
        children = state_dict.pop("_schedulers")
        self.__dict__.update(state_dict)
        state_dict["_schedulers"] = children
        for scheduler, child_state in zip(self._schedulers, children):
            scheduler.load_state_dict(child_state)


class SequentialLR(_CompositeStateMixin, LRScheduler):
    """Runs ``schedulers[i]`` from ``milestones[i-1]`` on (each restarts at its milestone).

    >>> import gradtrack
    >>> from gradtrack import optim
    >>> opt = optim.SGD([gradtrack.zeros(1, requires_grad=True)], lr=1.0)
    >>> warm = optim.lr_scheduler.ConstantLR(opt, factor=0.1, total_iters=2)
    >>> decay = optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)
    >>> sched = optim.lr_scheduler.SequentialLR(opt, [warm, decay], milestones=[2])
    >>> lrs = []
    >>> for _ in range(4):
    ...     opt.step()
    ...     sched.step()
    ...     lrs.append(round(sched.get_last_lr()[0], 4))
    >>> lrs
    [0.1, 1.0, 0.9, 0.81]
    """

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1):
        name = type(self).__name__
        if len(schedulers) < 1:
            raise ValueError(f"{name} expects at least one scheduler, but got no scheduler.")
        _check_children(self, optimizer, schedulers)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                "Sequential Schedulers expects number of schedulers provided to be one more "
                "than the number of milestone points, but got number of schedulers "
                f"{len(schedulers)} and the number of milestones to be equal to "
                f"{len(milestones)}")
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        for group in optimizer.param_groups:
            _set_group_value(group, "lr", group["initial_lr"])
        # The children each took an initial step when created: undo those, then
        # let the first scheduler take its own initial step again.
        self.recursive_undo()
        first = self._schedulers[bisect_right(self._milestones, 0)]
        first._initial_step()
        self._last_lr = first.get_last_lr()

    def recursive_undo(self, sched=None):
        """Steps ``last_epoch`` of every (nested) child back by one."""
        node = self if sched is None else sched
        if hasattr(node, "_schedulers"):
            for child in node._schedulers:
                self.recursive_undo(child)
        elif hasattr(node, "last_epoch"):
            node.last_epoch -= 1

    def step(self):
        """Steps the scheduler whose span holds the new epoch."""
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            scheduler._update_lr(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()


class ChainedScheduler(_CompositeStateMixin, LRScheduler):
    """Steps every scheduler of a list, in order, at each ``step()``.

    >>> import gradtrack
    >>> from gradtrack import optim
    >>> opt = optim.SGD([gradtrack.zeros(1, requires_grad=True)], lr=1.0)
    >>> warm = optim.lr_scheduler.ConstantLR(opt, factor=0.1, total_iters=2)
    >>> decay = optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)
    >>> sched = optim.lr_scheduler.ChainedScheduler([warm, decay])
    >>> lrs = []
    >>> for _ in range(3):
    ...     opt.step()
    ...     sched.step()
    ...     lrs.append(round(sched.get_last_lr()[0], 4))
    >>> lrs
    [0.09, 0.81, 0.729]
    """

    def __init__(self, schedulers, optimizer=None):
        if len(schedulers) < 1:
            raise ValueError(f"{type(self).__name__} expects at least one scheduler to be "
                             "chained, but got no scheduler.")
        optimizer = optimizer or schedulers[0].optimizer
        _check_children(self, optimizer, schedulers)
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = _group_values(self._schedulers[-1].optimizer, "lr")

    def step(self):
        """Steps each scheduler once."""
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = _group_values(self._schedulers[-1].optimizer, "lr")


for _cls in (LRScheduler, ReduceLROnPlateau, CyclicLR, CosineAnnealingWarmRestarts, OneCycleLR):
    _cls.__module__ = __name__
del _cls
