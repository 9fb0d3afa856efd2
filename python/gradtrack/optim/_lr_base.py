"""The learning-rate schedulers' base class and shared helpers.

``optim.lr_scheduler`` is the public module; it re-exports :class:`LRScheduler`
from here. The schedulers live in ``lr_scheduler`` (the simple ones),
``_lr_plateau`` and ``_lr_cyclic``, which all import this module, never one
another, so any of them can be imported first.
"""

import warnings
from functools import wraps
from typing import Any
from weakref import ref

from .. import _C
from .optimizer import Optimizer

_Tensor = _C.Tensor

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being "
    "deprecated where possible. Please use `scheduler.step()` to step the "
    "scheduler. During the deprecation, if epoch is different from None, the "
    "closed form is used instead of the new chainable form, where available. "
    "Please open an issue if you are unable to replicate your use case: "
    "https://github.com/pytorch/pytorch/issues/new/choose."
)

_HOW_TO = "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate"


def _copy_value(value):
    # A tensor lr is copied so a scheduler's list never aliases the group's tensor.
    return value.clone() if isinstance(value, _Tensor) else value


def _format_param(name, optimizer, param):
    """One value per param group: a list/tuple is checked, a scalar repeated."""
    if isinstance(param, (list, tuple)):
        if len(param) != len(optimizer.param_groups):
            raise ValueError(
                f"{name} must have the same length as optimizer.param_groups. "
                f"{name} has {len(param)} values, param_groups has "
                f"{len(optimizer.param_groups)}.")
    else:
        param = [param] * len(optimizer.param_groups)
    return [_copy_value(p) for p in param]


def _group_values(optimizer, key):
    return [_copy_value(group[key]) for group in optimizer.param_groups]


def _set_group_value(group, key, value):
    # A tensor lr is filled in place (its identity matters to compiled steps in torch).
    if isinstance(group[key], _Tensor):
        group[key].fill_(value.item() if isinstance(value, _Tensor) else value)
    else:
        group[key] = value


def _check_optimizer(optimizer):
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")


class _Flag:
    """Sets ``obj.<name>`` to True inside a ``with`` block (False after)."""

    def __init__(self, obj, name):
        self.obj, self.name = obj, name

    def __enter__(self):
        setattr(self.obj, self.name, True)
        return self

    def __exit__(self, *exc):
        setattr(self.obj, self.name, False)


def _track_optimizer_step(scheduler):
    """Wraps ``optimizer.step`` (once) so it records that it ran (``_opt_called``)."""
    opt = scheduler.optimizer
    if hasattr(opt.step, "_wrapped_by_lr_sched"):
        return
    opt_ref = ref(opt)
    func = opt.step.__func__

    @wraps(func)
    def wrapper(*args, **kwargs):
        target = opt_ref()
        target._opt_called = True
        return func.__get__(target, target.__class__)(*args, **kwargs)

    wrapper._wrapped_by_lr_sched = True
    opt.step = wrapper


class LRScheduler:
    """Base class of the schedulers: subclasses implement ``get_lr()``.

    Creating one sets ``group['initial_lr']`` (when missing) and takes the
    first step, so ``last_epoch`` is 0 afterwards.

    >>> import gradtrack
    >>> from gradtrack import optim
    >>> opt = optim.SGD([gradtrack.zeros(1, requires_grad=True)], lr=0.1)
    >>> sched = optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
    >>> sched.last_epoch, opt.param_groups[0]["initial_lr"]
    (0, 0.1)
    """

    _get_lr_called_within_step = False
    _is_initial = False

    def __init__(self, optimizer, last_epoch=-1):
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", _copy_value(group["lr"]))
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when "
                        "resuming scheduler with last_epoch >= 0.\n"
                        "This typically happens when:\n"
                        "1. You're trying to resume training from a checkpoint but haven't "
                        "properly loaded the optimizer state\n"
                        "2. You're using last_epoch >= 0 for a fresh training run (not "
                        "recommended)")
        self.base_lrs = _group_values(optimizer, "initial_lr")
        self.last_epoch = last_epoch
        _track_optimizer_step(self)
        self._initial_step()

    def _initial_step(self):
        """Resets the step count and takes the first step (in 'initial' mode)."""
        self._step_count = 0
        with _Flag(self, "_is_initial"):
            self.step()

    def state_dict(self):
        """Every attribute but the optimizer, as a dict."""
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict):
        """Restores the attributes saved by :meth:`state_dict`."""
        self.__dict__.update(state_dict)

    def get_last_lr(self) -> list[float]:
        """The learning rates the last ``step()`` set, one per param group."""
        return self._last_lr

    def get_lr(self):
        """Computes the next learning rates (called by ``step()``)."""
        raise NotImplementedError

    def step(self, epoch: Any = None) -> None:
        """Advances the schedule by one epoch (call it after ``optimizer.step()``)."""
        if self._step_count == 1:
            if not hasattr(self.optimizer.step, "_wrapped_by_lr_sched"):
                warnings.warn(
                    "Seems like `optimizer.step()` has been overridden after learning rate "
                    "scheduler initialization. Please, make sure to call `optimizer.step()` "
                    "before `lr_scheduler.step()`. See more details at " + _HOW_TO,
                    UserWarning, stacklevel=2)
            elif not getattr(self.optimizer, "_opt_called", False):
                warnings.warn(
                    "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In "
                    "PyTorch 1.1.0 and later, you should call them in the opposite order: "
                    "`optimizer.step()` before `lr_scheduler.step()`.  Failure to do this will "
                    "result in PyTorch skipping the first value of the learning rate schedule. "
                    "See more details at " + _HOW_TO,
                    UserWarning, stacklevel=2)
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch=None):
        with _Flag(self, "_get_lr_called_within_step"):
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                closed_form = getattr(self, "_get_closed_form_lr", None)
                values = closed_form() if closed_form is not None else self.get_lr()
        for group, lr in zip(self.optimizer.param_groups, values, strict=True):
            _set_group_value(group, "lr", lr)
        self._last_lr = _group_values(self.optimizer, "lr")


_LRScheduler = LRScheduler


def _warn_get_lr_called_within_step(scheduler):
    if not scheduler._get_lr_called_within_step:
        warnings.warn("To get the last learning rate computed by the scheduler, please use "
                      "`get_last_lr()`.", UserWarning, stacklevel=2)
