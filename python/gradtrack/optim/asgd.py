"""``optim.ASGD``: PyTorch 2.13's averaged stochastic gradient descent.

NOTE [ASGD update]
Per parameter with a gradient ``g`` (negated under ``maximize``, plus
``weight_decay * p`` when set), with the 0-dim state tensors ``eta`` and
``mu`` and ``step`` counted from 1::

    p = p * (1 - lambd * eta) - eta * g
    ax = p                      if mu == 1
    ax = ax + mu * (p - ax)     otherwise
    eta = lr / (1 + lambd * lr * step) ** alpha
    mu = 1 / max(1, step - t0)

``eta`` and ``mu`` are computed in double precision and stored in the state
dtype, as PyTorch does.
"""

from typing import Any

from .. import _C
from ._adaptive import (as_float, check_tensor_lr, fill_group_defaults, grad_of, new_step,
                        run_step, scalar_dtype, zeros_like)
from .optimizer import Optimizer

_Tensor = _C.Tensor
_CAPTURABLE_MESSAGE = ("If capturable=True, params, mus, etas, and state_steps must be on "
                       "supported devices: ['cuda', 'xpu', 'hpu', 'privateuseone', 'xla'].")


class ASGD(Optimizer):
    """Averaged SGD: SGD whose running average of the parameters is kept in
    ``state['ax']``.

    >>> import gradtrack
    >>> from gradtrack import optim
    >>> w = gradtrack.tensor([1.0, -2.0], requires_grad=True)
    >>> opt = optim.ASGD([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w
    tensor([ 0.8000, -1.6000], requires_grad=True)
    """

    def __init__(self, params: Any, lr: Any = 1e-2, lambd: float = 1e-4, alpha: float = 0.75,
                 t0: float = 1e6, weight_decay: float = 0, foreach: bool | None = None,
                 maximize: bool = False, differentiable: bool = False,
                 capturable: bool = False) -> None:
        check_tensor_lr(lr)
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0,
                    "weight_decay": weight_decay, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        fill_group_defaults(self, {"foreach": None, "maximize": False, "differentiable": False,
                                   "capturable": False})
        # eta and mu, like step, were numbers in old state dicts
        for group in self.param_groups:
            for p in group["params"]:
                p_state = self.state.get(p, {})
                for key in ("eta", "mu"):
                    if len(p_state) != 0 and not isinstance(p_state[key], _Tensor):
                        p_state[key] = _C.tensor(float(p_state[key]), dtype=scalar_dtype())

    def step(self, closure=None):
        """One ASGD step for every parameter with a gradient; returns ``closure()``'s loss."""
        return run_step(self, closure, "ASGD.step", self._step_group)

    def _step_group(self, group):
        lambd, alpha, t0 = group["lambd"], group["alpha"], group["t0"]
        weight_decay = group["weight_decay"]
        lr = as_float(group["lr"])
        for p in group["params"]:
            grad = grad_of(p)
            if grad is None:
                continue
            state = self.state[p]
            if len(state) == 0:
                state["step"] = new_step()
                state["eta"] = _C.tensor(lr, dtype=scalar_dtype())
                state["mu"] = _C.tensor(1.0, dtype=scalar_dtype())
                state["ax"] = zeros_like(p)
            if group["capturable"]:
                raise AssertionError(_CAPTURABLE_MESSAGE)
            if group["maximize"]:
                grad = -grad
            eta, mu, ax, step_t = state["eta"], state["mu"], state["ax"], state["step"]
            step_t += 1
            if weight_decay != 0:
                grad = grad.add(p, alpha=weight_decay)
            eta_value = eta.item()
            p.mul_(1 - lambd * eta_value)
            p.add_(grad, alpha=-eta_value)
            if mu.item() != 1:
                ax.add_(p.sub(ax).mul_(mu))
            else:
                ax.copy_(p)
            step = step_t.item()
            eta.copy_(_C.tensor(lr / (1 + lambd * lr * step) ** alpha, dtype=_C.float64))
            mu.copy_(_C.tensor(1 / max(1, step - t0), dtype=_C.float64))
