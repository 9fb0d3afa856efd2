"""``optim.Adadelta``: PyTorch 2.13's Adadelta.

NOTE [Adadelta update]
Per parameter with a gradient ``g`` (negated under ``maximize``, plus
``weight_decay * p`` when set)::

    square_avg = rho * square_avg + (1 - rho) * g * g
    delta = sqrt(acc_delta + eps) / sqrt(square_avg + eps) * g
    acc_delta = rho * acc_delta + (1 - rho) * delta * delta
    p -= lr * delta

in PyTorch's order of operations, so the values match it bit for bit.
"""

from typing import Any

from .. import _C
from ._adaptive import (as_float, check_tensor_lr, fill_group_defaults, grad_of, new_step,
                        run_step, zeros_like)
from .optimizer import Optimizer

_Tensor = _C.Tensor
# torch.optim's capturable list for Adadelta, which leaves out 'xla'.
_CAPTURABLE_MESSAGE = ("If capturable=True, params and state_steps must be on supported devices: "
                       "['cuda', 'xpu', 'hpu', 'privateuseone'].")


class Adadelta(Optimizer):
    """Adadelta: step sizes from running averages of squared gradients and updates.

    >>> import gradtrack
    >>> from gradtrack import optim
    >>> w = gradtrack.tensor([1.0, -2.0], requires_grad=True)
    >>> opt = optim.Adadelta([w])
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w
    tensor([ 0.9968, -1.9968], requires_grad=True)
    """

    def __init__(self, params: Any, lr: Any = 1.0, rho: float = 0.9, eps: float = 1e-6,
                 weight_decay: float = 0, foreach: bool | None = None, *,
                 capturable: bool = False, maximize: bool = False,
                 differentiable: bool = False) -> None:
        check_tensor_lr(lr)
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize, "capturable": capturable, "foreach": foreach,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        fill_group_defaults(self, {"foreach": None, "maximize": False, "differentiable": False,
                                   "capturable": False})

    def step(self, closure=None):
        """One Adadelta step for every parameter with a gradient; returns ``closure()``'s loss."""
        return run_step(self, closure, "Adadelta.step", self._step_group)

    def _step_group(self, group):
        rho, eps, weight_decay = group["rho"], group["eps"], group["weight_decay"]
        params = [p for p in group["params"] if grad_of(p) is not None]
        for p in params:
            state = self.state[p]
            if len(state) == 0:
                state["step"] = new_step()
                state["square_avg"] = zeros_like(p)
                state["acc_delta"] = zeros_like(p)
        if group["capturable"] and params:
            raise AssertionError(_CAPTURABLE_MESSAGE)
        lr = as_float(group["lr"])
        for p in params:
            grad = grad_of(p)
            state = self.state[p]
            square_avg, acc_delta = state["square_avg"], state["acc_delta"]
            state["step"] += 1
            if group["maximize"]:
                grad = -grad
            if weight_decay != 0:
                grad = grad.add(p, alpha=weight_decay)
            square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
            std = square_avg.add(eps).sqrt_()
            delta = acc_delta.add(eps).sqrt_()
            if group["differentiable"]:
                delta = delta.clone()
            delta.div_(std).mul_(grad)
            acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
            p.add_(delta, alpha=-lr)
